"""An item inside a hover-opened submenu reached by keys (``agent.menus``) and several options of a multi-select
list chosen by keys (``agent.listbox``), on pages written for these tests: an application's File menu reached
by a path, a settings menu searched for an item the task names alone, a toppings list; a parent item is never
clicked, the agent gives up when no submenu holds the item, and a protocol without key presses is left alone."""

from __future__ import annotations

from agenthost.agent.actions import OLYMPICS_TOOLS, PROXY_TOOLS
from agenthost.agent.snapshot import from_snapshot
from tests.support.policy import decide, snapshot_of

_snap = snapshot_of


def _step(task, page, memory=None, history=()):
    d = decide(task, page, tools=PROXY_TOOLS, memory=memory or {}, history=list(history))
    return [(a.tool, a.resolved.ref if a.resolved else "", a.args.get("key")) for a in d.actions], d


def _item(ref, text, *, popup=False, focused=False):
    e = {"id": ref, "tag": "div", "role": "menuitem", "text": text}
    if popup:
        e["haspopup"] = True
    if focused:
        e["focused"] = True
    return e


def _file_menu(focus=None, open_recent=False):
    items = [{"id": "m", "tag": "ul", "role": "menu", "text": "New Open Recent Export"},
             _item("new", "New", focused=focus == "new"), _item("open", "Open", focused=focus == "open"),
             _item("recent", "Recent", popup=True, focused=focus == "recent")]
    if open_recent:
        items += [_item("r1", "budget.ods", focused=focus == "r1"), _item("r2", "notes.txt")]
    items.append(_item("export", "Export", popup=True, focused=focus == "export"))
    return _snap(["Workspace", *items])


def test_an_item_given_by_its_path_is_reached_by_keys_and_clicked_never_its_parent():
    task = "Choose Recent > notes.txt in the menu"
    acts, d = _step(task, _file_menu())
    assert acts == [("press", "m", "Home")]  # the menu focused first: a click or hover on "Recent" would pick it
    acts, d = _step(task, _file_menu(focus="new"), d.memory, d.actions)
    assert acts == [("press", "", "ArrowDown")]
    acts, d = _step(task, _file_menu(focus="open"), d.memory, [*d.actions])
    assert acts == [("press", "", "ArrowDown")]
    acts, d = _step(task, _file_menu(focus="recent"), d.memory, d.actions)
    assert acts == [("press", "", "ArrowRight")]  # the submenu opened with the key
    acts, d = _step(task, _file_menu(focus="r1", open_recent=True), d.memory, d.actions)
    assert acts == [("click", "r2", None)]
    assert not d.done


def test_a_focus_past_the_parent_moves_back_up():
    acts, _ = _step("Pick Recent>budget.ods from the File menu", _file_menu(focus="export"))
    assert acts == [("press", "", "ArrowUp")]


def _settings(focus=None, opened=None):
    parts = ["Settings", {"id": "menu", "tag": "ul", "role": "menu", "text": "Display Sound About"},
             _item("d", "Display", popup=True, focused=focus == "d")]
    if opened == "d":
        parts += [_item("d1", "Brightness", focused=focus == "d1"), _item("d2", "Night mode")]
    parts.append(_item("s", "Sound", popup=True, focused=focus == "s"))
    if opened == "s":
        parts += [_item("s1", "Volume", focused=focus == "s1"), _item("s2", "Mute all")]
    parts.append(_item("a", "About", focused=focus == "a"))
    return _snap(parts)


def test_an_item_named_alone_is_sought_in_each_submenu_in_turn():
    task = 'Open the settings menu and select the entry labeled "Mute all".'
    acts, d = _step(task, _settings())
    assert acts == [("press", "menu", "Home")]
    acts, d = _step(task, _settings(focus="d"), d.memory, d.actions)
    assert acts == [("press", "", "ArrowRight")]
    acts, d = _step(task, _settings(focus="d1", opened="d"), d.memory, d.actions)
    assert acts == [("press", "", "ArrowLeft")]  # not under Display: back to it
    acts, d = _step(task, _settings(focus="d"), d.memory, d.actions)
    assert acts == [("press", "", "ArrowDown")]
    acts, d = _step(task, _settings(focus="s"), d.memory, d.actions)
    assert acts == [("press", "", "ArrowRight")]
    acts, d = _step(task, _settings(focus="s1", opened="s"), d.memory, d.actions)
    assert acts == [("click", "s2", None)]


def test_an_item_in_no_submenu_ends_in_an_honest_give_up():
    task = 'Select the entry labeled "Keyboard" in the settings menu.'
    memory = {"menu": {"leaf": "keyboard", "opened": ["display", "sound"]}}
    _, d = _step(task, _settings(focus="s"), memory)
    assert d.done and d.success is False
    assert not [a for a in d.actions if a.tool == "click"]


def test_without_key_presses_the_rule_stays_out():
    d = decide("Choose Recent > notes.txt in the menu", _file_menu(), tools=OLYMPICS_TOOLS)
    assert not [a for a in d.actions if a.tool == "press"]


def test_the_snapshot_keeps_focus_popup_and_the_options_chosen():
    page = from_snapshot({"url": "https://s.test/", "elements": [
        {"id": "a", "tag": "div", "role": "menuitem", "text": "Edit", "haspopup": True, "focused": True},
        {"id": "b", "tag": "select", "multiple": True, "options": ["x", "y"], "chosen": ["y"], "value": "y"}]})
    edit, box = page.by_ref("a"), page.by_ref("b")
    assert edit.has_popup and edit.focused and "[focused]" in edit.describe()
    assert box.multiple and box.chosen == ["y"] and "\"y (selected)\"" in box.describe()


def _toppings(chosen=()):
    return _snap(["Toppings", {"id": "t", "tag": "select", "multiple": True, "value": chosen[0] if chosen else "",
                               "options": ["Olives", "Basil", "Onion", "Ham", "Corn"], "chosen": list(chosen)},
                  {"id": "ok", "tag": "button", "text": "Order"}])


def test_several_options_of_a_multi_select_list_are_added_by_keys_then_the_form_is_sent():
    task = "Pick Onion, Olives and Corn from the toppings list, then press Order."
    acts, d = _step(task, _toppings())
    assert [(a.tool, a.args.get("option")) for a in d.actions] == [("select", "Olives")]  # the first in list order
    acts, d = _step(task, _toppings(["Olives"]), d.memory, d.actions)
    assert acts == [("press", "t", "Control+ArrowDown")]
    history = list(d.actions)
    acts, d = _step(task, _toppings(["Olives"]), d.memory, history)
    assert acts == [("press", "t", "Control+ArrowDown")]  # the same key moving on is not taken for a loop
    history += d.actions
    acts, d = _step(task, _toppings(["Olives"]), d.memory, history)
    assert acts == [("press", "t", "Control+Space")]
    acts, d = _step(task, _toppings(["Olives", "Onion"]), d.memory, [*history, *d.actions])
    assert acts == [("press", "t", "Control+ArrowDown")]
    acts, d = _step(task, _toppings(["Olives", "Onion"]), d.memory, d.actions)
    assert acts == [("press", "t", "Control+ArrowDown")]
    acts, d = _step(task, _toppings(["Olives", "Onion"]), d.memory, d.actions)
    assert acts == [("press", "t", "Control+Space")]
    acts, d = _step(task, _toppings(["Olives", "Onion", "Corn"]), d.memory, d.actions)
    assert acts == [("click", "ok", None)]


def test_a_list_holding_another_option_starts_over():
    task = "Pick Basil and Ham from the toppings list, then press Order."
    _, d = _step(task, _toppings(["Olives"]), {"listbox": {"ref": "t", "at": 0}})
    assert [(a.tool, a.args.get("option")) for a in d.actions] == [("select", "Basil")]


def test_one_option_is_chosen_by_its_label_as_in_any_list():
    d = decide("Pick Ham from the toppings list, then press Order.", _toppings(), tools=PROXY_TOOLS)
    assert not [a for a in d.actions if a.tool == "press"]
    assert ("select", "Ham") in [(a.tool, a.args.get("option")) for a in d.actions]



# ------------------------------------------------------------------ boxes picked by meaning (agent.synonyms)
def _colours(*labels):
    boxes = ({"id": f"c{i}", "tag": "input", "type": "checkbox", "label": w, "checked": False}
             for i, w in enumerate(labels))
    return _snap(["Pick the colours", *boxes, {"id": "go", "tag": "button", "text": "Save"}])


def test_boxes_asked_by_meaning_with_a_word_that_has_no_box_end_in_a_give_up_not_a_partial_form():
    page = _colours("azure", "crimson", "ivory", "teal")
    d = decide("Tick the colours with the same meaning as red, white and press Save.", page, tools=PROXY_TOOLS)
    assert d.done and d.success is False and "white" in (d.result or "")
    assert not d.actions or all(a.tool == "done" for a in d.actions)
    d = decide("Choose the synonyms of teal, red, then click Save.", page, tools=PROXY_TOOLS)
    assert d.done and d.success is False  # "teal" has its box, "red" has none: nothing is ticked or sent


def test_boxes_asked_by_meaning_with_each_word_on_its_own_box_are_ticked_and_sent():
    page = _colours("azure", "crimson", "ivory", "teal")
    d = decide("Tick the words similar to ivory, teal and press Save.", page, tools=PROXY_TOOLS)
    assert not d.done
    assert {a.resolved.ref for a in d.actions if a.resolved is not None} >= {"c2", "c3"}


def test_a_quoted_value_to_type_on_a_page_with_a_menu_starts_no_search_of_its_submenus():
    page = _snap([{"id": "nav", "tag": "ul", "role": "menu", "text": "Products Support"},
                  _item("p", "Products", popup=True), _item("s", "Support", popup=True),
                  "Your note", {"id": "n", "tag": "input", "type": "text", "label": "Note"},
                  {"id": "ok", "tag": "button", "text": "Send"}])
    d = decide('Type "see you at noon" into the note field and send it.', page, tools=PROXY_TOOLS)
    assert not d.done and not [a for a in d.actions if a.tool == "press"]
    assert ("type", "see you at noon") in [(a.tool, a.args.get("text")) for a in d.actions]
