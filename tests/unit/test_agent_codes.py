"""A code shown on another page than its field (a locker PIN at the front desk, a voucher on a flyer page) is
remembered, the agent goes back to the field and types it; a page that calls its code stale gives none.
Pages written for these tests (not the task suite's library maze)."""

from __future__ import annotations

from agenthost.agent.aria import from_aria
from agenthost.agent.codes import code_for, remember
from tests.support.policy import decide, expect, wire

LOCKER = """- heading "Locker 14" [level=1]
- paragraph: The locker is closed.
- textbox "Locker PIN"
- button "Unlock"
- link "Front desk":
  - /url: /desk"""
DESK = """- heading "Front desk" [level=1]
- paragraph: "Welcome back! Your locker PIN is 4826."
- link "Opening hours":
  - /url: /hours"""
TASK = "Open your locker at the gym with the PIN from the front desk."


def test_the_pin_from_another_page_is_typed_into_the_field_that_waited_for_it():
    d = decide(TASK, LOCKER, url="https://gym.test/locker")
    assert ("click", "Unlock", None) not in wire(d)  # no PIN yet: the unlock is held back
    d = decide(TASK, DESK, url="https://gym.test/desk", memory=d.memory, history=d.actions)
    [back] = d.actions  # back to the locker: by the link the task names, or straight to the page
    assert back.args.get("url") == "https://gym.test/locker" or (back.resolved and back.resolved.href == "/locker")
    d = decide(TASK, LOCKER, url="https://gym.test/locker", memory=d.memory, history=d.actions)
    expect(d, typed={"Locker PIN": "4826"}, clicked=["Unlock"], last="Unlock")


def test_a_voucher_on_a_flyer_page_is_used_at_checkout_but_an_expired_one_is_not():
    memory: dict = {}
    remember(from_aria('- paragraph: "Spring flyer: voucher code SAVE15 for 15% off."', url="https://shop.test/f"),
             memory)
    assert code_for(memory, "Voucher code") == "SAVE15"
    stale: dict = {}
    remember(from_aria('- paragraph: "Wi-Fi code: GUEST99"\n- paragraph: "This code expired last week."',
                       url="https://cafe.test/"), stale)
    assert code_for(stale, "Wi-Fi code") is None
    checkout = """- heading "Checkout" [level=1]
- textbox "Voucher code"
- button "Apply voucher\""""
    d = decide("Apply the voucher from the spring flyer at checkout.", checkout, url="https://shop.test/checkout",
               memory=memory)
    expect(d, typed={"Voucher code": "SAVE15"}, clicked=["Apply voucher"], last="Apply voucher")


def test_a_one_time_code_shown_on_a_page_is_not_kept_in_the_stored_memory():
    import json
    pages = ['- paragraph: "Your one-time passcode: 482913"',
             '- paragraph: "Verification code: 553201. It expires in 5 minutes."',
             '- heading "Sign in" [level=1]\n- paragraph: "OTP code is 771204"',
             '- paragraph: "Two-factor code: 660418"']
    for tree in pages:
        memory: dict = {"codes": [["Your one-time passcode", "112233"]]}  # kept by an earlier version
        remember(from_aria(tree, url="https://bank.test/verify"), memory)
        stored = json.dumps(memory)
        assert not any(code in stored for code in ("482913", "553201", "771204", "660418", "112233")), tree
    # a bare "Your code is ..." on a page about verifying a sign-in is that one-time code
    memory = {}
    remember(from_aria('- heading "Verify it\'s you" [level=1]\n- paragraph: "Your code is 553201"',
                       url="https://bank.test/verify"), memory)
    assert "553201" not in json.dumps(memory)
    # a door code beside the one-time code is still kept
    memory = {}
    remember(from_aria('- paragraph: "Archive door code: 7291"\n- paragraph: "Your one-time passcode: 482913"',
                       url="https://maze.test/"), memory)
    assert code_for(memory, "Door code") == "7291" and "482913" not in json.dumps(memory)
    # the policy's memory after a turn on such a page holds no code either
    d = decide("Sign in with the code the page shows.", '- paragraph: "Your one-time passcode: 482913"\n'
               '- textbox "Passcode"\n- button "Sign in"', url="https://bank.test/verify")
    assert "482913" not in json.dumps(d.memory)
