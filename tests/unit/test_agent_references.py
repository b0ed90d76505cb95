"""Controls a task points to by kind and place, and the values it wants in them (``agent.references``), on pages
written for these tests in other words than any benchmark's: a value into "the text box", the n-th field,
"both" fields, a case change, a value the page holds (the n-th word, a text area to copy, a table's value
for a label), dates for date inputs, and an honest give-up where the protocol cannot reach the field."""

from __future__ import annotations

from agenthost.agent import Action
from agenthost.agent import page as pages
from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.references import clauses, refs_in
from tests.support.policy import decide, expect, wire


def _snap(elements, text="", url="https://site.test/"):
    return pages.from_snapshot({"url": url, "title": "", "visibleText": text, "elements": elements})


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


def test_a_quoted_value_goes_into_the_only_text_box_and_the_form_is_sent():
    tree = '- heading "Newsletter"\n- text: Your surname\n- textbox\n- button "Continue"'
    expect(decide('Type "Mensah" into the text box, then press Continue.', tree), typed={"": "Mensah"},
           clicked=["Continue"], last="Continue")
    tree2 = '- text: Order lookup\n- textbox\n- button "Look up"'
    expect(decide('Put "ORD-17" in the input field and look it up.', tree2), typed={"": "ORD-17"})


def test_the_nth_field_and_both_fields_and_a_case_change():
    page = _snap([{"id": "a1", "tag": "input", "type": "text", "at": 0}, {"id": "a2", "tag": "input", "type": "text",
                   "at": 0}, {"id": "a3", "tag": "input", "type": "text", "at": 0},
                  {"id": "a4", "tag": "button", "text": "Save", "at": 0}])
    acts, _ = _proxy('Write "blue" in the second text field and save.', page)
    assert ("type", "a2", "blue") in acts
    acts, _ = _proxy('Enter the code "AB12" into both text fields.', _snap(
        [{"id": "b1", "tag": "input", "type": "text"}, {"id": "b2", "tag": "input", "type": "text"},
         {"id": "b3", "tag": "button", "text": "Verify"}]))
    assert [a for a in acts if a[0] == "type"] == [("type", "b1", "AB12"), ("type", "b2", "AB12")]
    tree = '- textbox\n- button "Go"'
    expect(decide('Type "oslo" in capital letters into the box.', tree), typed={"": "OSLO"})


def test_values_the_page_holds_the_nth_word_the_last_word_and_a_text_area_to_copy():
    tree = ('- text: Quiz\n- paragraph: Rivers carry water toward the sea.\n- textbox\n- button "Check"')
    expect(decide("Take the 3rd word of the paragraph and enter it in the answer box.", tree), typed={"": "water"})
    areas = _snap([{"id": "t1", "tag": "textarea", "value": "Notes for Monday.  "},
                   {"id": "t2", "tag": "textarea", "value": "Buy bread, then call Efua!"},
                   {"id": "t3", "tag": "input", "type": "text"}, {"id": "t4", "tag": "button", "text": "Done"}])
    acts, _ = _proxy("Copy the text from the 2nd text area and paste it into the text field.", areas)
    assert ("type", "t3", "Buy bread, then call Efua!") in acts
    acts, _ = _proxy("Find the last word in the first text area and type it into the input.", areas)
    assert ("type", "t3", "Monday") in acts


def test_a_tables_value_for_a_label_and_for_each_labelled_field():
    tree = """- table:
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
- button "Submit\""""
    d = decide("Fill each field with the matching value from the table and submit.", tree)
    expect(d, typed={"": "Cedi"})  # the second box cannot be reached by name: no submit without it
    assert [a for a in wire(d) if a[0] == "click"] == []
    one = '- table:\n  - row "Capital Accra":\n    - cell "Capital"\n    - cell "Accra"\n- textbox\n- button "Save"'
    expect(decide("Enter the value of Capital into the field and save.", one), typed={"": "Accra"})


def test_a_date_goes_into_a_date_input_in_its_standard_form_and_is_checked_first_where_the_kind_is_unknown():
    page = _snap([{"id": "d1", "tag": "input", "type": "date"}, {"id": "d2", "tag": "button", "text": "Book"}])
    acts, _ = _proxy("Key in 03/07/2025 as the arrival date and book.", page)
    assert ("type", "d1", "2025-03-07") in acts
    tree = '- text: Arrival\n- textbox\n- button "Book"'
    first = decide("Key in 03/07/2025 as the arrival date and book.", tree)
    expect(first, typed={"": "03/07/2025"}, clicked=[])  # no submit until the box shows it took the date
    again = decide("Key in 03/07/2025 as the arrival date and book.", tree, memory=first.memory,
                   history=[Action("type", {"element": "", "text": "03/07/2025"})])
    expect(again, typed={"": "2025-03-07"})


def test_a_field_the_protocol_cannot_reach_is_an_honest_give_up_not_a_submit_without_it():
    tree = '- text: First\n- textbox\n- text: Second\n- textbox\n- button "Send"'
    d = decide('Enter "7" into the second text field and press Send.', tree)
    assert d.done and d.success is False and "cannot be reached" in d.result
    assert d.olympics()["actions"] == []


def test_focus_goes_to_the_field_the_task_points_to():
    tree = '- heading "Search"\n- textbox\n- button "Find"'
    expect(decide("Focus on the text field.", tree), typed={"": ""}, clicked=[])  # typing nothing focuses it
    page = _snap([{"id": "f1", "tag": "input", "type": "text"}, {"id": "f2", "tag": "input", "type": "search"},
                  {"id": "f3", "tag": "input", "type": "text"}])
    acts, _ = _proxy("Focus into the 2nd text box.", page)
    assert acts == [("click", "f2", None)]


def test_sections_the_task_asks_to_unfold_are_opened_then_the_quoted_link_once_it_shows():
    closed = '- text: Unfold all the panels, then press Done.\n- tab "Shipping"\n- tab "Returns"\n- button "Done"'
    expect(decide("Unfold all the panels, then press Done.", closed), typed={},
           clicked=["Shipping", "Returns", "Done"], last="Done")
    one = '- text: Open the section below and press Done.\n- tab "Billing"\n- tab "Notes"\n- button "Done"'
    expect(decide("Open the section below and press Done.", one), typed={}, clicked=["Billing", "Done"], last="Done")
    task = 'Open the panels below to find the link "Lisbon" and click it.'
    shown = f'- text: {task}\n- tab "Cities" [selected]\n- link "Lisbon"\n- tab "Rivers"'
    expect(decide(task, shown), typed={}, clicked=["Lisbon"])


def test_an_x_to_click_is_the_close_buttons_glyph():
    task = 'Press the button marked "x" in the pop-up.'
    tree = f'- text: {task}\n- dialog "Notice":\n  - button "Close"\n  - paragraph: Your session ends soon.\n' \
           '  - button "Stay"\n  - button "Leave"'
    expect(decide(task, tree), typed={}, clicked=["Close"])


def test_a_doers_field_and_a_genre_field_take_what_the_task_says_of_them():
    task = "Find noir films directed by Okafor, released in 1999."
    tree = (f'- text: {task}\n- textbox "Genre"\n- textbox "Director"\n- textbox "Release year"\n'
            '- button "Find"')
    expect(decide(task, tree), typed={"Genre": "noir", "Director": "Okafor", "Release year": "1999"}, clicked=["Find"],
           last="Find")


def test_the_text_the_page_shows_below_or_above_its_own_request_is_what_gets_typed():
    # a check page that states its request and shows the text to copy under it (the task's sentence is on the page)
    task = "Please enter the code shown below to confirm you are human."
    text = task + " K7PQ2 Confirm"
    page = _snap([{"id": "f1", "tag": "input", "type": "text", "at": text.index("Confirm")},
                  {"id": "b1", "tag": "button", "text": "Confirm", "at": text.index("Confirm")}], text)
    acts, _ = _proxy(task, page)
    assert ("type", "f1", "K7PQ2") in acts
    # the same kind of request for the word above, in another phrasing
    tree = ("- paragraph: lighthouse\n- paragraph: Write the word written above in the box.\n- textbox\n"
            "- button \"Check\"")
    expect(decide("Write the word written above in the box.", tree), typed={"": "lighthouse"})
    # an ARIA tree runs the sentence and letters drawn one by one together: the letters are the word
    tree = "- text: Enter the letters below in the field and press Go. R T W\n- textbox\n- button \"Go\""
    expect(decide("Enter the letters below in the field and press Go.", tree), typed={"": "RTW"})
    # a page that does not show the request: nothing is made up from it
    tree2 = '- text: Welcome back\n- textbox\n- button "Go"'
    assert not [a for a in wire(decide("Type the text below into the field.", tree2)) if a[0] == "type"]


def test_a_long_text_area_reaches_the_policy_whole_through_the_proxy_api_model():
    from runs.models import PageSnapshot

    words = [f"w{i}" for i in range(150)]  # about 800 characters, more than a field's 500
    text = " ".join(words) + " finale"
    snap = PageSnapshot.model_validate({"url": "https://site.test/", "title": "", "visibleText": "Notes Save",
                                        "elements": [{"id": "t", "tag": "textarea", "value": text},
                                                     {"id": "f", "tag": "input", "type": "text"},
                                                     {"id": "s", "tag": "button", "text": "Save"}]})
    page = pages.from_snapshot(snap.model_dump())
    acts, _ = _proxy("Find the last word in the text area, type it into the text field and press Save.", page)
    assert ("type", "f", "finale") in acts


def test_a_quoted_control_shown_with_the_tasks_own_words_after_it_is_that_control():
    # a post's opened menu names its items after the author ("Mute @rui"); the task quotes only "Mute"
    text = "Rui @rui Good morning. more Mute @rui Report @rui"
    page = _snap([{"id": "m", "tag": "button", "text": "more", "at": text.index("more")},
                  {"id": "mu", "tag": "li", "text": "Mute @rui", "clickable": True, "at": text.index("Mute")},
                  {"id": "re", "tag": "li", "text": "Report @rui", "clickable": True, "at": text.index("Report")}],
                 text)
    acts, _ = _proxy('For the user @rui, click on the "Mute" button.', page)
    assert ("click", "mu") in [a[:2] for a in acts]
    # words the task does not say after the quoted name: another control, not this one
    acts, _ = _proxy('Click on the "Mute" button.', page)
    assert ("click", "mu") not in [a[:2] for a in acts]
