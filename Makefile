# agenthost: every target bootstraps its own Python 3.12 virtualenv (.venv) on a fresh machine.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SAM := $(VENV)/bin/sam
export PYTHONPATH := $(CURDIR):$(CURDIR)/functions:$(CURDIR)/layers/core
export SAM_CLI_TELEMETRY := 0
export AWS_DEFAULT_REGION ?= us-east-1
PYTEST_ARGS ?=
# AGENT=<name> (a package made by `make new-agent`) or AGENT=package.module:factory: your own agent plays
AGENT ?=
WITH_AGENT = $(if $(AGENT),AGENTHOST_AGENT=$(if $(findstring :,$(AGENT)),$(AGENT),$(AGENT).agent:create) )

.PHONY: dev test test-containers sam-local lint build deploy bench clean help seed werewolf-sim arena extension-run eval-client usage config-docs miniwob

help:
	@echo "make dev     run the whole stack locally (HTTP :3000, WebSocket :3001, Lambda :3002, DynamoDB :3003, function URLs :3004/:3005)"
	@echo "make test    run the test suite (unit, contract, e2e through the local stack)"
	@echo "make test-containers  the built artifacts in Docker: the browser image on Lambda's terms, sam local (CONTAINER_TESTS=...)"
	@echo "make sam-local  sam local invoke of every function (infra/events) against a local stack, answers checked"
	@echo "make lint    ruff, mypy on the shared core and the evaluation client, sam validate --lint"
	@echo "make build   sam build of every function (the browser image with Docker) for this machine's architecture (layers/stockfish/build.sh first)"
	@echo "make deploy  sam deploy (--guided the first time)"
	@echo "make bench   benchmarks in tests/perf (numbers printed, nothing asserted)"
	@echo "make config-docs  regenerate docs/CONFIGURATION.md from agenthost.config.Settings"
	@echo "make usage   cost report table (GET /usage of make dev; USAGE_ARGS=\"--url URL --agent A --from YYYY-MM-DD\")"
	@echo "make seed    load seed data (agents.json catalog) into the running local stack's table"
	@echo "make arena   play the AI Olympics task suite against the webhook (local stack, or ARENA_ARGS=\"--url ... --secret ...\")"
	@echo "make extension-run  the task suite through the Proxy API with a browser-extension emulator (EXTENSION_ARGS=\"--mode careful --decline --url ...\")"
	@echo "make miniwob the MiniWoB++ benchmark through the AI Olympics and Proxy API paths (MINIWOB_ARGS=\"--tasks ... --seeds 1,2 --jobs 2 --path proxy\")"
	@echo "make werewolf-sim  seeded Werewolf games against our webhook on the local stack (WEREWOLF_SIM_ARGS)"
	@echo "make eval-client  run evaluations from an evaluation server with our browser (EVAL_CLIENT_ARGS=\"--url wss://... --secret ...\")"
	@echo "make new-agent NAME=x  a starter package for your own agent (functions/x, its tests); then AGENT=x on"
	@echo "             dev, arena, extension-run, werewolf-sim and eval-client runs it instead of ours"
	@echo "make clean   remove build outputs and virtualenvs"

$(STAMP): requirements-dev.txt layers/core/requirements.txt infra/miniwob/requirements.txt infra/bootstrap.sh
	@bash infra/bootstrap.sh

$(SAM): | $(STAMP)
	@bash infra/bootstrap-sam.sh

dev: $(STAMP)
	$(WITH_AGENT)$(PY) -m infra.local

seed: $(STAMP)
	$(PY) -m infra.seed

ARENA_ARGS ?=
arena: $(STAMP)
	$(WITH_AGENT)$(PY) -m infra.arena $(ARENA_ARGS)

extension-run: $(STAMP)
	$(WITH_AGENT)$(PY) -m infra.extension $(EXTENSION_ARGS)

# MiniWoB++ (130 self-judging pages from the miniwob package) played through the local stack's webhook and
# Proxy API; MINIWOB_ARGS="--tasks click-test,enter-text --seeds 1,2 --jobs 2 --path olympics --json out.json"
MINIWOB_ARGS ?= --jobs 2
miniwob: $(STAMP)
	$(WITH_AGENT)$(PY) -m infra.miniwob $(MINIWOB_ARGS)

test: $(STAMP) $(SAM)
	$(PY) -m pytest -n 2 --dist loadfile --ignore=tests/containers $(PYTEST_ARGS)

# The built artifacts in real containers (tests/containers): Docker installed/started where we can
# (infra/docker.sh; it fails with the reason where we cannot), `make build`, then the tests.
CONTAINER_TESTS ?= tests/containers
test-containers: $(STAMP) $(SAM)
	@bash infra/docker.sh
	@$(MAKE) --no-print-directory build
	$(PY) -m pytest -n 2 --dist loadfile $(CONTAINER_TESTS)

# sam local invoke of every function with its sample event against a local stack's DynamoDB, each answer checked
sam-local:
	@$(MAKE) --no-print-directory test-containers CONTAINER_TESTS=tests/containers/test_sam_local.py

# mypy checks the core layer, the evaluation client and every function package together in one run (each
# functions/<name>/ is a top-level package, as on Lambda): the functions call the layer's typed API.
FUNCTION_PACKAGES := $(patsubst %/__init__.py,%,$(wildcard functions/*/__init__.py))
lint: $(STAMP) $(SAM)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy layers/core/agenthost infra/eval_client $(FUNCTION_PACKAGES)
	$(SAM) validate --lint

# With Docker: every function, the browser image included, for this machine's architecture (a copy of the
# template, infra/arch_template.py, where it is not arm64), base images pulled or built locally first
# (infra/images/base.sh). Without: the core layer and the zip functions from a copy of the template without
# image functions (infra/zip_template.py); deploying needs Docker.
ARCH_TEMPLATE := .template-local.json
build: $(STAMP) $(SAM)
	@bash layers/stockfish/build.sh
	@if docker info >/dev/null 2>&1; then \
		bash infra/images/base.sh && \
		.venv-sam/bin/python infra/arch_template.py template.yaml $(ARCH_TEMPLATE) && \
		PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(SAM) build --parallel --cached -t $(ARCH_TEMPLATE); \
	else \
		echo "build: no Docker here, so the browser function (a container image) is not built;"; \
		echo "build: building the core layer and the zip functions. Deploy from a machine with Docker."; \
		.venv-sam/bin/python infra/zip_template.py template.yaml .template-zip-only.json && \
		PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(SAM) build --parallel --cached -t .template-zip-only.json; \
	fi

# Builds template.yaml as it is (arm64: on another architecture Docker needs arm64 emulation for the image).
deploy: $(STAMP) $(SAM)
	@docker info >/dev/null 2>&1 || { echo "deploy: needs Docker to build the browser function's container image" >&2; exit 1; }
	@bash layers/stockfish/build.sh
	bash infra/images/base.sh
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(SAM) build --parallel --cached
	@if [ -f samconfig.toml ] && grep -Eq 'stack_name *= *"[^"]+"' samconfig.toml; then \
		$(SAM) deploy; else $(SAM) deploy --guided; fi

EVAL_CLIENT_ARGS ?=
eval-client: $(STAMP)
	$(WITH_AGENT)$(PY) -m infra.eval_client $(EVAL_CLIENT_ARGS)

WEREWOLF_SIM_ARGS ?= --mode all --games 3 --seats rotate
werewolf-sim: $(STAMP)
	$(WITH_AGENT)$(PY) -m infra.werewolf_sim $(WEREWOLF_SIM_ARGS)

NAME ?=
new-agent: $(STAMP)
	@$(PY) -m infra.new_agent $(NAME)

USAGE_ARGS ?=
usage: $(STAMP)
	$(PY) -m usage.cli $(USAGE_ARGS)

# docs/CONFIGURATION.md is generated from agenthost.config.Settings (a unit test checks it is current)
config-docs: $(STAMP)
	@mkdir -p docs && $(PY) -m agenthost.config > docs/CONFIGURATION.md

bench: $(STAMP)
	@for f in tests/perf/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf .aws-sam .template-zip-only.json .template-local.json .pytest_cache .mypy_cache .ruff_cache build dist layers/stockfish/build
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -rf $(VENV) .venv-sam
