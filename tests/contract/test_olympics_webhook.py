"""Contract suite for specs/ai-olympics-webhook.md: the spec's own request example, signature recipe,
replay rule and response schema, against the real handler."""

import hashlib
import hmac
import json
import time

import pytest
from olympics.app import handler

from tests.support.apigw import call

SECRET = "whs_" + "c0ffee" * 10 + "abcd"
SPEC_TOOLS = ["navigate", "click", "type", "select", "scroll", "wait", "submit", "api_call", "done"]


def spec_request() -> dict:
    """The request example of the spec, verbatim except for a fresh timestamp and a tool list."""
    return {
        "version": "1.0",
        "timestamp": int(time.time() * 1000),
        "agentId": "abc-123-def",
        "agentName": "My Agent",
        "competitionId": "comp-456",
        "task": {"systemPrompt": "You are an AI agent competing in AI Olympics...",
                 "taskPrompt": "Navigate to the market page and place a bet on..."},
        "pageState": {"url": "https://example.com/page", "title": "Page Title",
                      "accessibilityTree": "- button \"Submit\"\n- textbox \"Search\" value=\"\"\n- link \"Home\"",
                      "error": None},
        "previousActions": [{"name": "navigate", "arguments": {"url": "https://example.com"}},
                            {"name": "click", "arguments": {"element": "Login"}}],
        "turnNumber": 3,
        "availableTools": [{"name": n, "description": n, "parameters": {"type": "object"}} for n in SPEC_TOOLS],
    }


def spec_headers(body: bytes, ts: int) -> dict:
    # the spec's recipe: "sha256=" + hex HMAC-SHA256(secret, JSON body)
    sig = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    return {"Content-Type": "application/json", "X-AI-Olympics-Signature": sig,
            "X-AI-Olympics-Timestamp": str(ts), "X-AI-Olympics-Agent-Id": "abc-123-def"}


@pytest.fixture(autouse=True)
def _env(monkeypatch, aws):
    monkeypatch.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)


def test_spec_example_gets_a_response_in_the_spec_schema():
    body = json.dumps(spec_request()).encode()
    resp = call(handler, "POST", "/olympics/turn", body=body, headers=spec_headers(body, int(time.time() * 1000)))
    assert resp.status == 200 and resp.headers["content-type"] == "application/json"
    out = resp.json()
    assert isinstance(out["actions"], list) and len(out["actions"]) <= 10
    assert isinstance(out.get("thinking", ""), str) and isinstance(out.get("done", False), bool)
    for a in out["actions"]:
        assert set(a) == {"tool", "args"} and a["tool"] in SPEC_TOOLS and isinstance(a["args"], dict)
    if out["done"]:
        assert "result" in out


@pytest.mark.parametrize("age_ms,status", [(0, 200), (4 * 60_000, 200), (6 * 60_000, 401), (-6 * 60_000, 401)])
def test_replay_window_is_five_minutes(age_ms, status):
    ts = int(time.time() * 1000) - age_ms
    req = spec_request()
    req["timestamp"] = ts
    body = json.dumps(req).encode()
    resp = call(handler, "POST", "/olympics/turn", body=body, headers=spec_headers(body, ts))
    assert resp.status == status
    if status == 401:
        assert resp.json()["error"]


def test_only_a_bad_signature_is_non_2xx():
    for body in (b"{}", b"[]", b'{"turnNumber": "x", "pageState": 5}', b"\xff\xfe", b""):
        resp = call(handler, "POST", "/olympics/turn", body=body, headers=spec_headers(body, int(time.time() * 1000)))
        assert resp.status == 200, body
        out = resp.json()
        assert out["actions"] == [] or isinstance(out["actions"], list)
