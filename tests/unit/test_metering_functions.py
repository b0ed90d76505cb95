"""Metering seen from the protocol functions: turns reach the daily counters and the cost report."""

from __future__ import annotations

import json

import pytest

from agenthost import metering
from tests.support.apigw import call
from tests.support.werewolf import turn


@pytest.fixture(autouse=True)
def _reset(monkeypatch):
    monkeypatch.delenv("AGENTHOST_WEREWOLF_API_KEY", raising=False)
    monkeypatch.setenv("AGENTHOST_LOCAL", "true")  # the report is open locally without a key
    monkeypatch.delenv("AGENTHOST_USAGE_API_KEY", raising=False)
    metering.reset()
    yield
    metering.reset()


def test_werewolf_turns_are_counted_and_priced_in_the_report(aws, rollup):
    from usage.app import handler as usage_handler
    from werewolf.app import handler

    for action in ("vote", "speak", "vote"):
        body = json.dumps(turn(action), ensure_ascii=False).encode()
        assert call(handler, "POST", "/werewolf/turn", body=body,
                    headers={"content-type": "application/json"}).status == 200
    rollup()
    report = call(usage_handler, "GET", "/usage", query={"protocol": "werewolf"}).json()
    [row] = report["rows"]
    assert (row["agent"], row["turns"], row["errors"], row["llm_calls"]) == ("werewolf", 3, 0, 0)
    assert row["fallbacks"] == 3  # no LLM configured: the deterministic strategy answered every turn
    # per turn the game memory's read and one write: the memory when it changed (the usage rides on it), else
    # metering's own counter write
    assert row["ddb_calls"] == 3 * 2
    assert 0 < row["cost"]["infra"] and row["cost"]["llm"] == 0


def test_wrapped_handler_meters_only_turns_and_counts_5xx_as_errors(aws, rollup):
    def app(event, context):
        return {"statusCode": 500 if event["rawPath"].endswith("/boom") else 200, "body": "{}"}

    handler = metering.wrap_handler(app, "agents_api", agent="shop",
                                    is_turn=lambda e: e["rawPath"].startswith("/api/"), ws_messages=0)
    for path in ("/api/search", "/api/boom", "/.well-known/agents.json"):
        handler({"rawPath": path}, None)
    rollup()
    day = metering.day_of(__import__("time").time())
    item = aws.get(**metering.usage_key(day, "shop", "agents_api"))
    assert (item["turns"], item["errors"]) == (2, 1)


def test_agents_api_capability_calls_are_turns(aws, rollup):
    from agents_api.app import handler

    call(handler, "GET", "/.well-known/agents.json")
    r = call(handler, "POST", "/.well-known/agents/api/search", json_body={"query": "mug"})
    assert r.status < 500
    rollup()
    day = metering.day_of(__import__("time").time())
    item = aws.get(**metering.usage_key(day, "store", "agents_api"))
    assert item["turns"] == 1  # the discovery document is not a turn


def test_evals_websocket_messages_are_turns(aws, rollup, monkeypatch):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from infra.local.events import LambdaContext

    posted = []

    class Connections(BaseHTTPRequestHandler):  # stands in for the @connections management API
        def do_POST(self):  # noqa: N802
            posted.append(self.rfile.read(int(self.headers.get("content-length") or 0)))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *a):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Connections)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    monkeypatch.setenv("AGENTHOST_WS_ENDPOINT", f"http://127.0.0.1:{srv.server_address[1]}/local")
    try:
        from evals.app import handler

        ev = json.loads((__import__("pathlib").Path("infra/events/evals-ping.json")).read_text())
        assert handler(ev, LambdaContext("evals"))["statusCode"] == 200
    finally:
        srv.shutdown()
    rollup()
    item = aws.get(**metering.usage_key(metering.day_of(__import__("time").time()), "evals", "evals"))
    assert (item["turns"], item["ws_messages"]) == (1, 2)


def test_a_spent_llm_budget_switches_a_real_webhook_turn_to_the_deterministic_policy(aws, rollup, monkeypatch):
    """Through the AI Olympics handler with a (fake, loopback) LLM: the first turn uses it; once the agent's
    daily token budget is spent the LLM is not called at all, the turn is still a valid 200, and the
    report counts a budget fallback."""
    import time

    from olympics import app
    from usage.app import handler as usage_handler

    from agenthost import config
    from agenthost import llm as llm_mod
    from tests.support.fake_llm import FakeLLM
    from tests.support.olympics import SECRET, signed, turn_body

    prompt = "Register with first name Maria, last name Lopez, email maria@example.com, country Germany."
    with FakeLLM() as fake:
        for k, v in {"AGENTHOST_OLYMPICS_SECRET": SECRET, "AGENTHOST_LLM": "openai:fake-model",
                     "AGENTHOST_LLM_BASE_URL": fake.base_url, "AGENTHOST_LLM_API_KEY": "sk-test-not-real",
                     "AGENTHOST_LLM_BUDGET_TOKENS": "100", "AGENTHOST_BUDGET_CACHE_S": "0"}.items():
            monkeypatch.setenv(k, v)
        monkeypatch.setattr(app, "_cold", False)
        config.reset()
        llm_mod.reset()
        metering.reset()
        answer = {"thinking": "Fill the form.", "done": False, "result": "", "actions": [
            {"tool": "type", "args": {"element": "First Name", "text": "Maria"}}]}
        fake.reply(answer, usage=(100, 20))  # 120 tokens: past the 100-token budget after this turn
        fake.reply(answer, usage=(100, 20))
        outs = []
        for n in (1, 2):
            raw, headers = signed(turn_body(n, prompt=prompt))
            resp = call(app.handler, "POST", "/olympics/turn", body=raw, headers=headers)
            assert resp.status == 200
            outs.append(resp.json())
        assert len(fake.requests) == 1  # the second turn never reached the LLM
        assert outs[1]["actions"] and all(a["tool"] in ("type", "select", "click") for a in outs[1]["actions"])
        llm_mod.reset()
    rollup()
    day = time.strftime("%Y-%m-%d", time.gmtime())
    [row] = call(usage_handler, "GET", "/usage", query={"protocol": "olympics", "from": day}).json()["rows"]
    assert (row["turns"], row["llm_calls"], row["tokens_in"], row["tokens_out"]) == (2, 1, 100, 20)
    assert row["fallbacks"] == 1 and row["budget_fallbacks"] == 1


def test_webhook_turns_through_a_function_url_bill_no_api_request(aws, rollup, monkeypatch):
    """WebhookFunctionUrls: a turn delivered by the Lambda function URL plays like one through the HTTP
    API; metering counts it in url_turns and the report prices no API Gateway request for it."""
    from usage.app import handler as usage_handler
    from werewolf.app import handler

    for via_url in (True, True, False):
        body = json.dumps(turn("vote"), ensure_ascii=False).encode()
        r = call(handler, "POST", "/werewolf/turn", body=body, headers={"content-type": "application/json"},
                 via_url=via_url)
        assert r.status == 200 and r.json()["target"]
    rollup()
    day = metering.day_of(__import__("time").time())
    item = aws.get(**metering.usage_key(day, "werewolf", "werewolf"))
    assert (item["turns"], item["url_turns"]) == (3, 2)
    [row] = call(usage_handler, "GET", "/usage", query={"protocol": "werewolf"}).json()["rows"]
    assert row["cost"]["api"] == pytest.approx(1 * 1.00 / 1e6)  # one HTTP API request at $1.00 per 1M


def test_olympics_through_a_function_url_verifies_the_signature(aws, rollup, monkeypatch):
    from olympics.app import handler

    from tests.support.olympics import SECRET, signed, turn_body

    monkeypatch.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)
    from agenthost import config

    config.reset()
    body = turn_body()
    raw, headers = signed(body)
    r = call(handler, "POST", "/olympics/turn", body=raw, headers=headers, via_url=True)
    assert r.status == 200 and isinstance(r.json()["actions"], list)
    forged = call(handler, "POST", "/olympics/turn", body=raw.replace(b"agent", b"agenT", 1), headers=headers,
                  via_url=True)
    assert forged.status == 401
    rollup()
    item = aws.get(**metering.usage_key(metering.day_of(__import__("time").time()), body["agentId"], "olympics"))
    assert (item["turns"], item["url_turns"]) == (1, 1)


def test_the_cost_model_prices_function_url_turns_without_the_api_request():
    from agenthost.pricing import Prices

    p = Prices.load()
    both = p.estimate({"turns": 4, "url_turns": 3}, protocol="werewolf")
    assert both["api"] == pytest.approx(1.00 / 1e6)
    assert p.estimate({"turns": 4}, protocol="werewolf")["api"] == pytest.approx(4.00 / 1e6)
    assert p.estimate({"turns": 2, "url_turns": 5}, protocol="olympics")["api"] == 0  # never negative
