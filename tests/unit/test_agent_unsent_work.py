"""A button that sends the task's work is not pressed before any of that work was done (``agent.sending``): where
the task asks for work before it ("..., then press Send") or does not name it at all, and nothing the agent did
(or plans to do first) did the work, the agent gives up honestly instead of sending the page as it stands (a
wrong answer burns the attempt); the work it cannot express on this protocol (a control that cannot be reached
by name) does not go out with a send after it either. Pages written for these tests."""

from __future__ import annotations

from agenthost.agent.actions import OLYMPICS_TOOLS, PROXY_TOOLS, Action
from tests.support.policy import decide, expect, snapshot_of

_CANVAS = '- heading "Route planner"\n- text: Two towns are marked on the map below.\n- button "Send"'


def test_work_before_the_send_that_no_action_here_does_is_a_give_up_not_a_send():
    for task in ("Trace the shortest road between the two towns, then press Send.",
                 "Mark both towns on the map and hit Send.",
                 "Connect the towns with one straight line and send."):
        d = decide(task, _CANVAS)
        expect(d, nothing=True, done=True, success=False)
        assert d.rules == ["forms.work-undone"]
        assert "Send" in d.result and "Not completed" in d.result


def test_the_same_on_the_proxy_path_with_unlisted_tiles():
    page = snapshot_of(["Colour every tile that shows a fruit.", "apple pear stone",
                        {"id": "b9", "tag": "button", "text": "Done"}])
    d = decide("Colour every tile that shows a fruit and hit Done when finished.", page, tools=PROXY_TOOLS)
    expect(d, nothing=True, done=True, success=False)
    assert d.rules == ["forms.work-undone"]


def test_a_send_button_the_task_never_names_is_not_the_first_thing_pressed():
    page = snapshot_of(["Turn the dial until its arrow points north.",
                        {"id": "go", "tag": "button", "text": "Submit"}])
    d = decide("Turn the dial until its arrow points north.", page, tools=PROXY_TOOLS)
    expect(d, nothing=True, done=True, success=False)
    assert d.rules == ["forms.work-undone"]


def test_a_send_that_is_the_whole_task_or_follows_nothing_to_do_is_pressed():
    tree = '- text: Leave the list as it is.\n- checkbox "Keep logs"\n- checkbox "Mirror"\n- button "Confirm"'
    expect(decide("Press the Confirm button.", tree), clicked=["Confirm"])
    expect(decide('Click on the "confirm" button.', tree), clicked=["Confirm"])
    expect(decide("Tick none of the boxes and press Confirm.", tree), clicked=["Confirm"])
    expect(decide("Choose nothing, then click Confirm.", tree), clicked=["Confirm"])


def test_a_send_after_work_done_earlier_or_planned_first_goes():
    task = "Write the code 4471 into the box and press Send."
    empty = snapshot_of([{"id": "c", "tag": "input", "type": "text", "label": "Code"},
                         {"id": "s", "tag": "button", "text": "Send"}])
    expect(decide(task, empty, tools=PROXY_TOOLS), typed_into={"c": "4471"}, last="s", by_ref=True)
    filled = snapshot_of([{"id": "c", "tag": "input", "type": "text", "label": "Code", "value": "4471"},
                          {"id": "s", "tag": "button", "text": "Send"}])
    d = decide(task, filled, tools=PROXY_TOOLS, history=[Action("type", {"id": "c", "text": "4471"})],
               memory={"acted": True})
    expect(d, clicked=["s"], by_ref=True)


def test_a_slider_that_already_shows_the_value_is_work_done():
    page = snapshot_of(["Volume", {"id": "v", "tag": "input", "type": "range", "value": "40", "label": "Volume"},
                        {"id": "s", "tag": "button", "text": "Save"}])
    expect(decide("Set the volume slider to 40 and press Save.", page, tools=PROXY_TOOLS), clicked=["s"],
           by_ref=True)


def test_a_step_this_protocol_cannot_reach_by_name_is_no_reason_to_send_the_rest():
    # each number has its own pair of buttons, named alike: by name only the first pair can be reached
    tree = ('- text: Label each number as positive or negative.\n- text: "2"\n- button "Positive"\n'
            '- button "Negative"\n- text: "9"\n- button "Positive"\n- button "Negative"\n- button "Send answers"')
    d = decide("Label each number below as positive or negative, then press Send answers.", tree, tools=OLYMPICS_TOOLS)
    # the first number's button is reachable, the second's is not: no half-labelled list is sent, and nothing is
    # clicked before the give-up
    expect(d, nothing=True, done=True, success=False)
    assert "cannot be reached" in d.result


def test_answer_buttons_that_submit_are_no_other_way_to_submit_after_a_look_that_changed_nothing():
    # a question whose answers are submit buttons, the things to count drawn where no snapshot lists them
    parts: list = ["How many striped fish are there?"]
    parts += [{"id": f"f{i}", "tag": "div", "clickable": True} for i in range(10)]
    parts += [{"id": f"a{n}", "tag": "button", "type": "submit", "text": str(n)} for n in (4, 2, 9, 6)]
    page = snapshot_of(parts)
    task = "How many striped fish are there?"
    memory: dict = {}
    history: list = []
    for _ in range(4):
        d = decide(task, page, tools=PROXY_TOOLS, memory=memory, history=history)
        expect(d, not_clicked=["a4", "a2", "a9", "a6"], by_ref=True)
        if d.done:
            break
        memory, history = d.memory, history + d.actions[:1]
    assert d.done and d.success is False


def test_a_list_whose_chosen_option_is_the_one_the_task_names_is_work_done():
    tree = ('- combobox:\n  - option "Lisbon" [selected]\n  - option "Oslo"\n  - option "Quito"\n'
            '- button "Send"')
    expect(decide("Pick Lisbon from the list and press Send.", tree), clicked=["Send"])
