"""Proxy API security when deployed: API key, CORS limited to configured origins, body size limit."""

from __future__ import annotations

import pytest
import runs.app as runs_app

from agenthost import config
from tests.support.apigw import call
from tests.unit.runs_support import API_KEY, ScriptedBrain

EXT = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"


@pytest.fixture
def deployed(aws, monkeypatch):
    monkeypatch.delenv("AGENTHOST_LOCAL", raising=False)
    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    monkeypatch.setenv("AGENTHOST_RUNS_CORS_ORIGINS", EXT)
    monkeypatch.setattr(runs_app, "_brain", ScriptedBrain())
    config.reset()


def start(headers):
    return call(runs_app.handler, "POST", "/agent/run/start", json_body={"task": "t"}, headers=headers)


def test_api_key_required(deployed):
    r = start({})
    assert r.status == 401 and r.json() == {"error": "unauthorized",
                                            "message": "missing API key: send it in the x-api-key header"}
    r = start({"x-api-key": "wrong"})
    assert r.status == 401 and "wrong" not in r.text and API_KEY not in r.text
    assert start({"x-api-key": API_KEY}).status == 200
    assert start({"authorization": f"Bearer {API_KEY}"}).status == 200
    rid = start({"x-api-key": API_KEY}).json()["runId"]
    assert call(runs_app.handler, "GET", f"/agent/run/{rid}").status == 401
    # health stays open
    assert call(runs_app.handler, "GET", "/health").status == 200


def test_key_required_but_not_configured_fails_closed(deployed, monkeypatch):
    monkeypatch.delenv("AGENTHOST_RUNS_API_KEY")
    r = start({"x-api-key": "anything"})
    assert r.status == 503 and "not configured" in r.json()["message"]


def test_key_from_parameter_store(deployed, monkeypatch):
    import boto3

    monkeypatch.delenv("AGENTHOST_RUNS_API_KEY")
    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY_PARAM", "/agenthost/runs-api-key")
    boto3.client("ssm", region_name="us-east-1").put_parameter(
        Name="/agenthost/runs-api-key", Value="from-ssm-key", Type="SecureString")
    assert start({"x-api-key": "from-ssm-key"}).status == 200
    assert start({"x-api-key": API_KEY}).status == 401


def test_local_stack_needs_no_key(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_LOCAL", "true")
    monkeypatch.setattr(runs_app, "_brain", ScriptedBrain())
    config.reset()
    assert start({}).status == 200


def test_cors_preflight_and_response_headers(deployed):
    pre = call(runs_app.handler, "OPTIONS", "/agent/run/start",
               headers={"origin": EXT, "access-control-request-method": "POST",
                        "access-control-request-headers": "content-type, x-api-key"})
    assert pre.status == 204
    assert pre.headers["access-control-allow-origin"] == EXT
    assert "x-api-key" in pre.headers["access-control-allow-headers"]
    r = start({"x-api-key": API_KEY, "origin": EXT})
    assert r.headers["access-control-allow-origin"] == EXT


def test_cors_other_origin_refused(deployed):
    evil = "https://evil.example"
    pre = call(runs_app.handler, "OPTIONS", "/agent/run/start",
               headers={"origin": evil, "access-control-request-method": "POST"})
    assert pre.status == 403 and pre.json()["error"] == "forbidden"
    r = start({"x-api-key": API_KEY, "origin": evil})
    assert "access-control-allow-origin" not in r.headers


def test_cors_none_configured_deployed_allows_no_origin(deployed, monkeypatch):
    monkeypatch.delenv("AGENTHOST_RUNS_CORS_ORIGINS")
    pre = call(runs_app.handler, "OPTIONS", "/agent/run/start",
               headers={"origin": EXT, "access-control-request-method": "POST"})
    assert pre.status == 403


def test_request_size_limit(deployed):
    big = {"snapshot": {"url": "https://x.test", "visibleText": "x" * 300_000}}
    r = call(runs_app.handler, "POST", "/agent/run/abc/step", json_body=big, headers={"x-api-key": API_KEY})
    assert r.status == 413 and r.json()["error"] == "payload_too_large"
