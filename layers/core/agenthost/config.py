"""Typed settings, read once from the environment.

:class:`Settings` (a pydantic model) declares every variable agenthost reads, once, with its type,
default and a one-line description; modules read :func:`settings` and never the environment (tests set
the environment and call :func:`reset`). ``docs/CONFIGURATION.md`` is generated from it. Every setting
has an embedded default so the local stack runs with no configuration at all.

The environment is read by hand (:func:`_environment`, a dozen lines) rather than by pydantic-settings: its
import brings its CLI (argparse), dotenv and cloud-secret sources, none of which agenthost uses, and with
its model building that cost every function's cold start about 30-45 ms of CPU (``tests/perf/bench_health.py``,
issue 26). It reads each field's declared variables in order and nothing else (a variable named like the
field, ``HOST`` or ``LOCAL``, is not a setting: zsh exports ``HOST``, a CI or a Lambda has its own variables),
names compared without case, empty values counted as unset, the text handed to pydantic's validators as it is
(no JSON decoding: the lists here are comma-separated).
Secrets are not settings: :data:`SECRETS` declares them (for the docs) and :mod:`agenthost.secrets`
resolves them (a literal ``NAME`` locally, ``NAME_PARAM`` naming an SSM parameter or a Secrets Manager
secret when deployed).

Example::

    >>> from agenthost.config import settings
    >>> settings().table_name
    'agenthost'
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Annotated, Any

from pydantic import AliasChoices, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

_TRUE = {"1", "true", "yes", "on"}


def _flag(raw: Any) -> Any:
    """``1``/``true``/``yes``/``on`` (any case) is true, any other text false; empty is unset."""
    if isinstance(raw, str):
        return raw.strip().lower() in _TRUE
    return raw


def _csv(raw: Any) -> Any:
    """A comma-separated list (blank items dropped)."""
    if isinstance(raw, str):
        return tuple(p.strip() for p in raw.split(",") if p.strip())
    return raw


def _number_or_default(default: float, low: float = 0.0, high: float = float("inf")) -> Any:
    """A number clamped to ``low..high``; text that is not a number gives ``default`` (these settings never
    stopped a function from starting)."""

    def parse(raw: Any) -> Any:
        try:
            value = float(raw)
        except (TypeError, ValueError):
            return default
        return max(low, min(value, high))

    return parse


Flag = Annotated[bool, BeforeValidator(_flag)]
#: a flag whose default follows another setting (``None`` until the model resolves it)
LocalFlag = Annotated[bool | None, BeforeValidator(_flag)]
Csv = Annotated[tuple[str, ...], BeforeValidator(_csv)]


def _s(default: Any, env: str, description: str, *, shown: str | None = None, group: str = "core") -> Any:
    """A setting read from ``env``: its default, a one-line description, the default as the docs show it
    (when it is computed) and its group in the docs."""
    extra: dict[str, Any] = {"group": group}
    if shown is not None:
        extra["shown"] = shown
    alias: Any = AliasChoices(*env.split("|")) if "|" in env else env
    return Field(default, validation_alias=alias, description=description, json_schema_extra=extra)


class Settings(BaseModel):
    """Every setting agenthost reads from the environment, declared once: variable, type, default and a
    one-line description. Build with :func:`settings` (cached); ``docs/CONFIGURATION.md`` is generated from
    this class (``python -m agenthost.config``). Secrets are not settings: see :data:`SECRETS`."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    # -- core
    table_name: str = _s("agenthost", "AGENTHOST_TABLE", "DynamoDB table name (the template sets it)")
    region: str = _s("us-east-1", "AWS_REGION|AWS_DEFAULT_REGION", "AWS region (Lambda sets it)")
    local: Flag = _s(False, "AGENTHOST_LOCAL", "running in the local stack (it sets this)")
    llm: str = _s("none", "AGENTHOST_LLM", "`none` (deterministic policy), `bedrock:<model-id>` (a foundation model "
                  "or inference profile id) or `openai:<model>`")
    llm_base_url: str = _s("", "AGENTHOST_LLM_BASE_URL", "OpenAI-compatible base URL (OpenRouter, vLLM, Ollama...)",
                           shown="provider default")
    max_body_bytes: int = _s(1_048_576, "AGENTHOST_MAX_BODY_BYTES", "request body limit (413 beyond)")
    #: hosts (or CIDRs) that netguard lets through even though they are private/loopback
    netguard_allow: Csv = _s((), "AGENTHOST_NETGUARD_ALLOW", "comma-separated hosts or CIDRs outbound calls may "
                             "reach even though they are private")
    netguard_allow_private: LocalFlag = _s(None, "AGENTHOST_NETGUARD_ALLOW_PRIVATE", "let outbound calls reach "
                                      "private/loopback addresses (metadata endpoints never)",
                                      shown="`true` locally, else `false`")
    ws_endpoint: str = _s("", "AGENTHOST_WS_ENDPOINT", "the WebSocket API's management endpoint (the template "
                          "sets it)")
    browser_function: str = _s("BrowserFunction", "AGENTHOST_BROWSER_FUNCTION", "the browser function callers "
                               "invoke (deployed callers set it to the function's name)")
    cors_origins: Csv = _s((), "AGENTHOST_CORS_ORIGINS", "allowed CORS origins where a function enables CORS")
    agent: str = _s("", "AGENTHOST_AGENT", "bring your own agent: `package.module:factory` (our policy answers "
                    "whenever it cannot)")
    agent_timeout_s: Annotated[float, BeforeValidator(_number_or_default(0.0))] = _s(
        0.0, "AGENTHOST_AGENT_TIMEOUT_S", "most seconds your agent may take per decision (0: the turn's deadline)")
    stockfish: str = _s("", "AGENTHOST_STOCKFISH", "chess engine executable (else `stockfish` on the PATH or the "
                        "Stockfish layer)", shown="found")
    prices: str = _s("", "AGENTHOST_PRICES", "price table overrides (JSON or a file path), merged into "
                     "`prices.json`")
    service_name: str = _s("agenthost", "POWERTOOLS_SERVICE_NAME", "service name on log lines (Powertools)")
    metrics_namespace: str = _s("agenthost", "POWERTOOLS_METRICS_NAMESPACE", "CloudWatch namespace of the EMF "
                                "metrics")
    trace_disabled: Flag = _s(False, "POWERTOOLS_TRACE_DISABLED", "no X-Ray tracing even when deployed")
    lambda_function_name: str = _s("", "AWS_LAMBDA_FUNCTION_NAME", "set by Lambda: running deployed",
                                   shown="set by Lambda")
    lambda_memory_mb: int = _s(0, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "set by Lambda: the function's memory",
                               shown="set by Lambda")
    memory_mb: int = _s(512, "AGENTHOST_MEMORY_MB", "the memory metering prices when Lambda does not say")

    # -- turn budgets and the reserves cut from them (see agenthost.deadline), in seconds
    olympics_budget_s: Annotated[float, BeforeValidator(_number_or_default(20.0, 2.0, 25.0))] = _s(
        20.0, "AGENTHOST_OLYMPICS_BUDGET_S", "seconds an AI Olympics turn may take, cold start included (2..25; "
        "the platform cuts at 30)", group="budgets")
    olympics_reserve_s: float = _s(3.0, "AGENTHOST_OLYMPICS_RESERVE_S", "kept back from the Olympics LLM for the "
                                   "deterministic policy, the guard and the memory write", group="budgets")
    guard_reserve_s: float = _s(1.0, "AGENTHOST_GUARD_RESERVE_S", "kept back from the deterministic policy for "
                                "the guard and the memory write", group="budgets")
    answer_reserve_s: float = _s(0.5, "AGENTHOST_ANSWER_RESERVE_S", "a turn's last seconds, left for sending the "
                                 "answer (no memory write starts in them)", group="budgets")
    llm_validation_reserve_s: float = _s(1.0, "AGENTHOST_LLM_VALIDATION_RESERVE_S", "kept back from the web "
                                         "policy's model for validating its answer and the fallback",
                                         group="budgets")
    llm_call_reserve_s: float = _s(0.5, "AGENTHOST_LLM_CALL_RESERVE_S", "left for the model call when the LLM "
                                   "budget check runs", group="budgets")
    decide_budget_s: float = _s(20.0, "AGENTHOST_DECIDE_BUDGET_S", "a policy's budget when its caller gives no "
                                "deadline", group="budgets")
    runs_decide_budget_s: float = _s(18.0, "AGENTHOST_RUNS_DECIDE_BUDGET_S", "a Proxy API step's decision",
                                     group="budgets")
    api_budget_s: float = _s(10.0, "AGENTHOST_API_BUDGET_S", "an HTTP API request's budget (agents.json site, "
                             "evaluation admin, usage): its database calls fit in it, so a database that never "
                             "answers costs a 503 within it", group="budgets")
    runs_budget_s: float = _s(25.0, "AGENTHOST_RUNS_BUDGET_S", "a Proxy API request's budget, a `/step`'s "
                              "decision included (the HTTP API waits 30 s)", group="budgets")
    werewolf_budget_s: float = _s(20.0, "AGENTHOST_WEREWOLF_BUDGET_S", "a Werewolf turn (the platform waits 30 s, "
                                  "the Lambda 25 s)", group="budgets")
    werewolf_write_reserve_s: float = _s(3.0, "AGENTHOST_WEREWOLF_WRITE_RESERVE_S", "kept back from a Werewolf "
                                         "decision for the memory write (1 s connect + 2 s read)", group="budgets")
    werewolf_answer_reserve_s: float = _s(1.5, "AGENTHOST_WEREWOLF_ANSWER_RESERVE_S", "kept back from the "
                                          "Werewolf model for checking and assembling the answer", group="budgets")
    agent_reserve_s: float = _s(1.5, "AGENTHOST_AGENT_RESERVE_S", "kept back from your agent's decision (see "
                                "`AGENTHOST_AGENT`) for our fallback policy and the guards", group="budgets")

    # -- metering
    llm_budget_tokens: float | None = _s(None, "AGENTHOST_LLM_BUDGET_TOKENS", "daily LLM budget per agent, tokens "
                                         "in + out; past it the deterministic policy answers", shown="none",
                                         group="metering")
    llm_budget_usd: float | None = _s(None, "AGENTHOST_LLM_BUDGET_USD", "daily LLM budget per agent in dollars",
                                      shown="none", group="metering")
    llm_budgets: str = _s("", "AGENTHOST_LLM_BUDGETS", "per-agent budgets, JSON `{\"agent\": {\"tokens\": N, "
                          "\"usd\": X}}`", group="metering")
    budget_cache_s: float = _s(5.0, "AGENTHOST_BUDGET_CACHE_S", "how long a container reuses an agent's day "
                               "totals for budget checks", group="metering")
    usage_write_reserve_s: float = _s(2.0, "AGENTHOST_USAGE_WRITE_RESERVE_S", "a turn that wrote nothing adds its "
                                      "usage itself only with more than this left of its deadline (else the "
                                      "container's next write carries it)", group="metering")

    # -- AI Olympics
    olympics_agents: str = _s("", "AGENTHOST_OLYMPICS_AGENTS", "several agents: `<agentId>=<secret>,...` where "
                              "`<secret>` is a setting name or an SSM/Secrets Manager name; once set, an id it "
                              "does not list is refused (list the default agent as `<id>=AGENTHOST_OLYMPICS_SECRET`)",
                              group="olympics")

    # -- Werewolf
    werewolf_language: str = _s("zh", "AGENTHOST_WEREWOLF_LANGUAGE", "speech language (`zh` or `en`)",
                                group="werewolf")
    werewolf_personality: str = _s("calm", "AGENTHOST_WEREWOLF_PERSONALITY", "speaking personality: `calm`, "
                                   "`aggressive`, `friendly`", group="werewolf")
    werewolf_agent_id: str = _s("werewolf", "AGENTHOST_WEREWOLF_AGENT_ID", "the agent name Werewolf turns are "
                                "metered under", group="werewolf")

    # -- agents.json site
    agents_catalog: str = _s("default", "AGENTHOST_AGENTS_CATALOG", "catalog partition the site sells from",
                             group="agents")
    agents_catalog_cache_s: int = _s(30, "AGENTHOST_AGENTS_CATALOG_CACHE_S", "seconds a warm container reuses the "
                                     "catalog for search/browse", group="agents")
    agents_site_name: str = _s("Acme Ceramics", "AGENTHOST_AGENTS_SITE_NAME", "the site's name", group="agents")
    agents_site_contact: str = _s("", "AGENTHOST_AGENTS_SITE_CONTACT", "the site's contact", group="agents")
    agents_site_url: str = _s("", "AGENTHOST_AGENTS_SITE_URL", "the site's public base URL",
                              shown="from the request", group="agents")
    agents_site_id: str = _s("store", "AGENTHOST_AGENTS_SITE_ID", "the agent name agents.json calls are metered "
                             "under", group="agents")
    agents_checkout_ttl_s: int = _s(900, "AGENTHOST_AGENTS_CHECKOUT_TTL_S", "checkout link lifetime",
                                    group="agents")
    agents_session_ttl_s: int = _s(1800, "AGENTHOST_AGENTS_SESSION_TTL_S", "hard session lifetime",
                                   group="agents")
    agents_rate_limit: int = _s(120, "AGENTHOST_AGENTS_RATE_LIMIT", "requests per window per client (a live "
                                "session, else the source IP)", group="agents")
    agents_rate_window_s: int = _s(60, "AGENTHOST_AGENTS_RATE_WINDOW_S", "the rate limit's window",
                                   group="agents")

    # -- evaluation server
    evals_server_id: str = _s("agenthost-evals", "AGENTHOST_EVALS_SERVER_ID", "the server id sent to clients",
                              group="evals")
    evals_pages_url: str = _s("", "AGENTHOST_EVALS_PAGES_URL", "what `{pages}` in a definition's URL means",
                              shown="`http://127.0.0.1:8765` (the local suite's pages)", group="evals")
    evals_dir: str = _s("", "AGENTHOST_EVALS_DIR", "evaluation definitions folder",
                        shown="packaged `functions/evals/definitions`", group="evals")
    evals_pass_threshold: float = _s(1.0, "AGENTHOST_EVALS_PASS_THRESHOLD", "score (mean of the checks) an "
                                     "evaluation needs to pass; per evaluation `validation.pass_threshold`",
                                     group="evals")
    evals_disclose_secret: str = _s("", "AGENTHOST_EVALS_DISCLOSE_SECRET", "send the secret in `auth_required` "
                                    "like the reference server, for unmodified DevTools builds (opt-in)",
                                    shown="`false`", group="evals")
    evals_auto_create: LocalFlag = _s(None, "AGENTHOST_EVALS_AUTO_CREATE", "accept unknown client ids (else "
                                 "`rejected`)", shown="`true` locally, else `false`", group="evals")
    evals_default_concurrency: int = _s(3, "AGENTHOST_EVALS_DEFAULT_CONCURRENCY", "`maxConcurrency` when a client "
                                        "sends none", group="evals")
    evals_max_concurrency: int = _s(20, "AGENTHOST_EVALS_MAX_CONCURRENCY", "the cap on `maxConcurrency`",
                                    group="evals")
    evals_timer_target: str = _s("", "AGENTHOST_EVALS_TIMER_TARGET", "the function ARN deadline timers invoke",
                                 shown="this function", group="evals")
    evals_scheduler_role: str = _s("", "AGENTHOST_EVALS_SCHEDULER_ROLE", "the role EventBridge Scheduler assumes "
                                   "to invoke the timers", group="evals")
    evals_schedule_group: str = _s("", "AGENTHOST_EVALS_SCHEDULE_GROUP", "the schedule group of the timers",
                                   group="evals")
    evals_agent_id: str = _s("evals", "AGENTHOST_EVALS_AGENT_ID", "the agent name evaluation traffic is metered "
                             "under", group="evals")
    self_function: str = _s("", "AGENTHOST_SELF_FUNCTION", "what the evaluation function invokes for follow-up "
                            "work", shown="this function", group="evals")

    # -- Proxy API
    runs_self_function: str = _s("RunsFunction", "AGENTHOST_RUNS_SELF_FUNCTION", "what hosted runs invoke for "
                                 "their next step (the template sets `<stack>-runs:live`)", group="runs")
    runs_agent_id: str = _s("proxy", "AGENTHOST_RUNS_AGENT_ID", "the agent name Proxy API turns are metered under",
                            group="runs")
    runs_require_api_key: LocalFlag = _s(None, "AGENTHOST_RUNS_REQUIRE_API_KEY", "require the key on `/agent/*` "
                                    "(required but not configured: 503)", shown="`false` locally, else `true`",
                                    group="runs")
    runs_max_body_bytes: int = _s(262_144, "AGENTHOST_RUNS_MAX_BODY_BYTES", "Proxy API request body limit (413 "
                                  "beyond; a full snapshot is ~50 KB)", group="runs")
    runs_cors_origins: Csv = _s((), "AGENTHOST_RUNS_CORS_ORIGINS", "Proxy API CORS origins, comma-separated "
                                "(e.g. `chrome-extension://<id>`)", shown="`AGENTHOST_CORS_ORIGINS`", group="runs")
    runs_ttl_s: int = _s(86_400, "AGENTHOST_RUNS_TTL_S", "how long a run is kept (then 404)", group="runs")
    runs_max_steps: int = _s(150, "AGENTHOST_RUNS_MAX_STEPS", "default `maxSteps` of a run", group="runs")
    runs_hosted_stall_s: float = _s(120.0, "AGENTHOST_RUNS_HOSTED_STALL_S", "a hosted run with no progress for "
                                    "this long is ended with an error by the next `GET`", group="runs")

    # -- browser function
    browser_budget_s: Annotated[float, BeforeValidator(_number_or_default(50.0))] = _s(
        50.0, "AGENTHOST_BROWSER_BUDGET_S", "most seconds one browser invocation spends (deployed, also the "
        "Lambda's remaining time less 6 s; an event's `budget_ms` can lower it)", group="browser")
    chromium: str = _s("", "AGENTHOST_CHROMIUM", "Chromium executable for the browser function",
                       shown="Debian's headless shell if present, else `chromium` on the PATH", group="browser")

    # -- local stack and tools
    http_port: int = _s(3000, "AGENTHOST_HTTP_PORT", "local stack: HTTP APIs", group="local")
    ws_port: int = _s(3001, "AGENTHOST_WS_PORT", "local stack: WebSocket API", group="local")
    lambda_port: int = _s(3002, "AGENTHOST_LAMBDA_PORT", "local stack: Lambda invoke API", group="local")
    dynamodb_port: int = _s(3003, "AGENTHOST_DYNAMODB_PORT", "local stack: embedded DynamoDB", group="local")
    olympics_url_port: int = _s(3004, "AGENTHOST_OLYMPICS_URL_PORT", "local stack: the AI Olympics function URL",
                                group="local")
    werewolf_url_port: int = _s(3005, "AGENTHOST_WEREWOLF_URL_PORT", "local stack: the Werewolf function URL",
                                group="local")
    host: str = _s("127.0.0.1", "AGENTHOST_HOST", "local stack: the address every server binds (`sam local`'s "
                   "containers reach it on Docker's bridge gateway, e.g. 172.17.0.1)", group="local")
    dynamodb_endpoint: str = _s("", "AGENTHOST_DYNAMODB_ENDPOINT", "use DynamoDB Local or AWS instead of the "
                                "embedded server", shown="embedded", group="local")
    seed: Flag = _s(True, "AGENTHOST_SEED", "local stack: run the seeders in `infra/seed` at start", group="local")
    usage_url: str = _s("", "AGENTHOST_USAGE_URL", "`make usage`: the report's URL",
                        shown="`http://127.0.0.1:<http port>/usage`", group="local")

    @model_validator(mode="after")
    def _local_defaults(self) -> Settings:
        # settings whose default follows AGENTHOST_LOCAL (the model is frozen: set through the object)
        for name, default in (("netguard_allow_private", self.local), ("evals_auto_create", self.local),
                              ("runs_require_api_key", not self.local)):
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)
        return self

    @property
    def llm_provider(self) -> str:
        """``none``, ``bedrock`` or ``openai``."""
        return self.llm.split(":", 1)[0].strip().lower() or "none"

    @property
    def llm_model(self) -> str:
        """The model id after the provider prefix (``deterministic`` for ``none``)."""
        if self.llm_provider == "none":
            return "deterministic"
        return self.llm.split(":", 1)[1].strip() if ":" in self.llm else ""

    @property
    def llm_endpoint(self) -> str:
        """The base URL the LLM is reached at (empty for ``none``)."""
        if self.llm_provider == "bedrock":
            return self.llm_base_url or f"https://bedrock-runtime.{self.region}.amazonaws.com"
        if self.llm_provider == "openai":
            return (self.llm_base_url or "https://api.openai.com/v1").rstrip("/")
        return ""

    @property
    def memory(self) -> int:
        """The function's memory in MB (Lambda's figure, else ``memory_mb``)."""
        return self.lambda_memory_mb or self.memory_mb

    @classmethod
    def from_env(cls) -> Settings:
        """Read the environment; a value of the wrong type raises ``ValueError`` naming its variable."""
        try:
            return cls.model_validate(_environment(cls))
        except ValidationError as exc:
            bad = []
            for err in exc.errors():
                field = cls.model_fields.get(str(err["loc"][0])) if err["loc"] else None
                name = env_names(field)[0] if field is not None else str(err["loc"][0] if err["loc"] else "?")
                bad.append(f"{name}: {err['msg']}")
            raise ValueError("invalid setting " + "; ".join(bad)) from None


def _environment(model: type[BaseModel]) -> dict[str, str]:
    """The values ``model``'s fields get from the environment, keyed by the variable each was read from: of a
    field's declared variables (:func:`env_names`, never the field's own name), the first one set to a
    non-empty value; names compared without case."""
    env = {name.lower(): value for name, value in os.environ.items() if value != ""}
    found: dict[str, str] = {}
    for field in model.model_fields.values():
        for key in env_names(field):
            value = env.get(key.lower())
            if value is not None:
                found[key] = value
                break
    return found


def env_names(field: Any) -> list[str]:
    """The environment variables a field is read from, first the documented one."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [str(c) for c in alias.choices]
    return [str(alias)]


#: Secrets are not settings (no value lives in the environment when deployed): each is ``NAME`` (a literal,
#: the local stack) or ``NAME_PARAM`` (an SSM parameter or Secrets Manager secret), resolved by
#: :func:`agenthost.secrets.secret`.
SECRETS: dict[str, str] = {
    "AGENTHOST_LLM_API_KEY": "LLM API key",
    "AGENTHOST_OLYMPICS_SECRET": "AI Olympics webhook secret (`whs_...`; deployed: `OlympicsSecretParam`)",
    "AGENTHOST_WEREWOLF_API_KEY": "the agent's Werewolf Arena api key: `X-Werewolf-Signature` is required when "
                                  "set (401 otherwise); unset, unsigned requests are accepted as the spec allows",
    "AGENTHOST_AGENTS_CHECKOUT_SECRET": "key that signs checkout links; without one a random key is generated "
                                        "once and kept in the table",
    "AGENTHOST_EVALS_SECRET": "evaluation clients' shared secret (deployed: `EvalsSecretParam`); empty: no "
                              "authentication",
    "AGENTHOST_EVALS_CONNECT_TOKEN": "when set, `$connect` needs `?token=<value>`",
    "AGENTHOST_EVALS_ADMIN_KEY": "`x-api-key` for `/evals/*` (deployed without one: 503; locally open)",
    "AGENTHOST_USAGE_API_KEY": "`x-api-key` of `GET /usage` (deployed without one: 503; locally open)",
    "AGENTHOST_RUNS_API_KEY": "Proxy API key clients send as `x-api-key` (or `Authorization: Bearer`)",
}

GROUPS = {"core": "Core", "budgets": "Turn budgets and reserves (seconds)", "metering": "Metering and LLM budgets",
          "olympics": "AI Olympics", "werewolf": "Werewolf Arena", "agents": "agents.json site",
          "evals": "Evaluation server", "runs": "Proxy API", "browser": "Browser function",
          "local": "Local stack and tools"}


def _shown_default(field: Any) -> str:
    extra = field.json_schema_extra or {}
    if "shown" in extra:
        return str(extra["shown"])
    value = field.default
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if value in ("", (), None):
        return "empty"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`"


def markdown() -> str:
    """``docs/CONFIGURATION.md``: every setting and secret, generated from :class:`Settings`."""
    lines = ["# Configuration", "",
             "Generated from `agenthost.config.Settings` by `python -m agenthost.config > docs/CONFIGURATION.md`;",
             "a unit test fails when this file and the model differ. Every setting has a default, so the local",
             "stack runs with no configuration. Empty values count as unset. Only the names listed here are read:",
             "a variable named like a setting without its prefix (`HOST`, `SEED`, `LOCAL`) changes nothing.", ""]
    by_group: dict[str, list[str]] = {}
    for field in Settings.model_fields.values():
        group = (field.json_schema_extra or {}).get("group", "core")  # type: ignore[union-attr]
        env = " / ".join(f"`{n}`" for n in env_names(field))
        by_group.setdefault(str(group), []).append(f"| {env} | {_shown_default(field)} | {field.description} |")
    for group, title in GROUPS.items():
        lines += [f"## {title}", "", "| variable | default | meaning |", "|---|---|---|", *by_group.get(group, []), ""]
    lines += ["## Secrets", "",
              "Each is set as `NAME` (a literal, for the local stack) or `NAME_PARAM`: an SSM parameter (`/path` or",
              "`ssm:/path`) or a Secrets Manager secret (`secretsmanager:name`), fetched with short timeouts and",
              "cached for 5 minutes, so a rotated value reaches warm containers.", "",
              "| variable | meaning |", "|---|---|"]
    lines += [f"| `{name}` / `{name}_PARAM` | {text} |" for name, text in SECRETS.items()]
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=1)
def settings() -> Settings:
    """The process-wide settings, read from the environment on first use."""
    return Settings.from_env()


def raw(name: str) -> str:
    """The environment variable ``name`` as text (stripped; ``""`` when unset): for names only known at run
    time (a secret, a setting another setting names). Everything else is a field of :class:`Settings`."""
    return os.environ.get(name, "").strip()


def reset() -> None:
    """Forget cached settings (tests change the environment between cases; :func:`agenthost.secrets.reset`
    forgets cached secrets)."""
    settings.cache_clear()


if __name__ == "__main__":
    print(markdown(), end="")
