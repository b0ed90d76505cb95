import os
import re
from pathlib import Path

import pytest

from agenthost import config

ROOT = Path(__file__).resolve().parents[2]


def test_defaults(monkeypatch):
    monkeypatch.delenv("AGENTHOST_TABLE", raising=False)
    config.reset()
    s = config.settings()
    assert s.table_name == "agenthost"
    assert (s.llm_provider, s.llm_model, s.llm_endpoint) == ("none", "deterministic", "")
    assert s.local is False and s.netguard_allow_private is False


def test_llm_spec(monkeypatch):
    monkeypatch.setenv("AGENTHOST_LLM", "openai:gpt-4o-mini")
    monkeypatch.setenv("AGENTHOST_LLM_BASE_URL", "https://openrouter.ai/api/v1/")
    config.reset()
    s = config.settings()
    assert (s.llm_provider, s.llm_model, s.llm_endpoint) == ("openai", "gpt-4o-mini", "https://openrouter.ai/api/v1")
    monkeypatch.setenv("AGENTHOST_LLM", "bedrock:anthropic.claude-3-haiku")
    monkeypatch.delenv("AGENTHOST_LLM_BASE_URL")
    config.reset()
    assert config.settings().llm_endpoint == "https://bedrock-runtime.us-east-1.amazonaws.com"


def test_bad_integer_names_the_variable(monkeypatch):
    monkeypatch.setenv("AGENTHOST_MAX_BODY_BYTES", "lots")
    config.reset()
    with pytest.raises(ValueError, match="AGENTHOST_MAX_BODY_BYTES"):
        config.settings()


def test_values_are_parsed_like_the_variables_always_were(monkeypatch):
    monkeypatch.setenv("AGENTHOST_CORS_ORIGINS", " https://a.example, ,https://b.example ")
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "Yes")
    monkeypatch.setenv("AGENTHOST_SEED", "0")
    monkeypatch.setenv("AGENTHOST_OLYMPICS_BUDGET_S", "99")  # clamped to the platform's limits
    monkeypatch.setenv("AGENTHOST_BROWSER_BUDGET_S", "soon")  # not a number: the default, as before
    monkeypatch.setenv("AGENTHOST_RUNS_TTL_S", "")  # empty counts as unset
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-3")
    config.reset()
    s = config.settings()
    assert s.cors_origins == ("https://a.example", "https://b.example")
    assert s.trace_disabled is True and s.seed is False
    assert s.olympics_budget_s == 25.0 and s.browser_budget_s == 50.0 and s.runs_ttl_s == 86_400
    assert s.region == "eu-west-3"


def test_defaults_that_follow_the_local_stack(monkeypatch):
    for name in ("AGENTHOST_NETGUARD_ALLOW_PRIVATE", "AGENTHOST_EVALS_AUTO_CREATE", "AGENTHOST_RUNS_REQUIRE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENTHOST_LOCAL", "true")
    config.reset()
    s = config.settings()
    assert (s.netguard_allow_private, s.evals_auto_create, s.runs_require_api_key) == (True, True, False)
    monkeypatch.setenv("AGENTHOST_LOCAL", "false")
    monkeypatch.setenv("AGENTHOST_RUNS_REQUIRE_API_KEY", "false")
    config.reset()
    s = config.settings()
    assert (s.netguard_allow_private, s.evals_auto_create, s.runs_require_api_key) == (False, False, False)


def test_configuration_docs_are_generated_from_the_model():
    # regenerate with `make config-docs`
    assert (ROOT / "docs" / "CONFIGURATION.md").read_text() == config.markdown()


def test_every_setting_is_documented_once_with_a_description():
    seen: set[str] = set()
    for name, field in config.Settings.model_fields.items():
        assert field.description and len(field.description) > 10, name
        for env in config.env_names(field):
            assert env not in seen, env
            seen.add(env)
    assert not seen & set(config.SECRETS)


def test_only_the_settings_module_reads_the_environment():
    # the functions and the layer read settings (or config.raw for names known only at run time), so every
    # variable is declared, typed and documented in one place; writes (setdefault for a child) are allowed
    reads = re.compile(r"os\.environ(\.get|\[|\.copy)|os\.getenv|getenv\(")
    found = []
    for folder in ("functions", "layers"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "layers" / "core" / "agenthost" / "config.py":
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if reads.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}")
    assert found == []


def _changed_value(value: object) -> str:
    """Text that parses to something other than ``value`` (a setting's value when nothing is set)."""
    if isinstance(value, bool):
        return "false" if value else "true"
    if value is None:
        return "7"
    if isinstance(value, float):
        return str(value + 1.5)
    if isinstance(value, int):
        return str(value + 7)
    if isinstance(value, tuple):
        return "https://bare.example"
    return f"bare-{value}-x"


def test_only_the_declared_variables_set_a_setting(monkeypatch):
    # a variable named like a field is not a setting (zsh exports HOST; a CI's or a Lambda's own variables
    # could be SEED, REGION, LOCAL...): only the documented names are read
    declared = {n.lower() for f in config.Settings.model_fields.values() for n in config.env_names(f)}
    for key in list(os.environ):
        if key.lower() in declared:
            monkeypatch.delenv(key)
    config.reset()
    base = config.settings()
    for name in config.Settings.model_fields:
        for bare in (name.upper(), name):
            monkeypatch.setenv(bare, _changed_value(getattr(base, name)))
    assert {"HOST", "SEED", "REGION", "LOCAL"} <= set(os.environ)
    config.reset()
    s = config.settings()
    assert [n for n in config.Settings.model_fields if getattr(s, n) != getattr(base, n)] == []
    # the same text under each documented name (every one of a field's names) does change the setting
    for name, field in config.Settings.model_fields.items():
        for env in config.env_names(field):
            monkeypatch.setenv(env, _changed_value(getattr(base, name)))
            config.reset()
            assert getattr(config.settings(), name) != getattr(base, name), env
            monkeypatch.delenv(env)
