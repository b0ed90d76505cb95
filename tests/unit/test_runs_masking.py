"""A Proxy API run never stores or returns in clear a value it typed into a secret field, nor a card number:
pages written to echo them in every field a snapshot has, tool results that repeat them, and a finish
that quotes them. Every field GET returns and every attribute of every stored item is scanned."""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

import pytest
import runs.app as runs_app
from runs.brain import ToolCall
from runs.masking import MASK, RunSecrets, mask_card_numbers
from runs.models import unpack_snapshot

from tests.support.apigw import call
from tests.unit.runs_support import API_KEY, ScriptedBrain

H = {"x-api-key": API_KEY}
#: typed by the run, stated nowhere in the task (like a password the agent generates on a sign-up form)
TYPED = "Zq8#mR!x2Lp_9w"
TYPED_CARD = "4000 0566 5566 5556"
#: card numbers a page shows next to other digit runs
SHOWN_CARDS = ("Card2 4111-1111-1111-1111", "Row 3 5555 5555 5555 4444", "Amex 3782 822463 10005")


def spellings(secret: str) -> set[str]:
    digits = "".join(ch for ch in secret if ch.isdigit())
    out = {secret, quote(secret, safe=""), quote_plus(secret)}
    if len(digits) >= 13:
        out |= {digits, "-".join(digits[i:i + 4] for i in range(0, len(digits), 4))}
    return out


def card_of(text: str) -> str:
    return text.split(" ", 2)[-1] if text.startswith("Row") else text.split(" ", 1)[-1]


def echo_page(url: str, secret: str, ts: int, *, fields: list[dict] | None = None) -> dict:
    """A page that repeats ``secret`` in every string a snapshot carries, and shows card numbers."""
    cards = " | ".join(SHOWN_CARDS)
    return {
        "url": f"{url}?pw={quote(secret, safe='')}&raw={secret}", "title": f"Welcome {secret}",
        "visibleText": f"Your password is {secret}.\n{cards}\nOrder 123456789012 (not a card)", "timestamp": ts,
        "elements": [
            {"id": "agent-1", "tag": "input", "type": "password", "name": "password", "placeholder": "Password"},
            {"id": "agent-2", "tag": "input", "type": "text", "name": "cardnumber", "placeholder": "Card number"},
            {"id": "agent-3", "tag": "a", "text": f"Hello {secret}", "href": f"/profile?pw={quote_plus(secret)}"},
            {"id": "agent-4", "tag": "button", "text": "Continue", "ariaLabel": f"Continue as {secret}"},
            {"id": "agent-5", "tag": "input", "type": "text", "name": "hint", "placeholder": f"e.g. {secret}",
             "value": f"{secret} {SHOWN_CARDS[0]}", "label": f"Reminder: {secret}"},
            {"id": "agent-6", "tag": "select", "name": "choice", "options": [secret, "other"]},
            {"id": "agent-8", "tag": "select", "multiple": True, "options": ["other", secret], "chosen": [secret]},
            *(fields or []),
        ]}


def start(task: str) -> str:
    r = call(runs_app.handler, "POST", "/agent/run/start", json_body={"task": task}, headers=H)
    assert r.status == 200
    return r.json()["runId"]


def step(rid: str, snap: dict, result: dict | None = None):
    body = {"snapshot": snap, **({"lastActionResult": result} if result is not None else {})}
    r = call(runs_app.handler, "POST", f"/agent/run/{rid}/step", json_body=body, headers=H)
    assert r.status == 200, r.text
    return r


def stored(store, rid: str, *, without: tuple[str, ...] = ()) -> str:
    """Every attribute of every item of the run as text, the snapshot unpacked."""
    items = list(store.query(f"RUN#{rid}"))
    for item in items:
        for key in without:
            item.pop(key, None)
        if item.get("snap_z") is not None:
            item["snap_z"] = unpack_snapshot(item["snap_z"])
    return json.dumps(items, default=str, ensure_ascii=False)


@pytest.fixture
def scripted(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)

    def install(choose):
        brain = ScriptedBrain(choose=choose)
        monkeypatch.setattr(runs_app, "_brain", brain)
        return brain

    return install


def test_what_the_run_typed_into_secret_fields_is_masked_wherever_it_comes_back(scripted, aws):
    plan = iter([
        ToolCall("type", {"id": "agent-1", "text": TYPED}, thinking=f"type the password {TYPED}"),
        ToolCall("type", {"id": "agent-2", "text": TYPED_CARD}, thinking="type the card"),
        ToolCall("finish", {}, text=f"Signed up with {TYPED} and card {TYPED_CARD}; the page said {SHOWN_CARDS}"),
    ])
    brain = scripted(lambda ctx: next(plan))
    rid = start("Create an account on bank.test and add my card")
    first = step(rid, echo_page("https://bank.test/signup", "nothing-yet", 1))
    assert first.json()["tool"] == {"name": "type", "parameters": {"id": "agent-1", "text": TYPED}}  # it must type it
    echoed = {"success": True, "message": f"Typed {TYPED} into Password", "data": {"typed": TYPED}}
    second = step(rid, echo_page("https://bank.test/signup", TYPED, 2), echoed)
    assert second.json()["tool"]["parameters"]["text"] == TYPED_CARD
    card_echo = {"success": True, "message": f"Typed {TYPED_CARD} into Card number"}
    third = step(rid, echo_page("https://bank.test/done", TYPED_CARD, 3), card_echo)
    assert third.json()["action"] == "finish" and MASK in third.json()["result"]

    state = call(runs_app.handler, "GET", f"/agent/run/{rid}", headers=H).json()["state"]
    assert state["status"] == "completed" and len(state["history"]) == 3
    returned = json.dumps(state, ensure_ascii=False) + third.text
    seen_by_policy = json.dumps([c.snapshot.model_dump() for c in brain.contexts[1:]], ensure_ascii=False)
    everything = stored(aws, rid)
    secrets = spellings(TYPED) | spellings(TYPED_CARD) | {card_of(c) for c in SHOWN_CARDS}
    for secret in secrets:
        assert secret not in returned, secret
        assert secret not in everything, secret
        assert secret not in seen_by_policy, secret
    assert "123456789012" in returned  # only secrets are masked


def test_a_secret_from_the_task_is_masked_everywhere_but_the_stored_task(scripted, aws):
    """The task the user gave is kept as given (the policy reads it every step); everything else stored,
    and everything returned, the task included, has the password the run typed masked."""
    password = "Hunter2-Quill"
    brain = scripted(lambda ctx: ToolCall("type", {"id": "agent-1", "text": password}) if ctx.step == 1
                     else ToolCall("finish", {}, text=f"logged in as ada / {password}"))
    rid = start(f"Sign in to bank.test as ada with the password {password}")
    step(rid, echo_page("https://bank.test/login", "nothing-yet", 1))
    step(rid, echo_page("https://bank.test/home", password, 2), {"success": True, "message": f"typed {password}"})
    assert password not in json.dumps([c.snapshot.model_dump() for c in brain.contexts[1:]])
    state = call(runs_app.handler, "GET", f"/agent/run/{rid}", headers=H).json()["state"]
    assert password not in json.dumps(state) and MASK in state["task"]
    assert password not in stored(aws, rid, without=("task",))
    assert password in stored(aws, rid)  # the task itself, as given


def test_a_retried_step_whose_answer_typed_a_secret_replays_without_it(scripted, aws):
    """The stored answer a retried /step gets is masked like everything else: an answer that typed a secret
    comes back as ``observe`` (the next step types it again), the run does not advance twice."""
    scripted(lambda ctx: ToolCall("type", {"id": "agent-1", "text": TYPED}))
    rid = start("Create an account on bank.test")
    snap = echo_page("https://bank.test/signup", "nothing-yet", 1)
    first = step(rid, snap).json()
    again = step(rid, snap).json()
    assert first["tool"]["parameters"]["text"] == TYPED
    assert again["tool"] == {"name": "observe", "parameters": {}} and again["state"] == first["state"]
    assert TYPED not in stored(aws, rid)


@pytest.mark.parametrize(("text", "masked"), [
    ("Card2 4111-1111-1111-1111", "Card2 ********"),
    ("Row 3 5555 5555 5555 4444", "Row 3 ********"),
    ("Amex 3782 822463 10005 exp 12 29", "Amex ******** exp 12 29"),
    ("ref 12 4000056655665556 99", "ref 12 ******** 99"),
    ("4111111111111111", "********"),
    ("x 4111 1111 1111 1111 1234 y", "x ******** 1234 y"),
    ("4111\u00a01111\u00a01111\u00a01111", "********"),
    ("Order 123456789012", "Order 123456789012"),                # 12 digits
    ("1234 5678 9012 3456", "1234 5678 9012 3456"),              # not Luhn-valid
    ("2 4 6 8 10 12 14 16 18 20 22 24", "2 4 6 8 10 12 14 16 18 20 22 24"),  # small numbers
    ("12345678901234567890123", "12345678901234567890123"),      # one run too long to be a card
])
def test_card_numbers_are_found_in_every_separated_window(text, masked):
    assert mask_card_numbers(text) == masked


def test_run_secrets_are_kept_only_as_fingerprints():
    s = RunSecrets()
    s.add(TYPED)
    s.add("abc")  # too short to mask in text
    kept = json.dumps(s.save())
    assert TYPED not in kept and quote(TYPED, safe="") not in kept
    again = RunSecrets(json.loads(kept))
    assert again.mask(f"a {TYPED} b {quote_plus(TYPED)} c abc") == f"a {MASK} b {MASK} c abc"
    assert RunSecrets().mask(f"a {TYPED}") == f"a {TYPED}"  # another run (another salt) knows nothing
