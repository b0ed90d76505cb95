"""Passwords and card data an extension puts in a snapshot never reach the policy, DynamoDB, GET or the
logs; what the agent types into such a field is masked in what is stored for display."""

from __future__ import annotations

import json

import pytest
import runs.app as runs_app
from runs.brain import ToolCall
from runs.models import MASK, ElementInfo, unpack_snapshot

from tests.support.apigw import call
from tests.unit.runs_support import API_KEY, ScriptedBrain

H = {"x-api-key": API_KEY}
PASSWORD = "Tr0ub4dor&3-secret"
CARD = "4111 1111 1111 1111"
CVC = "737"

SNAP = {"url": "https://shop.test/pay", "title": "Pay", "visibleText": "Payment\nTotal $9.00", "timestamp": 1,
        "elements": [
            {"id": "agent-1", "tag": "input", "type": "password", "name": "pw", "value": PASSWORD},
            {"id": "agent-2", "tag": "input", "type": "text", "name": "cardnumber", "placeholder": "Card number",
             "value": CARD},
            {"id": "agent-3", "tag": "input", "type": "text", "ariaLabel": "Security code", "value": CVC},
            {"id": "agent-4", "tag": "input", "type": "text", "name": "notes", "value": CARD.replace(" ", "")},
            {"id": "agent-5", "tag": "input", "type": "text", "name": "email", "value": "bob@shop.test"},
            {"id": "agent-6", "tag": "button", "text": "Pay"},
        ]}


@pytest.mark.parametrize("fields,masked", [
    ({"type": "password", "value": "x1"}, True),
    ({"type": "PASSWORD", "value": "x1"}, True),
    ({"name": "cc-number", "value": "4000"}, True),
    ({"autocomplete": "cc-csc", "value": "123"}, True),
    ({"label": "CVV", "value": "123"}, True),
    ({"placeholder": "One-time code", "value": "493021"}, True),
    ({"name": "q", "value": "5555 5555 5555 4444"}, True),   # a card number by its digits (Luhn)
    ({"name": "q", "value": "1234 5678 9012 3456"}, False),  # 16 digits that are not a card number
    ({"name": "email", "value": "bob@shop.test"}, False),
    ({"placeholder": "Search", "value": "tea"}, False),
    ({"type": "password"}, False),                           # nothing typed: nothing to mask
])
def test_element_model_masks_secret_values(fields, masked):
    el = ElementInfo.model_validate({"id": "a", "tag": "input", **fields})
    if masked:
        assert el.value == MASK
    else:
        assert el.value == fields.get("value")


@pytest.fixture
def brain(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    b = ScriptedBrain(choose=lambda ctx: ToolCall("type", {"id": "agent-1", "text": PASSWORD}))
    monkeypatch.setattr(runs_app, "_brain", b)
    return b


def everything_stored(store, rid):
    items = list(store.query(f"RUN#{rid}"))
    for item in items:
        if item.get("snap_z") is not None:
            item["snap_z"] = unpack_snapshot(item["snap_z"])
    return json.dumps(items, default=str)


def test_secrets_never_stored_shown_or_logged(brain, aws, capsys, every_log_level):
    rid = call(runs_app.handler, "POST", "/agent/run/start", json_body={"task": "Pay for my order"},
               headers=H).json()["runId"]
    r = call(runs_app.handler, "POST", f"/agent/run/{rid}/step", json_body={"snapshot": SNAP}, headers=H)
    assert r.status == 200
    # the extension gets what to type: it is the agent's own action
    assert r.json()["tool"] == {"name": "type", "parameters": {"id": "agent-1", "text": PASSWORD}}

    # the policy never saw what was in the fields
    seen = {e.id: e.value for e in brain.contexts[-1].snapshot.elements}
    assert seen["agent-1"] == seen["agent-2"] == seen["agent-3"] == seen["agent-4"] == MASK
    assert seen["agent-5"] == "bob@shop.test"

    state = call(runs_app.handler, "GET", f"/agent/run/{rid}", headers=H).json()["state"]
    values = {e["id"]: e.get("value") for e in state["currentSnapshot"]["elements"]}
    assert values == {"agent-1": MASK, "agent-2": MASK, "agent-3": MASK, "agent-4": MASK,
                      "agent-5": "bob@shop.test", "agent-6": None}

    stored = everything_stored(aws, rid)
    assert "bob@shop.test" in stored  # the dump does show snapshot values...
    assert state["history"][0]["action"] == "type"  # ...the step that typed it is there, its text nowhere
    # nothing stored holds them, the answer kept to replay a retried /step included (runs.masking)
    for secret in (PASSWORD, CARD, CARD.replace(" ", "")):
        assert secret not in stored
        assert secret not in json.dumps(state)
    out = capsys.readouterr()
    assert '"message":"request"' in out.out  # the logs were written at every level, and read here
    for secret in (PASSWORD, CARD, CARD.replace(" ", "")):
        assert secret not in out.out and secret not in out.err


def test_visible_text_and_the_result_are_masked_like_the_fields(aws, monkeypatch, capsys, every_log_level):
    """A page that echoes the typed password and shows card numbers in its text: the policy, the stored
    snapshot, GET and a result built from the text never carry them."""
    other_card = "5555-5555-5555-4444"  # Luhn-valid, in no field
    snap = {**SNAP, "title": f"Receipt {other_card}",
            "visibleText": f"Welcome back! Your password is {PASSWORD}.\nCard {CARD} and {other_card}\n"
                           "Order 123456789012 (not a card)"}
    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    b = ScriptedBrain(choose=lambda ctx: ToolCall("finish", {}, text=ctx.snapshot.visibleText + f" / {CARD}"))
    monkeypatch.setattr(runs_app, "_brain", b)
    rid = call(runs_app.handler, "POST", "/agent/run/start", json_body={"task": "Read the receipt"},
               headers=H).json()["runId"]
    r = call(runs_app.handler, "POST", f"/agent/run/{rid}/step", json_body={"snapshot": snap}, headers=H)
    assert r.status == 200 and r.json()["action"] == "finish"
    seen = b.contexts[-1].snapshot.visibleText
    assert MASK in seen and "Order 123456789012" in seen  # only secrets are masked
    state = call(runs_app.handler, "GET", f"/agent/run/{rid}", headers=H).json()["state"]
    assert state["status"] == "completed" and MASK in state["result"]
    shown = json.dumps(state) + r.text + everything_stored(aws, rid)
    out = capsys.readouterr()
    assert '"message":"request"' in out.out  # the logs were written at every level, and read here
    for secret in (PASSWORD, CARD, other_card, CARD.replace(" ", "")):
        assert secret not in shown and secret not in seen
        assert secret not in out.out and secret not in out.err
