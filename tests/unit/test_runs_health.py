import re

from runs.app import handler

from tests.support.apigw import call


def test_health_shape_as_spec(monkeypatch):
    r = call(handler, "GET", "/health")
    assert r.status == 200
    body = r.json()
    assert set(body) == {"status", "model", "baseUrl", "timestamp"}
    assert body["status"] == "ok"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["timestamp"])


def test_health_reports_configured_llm(monkeypatch):
    from agenthost import config

    monkeypatch.setenv("AGENTHOST_LLM", "openai:anthropic/claude-3.5-sonnet")
    monkeypatch.setenv("AGENTHOST_LLM_BASE_URL", "https://openrouter.ai/api/v1")
    config.reset()
    body = call(handler, "GET", "/health").json()
    assert body["model"] == "anthropic/claude-3.5-sonnet"
    assert body["baseUrl"] == "https://openrouter.ai/api/v1"


def test_health_wrong_method():
    r = call(handler, "POST", "/health")
    assert r.status == 405 and r.json()["error"] == "method_not_allowed"
