"""A value described by how it starts and ends, completed from the field's suggestions
(``agent.suggestions``), on pages written for these tests."""

from __future__ import annotations

from tests.support.policy import decide, wire

TASK = 'Fill in a city that begins with "Ber" and ends with "lin", then send it.'


def _tree(value: str = "", listed: tuple[str, ...] = ()) -> str:
    box = f'- textbox "City": {value}' if value else '- textbox "City"'
    items = "".join(f"\n  - listitem: {x}" for x in listed)
    return f"- text: {TASK}\n{box}\n- button \"Send\"" + (f"\n- list:{items}" if listed else "")


def test_the_start_is_typed_then_the_fitting_suggestion_clicked_then_the_form_sent():
    assert wire(decide(TASK, _tree())) == [("type", "City", "Ber")]  # nothing sent before the value is whole
    assert wire(decide(TASK, _tree("Ber", ("Bergen", "Berlin", "Bern")))) == [("click", "Berlin", None)]
    assert wire(decide(TASK, _tree("Berlin"))) == [("click", "Send", None)]


def test_no_fitting_suggestion_sends_nothing():
    assert wire(decide(TASK, _tree("Ber", ("Bergen", "Bern")))) == []
