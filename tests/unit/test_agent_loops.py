"""The loop keys tell one key press from another: pressing ArrowDown, then ArrowRight, then Enter on a page that
shows no change is three different actions, while the same key pressed again and again on an unchanged page is a
loop (nudged, then stopped) and a key that changed nothing is not sent again on that page state."""

from __future__ import annotations

from agenthost.agent import Action
from agenthost.agent.aria import from_aria
from agenthost.agent.loops import LoopGuard
from agenthost.agent.progress import action_key, futile_keys, sent_record

PAGE = '- textbox "Console"\n- menu "Tools":\n  - menuitem "Export" [expanded=false]\n  - menuitem "Print"'


def _press(key: str, on: str = "") -> Action:
    args = {"key": key, **({"element": on} if on else {})}
    return Action("press", args)


def test_different_keys_on_an_unchanged_page_are_no_repeat():
    page = from_aria(PAGE)
    guard = LoopGuard({})
    for key in ("ArrowDown", "ArrowRight", "ArrowLeft", "Home", "Enter"):
        kept, nudges, stop = guard.filter([_press(key)], page)
        assert kept and not nudges and not stop, key
        guard.record(kept, page)
    # the same holds for keys sent to one element (a terminal's prompt, a list box)
    for key in ("l", "s", "Enter"):
        kept, nudges, stop = guard.filter([_press(key, "Console")], page)
        assert kept and not nudges and not stop, key
        guard.record(kept, page)


def test_the_same_key_pressed_again_and_again_on_an_unchanged_page_is_a_loop():
    page = from_aria(PAGE)
    guard = LoopGuard({})
    down = _press("ArrowDown")
    guard.record([down], page)
    assert guard.filter([down], page)[0] == [down]
    guard.record([down], page)
    kept, nudges, stop = guard.filter([down], page)
    assert kept == [] and nudges and not stop  # withheld: something else is tried
    assert guard.filter([_press("ArrowUp")], page)[0]  # another key still goes
    guard.record([down, down], page)
    assert guard.filter([down], page)[2] is True  # and it persists: stop


def test_the_same_key_sent_turn_after_turn_ends_the_streak_but_alternating_keys_do_not():
    guard = LoopGuard({})
    for i in range(8):  # the page changes each turn (a readout moves): only the streak can tell
        page = from_aria(PAGE + f'\n- text: "step {i}"')
        key = ("ArrowDown", "ArrowUp")[i % 2]
        assert not guard.filter([_press(key)], page)[2]
        guard.record([_press(key)], page)
    guard = LoopGuard({})
    stopped = False
    for i in range(8):
        page = from_aria(PAGE + f'\n- text: "step {i}"')
        stopped = guard.filter([_press("ArrowDown")], page)[2]
        if stopped:
            break
        guard.record([_press("ArrowDown")], page)
    assert stopped


def test_the_action_key_holds_the_key_pressed():
    page = from_aria(PAGE)
    box = page.elements[0]
    on_box = [Action("press", {"element": "Console", "key": k}, resolved=box) for k in ("a", "b", "a")]
    assert action_key(on_box[0]) != action_key(on_box[1])
    assert action_key(on_box[0]) == action_key(on_box[2])
    assert action_key(_press("ArrowDown")) != action_key(_press("ArrowRight"))


def test_a_key_that_changed_nothing_is_futile_on_that_page_and_another_key_is_not():
    page = from_aria(PAGE)
    memory: dict = {}
    memory["sent"] = sent_record(page, [_press("ArrowDown")])
    futile = futile_keys(memory, page, acted=True)
    assert action_key(_press("ArrowDown")) in futile
    assert action_key(_press("ArrowRight")) not in futile
