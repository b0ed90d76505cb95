import pytest

from agenthost import config


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
