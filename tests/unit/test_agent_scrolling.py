"""A control with its own scroll bar taken to the end the task names (``agent.scrolling``), on pages written
for these tests: a terms box, a second text area, a list, the page itself (not this rule), and a protocol whose
key press cannot aim at a control."""

from __future__ import annotations

import pytest

from agenthost.agent.actions import OLYMPICS_TOOLS, PROXY_TOOLS, Action
from tests.support.policy import decide, snapshot_of

TERMS = "Clause 1. The lessee keeps the bike in good order. " * 12


def _step(task, page, memory=None, history=()):
    d = decide(task, page, tools=PROXY_TOOLS, memory=memory or {}, history=list(history))
    return [(a.tool, a.resolved.ref if a.resolved else "", a.args.get("key")) for a in d.actions], d


def _terms_page():
    return snapshot_of(["Rental terms", {"id": "t", "tag": "textarea", "value": TERMS[:100]},
                        {"id": "ok", "tag": "button", "text": "Accept"}])


@pytest.mark.parametrize(("task", "key"), [
    ("Scroll the text area all the way to the bottom, then press Accept.", "Control+End"),
    ("Please scroll the textarea to the very top and press Accept.", "Control+Home"),
    ("Scroll down the text area to the end of the terms and click Accept.", "Control+End"),
    ("Scroll to the bottom of the text area, then press Accept.", "Control+End"),
    ("Scroll all the way up to the start of the textarea and press Accept.", "Control+Home"),
])
def test_the_box_gets_the_key_once_then_the_rest_of_the_task_goes_on(task, key):
    acts, d = _step(task, _terms_page())
    assert acts == [("press", "t", key)]
    acts, _ = _step(task, _terms_page(), d.memory, [Action("press", {"key": key})])
    assert acts == [("click", "ok", None)]


def test_the_second_of_two_boxes_and_a_list_by_its_kind():
    page = snapshot_of([{"id": "a", "tag": "textarea", "value": "Notes from Monday about the trip."},
                        {"id": "b", "tag": "textarea", "value": "Notes from Tuesday about the hotel."},
                        {"id": "go", "tag": "button", "text": "Done"}])
    acts, _ = _step("Scroll the second text area to the beginning and hit Done.", page)
    assert acts == [("press", "b", "Control+Home")]
    # one of two boxes, not said which: no key is guessed onto either
    acts, _ = _step("Scroll the text area to the bottom and hit Done.", page)
    assert ("press", "a", "Control+End") not in acts and ("press", "b", "Control+End") not in acts


def test_a_disabled_box_gets_no_key():
    page = snapshot_of([{"id": "t", "tag": "textarea", "value": TERMS[:100], "disabled": True},
                        {"id": "ok", "tag": "button", "text": "Accept"}])
    acts, _ = _step("Scroll to the bottom of the text area, then press Accept.", page)
    assert ("press", "t", "Control+End") not in acts


def test_the_page_itself_is_not_a_box():
    for task in ("Scroll the page to the bottom and press Accept.",
                 "Scroll to the end of the page, then press Accept."):
        acts, _ = _step(task, _terms_page())
        assert not any(tool == "press" for tool, _, _ in acts)


def test_no_key_aimed_at_a_control_no_box_scrolled():
    d = decide("Scroll the text area to the bottom, then press Accept.", _terms_page(), tools=OLYMPICS_TOOLS)
    assert not [a for a in d.actions if a.tool == "press"]
