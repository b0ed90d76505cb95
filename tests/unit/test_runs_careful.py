"""Careful mode with the real shared brain (deterministic policy + risk classifier): risky actions ask
first with what will happen and the amount; ordinary actions never do; one approval covers one
transaction and a grown amount asks again."""

from __future__ import annotations

import pytest
import runs.app as runs_app
from runs.agent_adapter import AgentBrain

from tests.support.apigw import call
from tests.unit.runs_support import API_KEY

H = {"x-api-key": API_KEY}


@pytest.fixture
def real_brain(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    monkeypatch.setattr(runs_app, "_brain", AgentBrain())


def run(task, mode="careful"):
    r = call(runs_app.handler, "POST", "/agent/run/start", json_body={"task": task, "mode": mode}, headers=H)
    return r.json()["runId"]


def step(rid, snap, result=None):
    r = call(runs_app.handler, "POST", f"/agent/run/{rid}/step",
             json_body={"snapshot": snap, "lastActionResult": result}, headers=H)
    assert r.status == 200, r.text
    return r.json()


def answer(rid, approved=True):
    return call(runs_app.handler, "POST", f"/agent/run/{rid}/answer", json_body={"approved": approved}, headers=H)


def snap(url, text, elements, ts=1):
    return {"url": url, "title": "Page", "visibleText": text, "elements": elements, "timestamp": ts}


CHECKOUT = ("https://shop.test/checkout", "Checkout\nSubtotal $45.00\nOrder total: $49.99",
            [{"id": "agent-1", "tag": "a", "text": "Back to cart", "href": "https://shop.test/cart"},
             {"id": "agent-2", "tag": "button", "text": "Pay now"}])


def test_pay_asks_with_amount_then_one_approval_covers_it(real_brain):
    rid = run("Click Pay now to complete the purchase")
    r = step(rid, snap(*CHECKOUT))
    assert r["action"] == "ask_user" and r["state"]["status"] == "waiting_user"
    assert "Pay now" in r["question"] and "$49.99" in r["question"] and "shop.test" in r["question"]
    assert answer(rid).json()["state"]["status"] == "running"
    r = step(rid, snap(*CHECKOUT, ts=2))
    assert r["action"] == "execute_tool" and r["tool"] == {"name": "click", "parameters": {"id": "agent-2"}}


def test_grown_amount_asks_again(real_brain):
    rid = run("Click Pay now to complete the purchase")
    step(rid, snap(*CHECKOUT))
    answer(rid)
    url, text, els = CHECKOUT
    r = step(rid, snap(url, text.replace("$49.99", "$149.99"), els, ts=2))
    assert r["action"] == "ask_user" and "$149.99" in r["question"]


def test_place_order_asks(real_brain):
    rid = run("Place the order")
    r = step(rid, snap("https://shop.test/review", "Review your order\nTotal $12.00",
                       [{"id": "agent-5", "tag": "button", "text": "Place order"}]))
    assert r["action"] == "ask_user" and "Place order" in r["question"] and "$12.00" in r["question"]


def test_delete_account_asks(real_brain):
    rid = run("Delete my account")
    r = step(rid, snap("https://app.test/settings", "Danger zone",
                       [{"id": "agent-3", "tag": "button", "text": "Delete account"}]))
    assert r["action"] == "ask_user" and "Delete account" in r["question"] and "delete" in r["question"]


def test_send_message_asks(real_brain):
    rid = run("Click Send message")
    r = step(rid, snap("https://mail.test/compose", "New message",
                       [{"id": "agent-4", "tag": "button", "text": "Send message"}]))
    assert r["action"] == "ask_user" and "Send message" in r["question"]


def test_enter_in_payment_form_asks(aws, monkeypatch):
    from runs.brain import Decision

    from tests.unit.runs_support import ScriptedBrain

    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    real = AgentBrain()
    brain = ScriptedBrain(choose=lambda ctx: Decision("press", {"key": "Enter"}))
    brain.assess = real.assess  # the scripted policy presses Enter; the real classifier judges it
    monkeypatch.setattr(runs_app, "_brain", brain)
    rid = run("Finish paying")
    r = step(rid, snap("https://shop.test/billing", "Billing\nTotal $30.00",
                       [{"id": "agent-1", "tag": "input", "type": "text", "placeholder": "Card number"},
                        {"id": "agent-2", "tag": "input", "type": "text", "placeholder": "CVV"}]))
    assert r["action"] == "ask_user" and "Enter" in r["question"] and "$30.00" in r["question"]


@pytest.mark.parametrize("task,url,elements", [
    ("Click Add to cart", "https://shop.test/p/1",
     [{"id": "agent-1", "tag": "button", "text": "Add to cart"}]),
    ("Click Search", "https://shop.test/",
     [{"id": "agent-1", "tag": "button", "text": "Search"}]),
    ("Open the Pricing page", "https://shop.test/",
     [{"id": "agent-1", "tag": "a", "text": "Pricing", "href": "https://shop.test/pricing"}]),
])
def test_ordinary_actions_never_blocked(real_brain, task, url, elements):
    rid = run(task)
    r = step(rid, snap(url, "Welcome to the shop. Prices from $5.00", elements))
    assert r["action"] == "execute_tool" and r["tool"]["name"] == "click", r


def test_autonomous_mode_does_not_ask(real_brain):
    rid = run("Click Pay now to complete the purchase", mode="autonomous")
    r = step(rid, snap(*CHECKOUT))
    assert r["action"] == "execute_tool" and r["tool"]["parameters"] == {"id": "agent-2"}


def test_declining_cancels_the_run(real_brain):
    rid = run("Click Pay now to complete the purchase")
    step(rid, snap(*CHECKOUT))
    r = answer(rid, approved=False)
    assert r.json()["state"]["status"] == "cancelled" and "declined" in r.json()["error"]
