"""Metering of the evaluation server (issue 9): every invocation of the evals function is recorded under
protocol ``evals``; client messages are turns, WebSocket messages are counted as billed (both directions,
32 KB units) and connection minutes come from ``connectedAt`` at ``$disconnect``. ``GET /usage`` shows it."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from agenthost import metering
from infra.local.events import LambdaContext, ws_event
from tests.support.apigw import call

SECRET = "metering-secret"


@pytest.fixture
def evals_env(aws, monkeypatch, tmp_path):
    from agenthost import aws as aws_clients

    (tmp_path / "chat").mkdir()
    for eid in ("m1", "m2"):
        (tmp_path / "chat" / f"{eid}.yaml").write_text(yaml.safe_dump(
            {"id": eid, "target": {"url": "http://127.0.0.1:9/"}, "tool": "chat", "timeout": 5000,
             "input": {"message": "hi"}}))
    monkeypatch.setenv("AGENTHOST_EVALS_DIR", str(tmp_path))
    monkeypatch.setenv("AGENTHOST_EVALS_SECRET", SECRET)
    monkeypatch.setenv("AGENTHOST_LOCAL", "true")
    monkeypatch.delenv("AGENTHOST_USAGE_API_KEY", raising=False)
    from agenthost import config

    config.reset()
    invoked: list[dict] = []
    posted: list[tuple[str, dict]] = []
    real_client = aws_clients.client

    class Lambda:
        def invoke(self, **kw):
            invoked.append(kw)

    class Connections:  # the @connections management API: records what is posted
        class exceptions:  # noqa: N801 - boto3's shape
            class GoneException(Exception):
                pass

        def post_to_connection(self, ConnectionId, Data):  # noqa: N803
            posted.append((ConnectionId, json.loads(Data)))

        def delete_connection(self, ConnectionId):  # noqa: N803
            posted.append((ConnectionId, {"closed": True}))

    fakes = {"lambda": Lambda(), "apigatewaymanagementapi": Connections()}
    monkeypatch.setattr(aws_clients, "client", lambda name, **kw: fakes[name] if name in fakes
                        else real_client(name, **kw))
    from evals.runtime import packaged_catalog

    packaged_catalog.cache_clear()
    metering.reset()
    yield aws, invoked, posted
    packaged_catalog.cache_clear()
    metering.reset()


def usage_item(store):
    """The rolled-up usage item (the stream's records since the last call added first, as deployed)."""
    from tests.support.usage import Rollup

    Rollup(store)()
    return store.get(**metering.usage_key(metering.day_of(time.time()), "evals", "evals"))


def test_every_invocation_is_metered_and_the_report_shows_it(evals_env):
    from evals.app import handler
    from usage.app import handler as usage_handler

    store, invoked, posted = evals_env
    ctx = LambdaContext("agenthost-evals")
    ctx.invoked_function_arn += ":live"  # API Gateway invokes the alias
    connected_at = int(time.time() * 1000) - 90_000  # the connection opened 90 s ago

    def message(body: str) -> None:
        event = ws_event("$default", "conn-1", body=body, connected_at=connected_at)
        assert handler(event, ctx)["statusCode"] == 200

    assert handler(ws_event("$connect", "conn-1", connected_at=connected_at), ctx)["statusCode"] == 200
    # the welcome follow-up goes to the qualified ARN this invocation came through (SnapStart's version)
    assert invoked[0]["FunctionName"] == ctx.invoked_function_arn and invoked[0]["InvocationType"] == "Event"
    assert handler(json.loads(invoked[0]["Payload"]), ctx) == {"delivered": True}
    message(json.dumps({"type": "register", "clientId": "meter-1", "secretKey": SECRET,
                        "capabilities": {"tools": ["chat"], "maxConcurrency": 1}}))
    message(json.dumps({"type": "ready"}))
    [req] = [m for _, m in posted if m.get("method") == "evaluate"]
    # a 100 KB result: 1 message on the wire, 4 billed units (32 KB each)
    big = json.dumps({"jsonrpc": "2.0", "id": req["id"],
                      "result": {"status": "success", "output": {"response": "x" * 100_000}}})
    assert 96 * 1024 < len(big) <= 128 * 1024
    message(big)
    second = [m for _, m in posted if m.get("method") == "evaluate"][-1]
    assert second["params"]["evaluationId"] != req["params"]["evaluationId"]
    # the deadline timer of the second evaluation (early, then due), then a scheduled dispatch
    timer = {"agenthost": "deadline", "clientId": "meter-1", "evalId": second["params"]["evaluationId"],
             "rpcId": second["id"]}
    assert handler(timer, ctx) == {"expired": False}  # not due yet
    key = ("CLIENT#meter-1", f"EVAL#{second['params']['evaluationId']}")
    store.update(*key, set_={"deadline": float(store.get(*key)["deadline"]) - 10_000})  # as if 10 s had passed
    assert handler(timer, ctx) == {"expired": True}
    assert handler({"agenthost": "dispatch", "clientId": "meter-1"}, ctx) == {"sent": 0}  # nothing left
    assert handler(ws_event("$disconnect", "conn-1", connected_at=connected_at), ctx)["statusCode"] == 200
    disconnected_at = time.time() * 1000

    # server -> client posts: welcome, registration_ack, evaluate (m1), evaluate (m2); client -> server:
    # register, ready, and the 100 KB result counted as 4
    kinds = [m.get("type") or m.get("method") for _, m in posted]
    assert kinds == ["welcome", "registration_ack", "evaluate", "evaluate"]
    usage = usage_item(store)
    assert usage["turns"] == 3  # the client's three messages
    # + $connect, welcome, two deadline timers, one dispatch, $disconnect: invocations, not turns
    assert usage["invocations"] == 3 + 6
    assert usage["ddb_calls"] > 9  # the protocol's reads and writes and one counter write per invocation
    assert usage["ws_messages"] == 4 + (1 + 1 + 4)
    # 90 s before the test, plus what the test itself took (more on a loaded machine), never more
    assert 1.49 <= float(usage["ws_connection_minutes"]) <= (disconnected_at - connected_at) / 60_000 + 0.001
    report = call(usage_handler, "GET", "/usage", query={"protocol": "evals"}).json()
    [row] = report["rows"]
    assert (row["turns"], row["invocations"], row["ws_messages"]) == (3, 9, 10)
    assert 1.49 <= row["ws_connection_minutes"] <= 1.6
    assert row["cost"]["api"] == pytest.approx((10 * 1.00 + row["ws_connection_minutes"] * 0.25) / 1e6)
