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
    monkeypatch.setenv("AGENTHOST_METERING_FOLD", "Yes")
    monkeypatch.setenv("AGENTHOST_SEED", "0")
    monkeypatch.setenv("AGENTHOST_OLYMPICS_BUDGET_S", "99")  # clamped to the platform's limits
    monkeypatch.setenv("AGENTHOST_BROWSER_BUDGET_S", "soon")  # not a number: the default, as before
    monkeypatch.setenv("AGENTHOST_RUNS_TTL_S", "")  # empty counts as unset
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-3")
    config.reset()
    s = config.settings()
    assert s.cors_origins == ("https://a.example", "https://b.example")
    assert s.metering_fold is True and s.seed is False
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


def test_secret_literal_then_ssm_then_secretsmanager(aws, monkeypatch):
    from agenthost.aws import client

    monkeypatch.setenv("AGENTHOST_X_SECRET", "literal")
    assert config.secret("AGENTHOST_X_SECRET") == "literal"
    monkeypatch.delenv("AGENTHOST_X_SECRET")
    assert config.secret("AGENTHOST_X_SECRET") == ""
    with pytest.raises(config.SecretNotConfigured, match="AGENTHOST_X_SECRET_PARAM"):
        config.secret("AGENTHOST_X_SECRET", required=True)

    client("ssm").put_parameter(Name="/agenthost/x", Value="from-ssm", Type="SecureString")
    monkeypatch.setenv("AGENTHOST_X_SECRET_PARAM", "/agenthost/x")
    assert config.secret("AGENTHOST_X_SECRET") == "from-ssm"

    client("secretsmanager").create_secret(Name="agenthost/y", SecretString="from-sm")
    monkeypatch.setenv("AGENTHOST_Y_PARAM", "secretsmanager:agenthost/y")
    assert config.secret("AGENTHOST_Y") == "from-sm"


def test_cached_secrets_honour_max_age_so_rotation_reaches_warm_containers(aws, monkeypatch):
    from agenthost.aws import client

    clock = [1000.0]
    monkeypatch.setattr(config, "_now", lambda: clock[0])
    ssm = client("ssm")
    ssm.put_parameter(Name="/agenthost/rot", Value="v1", Type="SecureString")
    monkeypatch.setenv("AGENTHOST_ROT_PARAM", "/agenthost/rot")
    assert config.secret("AGENTHOST_ROT", max_age=300) == "v1"
    ssm.put_parameter(Name="/agenthost/rot", Value="v2", Type="SecureString", Overwrite=True)  # rotated
    clock[0] += 299
    assert config.secret("AGENTHOST_ROT", max_age=300) == "v1"  # still fresh: no call
    clock[0] += 2
    assert config.secret("AGENTHOST_ROT", max_age=300) == "v2"  # expired: fetched again
    # a failed refresh keeps serving the last value (and does not retry on every call)
    ssm.delete_parameter(Name="/agenthost/rot")
    clock[0] += 301
    assert config.secret("AGENTHOST_ROT", max_age=300) == "v2"
    ssm.put_parameter(Name="/agenthost/rot", Value="v3", Type="SecureString")
    clock[0] += 1
    assert config.secret("AGENTHOST_ROT", max_age=300) == "v2"  # the retry waits SECRET_RETRY_S
    clock[0] += config.SECRET_RETRY_S
    assert config.secret("AGENTHOST_ROT", max_age=300) == "v3"
    # nothing cached and the parameter is missing: the error is raised, without the value
    monkeypatch.setenv("AGENTHOST_GONE_PARAM", "/agenthost/gone")
    with pytest.raises(Exception) as err:
        config.secret("AGENTHOST_GONE")
    assert "v3" not in str(err.value)


def test_a_parameter_store_that_never_answers_fails_fast(monkeypatch):
    """A hung SSM endpoint costs seconds (1 s connect / 2 s read, 2 attempts), not botocore's 60 s x 3."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held = []
    stop = threading.Event()

    def accept():  # accepts connections and never answers
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSM", f"http://127.0.0.1:{listener.getsockname()[1]}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "y")
    monkeypatch.setenv("AGENTHOST_SLOW_PARAM", "/agenthost/slow")
    from agenthost import aws

    aws.reset()
    config.reset()
    outcome = {}

    def fetch():
        try:
            outcome["value"] = config.secret("AGENTHOST_SLOW")
        except Exception as exc:  # noqa: BLE001
            outcome["error"] = exc

    worker = threading.Thread(target=fetch, daemon=True)
    worker.start()
    worker.join(15)  # far below botocore's defaults (60 s read timeout, several attempts)
    stop.set()
    for conn in held:
        conn.close()
    listener.close()
    aws.reset()
    assert not worker.is_alive(), "the secret fetch is still waiting on the silent endpoint"
    assert "Read timeout" in str(outcome["error"]) and 1 <= len(held) <= 3
