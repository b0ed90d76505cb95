"""Honest completion and progress: the deterministic policy says done only with evidence tied to the task,
plays multi-round pages on, never resends a batch that changed nothing, goes on to the next step of a flow,
keeps to the task's site, and gives up as done with success false. Each rule is checked on pages of several
kinds (a quiz, a form, a cart, a wizard, a maze), as ARIA snapshots like the AI Olympics runner sends."""

from __future__ import annotations

import sys
import types

import pytest

from agenthost.agent import Action
from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.aria import from_aria
from agenthost.agent.outcome import judge
from agenthost.agent.snapshot import from_snapshot
from tests.support.policy import Effect, decide, expect, wire


def verdict(tree, before=()):
    return judge(from_aria(tree), before)


# --------------------------------------------------------------------------- the page's verdict

@pytest.mark.parametrize("tree", [
    '- paragraph: 0 Score 0 Correct 1/10\n- heading "Unscramble the word" [level=2]',
    '- heading "Quiz" [level=1]\n- paragraph: Question 3 of 10\n- paragraph: "Correct: 2"',
    '- paragraph: Step 1 of 3 - your details\n- status: Saved',
    '- paragraph: "Round 2"\n- paragraph: That is correct, well done',
])
def test_a_score_or_progress_line_is_never_success(tree):
    assert verdict(tree).kind == "progress"


@pytest.mark.parametrize("tree", [
    '- status: Submitted!\n- paragraph: You got 0 correct answers.',
    '- heading "Submitted" [level=1]\n- paragraph: "Score: 0"',
    '- status: Thanks for playing\n- paragraph: 0/5 words found',
])
def test_a_completion_message_next_to_zero_correct_is_not_success(tree):
    assert verdict(tree).kind in ("failure", "progress")
    assert not verdict(tree).success


def test_a_game_is_over_with_success_only_on_a_full_score():
    assert verdict('- heading "Game over" [level=1]\n- paragraph: Final score 10/10').success
    assert verdict('- heading "Quiz complete!" [level=1]\n- paragraph: You got 7 of 10 correct.').kind == "failure"
    assert verdict('- heading "Game over" [level=1]\n- paragraph: "Score: 0"').kind == "failure"
    assert verdict('- heading "All rounds complete" [level=1]\n- paragraph: Congratulations, you won').success


def test_completion_messages_and_form_errors_are_still_read():
    assert verdict('- status: Thanks, your account was created.').success
    assert verdict('- heading "Order placed" [level=1]\n- paragraph: Confirmation number 55-1').success
    assert verdict('- status: This email is already registered. Try again.').kind == "error"
    assert verdict('- paragraph: "Correct!"').success  # one question, no game going on


def test_a_completion_line_shown_before_acting_is_no_evidence():
    tree = '- heading "Welcome! Registration successful for our demo" [level=1]\n- textbox "Email"\n- button "Send"'
    d = decide("Send the form with email ann@example.com", tree)
    expect(d, typed={"Email": "ann@example.com"}, clicked=["Send"], last="Send")
    after = tree.replace('- textbox "Email"', '- textbox "Email": ann@example.com')
    d2 = decide("Send the form with email ann@example.com", after, memory=d.memory,
                history=[Action("type", {"element": "Email", "text": "ann@example.com"}),
                         Action("click", {"element": "Send"})])
    assert not (d2.done and d2.success)  # the same old heading, nothing new says it worked


# --------------------------------------------------------------------------- no false done

def test_a_quiz_start_page_is_not_done_on_turn_one():
    tree = """- paragraph: 0 Score 0 Correct 1/10
- heading "Which planet is known as the red planet?" [level=2]
- button "Venus"
- button "Mars"
- button "Jupiter\""""
    d = decide("Play the trivia game and answer all ten questions.", tree)
    assert not d.done  # no skill knows this one: a choice is tried, the page tells whether it was right
    assert len(wire(d)) == 1 and wire(d)[0][1] in ("Venus", "Mars", "Jupiter")


def test_when_nothing_is_left_to_try_the_agent_gives_up_with_success_false_on_every_protocol():
    tree = '- paragraph: 0 Score 0 Correct 1/10\n- paragraph: Waiting for the next puzzle'
    d = decide("Solve all ten puzzles.", tree)
    assert d.done and d.success is False and d.result.startswith("Not completed")
    assert "1/10" in d.result  # says what the page shows instead
    body = d.olympics()
    assert body["done"] is True and body["result"]["success"] is False
    assert d.failure_text().startswith("Not completed")


def test_an_olympics_give_up_also_says_success_false_through_the_done_tool():
    from olympics.models import TurnResponse

    wire = TurnResponse(done=True, result={"success": False, "reason": "Not completed: the page shows 1/10"}).wire()
    assert wire["done"] is True and wire["result"]["success"] is False
    assert wire["actions"] == [{"tool": "done", "args": {"success": False,
                                                          "result": "Not completed: the page shows 1/10"}}]
    won = TurnResponse(done=True, result={"success": True}).wire()
    assert won["actions"] == []  # a success is the response's done/result only, as before


# --------------------------------------------------------------------------- after a turn that acted

ACTED = {"acted": True, "before": []}
MANUALS = """- heading "Manuals" [level=1]
- button "X100 user guide"
- button "X200 user guide"
- heading "X200 user guide" [level=2]
- button "Download PDF"
- link "Click here":
  - /url: https://speed-boost.example.invalid/"""

#: task + the page after the last turn's actions (+ those actions) -> what the decision does: done and whether
#: it says it succeeded, or the next step's control clicked
AFTER_ACTING = [
    pytest.param("Answer the question and submit.",
                 '- status: Submitted!\n- paragraph: 0 correct answers. The right answer was 42.',
                 [Action("click", {"element": "Submit"})], {"done": True, "success": False},
                 id="submitted with zero correct is not achieved"),
    pytest.param("Play the word game until it ends.",
                 '- heading "Game over" [level=1]\n- paragraph: You scored 10/10\n- button "Play again"',
                 [Action("click", {"element": "Next"})], {"done": True, "success": True},
                 id="a full score at the end of the game is success"),
    pytest.param("Buy the Blue Mug with the discount code MUG5.",
                 '- heading "Your cart" [level=1]\n- paragraph: Blue Mug $8\n- textbox "Discount code"\n'
                 '- button "Apply Discount"\n- status: Discount applied - you save $0.40\n'
                 '- button "Proceed to Checkout"',
                 [Action("click", {"element": "Add Blue Mug to cart"}),
                  Action("type", {"element": "Discount code", "text": "MUG5"}),
                  Action("click", {"element": "Apply Discount"})],
                 {"typed": {}, "clicked": ["Proceed to Checkout"]},
                 id="a step that took effect gives way to the next step button in a cart"),
    pytest.param("Answer the survey: favourite colour is blue.",
                 '- textbox "Favourite colour": blue\n- paragraph: Page 1 of 2\n- button "Back"\n- button "Continue"',
                 [Action("type", {"element": "Favourite colour", "text": "blue"})],
                 {"typed": {}, "clicked": ["Continue"]}, id="the next step button also moves a survey on"),
    pytest.param("Download the user guide for the Inkwell X200 printer from the support site.", MANUALS,
                 [Action("click", {"element": "X200 user guide"})], {"typed": {}, "clicked": ["Download PDF"]},
                 id="a download button is the next step after choosing what to download"),
]


@pytest.mark.parametrize(("task", "tree", "sent", "outcome"), AFTER_ACTING)
def test_after_a_turn_that_acted_the_page_decides_what_comes_next(task, tree, sent, outcome):
    url = "https://support.test/manuals.html" if tree is MANUALS else "https://site.test/"
    expect(decide(task, tree, url=url, history=sent, memory=dict(ACTED)), **outcome)


# --------------------------------------------------------------------------- progress

def test_a_batch_that_changed_nothing_is_not_resent_on_a_form_another_submit_way_is_tried():
    tree = '- textbox "Email"\n- button "Save"\n- button "Save and continue"'
    d1 = decide("Set Email: ann@example.com", tree)
    expect(d1, typed={"Email": "ann@example.com"}, clicked=["Save"], last="Save")
    # the page came back exactly as it was (the field shows nothing, nothing else changed)
    d2 = decide("Set Email: ann@example.com", tree, memory=d1.memory, history=[])
    assert wire(d2) != wire(d1) and not d2.done
    expect(d2, typed={}, clicked=["Save and continue"])


def test_a_click_that_changed_nothing_in_a_wizard_is_not_repeated():
    tree = '- paragraph: Step 2 of 3\n- button "Next"\n- link "Help":\n  - /url: /help'
    d1 = decide('Click "Next" to finish the wizard', tree)
    expect(d1, typed={}, clicked=["Next"])
    d2 = decide('Click "Next" to finish the wizard', tree, memory=d1.memory)
    assert ("click", "Next", None) not in wire(d2)


# --------------------------------------------------------------------------- same-site links

MAZE = """- paragraph: "Find the archive room."
- link "Click here":
  - /url: https://elsewhere.test/prize
- link "Archive room":
  - /url: /archive
- link "Lobby":
  - /url: /lobby"""


def test_an_off_site_link_is_not_followed_without_a_reason_in_the_task():
    only_off = """- paragraph: "Nothing about the goal here."
- link "Click here":
  - /url: https://elsewhere.test/prize
- link "Contact":
  - /url: /contact"""
    d = decide("Find the archive room of the museum. Follow the clues.", only_off, url="https://museum.test/")
    assert ("click", "Click here", None) not in wire(d)
    d = decide("Click here to find the archive room.", MAZE, url="https://museum.test/")
    assert wire(d) != [("click", "Click here", None)]
    # the task names the other site: a reason to go
    d = decide("Open the prize page on elsewhere.test via the Click here link.", MAZE, url="https://museum.test/")
    expect(d, typed={}, clicked=["Click here"])


def test_after_an_off_site_click_a_thanks_page_there_is_no_success_and_the_agent_goes_back():
    memory = {"home": "museum.test", "acted": True, "before": [], "visited": ["https://museum.test/hall"]}
    off = '- heading "Thanks! You have been registered." [level=1]\n- paragraph: Claim your prize'
    d = decide("Find the archive room of the museum.", off, url="https://elsewhere.test/prize", memory=memory,
               history=[Action("click", {"element": "Click here"})])
    assert not (d.done and d.success)
    assert [(a.tool, a.args.get("url")) for a in d.actions] == [("navigate", "https://museum.test/hall")]


# --------------------------------------------------------------------------- skills: one call site

@pytest.fixture
def fake_skills(monkeypatch):
    """A stand-in for agenthost.skills (its own tests cover it): answers one arithmetic question."""
    calls: list[str] = []

    class Solution:
        def __init__(self, answer):
            self.skill, self.answer, self.detail = "arithmetic", answer, ""

    def solve(question, *, context=None, deadline=None):
        calls.append(question)
        return Solution("56") if "7 x 8" in question else None

    mod = types.ModuleType("agenthost.skills")
    mod.solve = solve  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agenthost.skills", mod)
    import agenthost

    monkeypatch.setattr(agenthost, "skills", mod, raising=False)
    return calls


def test_a_round_of_a_game_is_answered_with_the_skill_and_submitted(fake_skills):
    tree = """- paragraph: Question 4 of 10
- paragraph: "What is 7 x 8?"
- textbox "Your answer"
- button "Submit answer\""""
    d = decide("Play the arithmetic game: answer every question.", tree)
    expect(d, typed={"Your answer": "56"}, clicked=["Submit answer"], last="Submit answer")
    assert not d.done
    # the Proxy API gets the same plan
    d = decide("Play the arithmetic game: answer every question.", tree, tools=PROXY_TOOLS)
    expect(d, typed={"Your answer": "56"}, clicked=["Submit answer"], last="Submit answer")


def test_a_choice_naming_the_answer_is_clicked(fake_skills):
    tree = """- paragraph: 2/10
- paragraph: "7 x 8 = ?"
- button "54"
- button "56"
- button "58\""""
    d = decide("Answer the multiplication quiz.", tree)
    expect(d, typed={}, clicked=["56"])


# --------------------------------------------------------------------------- values

def _typed(d):
    return {el: text for tool, el, text in wire(d) if tool in ("type", "select")}


def test_field_descriptions_get_realistic_values_never_the_guidance_text():
    tree = """- textbox "First name"
- textbox "Last name"
- textbox "Email"
- textbox "Phone"
- combobox "Country":
  - option "Select a country" [selected]
  - option "Canada"
  - option "Germany"
- button "Register\""""
    task = ("Register with First name: use a realistic first name, Last name: use a realistic last name, "
            "Email: a valid email address, Phone: use a realistic phone number format, Country: any country.")
    typed = _typed(decide(task, tree))
    assert typed["First name"].isalpha() and typed["Last name"].isalpha()
    assert "@" in typed["Email"] and "@" not in typed["First name"]
    assert sum(c.isdigit() for c in typed["Phone"]) >= 10
    assert typed["Country"] in ("Canada", "Germany")  # a real option, not the placeholder
    assert not any("realistic" in v or "valid" in v or "any" == v.split()[0] for v in typed.values())


def test_descriptions_on_a_shipping_form_and_a_review_of_a_stated_length():
    tree = """- textbox "Full name"
- textbox "Street address"
- textbox "City"
- textbox "ZIP code"
- textbox "Delivery notes"
- button "Continue\""""
    task = ("Ship to a realistic US address: Full name: any full name, Street address: a plausible street "
            "address, City: a real city, ZIP code: a valid 5-digit ZIP code. Delivery notes: at least 20 words "
            "about where to leave the parcel.")
    typed = _typed(decide(task, tree))
    assert len(typed["Full name"].split()) == 2 and typed["Street address"][0].isdigit()
    assert typed["ZIP code"].isdigit() and len(typed["ZIP code"]) == 5
    assert len(typed["Delivery notes"].split()) >= 20 and "at least" not in typed["Delivery notes"]
    tree = '- textbox "Your review"\n- button "Post review"'
    review = _typed(decide("Write a review of at least 40 words about your last holiday.", tree))["Your review"]
    assert len(review.split()) >= 40 and "holiday" in review


def test_stated_values_still_win_and_a_given_password_is_typed_exactly():
    tree = '- textbox "Username"\n- textbox "Password"\n- button "Sign in"'
    d = decide("Log in with username jdoe and password Winter2024! to see your orders.", tree)
    assert _typed(d) == {"Username": "jdoe", "Password": "Winter2024!"}
    tree = '- textbox "First name"\n- textbox "Email"\n- button "Send"'
    assert _typed(decide("First name: Maria, Email: maria@example.com", tree)) == {
        "First name": "Maria", "Email": "maria@example.com"}


def test_fill_all_fields_with_realistic_details_and_a_select_the_page_says_is_required():
    tree = '- textbox "Company"\n- textbox "Job title"\n- spinbutton "Age"\n- button "Save"'
    typed = _typed(decide("Complete all required fields with realistic details and save.", tree))
    assert set(typed) == {"Company", "Job title", "Age"} and typed["Age"].isdigit()
    form = """- textbox "Email": ann@example.com
- combobox "Plan":
  - option "Choose..." [selected]
  - option "Basic"
  - option "Pro"
- button "Sign up"
- alert: Please choose a plan."""
    d = decide("Sign up with email ann@example.com", form, memory={"acted": True, "before": []},
               history=[Action("type", {"element": "Email", "text": "ann@example.com"}),
                        Action("click", {"element": "Sign up"})])
    assert _typed(d).get("Plan") == "Basic"


def test_a_page_that_takes_its_message_back_is_no_success_in_a_gallery_or_a_shop():
    hall = ('- heading "Welcome to the east gallery" [level=1]\n'
            '- paragraph: "Congratulations, visitor: paintings on every wall. The manuscript is not kept here."\n'
            '- link "Back to the entrance hall":\n  - /url: entrance.html')
    assert not verdict(hall).success
    d = decide("Find the manuscript in the old museum.", hall, url="https://museum.test/east.html",
               memory={"acted": True, "before": [], "home": "museum.test"},
               history=[Action("click", {"element": "East gallery"})])
    assert not (d.done and d.success)
    shop = '- status: Thanks for your order!\n- paragraph: Payment failed: your card was declined.'
    assert not verdict(shop).success


@pytest.mark.parametrize("taken_back", [
    "The parcel you want isn't stored here.",
    "Sorry, that was the wrong shelf.",
    "This is not the right one, keep searching.",
    "Search somewhere else for the recipe.",
    "Two signatures are still missing.",
    "Nothing to see on this floor.",
])
def test_a_success_line_taken_back_in_other_words_is_no_success(taken_back):
    assert not verdict(f'- status: Well done!\n- paragraph: "{taken_back}"').success
    assert verdict('- status: Well done!\n- paragraph: "Your parcel is stored on shelf 4."').success


def test_a_value_found_on_the_page_does_not_finish_a_task_that_asks_to_enter_it():
    tree = """- paragraph: "The service answers in JSON. Its endpoints: /api/orders"
- textbox "Number of shipped orders"
- button "Submit report\""""
    task = "Use the order service's JSON API to fill in the report: how many orders are shipped? Submit the report."
    d = decide(task, tree, memory={"acted": True, "before": []},
               history=[Action("click", {"element": "Submit report"})])
    assert not (d.done and d.success)
    # a plain question is still answered from the page
    d = decide("What is the endpoint of the order service?", tree)
    assert d.done and d.success and "/api/orders" in d.result


def test_sign_in_as_names_the_account_and_a_product_name_is_no_person():
    tree = '- textbox "Username"\n- textbox "Password"\n- button "Sign in"'
    d = decide("Sign in as dana.novak with the password Plum-Tree-42 and download the October invoice.", tree)
    assert _typed(d) == {"Username": "dana.novak", "Password": "Plum-Tree-42"}
    shop = """- paragraph: Colombia Supremo, 250 g
- button "Add Colombia Supremo to cart"
- textbox "Full name"
- button "Place order\""""
    d = decide("Buy two bags of Colombia Supremo and ship them to Jonas Berg.", shop)
    assert Effect(d).clicks["Add Colombia Supremo to cart"] == 2
    assert _typed(d) == {"Full name": "Jonas Berg"}


def test_an_address_written_as_a_comma_list_fills_its_fields_on_a_checkout_and_an_address_book():
    checkout = """- textbox "Full name"
- textbox "Street address"
- textbox "Postcode"
- textbox "City"
- button "Place order\""""
    d = decide("Check out with shipping to Jonas Berg, Elm Street 4, 21073 Hamburg.", checkout)
    assert _typed(d) == {"Full name": "Jonas Berg", "Street address": "Elm Street 4", "Postcode": "21073",
                         "City": "Hamburg"}
    book = """- textbox "Recipient"
- textbox "Address line 1"
- textbox "Town"
- combobox "Country":
  - option "Choose a country" [selected]
  - option "Spain"
  - option "Portugal"
- button "Save address\""""
    d = decide("Save the shipping address Ines Duarte, Rua das Flores 12, Porto, Portugal.", book)
    assert _typed(d) == {"Recipient": "Ines Duarte", "Address line 1": "Rua das Flores 12", "Town": "Porto",
                         "Country": "Portugal"}


def test_an_editable_combobox_is_typed_then_its_option_chosen_then_the_form_saved():
    task = "Save the shipping address Ines Duarte, Rua das Flores 12, Porto, Portugal."
    closed = """- textbox "Full name"
- textbox "City"
- combobox "Country"
- paragraph: No country chosen yet.
- button "Save address\""""
    d = decide(task, closed)
    # no submit before the country is chosen
    expect(d, typed={"Full name": "Ines Duarte", "City": "Porto", "Country": "Portugal"}, clicked=[])
    opened = """- textbox "Full name": Ines Duarte
- textbox "City": Porto
- combobox "Country": Portugal
- listbox "Countries":
  - option "Portugal"
- paragraph: No country chosen yet.
- button "Save address\""""
    d2 = decide(task, opened, memory=d.memory, history=[Action("type", {"element": "Country", "text": "Portugal"})])
    expect(d2, typed={}, clicked=["Portugal", "Save address"], last="Save address")


@pytest.mark.parametrize("task,label", [
    ("Win the word scramble game: unscramble the letters in every round.", "Your word"),
    ("Complete the number sequence game: give the next number in each of the five rounds.", "Next number"),
    ("Solve the chess puzzle: enter the move that checkmates.", "Your move"),
    ("Finish the spelling quiz: spell each word you hear.", "Answer"),
])
def test_a_task_title_with_an_instruction_gives_no_value_to_the_answer_field(task, label):
    from agenthost.agent.task import read_task

    assert read_task(task).value_for(label) is None  # the page's problem decides the answer, not the task's words


def test_several_questions_each_get_their_own_answer_and_the_form_is_checked(fake_skills):
    tree = """- heading "Questions" [level=2]
- paragraph: "1. What is 7 x 8?"
- textbox "Answer to question 1"
- paragraph: "2. What is the capital of Mars?"
- textbox "Answer to question 2"
- button "Check answers\""""
    d = decide("Answer the two questions below and check your answers.", tree)
    expect(d, typed={"Answer to question 1": "56"}, clicked=["Check answers"], last="Check answers")
    assert fake_skills == ["1. What is 7 x 8?", "2. What is the capital of Mars?"]  # each on its own


# --------------------------------------------------------------------------- the turn's deadline

ROUND = """- paragraph: Question 4 of 10
- paragraph: "What is 7 x 8?"
- textbox "Your answer"
- button "Submit answer\""""


@pytest.fixture
def skill_deadlines(monkeypatch):
    """A stand-in skill that answers 7 x 8 and records the deadline each call was given."""
    seen: list[float | None] = []

    class Solution:
        skill, answer, detail = "arithmetic", "56", ""

    def solve(question, *, context=None, deadline=None):
        seen.append(deadline)
        return Solution() if "7 x 8" in question else None

    mod = types.ModuleType("agenthost.skills")
    mod.solve = solve  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agenthost.skills", mod)
    import agenthost

    monkeypatch.setattr(agenthost, "skills", mod, raising=False)
    return seen


def _play(deadline):
    from agenthost.agent import DeterministicPolicy
    from agenthost.agent.actions import OLYMPICS_TOOLS

    page = from_aria(ROUND, url="https://site.test/")
    return DeterministicPolicy().decide("Play the arithmetic game: answer every question.", page, [], {},
                                        OLYMPICS_TOOLS, deadline)


def test_the_skills_work_to_the_turns_deadline_object_on_its_own_clock(skill_deadlines):
    import time

    from agenthost.deadline import Deadline

    now = [1000.0]
    turn = Deadline.after(6.0, clock=lambda: now[0]).reserve(2.0, "answer")  # 4 s left on the turn's clock
    d = _play(turn)
    expect(d, typed={"Your answer": "56"})
    assert skill_deadlines and abs(skill_deadlines[0] - (time.monotonic() + 4.0)) < 0.5


def test_a_passed_deadline_asks_no_skill_and_types_no_guess(skill_deadlines):
    from agenthost.deadline import Deadline

    now = [1000.0]
    turn = Deadline.after(1.0, clock=lambda: now[0])
    now[0] += 2.0
    d = _play(turn)
    assert skill_deadlines == []
    assert "Your answer" not in Effect(d).typed


def test_a_bare_monotonic_instant_and_no_deadline_are_still_accepted(skill_deadlines):
    import time

    from agenthost.config import settings

    expect(_play(time.monotonic() + 3.0), typed={"Your answer": "56"})
    assert abs(skill_deadlines[-1] - (time.monotonic() + 3.0)) < 0.5
    expect(_play(None), typed={"Your answer": "56"})
    assert abs(skill_deadlines[-1] - (time.monotonic() + settings().decide_budget_s)) < 0.5


# --------------------------------------------------------------------------- a form that cannot be sent as asked

def _consent(value_field_disabled, button_disabled=False):
    task = 'Read the terms to the end, type the name "Ines", then press "Decline"'
    text = task + " Terms of service Clause one. Clause two. Decline Accept"
    # as an extension lists them: the enabled controls first, a field with no text of its own placed where the
    # next text starts (with the button there); the page shows the field above the buttons
    elements = [{"id": "d", "tag": "button", "text": "Decline", "disabled": button_disabled,
                 "at": text.rindex("Decline"), "bbox": {"x": 5, "y": 170, "width": 60, "height": 20}},
                {"id": "k", "tag": "button", "text": "Accept", "disabled": True, "at": text.rindex("Accept"),
                 "bbox": {"x": 70, "y": 170, "width": 60, "height": 20}},
                {"id": "t", "tag": "textarea", "value": "Clause one. Clause two.", "disabled": True,
                 "at": text.index("Clause"), "bbox": {"x": 5, "y": 60, "width": 150, "height": 80}},
                {"id": "n", "tag": "input", "type": "text", "placeholder": "Name", "disabled": value_field_disabled,
                 "at": text.rindex("Decline"), "bbox": {"x": 5, "y": 145, "width": 120, "height": 20}}]
    return task, from_snapshot({"url": "https://site.test/", "title": "", "visibleText": text,
                                "elements": elements})


def test_a_named_button_is_not_pressed_while_the_field_the_task_fills_before_it_is_disabled():
    task, page = _consent(value_field_disabled=True)
    d = decide(task, page, tools=PROXY_TOOLS)
    # pressing it would send the form without the name: an honest give-up that says why instead
    expect(d, done=True, success=False, result="disabled", nothing=True)
    # the field takes the name: typed, then the button
    task, page = _consent(value_field_disabled=False)
    expect(decide(task, page, tools=PROXY_TOOLS), typed={"n": "Ines"}, by_ref=True)


def test_a_disabled_button_the_task_names_is_not_clicked():
    _, page = _consent(value_field_disabled=False, button_disabled=True)
    d = decide('Press "Decline" to leave.', page, tools=PROXY_TOOLS)
    assert all(not (a.tool == "click" and a.resolved is not None and a.resolved.ref == "d") for a in d.actions)
    assert not d.success
