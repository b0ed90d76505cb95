"""Sliders set by keys to the values the task names (``agent.sliders``), on pages written for these tests: a range
input's own value, a widget's handle with its readout beside it, several sliders set to a list in order, page
keys used once their size is known, and nothing where the protocol has no key press."""

from __future__ import annotations

from agenthost.agent.actions import OLYMPICS_TOOLS, PROXY_TOOLS, Action
from tests.support.policy import decide, snapshot_of

_snap = snapshot_of


def _step(task, page, memory=None, history=()):
    d = decide(task, page, tools=PROXY_TOOLS, memory=memory or {}, history=list(history))
    return [(a.tool, a.resolved.ref if a.resolved else "", a.args.get("key")) for a in d.actions], d


def test_a_range_input_is_moved_by_arrow_keys_until_it_shows_the_value_then_the_form_is_sent():
    task = "Move the volume slider to 12 and press Save."
    acts, d = _step(task, _snap(["Volume", {"id": "v", "tag": "input", "type": "range", "value": "10",
                                            "label": "Volume"}, {"id": "s", "tag": "button", "text": "Save"}]))
    assert acts == [("press", "v", "ArrowRight")]
    acts, _ = _step(task, _snap(["Volume", {"id": "v", "tag": "input", "type": "range", "value": "12",
                                            "label": "Volume"}, {"id": "s", "tag": "button", "text": "Save"}]),
                    d.memory, [Action("press", {"key": "ArrowRight"})])
    assert acts == [("click", "s", None)]


def test_handles_with_readouts_are_set_to_a_list_in_page_order_with_page_keys_once_their_size_is_known():
    def page(a, b):
        return _snap([{"id": "h1", "tag": "span", "hint": "slider handle"}, str(a),
                      {"id": "h2", "tag": "span", "hint": "slider handle"}, str(b),
                      {"id": "go", "tag": "button", "text": "Apply"}])
    task = "Set the sliders to the combination [3, 40] and apply."
    acts, d = _step(task, page(5, 40))
    assert acts == [("press", "h1", "ArrowLeft")]  # 2 steps left: arrows
    acts, d = _step(task, page(3, 20), {})
    assert acts == [("press", "h2", "PageUp")]  # 20 steps left, page size unknown: one page key measures it
    acts, d = _step(task, page(3, 30), d.memory, [Action("press", {"key": "PageUp"})])
    assert acts == [("press", "h2", "PageUp")]  # that key moved it 10: a page is 10, and 10 are left
    acts, d = _step(task, page(3, 34), {"slide_page": {"h2": 10.0}})
    assert acts == [("press", "h2", "ArrowRight")]  # less than a page left: arrows
    acts, _ = _step(task, page(3, 40), d.memory)
    assert acts == [("click", "go", None)]


def test_no_key_press_no_slider_move():
    tree = '- slider "Brightness": "4"\n- button "OK"'
    d = decide("Set the brightness slider to 7 and press OK.", tree, tools=OLYMPICS_TOOLS)
    assert not [a for a in d.actions if a.tool == "press"]


def test_a_slider_moving_step_by_step_is_not_taken_for_a_loop():
    task = "Drag the temperature slider to 9, then press Done."
    memory: dict = {}
    history: list = []
    for value in range(0, 9):
        page = _snap([{"id": "t", "tag": "input", "type": "range", "value": str(value), "label": "Temperature"},
                      {"id": "d", "tag": "button", "text": "Done"}])
        acts, dec = _step(task, page, memory, history)
        assert not dec.done and acts[0][:2] == ("press", "t"), (value, dec.result)
        memory, history = dec.memory, [*history, dec.actions[0]]
