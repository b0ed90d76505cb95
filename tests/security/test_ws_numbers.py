"""Numbers a WebSocket client sends are validated and clamped before they reach DynamoDB: an unauthenticated
``register`` with ``maxConcurrency`` 1e308 (or a 40-digit integer, or text) gets its reply, and what is stored
is bounded."""

from __future__ import annotations

import json

import pytest
from evals.definitions import Catalog
from evals.server import Options, Server
from evals.timers import NoTimers

from agenthost import limits
from agenthost.items import keys


@pytest.fixture
def server(aws):
    sent: list[tuple[str, dict]] = []
    s = Server(store=aws, send=lambda cid, msg: sent.append((cid, msg)) or True, timers=NoTimers(),
               catalog=lambda _cid=None: Catalog(), options=Options(secret="s3cret", max_concurrency=20,
                                                                    auto_create=True),
               close=lambda cid: None)
    return s, sent


@pytest.mark.parametrize("value", ["1e308", "-1e308", "1e400", str(10**40), '"12"', '"lots"', "true", "2.9"])
def test_register_with_absurd_max_concurrency_is_answered_and_clamped(server, value):
    s, sent = server
    frame = ('{"type": "register", "clientId": "c-num", "capabilities": {"maxConcurrency": ' + value +
             ', "tools": ["chat"], "version": 1e308, "extra": [1e308, -1e-300]}}')
    s.on_message("k1", frame)  # unauthenticated: the pending registration is stored
    [(cid, ack)] = sent
    assert cid == "k1" and ack["type"] == "registration_ack" and ack["status"] == "auth_required"
    pending = s.store.get(**keys.connection("k1"))
    caps = pending["capabilities"]
    assert set(caps) <= {"tools", "version", "maxConcurrency"}
    assert 1 <= caps.get("maxConcurrency", 1) <= 20
    sent.clear()
    s.on_message("k1", json.dumps({"type": "auth_verify", "clientId": "c-num", "secretKey": "s3cret"}))
    [(_, ack)] = sent
    assert ack["status"] == "accepted"
    meta = s.store.get(**keys.client("c-num"))
    assert 1 <= meta["maxConcurrency"] <= 20


def test_status_and_results_with_huge_numbers_are_stored_clamped(server):
    s, sent = server
    s.on_message("k1", json.dumps({"type": "status", "evaluationId": "nope", "status": "running",
                                   "progress": 1e308}))
    s.on_message("k1", '{"jsonrpc": "2.0", "id": "x", "result": {"output": {"n": 1e400, "m": ' + str(10**50) + '}}}')
    assert all(m.get("type") != "internal_error" for _, m in sent)


def test_clamp_helpers():
    assert limits.clamp_number(1e308) == limits.NUMBER_MAX and limits.clamp_number(-float("inf")) == -limits.NUMBER_MAX
    assert limits.clamp_number(float("nan")) is None and limits.clamp_number(1e-300) == 0.0
    assert limits.clamp_number(10**50) == limits.INT_MAX and limits.clamp_number(7) == 7
    assert limits.storable_numbers({"a": [1e308, {"b": 10**40}], "c": "x"}) == \
        {"a": [limits.NUMBER_MAX, {"b": limits.INT_MAX}], "c": "x"}
    assert limits.bounded_int(1e308, 1, 20, 3) == 20 and limits.bounded_int("x", 1, 20, 3) == 3
    assert limits.bounded_int(10**40, 1, 20, 3) == 20 and limits.bounded_int(True, 1, 20, 3) == 3
    assert limits.bounded_int(-5, 1, 20, 3) == 1 and limits.bounded_int("7", 1, 20, 3) == 7
