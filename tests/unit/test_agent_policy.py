"""The deterministic policy's general rules on pages that are not in the arena suite: values next to labels
and synonyms, items to put in a basket, values the page shows, "only" groups, clue links, the request as a
message, history, ``avoid`` and the user's answers, finishing on completion only; and task passwords."""

from __future__ import annotations

import re

from agenthost.agent import Action
from agenthost.agent import page as pages
from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.passwords import make_password, meets_rules, password_rules
from agenthost.agent.task import read_task
from tests.support.policy import decide, wire


def test_values_written_next_to_labels_synonyms_and_numbers_before_the_label():
    tree = """- textbox "First name"
- textbox "Last name"
- textbox "Phone"
- spinbutton "Adults": "1"
- textbox "Date of arrival"
- button "Back"
- button "Continue\""""
    d = decide("Book a stay for first name Jane, surname Doe, phone +1 555 123 4567 and 2 adults.", tree)
    assert wire(d) == [("type", "First name", "Jane"), ("type", "Last name", "Doe"),
                       ("type", "Phone", "+1 555 123 4567"), ("type", "Adults", "2"),
                       ("click", "Continue", None)]  # not "Back"; the date the task does not give stays empty


def test_a_person_named_in_the_task_fills_name_fields_and_a_request_becomes_the_message():
    tree = '- textbox "Full name"\n- textbox "Message"\n- button "Send"'
    d = decide("On behalf of Ana Ruiz, write to the landlord that the heating is broken.", tree)
    typed = {el: text for tool, el, text in wire(d) if tool == "type"}
    assert typed == {"Full name": "Ana Ruiz", "Message": "The heating is broken."}
    d = decide("Contact the shop as Ana Ruiz and ask whether your order 1182 has shipped.", tree)
    msg = {el: text for tool, el, text in wire(d) if tool == "type"}["Message"]
    assert "whether my order 1182 has shipped" in msg


def test_buy_x_clicks_the_button_that_adds_x_as_many_times_as_asked_and_remembers_what_was_sent():
    tree = """- list:
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
    task = "Buy two Blue Mugs and a Tea Towel, then go to checkout."
    d = decide(task, tree, tools=PROXY_TOOLS)  # the Proxy API takes the whole plan one step at a time
    assert [a.args["element"] for a in d.actions] == [
        "Add Blue Mug to basket", "Add Blue Mug to basket", "Add Tea Towel to basket", "Go to checkout"]
    # what earlier turns really sent counts: one mug was added, so one more, then the towel
    sent = [Action("click", {"element": "Add Blue Mug to basket"})]
    d = decide(task, tree, history=sent)
    assert [a.args["element"] for a in d.actions][:2] == ["Add Blue Mug to basket", "Add Tea Towel to basket"]
    assert "Add note" not in [a.args["element"] for a in d.actions]  # a field's own button, not an item


def test_a_value_the_page_shows_is_carried_into_the_field_the_task_names():
    tree = """- paragraph: "Your voucher: SAVE-2024 (valid until May)"
- textbox "Voucher"
- button "Redeem\""""
    d = decide("Use the voucher shown on this page.", tree)
    assert wire(d) == [("type", "Voucher", "SAVE-2024"), ("click", "Redeem", None)]
    table = """- table:
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
    d = decide("Look up how many seats the Studio plan has and enter it in the Seats field.", table)
    assert wire(d) == [("type", "Seats", "25"), ("click", "Check", None)]


def test_a_submit_waits_for_a_value_the_task_refers_to_and_the_policy_looks_for_it_first():
    tree = """- tablist:
  - tab "Overview" [selected]
  - tab "Activation"
- paragraph: Welcome to your new device.
- textbox "Serial number"
- button "Activate\""""
    task = "Find the serial number under Activation and use it to activate the device."
    d = decide(task, tree)
    assert wire(d) == [("click", "Activation", None)]  # not "Activate" with an empty serial number
    shown = tree.replace("Welcome to your new device.", '"Your serial number is QX-88-104."')
    d = decide(task, shown, history=[Action("click", {"element": "Activation"})])
    assert wire(d) == [("type", "Serial number", "QX-88-104"), ("click", "Activate", None)]


def test_only_these_boxes_unticks_the_others_in_their_group_and_turning_off_unticks():
    tree = """- group "Channels":
  - checkbox "Email" [checked]
  - checkbox "SMS"
  - checkbox "Push notifications" [checked]
- checkbox "Weekly digest" [checked]
- checkbox "I agree to the privacy policy"
- button "Save\""""
    d = decide("Notify me by SMS only and turn off the weekly digest.", tree)
    assert wire(d) == [("click", "Email", None), ("click", "SMS", None), ("click", "Push notifications", None),
                       ("click", "Weekly digest", None), ("click", "I agree to the privacy policy", None),
                       ("click", "Save", None)]


def test_agreement_boxes_are_ticked_to_submit_but_marketing_opt_ins_are_not():
    tree = """- textbox "Email"
- checkbox "I agree to the terms and conditions"
- checkbox "I agree to receive marketing emails from partners"
- button "Create account\""""
    d = decide("Create an account for ann@example.com", tree)
    assert wire(d) == [("type", "Email", "ann@example.com"), ("click", "I agree to the terms and conditions", None),
                       ("click", "Create account", None)]


def test_after_filling_a_form_the_policy_does_not_wander_off_through_links():
    tree = """- textbox "Email": ann@example.com
- button "Send"
- status: Something went wrong, please try again later.
- link "Blog":
  - /url: /blog
- link "Careers":
  - /url: /jobs"""
    task = "Send the form with email ann@example.com"
    d = decide(task, tree, history=[Action("type", {"element": "Email", "text": "ann@example.com"}),
                                    Action("click", {"element": "Send"})], memory={"acted": True})
    assert d.done and d.result.startswith("Not completed") and not d.actions


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
    assert wire(d) == [("click", "Floor 4", None)] and not d.done
    dead = """- heading "Floor 4" [level=1]
- paragraph: No key is kept here any more.
- link "Back to the hall":
  - /url: hall.html"""
    d2 = decide(task, dead, url="https://b.test/floor4.html", memory=d.memory)
    assert wire(d2) == [("click", "Back to the hall", None)] and not d2.done


def test_a_named_click_already_sent_is_not_repeated_while_something_new_is_named():
    tree = """- searchbox "Search": Lem
- button "Search"
- link "Solaris (1961)":
  - /url: /b/1
- link "The Cyberiad (1965)":
  - /url: /b/2"""
    d = decide('Search for "Lem" and open the book from 1965.', tree,
               history=[Action("type", {"element": "Search", "text": "Lem"}), Action("click", {"element": "Search"})])
    assert wire(d) == [("click", "The Cyberiad (1965)", None)] and "the task names" in d.thinking


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


def test_avoid_is_honoured_and_the_next_best_action_is_taken():
    tree = """- textbox "Email"
- button "Subscribe"
- link "Newsletter archive":
  - /url: /archive
- link "Newsletter settings":
  - /url: /settings"""
    d = decide("Subscribe ann@example.com to the newsletter", tree)
    assert wire(d) == [("type", "Email", "ann@example.com"), ("click", "Subscribe", None)]
    d = decide("Subscribe ann@example.com to the newsletter", tree, avoid=[("click", "Subscribe")])
    assert ("click", "Subscribe", None) not in wire(d) and d.actions
    d = decide("Open the newsletter archive", tree, avoid=[("click", "Newsletter archive")])
    assert wire(d) == [("click", "Newsletter settings", None)]
    # Proxy API terms: element ids
    snap = pages.from_snapshot({"url": "https://s.test/", "elements": [
        {"id": "agent-1", "tag": "a", "text": "Pricing", "href": "/pricing"},
        {"id": "agent-2", "tag": "a", "text": "Plans and pricing", "href": "/plans"}]})
    d = decide("Find the pricing", snap, tools=PROXY_TOOLS, avoid=[("click", "agent-1")])
    assert [a.to_proxy() for a in d.actions] == [{"name": "click", "parameters": {"id": "agent-2"}}]


def test_user_answers_are_values_like_the_task_s_own():
    tree = '- textbox "Username"\n- textbox "Password"\n- button "Log in"'
    d = decide("Log in to the portal", tree, memory={"user_answers": ["Username: ann", "Password: Tr1cky-Pass"]})
    assert wire(d) == [("type", "Username", "ann"), ("type", "Password", "Tr1cky-Pass"), ("click", "Log in", None)]


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
    tree = """- textbox "First name"
- textbox "Full name"
- button "Submit\""""
    d = decide("Type Ada into the First name field and click Submit", tree)
    assert wire(d) == [("type", "First name", "Ada"), ("click", "Submit", None)]
    facts = read_task("Enter Maria Lopez in the Full name field, then press Save")
    assert facts.pairs == [("Full name", "Maria Lopez")]
    # a description of what to type is not a value
    for text in ("Type your email into the Email field", "Enter the code in the Code box", "Type it into the box"):
        assert read_task(text).pairs == [], text
