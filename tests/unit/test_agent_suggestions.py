"""A value described by how it starts and ends, completed from the field's suggestions
(``agent.suggestions``), on pages written for these tests."""

from __future__ import annotations

from tests.support.policy import decide, expect, wire

TASK = 'Fill in a city that begins with "Ber" and ends with "lin", then send it.'


def _tree(value: str = "", listed: tuple[str, ...] = ()) -> str:
    box = f'- textbox "City": {value}' if value else '- textbox "City"'
    items = "".join(f"\n  - listitem: {x}" for x in listed)
    return f"- text: {TASK}\n{box}\n- button \"Send\"" + (f"\n- list:{items}" if listed else "")


def test_the_start_is_typed_then_the_fitting_suggestion_clicked_then_the_form_sent():
    expect(decide(TASK, _tree()), typed={"City": "Ber"}, clicked=[])  # nothing sent before the value is whole
    expect(decide(TASK, _tree("Ber", ("Bergen", "Berlin", "Bern"))), typed={}, clicked=["Berlin"])
    expect(decide(TASK, _tree("Berlin")), typed={}, clicked=["Send"])


def test_no_fitting_suggestion_sends_nothing():
    assert wire(decide(TASK, _tree("Ber", ("Bergen", "Bern")))) == [("wait", None, None)]  # a look, no submit


def test_suggestions_not_shown_yet_are_waited_for_once():
    from agenthost.agent import DeterministicPolicy
    from agenthost.agent.actions import OLYMPICS_TOOLS
    from agenthost.agent.page import from_aria

    first = DeterministicPolicy().decide(TASK, from_aria(_tree("Ber")), [], {}, OLYMPICS_TOOLS, None)
    assert [a.tool for a in first.actions] == ["wait"]
    again = DeterministicPolicy().decide(TASK, from_aria(_tree("Ber")), [], first.memory, OLYMPICS_TOOLS, None)
    # still nothing that fits: an honest give-up, never the form sent with a value that does not fit
    assert again.done and not again.success and not again.actions
