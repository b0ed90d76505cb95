"""An entry sought by name in a list shown a page at a time (``agent.paging``), on pages written for these
tests: the next page while the page shown does not name it, more pages than the loop guard's six turns, then
the usual rules act on the entry; no next-page link, no paging."""

from __future__ import annotations

from tests.support.policy import decide, expect


def _card(person: str, phone: str) -> str:
    return (f'- heading "{person}" [level=3]\n- text: "Desk: 4B Phone: {phone}"\n- list:\n'
            '  - listitem:\n    - link "1":\n      - /url: "#"\n  - listitem:\n    - link "Next":\n      - /url: "#"\n')


def test_an_entry_sought_by_name_is_paged_to_then_the_usual_rules_act_on_it():
    task = "Look up Amara in the staff directory and click on their phone number."
    memory: dict = {}
    history: list = []
    for person in ("Tomasz", "Bea", "Lin", "Oskar", "Ruth", "Ivo", "Noor"):  # more pages than a loop's six turns
        d = decide(task, _card(person, "555-201-2231"), memory=memory, history=history)
        expect(d, clicked=["Next"])
        memory, history = d.memory, [*history, *d.actions]
    found = decide(task, _card("Amara", "555-201-4410"), memory=memory, history=history)
    expect(found, clicked=["555-201-4410"])
    # no next-page link: nothing paged
    expect(decide(task, '- heading "Bea"\n- text: "Desk: 2A Phone: 555-201-1200"'), not_clicked=["Next"])
