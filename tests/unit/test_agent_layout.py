"""A flat element snapshot (Proxy API ``PageSnapshot``, the browser function's elements) given the structure an
ARIA tree has (agent.layout): the text between the controls as paragraphs in document order, and the list a
typed combobox opened under a listbox. Decisions on snapshot pages then match those on ARIA pages; the pages
here are not in the task suite."""

from __future__ import annotations

from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.layout import group_options, interleave, sentences
from agenthost.agent.snapshot import from_snapshot
from tests.support.policy import decide


def _snap(text, elements, url="https://quiz.test/"):
    return from_snapshot({"url": url, "title": "T", "visibleText": text, "elements": elements})


def test_the_text_between_controls_becomes_paragraphs_before_them_and_lines_of_the_page_text():
    page = _snap("Club quiz Round two. 1. What is 12 × 3? Your answer 1 2. What comes next: 2, 4, 8, ? "
                 "Your answer 2 Send answers Scores are shown after sending.", [
                     {"id": "agent-1", "tag": "input", "label": "Your answer 1"},
                     {"id": "agent-2", "tag": "input", "label": "Your answer 2"},
                     {"id": "agent-3", "tag": "button", "text": "Send answers"}])
    assert [(e.ref, e.role, e.value if e.role == "paragraph" else e.name) for e in page.elements] == [
        ("text-1", "paragraph", "Club quiz Round two."), ("text-2", "paragraph", "1. What is 12 × 3?"),
        ("agent-1", "textbox", "Your answer 1"), ("text-3", "paragraph", "2. What comes next: 2, 4, 8, ?"),
        ("agent-2", "textbox", "Your answer 2"), ("agent-3", "button", "Send answers"),
        ("text-4", "paragraph", "Scores are shown after sending.")]
    assert page.text.splitlines() == ["Club quiz Round two.", "1. What is 12 × 3?", "Your answer 1",
                                      "2. What comes next: 2, 4, 8, ?", "Your answer 2", "Send answers",
                                      "Scores are shown after sending."]
    assert [e.ref for e in page.interactive()] == ["agent-1", "agent-2", "agent-3"]


def test_interleave_keeps_every_character_of_the_text_and_skips_labels_it_cannot_find_in_order():
    class El:
        def __init__(self, ref, role, name="", value=""):
            self.ref, self.role, self.name, self.value = ref, role, name, value

    a, b, c = El("a", "link", "Later"), El("b", "link", "Earlier"), El("c", "button", "Nowhere")
    text = "Intro. Earlier link text. Later on we stop."
    out, lines = interleave([a, b, c], {id(a): "Later", id(b): "Earlier", id(c): "Nowhere"}, text, El)
    # "Later" comes first in the list: the text before it is two sentences; "Earlier" is behind the cursor now
    assert [x.ref for x in out] == ["text-1", "text-2", "a", "b", "c", "text-3"]
    assert " ".join(lines.split()) == "Intro. Earlier link text. Later on we stop."  # nothing lost
    assert interleave([], {}, "", El) == ([], "")
    assert sentences("Total: 3.5 kg. Next! 2. Item two? done") == ["Total: 3.5 kg.", "Next!", "2. Item two? done"]


def test_options_after_an_editable_combobox_go_under_a_listbox_other_options_stay_alone():
    page = _snap("Departure city Lisbon Lismore Go", [
        {"id": "agent-1", "tag": "input", "role": "combobox", "label": "Departure city", "value": "Lis"},
        {"id": "agent-2", "tag": "li", "role": "option", "text": "Lisbon"},
        {"id": "agent-3", "tag": "li", "role": "option", "text": "Lismore"},
        {"id": "agent-4", "tag": "button", "text": "Go"}])
    roles = [(e.ref, e.role) for e in page.elements]
    assert roles == [("agent-1", "combobox"), ("agent-1-list", "listbox"), ("agent-2", "option"),
                     ("agent-3", "option"), ("agent-4", "button")]
    box = page.by_ref("agent-1-list")
    assert box.options == ["Lisbon", "Lismore"] and box.name == ""
    assert {e.parent for e in page.elements if e.role == "option"} == {"agent-1-list"}
    # options of a list that does not follow an editable combobox are left as they come
    class El:
        def __init__(self, ref, role, name="", value=""):
            self.ref, self.role, self.name, self.value = ref, role, name, value
            self.options, self.parent, self.selected = [], "", False

    alone = [El("x", "button", "Menu"), El("y", "option", "One")]
    assert group_options(alone, El) == alone


def test_a_snapshot_page_with_two_questions_gets_each_answer_in_its_own_field():
    page = _snap("Club quiz 1. What is 12 × 3? Your answer 1 2. What comes next: 2, 4, 8, ? Your answer 2 "
                 "Send answers", [
                     {"id": "agent-1", "tag": "input", "label": "Your answer 1"},
                     {"id": "agent-2", "tag": "input", "label": "Your answer 2"},
                     {"id": "agent-3", "tag": "button", "text": "Send answers"}])
    d = decide("Answer both questions of the club quiz and send them.", page, tools=PROXY_TOOLS)
    typed = [(a.resolved.ref, a.args.get("text")) for a in d.actions if a.tool == "type"]
    assert typed == [("agent-1", "36"), ("agent-2", "16")]
    assert d.actions[-1].tool == "click" and d.actions[-1].resolved.ref == "agent-3"


def test_a_typed_combobox_on_a_snapshot_page_gets_its_option_clicked_before_the_form_is_sent():
    page = _snap("Book a ferry Departure city Lisbon Lismore Passengers Book now", [
        {"id": "agent-1", "tag": "input", "role": "combobox", "label": "Departure city", "value": "Lisbon"},
        {"id": "agent-7", "tag": "li", "role": "option", "text": "Lisbon"},
        {"id": "agent-8", "tag": "li", "role": "option", "text": "Lismore"},
        {"id": "agent-2", "tag": "input", "label": "Passengers", "value": "2"},
        {"id": "agent-3", "tag": "button", "text": "Book now"}], url="https://ferry.test/")
    d = decide("Book a ferry from Lisbon for 2 passengers.", page, tools=PROXY_TOOLS,
               history=[], memory={})
    first = d.actions[0]
    assert (first.tool, first.resolved.ref) == ("click", "agent-7")  # the option, not "Book now"


def test_sentences_about_the_goal_pick_the_link_on_a_snapshot_page_as_on_an_aria_page():
    # one collapsed line would make every word on the page a clue ("Renewals and fees" shares two)
    text = ("Harbour library. Renew your card online! Renewals and fees Rooms "
            "Study spaces are booked under Rooms.")
    els = [{"id": "agent-1", "tag": "a", "text": "Renewals and fees", "href": "https://lib.test/renewals.html"},
           {"id": "agent-2", "tag": "a", "text": "Rooms", "href": "https://lib.test/rooms.html"}]
    snap = _snap(text, els, url="https://lib.test/")
    tree = """- paragraph: Harbour library.
- paragraph: Renew your card online!
- link "Renewals and fees":
  - /url: renewals.html
- link "Rooms":
  - /url: rooms.html
- paragraph: Study spaces are booked under Rooms."""
    task = "Book a study space at the library."
    on_tree = decide(task, tree, url="https://lib.test/")
    on_snap = decide(task, snap, tools=PROXY_TOOLS)
    assert on_tree.actions[0].resolved.name == on_snap.actions[0].resolved.name == "Rooms"


def test_a_field_label_that_is_also_a_table_heading_is_placed_at_the_field_and_the_table_stays_whole():
    page = _snap("Stock by shelf Shelf Item Count A1 Bolts 40 B2 Nuts 75 Count items Shelf Choose... A1 B2 "
                 "Count Save count", [
                     {"id": "agent-1", "tag": "select", "label": "Shelf", "options": ["Choose...", "A1", "B2"]},
                     {"id": "agent-2", "tag": "input", "label": "Count"},
                     {"id": "agent-3", "tag": "button", "text": "Save count"}])
    lines = page.text.splitlines()
    assert lines[0] == "Stock by shelf Shelf Item Count A1 Bolts 40 B2 Nuts 75 Count items"
    assert lines[1:] == ["Shelf", "Choose...", "A1 B2", "Count", "Save count"]
