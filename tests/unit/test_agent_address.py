"""Reaching elements the way each protocol's platform does: names for the AI Olympics runner (text nodes in page
order, the first box for an empty name), ids for the Proxy API; the text a page shows as an unnamed control's
label; a snapshot's elements kept in page order. Pages written for these tests (none is a benchmark page)."""

from agenthost.agent.actions import Action
from agenthost.agent.address import address, runner_hit
from agenthost.agent.aria import from_aria
from agenthost.agent.guards import check_actions
from agenthost.agent.snapshot import from_snapshot

GERMAN_LOGIN = """- heading "Anmelden" [level=1]
- paragraph:
  - text: Benutzername
  - textbox
- paragraph:
  - text: Passwort
  - textbox
- button "Einloggen"
"""

SHIPPING_TABLE = """- text: Versand
- table:
  - rowgroup:
    - row "Street":
      - rowheader "Street"
      - cell:
        - textbox
    - row "City":
      - rowheader "City"
      - cell:
        - textbox
- button "Continue"
"""


def _el(page, role, hint=None):
    return next(e for e in page.elements if e.role == role and (hint is None or e.hint == hint))


def test_an_unnamed_box_is_labelled_by_the_text_right_before_it_in_its_block():
    page = from_aria(GERMAN_LOGIN)
    boxes = [e for e in page.elements if e.role == "textbox"]
    assert [b.hint for b in boxes] == ["Benutzername", "Passwort"]
    assert [b.label for b in boxes] == ["Benutzername", "Passwort"]
    table = from_aria(SHIPPING_TABLE)
    assert [e.hint for e in table.elements if e.role == "textbox"] == ["Street", "City"]


def test_a_hint_never_crosses_another_control_or_a_long_sentence():
    page = from_aria('- text: Please read our terms of service carefully before you go on with the order\n'
                     '- textbox\n- checkbox "Keep me posted"\n- textbox')
    assert [e.hint for e in page.elements if e.role == "textbox"] == ["", ""]


def test_the_first_unnamed_box_is_reached_with_an_empty_name_and_the_second_not_at_all():
    page = from_aria(GERMAN_LOGIN)
    first, second = [e for e in page.elements if e.role == "textbox"]
    assert runner_hit(page, "type", "") is first
    assert address(page, "type", first) == ""
    assert address(page, "type", second) is None  # no name, no label, no placeholder: the runner cannot reach it
    checked = check_actions([Action("type", {"element": "", "text": "jonas"}, resolved=first),
                             Action("type", {"element": "", "text": "geheim"}, resolved=second)], page)
    assert [(a.args["element"], a.args["text"]) for a in checked.actions] == [("", "jonas")]
    assert any("cannot be reached" in d for d in checked.dropped)


def test_a_text_the_instruction_above_repeats_cannot_be_clicked_by_name():
    """The runner's text match takes the first element in page order: the instruction line wins."""
    page = from_aria('- text: Open the message from Kofi and archive it.\n- list:\n'
                     '  - listitem: Kofi Mensah - Quarterly numbers\n  - listitem: Ama Owusu - Lunch?\n'
                     '- button "Archive"')
    kofi = next(e for e in page.elements if e.role == "listitem" and "Kofi" in e.value)
    assert runner_hit(page, "click", "Kofi") is not kofi
    assert address(page, "click", kofi) == "Kofi Mensah - Quarterly numbers"  # its whole text reaches it
    archive = next(e for e in page.elements if e.role == "button")
    assert address(page, "click", archive) == "Archive"


def test_a_named_box_is_reached_by_its_name_and_a_placeholder_box_by_its_placeholder():
    page = from_aria('- textbox "Email"\n- textbox:\n  - /placeholder: Postcode\n- combobox "Country":\n'
                     '  - option "Ghana" [selected]\n  - option "Togo"')
    email, postcode = [e for e in page.elements if e.role == "textbox"]
    country = _el(page, "combobox")
    assert address(page, "type", email) == "Email"
    assert address(page, "type", postcode) == "Postcode"
    assert address(page, "select", country) == "Country"


SNAPSHOT = {
    "url": "https://inbox.test/", "title": "Inbox",
    "visibleText": "Inbox Ama Owusu Lunch on Friday? Kofi Mensah Quarterly numbers Settings",
    "elements": [
        {"id": "agent-1", "tag": "span", "clickable": True, "hint": "trash delete", "at": 33},
        {"id": "agent-2", "tag": "span", "clickable": True, "hint": "trash delete", "at": 62},
        {"id": "agent-3", "tag": "a", "text": "Settings", "href": "/settings", "at": 63},
        {"id": "agent-4", "tag": "input", "type": "text", "hint": "Search mail", "at": 0},
    ],
}


def test_a_snapshot_keeps_page_order_and_names_icons_by_their_hint():
    page = from_snapshot(SNAPSHOT)
    order = [(e.ref, e.role, e.name or e.value) for e in page.elements]
    assert order == [("agent-4", "textbox", ""), ("text-1", "paragraph", "Inbox Ama Owusu Lunch on Friday?"),
                     ("agent-1", "button", "trash delete"), ("text-2", "paragraph", "Kofi Mensah Quarterly numbers"),
                     ("agent-2", "button", "trash delete"), ("agent-3", "link", "Settings")]
    box = page.by_ref("agent-4")
    assert box is not None and box.hint == "Search mail" and box.label == "Search mail"
    # on a snapshot page every element is reached by its id, named or not
    acts = check_actions([Action("click", {"element": "agent-2"})], page).actions
    assert [a.args["element"] for a in acts] == ["agent-2"]


def test_a_tab_is_reached_through_the_link_it_holds():
    page = from_aria(
        "- text: \"Click on Tab #1.\"\n- tablist:\n  - 'tab \"Tab #1\"':\n    - 'link \"Tab #1\"':\n"
        "      - /url: \"#tabs-1\"\n  - 'tab \"Tab #2\" [selected]':\n    - 'link \"Tab #2\"':\n"
        "      - /url: \"#tabs-2\"\n- paragraph: Some text.\n")
    tab = next(e for e in page.elements if e.role == "tab" and e.name == "Tab #1")
    assert tab.parent and any(e.role == "link" and e.parent == tab.ref for e in page.elements)  # quoted keys
    assert address(page, "click", tab) == "Tab #1"
    text = next(e for e in page.elements if e.role == "paragraph")
    assert address(page, "type", text) is None
