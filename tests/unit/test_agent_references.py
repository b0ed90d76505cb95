"""Controls a task points to by kind and place, and the values it wants in them (``agent.references``), on pages
written for these tests in other words than any benchmark's: a value into "the text box", the n-th field,
"both" fields, a case change, a value the page holds (the n-th word, a text area to copy, a table's value
for a label), dates for date inputs, and an honest give-up where the protocol cannot reach the field."""

from __future__ import annotations

import pytest

from agenthost.agent import Action
from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.pointing import clauses, refs_in
from agenthost.agent.snapshot import from_snapshot
from tests.support.policy import ARIA, PROXY, check, decide, expect


def _snap(elements, text="", url="https://site.test/"):
    return from_snapshot({"url": url, "title": "", "visibleText": text, "elements": elements})


def _proxy(task, page, **kw):
    d = decide(task, page, tools=PROXY_TOOLS, **kw)
    return [(a.tool, a.resolved.ref if a.resolved else a.target, a.args.get("text")) for a in d.actions], d


def test_references_by_kind_place_and_quantity_are_read_from_each_clause():
    assert clauses("Tick the 2nd checkbox, then press OK. Then leave.") == ["Tick the 2nd checkbox", "press OK.",
                                                                           "leave."]
    assert [(r.kind, r.ordinal, r.every) for r in refs_in("Write it in the second text field")] == [("text", 2, False)]
    assert [(r.kind, r.every) for r in refs_in("Put the code in both input boxes")] == [("text", True)]
    assert [r.kind for r in refs_in('Press the "checkbox" element and then the last radio button')] == \
        ["checkbox", "radio"]
    assert [r.kind for r in refs_in("Choose a size from the drop-down list")] == ["combobox"]


TEXT = "Please enter the code shown below to confirm you are human. K7PQ2 Confirm"
MUTE = "Rui @rui Good morning. more Mute @rui Report @rui"
NOTES = ("Take the 4th word of the paragraph and write it in the text field, then press Check. Tides turn. "
         "Boats wait at anchor.")
PAGES = {
    "surname": '- heading "Newsletter"\n- text: Your surname\n- textbox\n- button "Continue"',
    "lookup": '- text: Order lookup\n- textbox\n- button "Look up"',
    "box": '- textbox\n- button "Go"',
    "quiz": '- text: Quiz\n- paragraph: Rivers carry water toward the sea.\n- textbox\n- button "Check"',
    "two labels": """- table:
  - row "Capital Accra":
    - cell "Capital"
    - cell "Accra"
  - row "Currency Cedi":
    - cell "Currency"
    - cell "Cedi"
- text: "Currency:"
- textbox
- text: "Capital:"
- textbox
- button "Submit\"""",
    "one label": '- table:\n  - row "Capital Accra":\n    - cell "Capital"\n    - cell "Accra"\n- textbox\n'
                 '- button "Save"',
    "unnamed boxes": '- text: First\n- textbox\n- text: Second\n- textbox\n- button "Send"',
    "search": '- heading "Search"\n- textbox\n- button "Find"',
    "panels": '- text: Unfold all the panels, then press Done.\n- tab "Shipping"\n- tab "Returns"\n- button "Done"',
    "section": '- text: Open the section below and press Done.\n- tab "Billing"\n- tab "Notes"\n- button "Done"',
    "cities": '- text: Open the panels below to find the link "Lisbon" and click it.\n- tab "Cities" [selected]\n'
              '- link "Lisbon"\n- tab "Rivers"',
    "pop-up": '- text: Press the button marked "x" in the pop-up.\n- dialog "Notice":\n  - button "Close"\n'
              '  - paragraph: Your session ends soon.\n  - button "Stay"\n  - button "Leave"',
    "films": '- text: Find noir films directed by Okafor, released in 1999.\n- textbox "Genre"\n- textbox "Director"\n'
             '- textbox "Release year"\n- button "Find"',
    "word above": '- paragraph: lighthouse\n- paragraph: Write the word written above in the box.\n- textbox\n'
                  '- button "Check"',
    "letters": '- text: Enter the letters below in the field and press Go. R T W\n- textbox\n- button "Go"',
    "welcome": '- text: Welcome back\n- textbox\n- button "Go"',
    # Proxy API snapshots: elements by their ids
    "three fields": _snap([{"id": "a1", "tag": "input", "type": "text", "at": 0},
                           {"id": "a2", "tag": "input", "type": "text", "at": 0},
                           {"id": "a3", "tag": "input", "type": "text", "at": 0},
                           {"id": "a4", "tag": "button", "text": "Save", "at": 0}]),
    "two fields": _snap([{"id": "b1", "tag": "input", "type": "text"}, {"id": "b2", "tag": "input", "type": "text"},
                         {"id": "b3", "tag": "button", "text": "Verify"}]),
    "text areas": _snap([{"id": "t1", "tag": "textarea", "value": "Notes for Monday.  "},
                         {"id": "t2", "tag": "textarea", "value": "Buy bread, then call Efua!"},
                         {"id": "t3", "tag": "input", "type": "text"}, {"id": "t4", "tag": "button", "text": "Done"}]),
    "date input": _snap([{"id": "d1", "tag": "input", "type": "date"}, {"id": "d2", "tag": "button", "text": "Book"}]),
    "inputs": _snap([{"id": "f1", "tag": "input", "type": "text"}, {"id": "f2", "tag": "input", "type": "search"},
                     {"id": "f3", "tag": "input", "type": "text"}]),
    # a check page that states its request and shows the text to copy under it (the task's sentence is on the page)
    "human check": _snap([{"id": "f1", "tag": "input", "type": "text", "at": TEXT.index("Confirm")},
                          {"id": "b1", "tag": "button", "text": "Confirm", "at": TEXT.index("Confirm")}], TEXT),
    # controls of several kinds, none named: "a text area" is any one of them
    "widgets": _snap([{"id": "w1", "tag": "input", "type": "text", "value": "k9"},
                      {"id": "w2", "tag": "textarea", "value": "Qx"}, {"id": "w3", "tag": "textarea", "value": "7"},
                      {"id": "w4", "tag": "button", "text": "Zup"}, {"id": "w5", "tag": "button", "text": "mm2"}]),
    # the Proxy API's text runs the request and the paragraph under it together, the paragraph over sentences
    "two notes": _snap([{"id": "q1", "tag": "input", "type": "text", "at": len(NOTES)},
                        {"id": "q2", "tag": "button", "text": "Check", "at": len(NOTES) + 1}], NOTES + " Check"),
    # a post's opened menu names its items after the author ("Mute @rui")
    "post menu": _snap([{"id": "m", "tag": "button", "text": "more", "at": MUTE.index("more")},
                        {"id": "mu", "tag": "li", "text": "Mute @rui", "clickable": True, "at": MUTE.index("Mute")},
                        {"id": "re", "tag": "li", "text": "Report @rui", "clickable": True,
                         "at": MUTE.index("Report")}], MUTE),
}

#: task + page -> what the decision does to the page: the value each field gets, the elements clicked
CASES = [
    pytest.param('Type "Mensah" into the text box, then press Continue.', "surname", ARIA,
                 {"typed": {"": "Mensah"}, "clicked": ["Continue"], "last": "Continue"},
                 id="a quoted value goes into the only text box and the form is sent"),
    pytest.param('Put "ORD-17" in the input field and look it up.', "lookup", ARIA, {"typed": {"": "ORD-17"}},
                 id="the input field is the text box"),
    pytest.param('Write "blue" in the second text field and save.', "three fields", PROXY,
                 {"typed_into": {"a2": "blue"}}, id="the nth field"),
    pytest.param('Enter the code "AB12" into both text fields.', "two fields", PROXY,
                 {"typed": {"b1": "AB12", "b2": "AB12"}}, id="both fields"),
    pytest.param('Type "oslo" in capital letters into the box.', "box", ARIA, {"typed": {"": "OSLO"}},
                 id="a case change"),
    pytest.param("Take the 3rd word of the paragraph and enter it in the answer box.", "quiz", ARIA,
                 {"typed": {"": "water"}}, id="the nth word the page holds"),
    # the words run on over the paragraph's sentences; the request's own sentences are no part of it
    pytest.param("Take the 4th word of the paragraph and write it in the text field, then press Check.", "two notes",
                 PROXY,
                 {"typed_into": {"q1": "wait"}}, id="the nth word counted over a paragraph's sentences"),
    pytest.param("Copy the text from the 2nd text area and paste it into the text field.", "text areas", PROXY,
                 {"typed_into": {"t3": "Buy bread, then call Efua!"}}, id="a text area to copy"),
    pytest.param("Find the last word in the first text area and type it into the input.", "text areas", PROXY,
                 {"typed_into": {"t3": "Monday"}}, id="the last word of a text area"),
    # the second box cannot be reached by name: no submit without it
    pytest.param("Fill each field with the matching value from the table and submit.", "two labels", ARIA,
                 {"typed": {"": "Cedi"}, "clicked": []}, id="a table's value for each labelled field"),
    pytest.param("Enter the value of Capital into the field and save.", "one label", ARIA, {"typed": {"": "Accra"}},
                 id="a table's value for a label"),
    pytest.param("Key in 03/07/2025 as the arrival date and book.", "date input", PROXY,
                 {"typed_into": {"d1": "2025-03-07"}}, id="a date goes into a date input in its standard form"),
    pytest.param('Key in "March 7, 2025" as the arrival date and book.', "date input", PROXY,
                 {"typed_into": {"d1": "2025-03-07"}}, id="a date written in words goes into a date input as a date"),
    pytest.param('Enter "7" into the second text field and press Send.', "unnamed boxes", ARIA,
                 {"done": True, "success": False, "result": "cannot be reached", "nothing": True},
                 id="a field the protocol cannot reach is an honest give-up, not a submit without it"),
    pytest.param("Focus on the text field.", "search", ARIA, {"typed": {"": ""}, "clicked": []},  # typing nothing
                 id="focus goes to the text field"),
    pytest.param("Focus into the 2nd text box.", "inputs", PROXY, {"typed": {}, "clicked": ["f2"]},
                 id="focus goes to the nth text box"),
    pytest.param("Unfold all the panels, then press Done.", "panels", ARIA,
                 {"typed": {}, "clicked": ["Shipping", "Returns", "Done"], "last": "Done"},
                 id="sections the task asks to unfold are opened"),
    pytest.param("Open the section below and press Done.", "section", ARIA,
                 {"typed": {}, "clicked": ["Billing", "Done"], "last": "Done"}, id="the section below is opened"),
    pytest.param('Open the panels below to find the link "Lisbon" and click it.', "cities", ARIA,
                 {"typed": {}, "clicked": ["Lisbon"]}, id="the quoted link once it shows"),
    pytest.param('Press the button marked "x" in the pop-up.', "pop-up", ARIA, {"typed": {}, "clicked": ["Close"]},
                 id="an x to click is the close button's glyph"),
    pytest.param("Find noir films directed by Okafor, released in 1999.", "films", ARIA,
                 {"typed": {"Genre": "noir", "Director": "Okafor", "Release year": "1999"}, "clicked": ["Find"],
                  "last": "Find"}, id="a doer's field and a genre field take what the task says of them"),
    pytest.param("Please enter the code shown below to confirm you are human.", "human check", PROXY,
                 {"typed_into": {"f1": "K7PQ2"}}, id="the text the page shows below its own request"),
    pytest.param("Write the word written above in the box.", "word above", ARIA, {"typed": {"": "lighthouse"}},
                 id="the word written above"),
    # an ARIA tree runs the sentence and letters drawn one by one together: the letters are the word
    pytest.param("Enter the letters below in the field and press Go.", "letters", ARIA, {"typed": {"": "RTW"}},
                 id="letters drawn one by one"),
    pytest.param("Type the text below into the field.", "welcome", ARIA, {"typed": {}},
                 id="a page that does not show the request: nothing is made up"),
    pytest.param('For the user @rui, click on the "Mute" button.', "post menu", PROXY, {"clicked_has": ["mu"]},
                 id="a quoted control shown with the task's own words after it is that control"),
    pytest.param('Press any "text area" element on the page.', "widgets", PROXY, {"clicked": ["w2"]},
                 id="a quoted kind after 'any': one of them"),
    pytest.param('Tap a "button" control.', "widgets", PROXY, {"clicked": ["w4"]},
                 id="a quoted kind is no button's name"),
    pytest.param("Click a button.", "widgets", PROXY, {"clicked": ["w4"]}, id="a kind after 'a': one of them"),
    pytest.param("Click the button.", "widgets", PROXY, {"clicked": []}, id="'the' among several: none guessed"),
    pytest.param('Click on the "Mute" button.', "post menu", PROXY, {"not_clicked": ["mu"]},
                 id="words the task does not say after the quoted name: another control"),
]


@pytest.mark.parametrize(("task", "page", "how", "outcome"), CASES)
def test_a_page_and_a_task_give_what_the_user_sees(task, page, how, outcome):
    check(task, PAGES[page], how, outcome)


def test_a_date_is_checked_first_where_the_kind_of_input_is_unknown():
    tree = '- text: Arrival\n- textbox\n- button "Book"'
    first = decide("Key in 03/07/2025 as the arrival date and book.", tree)
    expect(first, typed={"": "03/07/2025"}, clicked=[])  # no submit until the box shows it took the date
    again = decide("Key in 03/07/2025 as the arrival date and book.", tree, memory=first.memory,
                   history=[Action("type", {"element": "", "text": "03/07/2025"})])
    expect(again, typed={"": "2025-03-07"})
    # the box now shows the date in the form it took: the date is in, the form is sent (no retyping)
    took = '- text: Arrival\n- textbox: 2025-03-07\n- button "Book"'
    history = [Action("type", {"element": "", "text": "03/07/2025"}),
               Action("type", {"element": "", "text": "2025-03-07"})]
    expect(decide("Key in 03/07/2025 as the arrival date and book.", took, memory=again.memory, history=history),
           typed={}, clicked=["Book"])
    clock = '- text: Alarm\n- textbox: "19:05"\n- button "Set alarm"'
    expect(decide("Put 7:05 PM in as the alarm time, then set the alarm.", clock,
                  history=[Action("type", {"element": "", "text": "7:05 PM"}),
                           Action("type", {"element": "", "text": "19:05"})]), typed={}, clicked=["Set alarm"])


def test_a_long_text_area_reaches_the_policy_whole_through_the_proxy_api_model():
    from runs.models import PageSnapshot

    words = [f"w{i}" for i in range(150)]  # about 800 characters, more than a field's 500
    text = " ".join(words) + " finale"
    snap = PageSnapshot.model_validate({"url": "https://site.test/", "title": "", "visibleText": "Notes Save",
                                        "elements": [{"id": "t", "tag": "textarea", "value": text},
                                                     {"id": "f", "tag": "input", "type": "text"},
                                                     {"id": "s", "tag": "button", "text": "Save"}]})
    page = from_snapshot(snap.model_dump())
    acts, _ = _proxy("Find the last word in the text area, type it into the text field and press Save.", page)
    assert ("type", "f", "finale") in acts
