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


def scripted(monkeypatch, choose):
    from runs.brain import ToolCall

    from tests.unit.runs_support import ScriptedBrain

    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    brain = ScriptedBrain(choose=lambda ctx: ToolCall(*choose(ctx)))
    brain.assess = AgentBrain().assess
    monkeypatch.setattr(runs_app, "_brain", brain)
    return brain


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


# the policy is scripted to click the one button (what the policy would pick is not under test here);
# the risk classifier and the question are the real brain's

def test_place_order_asks(aws, monkeypatch):
    scripted(monkeypatch, lambda ctx: ("click", {"id": "agent-5"}))
    rid = run("Place the order")
    r = step(rid, snap("https://shop.test/review", "Review your order\nTotal $12.00",
                       [{"id": "agent-5", "tag": "button", "text": "Place order"}]))
    assert r["action"] == "ask_user" and "Place order" in r["question"] and "$12.00" in r["question"]


def test_delete_account_asks(aws, monkeypatch):
    scripted(monkeypatch, lambda ctx: ("click", {"id": "agent-3"}))
    rid = run("Delete my account")
    r = step(rid, snap("https://app.test/settings", "Danger zone",
                       [{"id": "agent-3", "tag": "button", "text": "Delete account"}]))
    assert r["action"] == "ask_user" and "Delete account" in r["question"] and "delete" in r["question"]


def test_send_message_asks(aws, monkeypatch):
    scripted(monkeypatch, lambda ctx: ("click", {"id": "agent-4"}))
    rid = run("Click Send message")
    r = step(rid, snap("https://mail.test/compose", "New message",
                       [{"id": "agent-4", "tag": "button", "text": "Send message"}]))
    assert r["action"] == "ask_user" and "Send message" in r["question"]


def test_enter_in_payment_form_asks(aws, monkeypatch):
    from runs.brain import ToolCall

    from tests.unit.runs_support import ScriptedBrain

    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    real = AgentBrain()
    brain = ScriptedBrain(choose=lambda ctx: ToolCall("press", {"key": "Enter"}))
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


# ---------------------------------------------------------------- one approval, one transaction
# The policy is scripted (it keeps choosing the same click); the risk classifier and the approval key
# (element, place, site, amount) are the real brain's.

PAY20 = ("https://shop.test/checkout", "Checkout\nOrder total: $20.00",
         [{"id": "agent-1", "tag": "a", "text": "Back to cart", "href": "https://shop.test/cart"},
          {"id": "agent-2", "tag": "button", "text": "Pay now"}])
OK = {"success": True, "message": "Clicked successfully"}


def approve_and_execute(rid, page):
    r = step(rid, snap(*page, ts=1))
    assert r["action"] == "ask_user", r
    assert answer(rid).json()["tool"]["name"] == "observe"
    r = step(rid, snap(*page, ts=2), {"success": True, "message": "Observed"})
    assert r["action"] == "execute_tool" and r["tool"] == {"name": "click", "parameters": {"id": "agent-2"}}, r
    return r


def test_approval_is_used_up_a_later_separate_purchase_asks(aws, monkeypatch):
    scripted(monkeypatch, lambda ctx: ("click", {"id": "agent-2"}))
    rid = run("Buy the tea")
    approve_and_execute(rid, PAY20)
    # the payment went through; the same checkout shows up again for another purchase: ask again
    r = step(rid, snap(*PAY20, ts=3), OK)
    assert r["action"] == "ask_user" and "$20.00" in r["question"], r


def test_same_approved_step_retried_is_not_asked_twice(aws, monkeypatch):
    scripted(monkeypatch, lambda ctx: ("click", {"id": "agent-2"}))
    rid = run("Buy the tea")
    first = approve_and_execute(rid, PAY20)
    # the extension retries the identical /step (lost response): the same answer, nothing advances
    again = step(rid, snap(*PAY20, ts=2), {"success": True, "message": "Observed"})
    assert again == first
    # the click failed (a stale id): retrying the very same approved action is not asked again
    r = step(rid, snap(*PAY20, ts=3), {"success": False, "error": "element agent-2 not found"})
    assert r["action"] == "execute_tool" and r["tool"]["parameters"] == {"id": "agent-2"}, r
    # once it went through, the approval is spent
    r = step(rid, snap(*PAY20, ts=4), OK)
    assert r["action"] == "ask_user"


def test_approved_remove_does_not_cover_delete_account(aws, monkeypatch):
    page = ("https://app.test/settings", "Settings\nSaved addresses: 12 Main St",
            [{"id": "agent-1", "tag": "button", "text": "Remove"},
             {"id": "agent-2", "tag": "button", "text": "Delete account"}])
    scripted(monkeypatch, lambda ctx: ("click", {"id": "agent-2" if ctx.step > 3 else "agent-1"}))
    rid = run("Tidy up my settings")
    r = step(rid, snap(*page, ts=1))
    assert r["action"] == "ask_user" and "'Remove'" in r["question"], r
    answer(rid)
    r = step(rid, snap(*page, ts=2), {"success": True, "message": "Observed"})
    assert r["action"] == "execute_tool" and r["tool"]["parameters"] == {"id": "agent-1"}
    r = step(rid, snap(*page, ts=3), OK)  # step 4: the policy now wants "Delete account"
    assert r["action"] == "ask_user" and "Delete account" in r["question"], r


def test_different_category_on_the_same_site_asks_again(aws, monkeypatch):
    page = ("https://shop.test/checkout", "Checkout\nOrder total: $20.00\nTell a friend",
            [{"id": "agent-2", "tag": "button", "text": "Pay now"},
             {"id": "agent-3", "tag": "button", "text": "Send message"}])
    scripted(monkeypatch, lambda ctx: ("click", {"id": "agent-3" if ctx.step > 2 else "agent-2"}))
    rid = run("Buy and tell a friend")
    step(rid, snap(*page, ts=1))
    answer(rid)
    r = step(rid, snap(*page, ts=2), {"success": True})  # step 3: "Send message" on the same site
    assert r["action"] == "ask_user" and "Send message" in r["question"] and "send" in r["question"], r


def test_unused_approval_lapses(aws, monkeypatch):
    scripted(monkeypatch, lambda ctx: ("click", {"id": "agent-2"}) if ctx.snapshot.timestamp in (1, 99)
             else ("scroll", {"direction": "down"}))
    rid = run("Buy the tea")
    step(rid, snap(*PAY20, ts=1))
    answer(rid)
    for i in range(2, 15):  # thirteen steps of something else
        step(rid, snap(PAY20[0], PAY20[1] + f"\nreview {i}", PAY20[2], ts=i), {"success": True})
    r = step(rid, snap(*PAY20, ts=99), {"success": True})
    assert r["action"] == "ask_user", r


# ---------------------------------------------------------------- credentials on a new domain

LOGIN = [{"id": "agent-1", "tag": "input", "type": "email", "placeholder": "Email"},
         {"id": "agent-2", "tag": "input", "type": "password", "placeholder": "Password"}]


def test_credentials_on_the_start_site_do_not_ask_a_new_site_does(aws, monkeypatch):
    scripted(monkeypatch, lambda ctx: ("type", {"id": "agent-2", "text": "correct horse"}))
    rid = run("Sign in and check my orders")
    r = step(rid, snap("https://shop.test/", "Welcome", [{"id": "agent-9", "tag": "a", "text": "Sign in"}]))
    r = step(rid, snap("https://login.shop.test/signin", "Sign in", LOGIN, ts=2), {"success": True})
    assert r["action"] == "execute_tool" and r["tool"]["name"] == "type", r  # same site as the start
    r = step(rid, snap("https://accounts.other.test/signin", "Sign in", LOGIN, ts=3), {"success": True})
    assert r["action"] == "ask_user" and "other.test" in r["question"] and "credential" in r["question"], r
    assert "correct horse" not in r["question"]
    answer(rid)
    r = step(rid, snap("https://accounts.other.test/signin", "Sign in", LOGIN, ts=4), {"success": True})
    assert r["action"] == "execute_tool"
    # approved once for that site: later credentials there do not ask again
    r = step(rid, snap("https://accounts.other.test/again", "Sign in again", LOGIN, ts=5), OK)
    assert r["action"] == "execute_tool", r


def test_credentials_for_a_site_the_task_names_do_not_ask(aws, monkeypatch):
    scripted(monkeypatch, lambda ctx: ("type", {"id": "agent-2", "text": "correct horse"}))
    rid = run("Open shop.test, then sign in at accounts.example.com")
    step(rid, snap("https://shop.test/", "Welcome", [{"id": "agent-9", "tag": "a", "text": "Sign in"}]))
    r = step(rid, snap("https://accounts.example.com/signin", "Sign in", LOGIN, ts=2), {"success": True})
    assert r["action"] == "execute_tool", r


@pytest.mark.parametrize(("start", "other"), [
    ("https://alice.github.io/shop/", "https://evil.github.io/signin"),
    ("https://shop-one.herokuapp.com/", "https://login.shop-two.herokuapp.com/signin"),
])
def test_two_sites_under_one_public_suffix_are_not_one_site_for_credentials(aws, monkeypatch, start, other):
    """Anyone may register under github.io or herokuapp.com: a run started on one app does not trust another
    app under the same suffix with credentials."""
    scripted(monkeypatch, lambda ctx: ("type", {"id": "agent-2", "text": "correct horse"}))
    rid = run(f"Sign in at {start} and check my orders")
    step(rid, snap(start, "Welcome", [{"id": "agent-9", "tag": "a", "text": "Sign in"}]))
    r = step(rid, snap(start + "signin", "Sign in", LOGIN, ts=2), {"success": True})
    assert r["action"] == "execute_tool", r  # the task's own site
    r = step(rid, snap(other, "Sign in", LOGIN, ts=3), {"success": True})
    assert r["action"] == "ask_user" and "credential" in r["question"], r


# ---------------------------------------------------------------- any category reads sensibly

def test_unknown_categories_still_ask_a_readable_question(aws, monkeypatch):
    import runs.agent_adapter as adapter

    scripted(monkeypatch, lambda ctx: ("click", {"id": "agent-1"}))
    monkeypatch.setattr(adapter, "classify_risk", lambda action, page: "account_security")
    rid = run("Turn off two-factor authentication")
    r = step(rid, snap("https://app.test/security", "Security\nTwo-factor: on",
                       [{"id": "agent-1", "tag": "button", "text": "Turn off 2FA"}]))
    assert r["action"] == "ask_user"
    assert r["question"] == ("⚠️ Careful mode: about to click 'Turn off 2FA' on app.test, which would change "
                             "account or security settings. Proceed?")


def test_risk_without_summary_names_the_action(aws, monkeypatch):
    from runs.brain import Risk, ToolCall

    from tests.unit.runs_support import ScriptedBrain

    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    monkeypatch.setattr(runs_app, "_brain", ScriptedBrain(choose=lambda ctx: ToolCall("click", {"id": "agent-1"}),
                                                          risky={"agent-1": Risk("brand_new_kind", "")}))
    rid = run("Do the thing")
    r = step(rid, snap("https://app.test/", "Hello", [{"id": "agent-1", "tag": "button", "text": "Go"}]))
    assert r["question"] == "⚠️ Careful mode: about to click agent-1 (brand new kind). Proceed?"


# ------------------------------------------------------------------ the rules themselves (runs.careful)

def test_sites_are_registrable_domains_from_the_task_and_the_start_url():
    from runs.careful import task_sites

    from agenthost.urls import site as site_of

    assert site_of("login.shop.test") == "shop.test" and site_of("a.b.co.uk") == "b.co.uk"
    assert site_of("127.0.0.1") == "127.0.0.1" and site_of("localhost") == "localhost"
    assert task_sites("Log in to mail.example.com and check the inbox", "https://www.news.test/a") == \
        ["example.com", "news.test"]
    assert task_sites("Sign in at alice.github.io", None) == ["alice.github.io"]


def test_an_approval_matches_one_transaction_up_to_its_amount():
    from runs.careful import matching_approval

    key = {"category": "payment", "domain": "shop.test", "tool": "click", "element": "button:pay now",
           "place": "/checkout"}
    approvals = [{**key, "amount": 49.99, "spent": 3}, {**key, "amount": 49.99, "spent": None}]
    assert matching_approval(approvals, key, 49.99) == 1  # the unspent one
    assert matching_approval(approvals, key, 50.0) is None  # a grown amount asks again
    assert matching_approval(approvals, {**key, "place": "/account"}, 49.99) is None
    assert matching_approval([{**key, "amount": None, "spent": None}], key, 10.0) is None  # no amount shown then


def test_a_spent_approval_comes_back_when_its_action_failed_and_unused_ones_lapse():
    from runs.careful import APPROVAL_STEPS, settle_approvals

    meta = {"current_step": 5, "recent": [{"step": 4, "ok": False}, {"step": 5, "ok": True}],
            "approvals": [{"granted": 3, "spent": 4}, {"granted": 3, "spent": 5},
                          {"granted": 5 - APPROVAL_STEPS - 1, "spent": None}]}
    settle_approvals(meta)
    assert meta["approvals"] == [{"granted": 3, "spent": None}]
