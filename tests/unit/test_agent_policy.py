"""The deterministic policy's general rules on pages that are not in the arena suite: values next to labels
and synonyms, items to put in a basket, values the page shows, "only" groups, clue links, the request as a
message, history, ``avoid`` and the user's answers, finishing on completion only; and task passwords."""

from __future__ import annotations

import re

import pytest

from agenthost.agent import Action
from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.passwords import make_password, meets_rules, password_rules
from agenthost.agent.snapshot import from_snapshot
from agenthost.agent.task import read_task
from tests.support.policy import decide, expect, wire

BOOKING = """- textbox "First name"
- textbox "Last name"
- textbox "Phone"
- spinbutton "Adults": "1"
- textbox "Date of arrival"
- button "Back"
- button "Continue\""""
CONTACT = '- textbox "Full name"\n- textbox "Message"\n- button "Send"'
SHOP = """- list:
  - listitem:
    - text: Blue Mug, $8
    - button "Add Blue Mug to basket": Add
  - listitem:
    - text: Red Mug, $8
    - button "Add Red Mug to basket": Add
  - listitem:
    - text: Tea Towel, $5
    - button "Add Tea Towel to basket": Add
- textbox "Gift note"
- button "Add note"
- button "Go to checkout\""""
BUY = "Buy two Blue Mugs and a Tea Towel, then go to checkout."
VOUCHER = """- paragraph: "Your voucher: SAVE-2024 (valid until May)"
- textbox "Voucher"
- button "Redeem\""""
PLANS = """- table:
  - rowgroup:
    - row "Plan Seats Price":
      - columnheader "Plan"
      - columnheader "Seats"
      - columnheader "Price"
    - row "Team 10 $49":
      - cell "Team"
      - cell "10"
      - cell "$49"
    - row "Studio 25 $99":
      - cell "Studio"
      - cell "25"
      - cell "$99"
- textbox "Seats"
- button "Check\""""
DEVICE = """- tablist:
  - tab "Overview" [selected]
  - tab "Activation"
- paragraph: Welcome to your new device.
- textbox "Serial number"
- button "Activate\""""
ACTIVATE = "Find the serial number under Activation and use it to activate the device."
CHANNELS = """- group "Channels":
  - checkbox "Email" [checked]
  - checkbox "SMS"
  - checkbox "Push notifications" [checked]
- checkbox "Weekly digest" [checked]
- checkbox "I agree to the privacy policy"
- button "Save\""""
SIGNUP = """- textbox "Email"
- checkbox "I agree to the terms and conditions"
- checkbox "I agree to receive marketing emails from partners"
- button "Create account\""""
FAILED_SEND = """- textbox "Email": ann@example.com
- button "Send"
- status: Something went wrong, please try again later.
- link "Blog":
  - /url: /blog
- link "Careers":
  - /url: /jobs"""
BOOKS = """- searchbox "Search": Lem
- button "Search"
- link "Solaris (1961)":
  - /url: /b/1
- link "The Cyberiad (1965)":
  - /url: /b/2"""
NEWSLETTER = """- textbox "Email"
- button "Subscribe"
- link "Newsletter archive":
  - /url: /archive
- link "Newsletter settings":
  - /url: /settings"""
SUBSCRIBE = "Subscribe ann@example.com to the newsletter"
LOGIN = '- textbox "Username"\n- textbox "Password"\n- button "Log in"'
NAMED_FIELDS = """- textbox "First name"
- textbox "Full name"
- button "Submit\""""

#: page + task (+ what earlier turns did) -> what the decision does to the page
CASES = [
    pytest.param("Book a stay for first name Jane, surname Doe, phone +1 555 123 4567 and 2 adults.", BOOKING, {},
                 # not "Back"; the date the task does not give stays empty
                 {"typed": {"First name": "Jane", "Last name": "Doe", "Phone": "+1 555 123 4567", "Adults": "2"},
                  "clicked": ["Continue"], "last": "Continue"},
                 id="values next to labels, synonyms, a number before its label"),
    pytest.param("On behalf of Ana Ruiz, write to the landlord that the heating is broken.", CONTACT, {},
                 {"typed": {"Full name": "Ana Ruiz", "Message": "The heating is broken."}},
                 id="a person named in the task fills the name, the request becomes the message"),
    pytest.param("Contact the shop as Ana Ruiz and ask whether your order 1182 has shipped.", CONTACT, {},
                 {"typed_has": {"Message": "whether my order 1182 has shipped"}},
                 id="a question asked for the user is written in the first person"),
    pytest.param(BUY, SHOP, {"tools": PROXY_TOOLS},  # the Proxy API takes the whole plan one step at a time
                 {"clicked": ["Add Blue Mug to basket"] * 2 + ["Add Tea Towel to basket", "Go to checkout"],
                  "last": "Go to checkout"},
                 id="buy x clicks the button adding x as many times as asked"),
    pytest.param(BUY, SHOP, {"history": [Action("click", {"element": "Add Blue Mug to basket"})]},
                 # what earlier turns really sent counts: one mug was added, so one more, then the towel
                 {"clicked": ["Add Blue Mug to basket", "Add Tea Towel to basket", "Go to checkout"],
                  "not_clicked": ["Add note"]},  # a field's own button, not an item
                 id="buying remembers what was sent"),
    pytest.param("Use the voucher shown on this page.", VOUCHER, {},
                 {"typed": {"Voucher": "SAVE-2024"}, "clicked": ["Redeem"], "last": "Redeem"},
                 id="a value the page shows goes into the field the task names"),
    pytest.param("Look up how many seats the Studio plan has and enter it in the Seats field.", PLANS, {},
                 {"typed": {"Seats": "25"}, "clicked": ["Check"], "last": "Check"},
                 id="a value read from a table goes into the field"),
    pytest.param(ACTIVATE, DEVICE, {},
                 {"typed": {}, "clicked": ["Activation"]},  # not "Activate" with an empty serial number
                 id="a submit waits for a value the task refers to, looked for first"),
    pytest.param(ACTIVATE, DEVICE.replace("Welcome to your new device.", '"Your serial number is QX-88-104."'),
                 {"history": [Action("click", {"element": "Activation"})]},
                 {"typed": {"Serial number": "QX-88-104"}, "clicked": ["Activate"], "last": "Activate"},
                 id="the value found, the form is sent with it"),
    pytest.param("Notify me by SMS only and turn off the weekly digest.", CHANNELS, {},
                 {"clicked": ["Email", "SMS", "Push notifications", "Weekly digest", "I agree to the privacy policy",
                              "Save"], "last": "Save"},
                 id="only these boxes unticks the others of the group, turn off unticks"),
    pytest.param("Create an account for ann@example.com", SIGNUP, {},
                 {"typed": {"Email": "ann@example.com"}, "last": "Create account",
                  "clicked": ["I agree to the terms and conditions", "Create account"]},  # no marketing opt-in
                 id="agreement boxes ticked to submit, marketing opt-ins not"),
    pytest.param("Send the form with email ann@example.com", FAILED_SEND,
                 {"history": [Action("type", {"element": "Email", "text": "ann@example.com"}),
                              Action("click", {"element": "Send"})], "memory": {"acted": True}},
                 {"done": True, "result": "Not completed", "nothing": True},
                 id="after filling a form the policy does not wander off through links"),
    pytest.param('Search for "Lem" and open the book from 1965.', BOOKS,
                 {"history": [Action("type", {"element": "Search", "text": "Lem"}),
                              Action("click", {"element": "Search"})]},
                 {"typed": {}, "clicked": ["The Cyberiad (1965)"]},
                 id="a named click already sent is not repeated while something new is named"),
    pytest.param(SUBSCRIBE, NEWSLETTER, {},
                 {"typed": {"Email": "ann@example.com"}, "clicked": ["Subscribe"], "last": "Subscribe"},
                 id="subscribe"),
    pytest.param(SUBSCRIBE, NEWSLETTER, {"avoid": [("click", "Subscribe")]},
                 {"not_clicked": ["Subscribe"], "acts": True},
                 id="an action to avoid is not taken and the next best one is"),
    pytest.param("Open the newsletter archive", NEWSLETTER, {"avoid": [("click", "Newsletter archive")]},
                 {"clicked": ["Newsletter settings"], "typed": {}},
                 id="a link to avoid gives way to the next best link"),
    pytest.param("Log in to the portal", LOGIN,
                 {"memory": {"user_answers": ["Username: ann", "Password: Tr1cky-Pass"]}},
                 {"typed": {"Username": "ann", "Password": "Tr1cky-Pass"}, "clicked": ["Log in"], "last": "Log in"},
                 id="the user's answers are values like the task's own"),
    pytest.param("Type Ada into the First name field and click Submit", NAMED_FIELDS, {},
                 {"typed": {"First name": "Ada"}, "clicked": ["Submit"], "last": "Submit"},
                 id="an unquoted value typed into a named field"),
]


@pytest.mark.parametrize(("task", "tree", "given", "outcome"), CASES)
def test_a_page_and_a_task_give_what_the_user_sees(task, tree, given, outcome):
    expect(decide(task, tree, **given), **outcome)


def test_clue_links_are_followed_toward_the_goal_with_highest_and_lowest_and_dead_ends_backtracked():
    task = "Find the office where the key is kept. Follow the signs."
    hall = """- paragraph: "Sign: the key is kept on the floor with the lowest number."
- link "Floor 9":
  - /url: floor9.html
- link "Floor 4":
  - /url: floor4.html
- link "Floor 15":
  - /url: floor15.html"""
    d = decide(task, hall, url="https://b.test/hall.html")
    expect(d, clicked=["Floor 4"], typed={}, done=False)
    dead = """- heading "Floor 4" [level=1]
- paragraph: No key is kept here any more.
- link "Back to the hall":
  - /url: hall.html"""
    d2 = decide(task, dead, url="https://b.test/floor4.html", memory=d.memory)
    expect(d2, clicked=["Back to the hall"], typed={}, done=False)


def test_finishes_on_a_completion_message_and_not_on_an_error():
    task = "Sign up with email ann@example.com."
    ok = '- textbox "Email": ann@example.com\n- button "Sign up"\n- status: Thanks, your account was created.'
    d = decide(task, ok, memory={"acted": True}, history=[Action("click", {"element": "Sign up"})])
    assert d.done and d.result == "Thanks, your account was created."
    bad = ('- textbox "Email": ann@example.com\n- button "Sign up"\n'
           '- status: This email is already registered. Try again.')
    d = decide(task, bad, memory={"acted": True}, history=[Action("click", {"element": "Sign up"})])
    assert not (d.done and d.result and "account was created" in d.result)
    assert not d.done or d.result.startswith("Not completed")


def test_an_element_id_to_avoid_in_proxy_api_terms_gives_way_to_the_next_best():
    snap = from_snapshot({"url": "https://s.test/", "elements": [
        {"id": "agent-1", "tag": "a", "text": "Pricing", "href": "/pricing"},
        {"id": "agent-2", "tag": "a", "text": "Plans and pricing", "href": "/plans"}]})
    d = decide("Find the pricing", snap, tools=PROXY_TOOLS, avoid=[("click", "agent-1")])
    assert [a.to_proxy() for a in d.actions] == [{"name": "click", "parameters": {"id": "agent-2"}}]


def test_password_rules_from_task_or_page_and_fresh_random_passwords():
    rules = password_rules("Password: 8 to 10 characters, at least 2 digits, one uppercase letter and a symbol.")
    assert rules == {"min_length": 8, "max_length": 10, "digit": 2, "upper": 1, "symbol": 1}
    seen = set()
    for _ in range(30):
        pw = make_password(rules)
        assert meets_rules(pw, rules) and 8 <= len(pw) <= 10 and sum(c.isdigit() for c in pw) >= 2
        seen.add(pw)
    assert len(seen) == 30  # random (secrets), not a fixed string
    short = {"max_length": 6, "digit": 1}
    assert all(len(make_password(short)) == 6 and meets_rules(make_password(short), short) for _ in range(10))
    assert len(make_password({"min_length": 20})) == 20
    assert password_rules("no rules here") == {}
    # the page's own hint is read when the task gives none, and the generated password goes into every empty
    # password field (the confirmation gets the same one)
    tree = """- textbox "Email"
- textbox "Password"
- paragraph: "Password: at least 14 characters with a symbol."
- textbox "Confirm password"
- button "Create account\""""
    d = decide("Create an account for ann@example.com", tree)
    typed = {el: text for tool, el, text in wire(d) if tool == "type"}
    assert typed["Password"] == typed["Confirm password"] and len(typed["Password"]) >= 14
    assert re.search(r"[^A-Za-z0-9]", typed["Password"])
    # a field that already holds a password is left alone on the next turn
    filled = tree.replace('textbox "Password"', 'textbox "Password": "••••••••••••••"').replace(
        'textbox "Confirm password"', 'textbox "Confirm password": "••••••••••••••"')
    assert all(a.tool != "type" or "assword" not in a.args["element"] for a in decide(
        "Create an account for ann@example.com", filled).actions)


def test_task_reading_of_common_phrasings():
    f = read_task("Search for books by Ursula K. Le Guin and open the one from 1974.")
    assert f.value_for("Search books", role="searchbox") == "Ursula K. Le Guin"
    f = read_task("Apply the promo code SPRING25 before paying.")
    assert f.value_for("Promo code") == "SPRING25"
    f = read_task("Reserve it at 19:30 under the name Okafor.")
    assert f.pairs == [] and f.value_for("Name for the reservation") == "Okafor"
    f = read_task('Add the items "Pens" and "Paper" to the list.')
    assert f.value_for("New item", present="pens") == "Paper"  # the page's text, lower case
    assert f.value_for("New item", present="pens\npaper") is None
    f = read_task("Your name is Li Wei and your email is li.wei@example.org.")
    assert f.value_for("Your name") == "Li Wei" and f.value_for("Email") == "li.wei@example.org"


def test_an_unquoted_value_typed_into_a_named_field_is_read():
    facts = read_task("Enter Maria Lopez in the Full name field, then press Save")
    assert facts.pairs == [("Full name", "Maria Lopez")]
    # a description of what to type is not a value
    for text in ("Type your email into the Email field", "Enter the code in the Code box", "Type it into the box"):
        assert read_task(text).pairs == [], text
