"""A value written before the field it goes in: "Choose 2025-03-03 as your check-in day", "Pick 04/12/2026 as
your arrival date and 04/15/2026 as your departure date". Each field gets its own value (never the word after
the label), and a label that shares a word with another ("Check-in" / "Check-out") takes only the value the
task gives for it."""

from __future__ import annotations

import pytest

from agenthost.agent.actions import PROXY_TOOLS
from tests.support.policy import decide, snapshot_of


def _form(first: str, second: str, button: str = "Reserve"):
    return snapshot_of(["Your stay", first, {"id": "a", "tag": "input", "type": "text", "label": first},
                        second, {"id": "b", "tag": "input", "type": "text", "label": second},
                        {"id": "go", "tag": "button", "text": button}])


@pytest.mark.parametrize(("task", "first", "second", "values"), [
    ("Choose 2025-03-03 as your check-in day and 2025-03-05 as your check-out day, then press Reserve.",
     "Check-in", "Check-out", {"a": "2025-03-03", "b": "2025-03-05"}),
    ("Pick 04/12/2026 as your arrival date and 04/15/2026 as your departure date, then press Reserve.",
     "Arrival", "Departure", {"a": "04/12/2026", "b": "04/15/2026"}),
    ("Select 2026-07-01 as the start date, 2026-07-09 as the end date and press Reserve.",
     "Start date", "End date", {"a": "2026-07-01", "b": "2026-07-09"}),
    ("Set 11/30/2027 as your drop-off day and 11/02/2027 as your pick-up day, then press Reserve.",
     "Pick-up", "Drop-off", {"a": "11/02/2027", "b": "11/30/2027"}),
])
def test_each_field_gets_the_value_written_before_its_label(task, first, second, values):
    assert _play(task, first, second) == (values, True)


@pytest.mark.parametrize(("task", "values"), [
    ("Choose 2025-03-03 as your check-in day.", {"a": "2025-03-03"}),
    ("Choose 2025-03-05 as your check-out day.", {"b": "2025-03-05"}),
])
def test_a_label_sharing_a_word_with_another_takes_only_its_own_value(task, values):
    assert _play(task, "Check-in", "Check-out")[0] == values


def _play(task: str, first: str, second: str) -> tuple[dict[str, str], bool]:
    """The values typed into the form's fields (by id) until its button is pressed, and whether it was (a date
    field is clicked first to see whether it opens a calendar: this form shows none)."""
    typed: dict[str, str] = {}
    memory: dict = {}
    history: list = []
    for _ in range(4):
        d = decide(task, _form(first, second), tools=PROXY_TOOLS, history=history, memory=memory)
        for a in d.actions:
            if a.tool == "type":
                typed[a.resolved.ref] = a.args.get("text")
            if a.tool == "click" and a.resolved is not None and a.resolved.ref == "go":
                return typed, True
        if d.done or not d.actions:
            break
        memory, history = d.memory, [*history, *d.actions]
    return typed, False
