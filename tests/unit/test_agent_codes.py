"""A code shown on another page than its field (a locker PIN at the front desk, a voucher on a flyer page) is
remembered, the agent goes back to the field and types it; a page that calls its code stale gives none.
Pages written for these tests (not the task suite's library maze)."""

from __future__ import annotations

from agenthost.agent.codes import code_for, remember
from agenthost.agent.page import from_aria
from tests.support.policy import decide, wire

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
    assert wire(d) == [("type", "Locker PIN", "4826"), ("click", "Unlock", None)]


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
    assert wire(d) == [("type", "Voucher code", "SAVE15"), ("click", "Apply voucher", None)]
