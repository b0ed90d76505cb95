"""The n-th result of a list split over pages (``agent.paging``), on pages written for these tests: the page
it falls on is opened through its numbered link, the result clicked by its place there; a result on the page
shown is clicked at once."""

from __future__ import annotations

from agenthost.agent import Action
from tests.support.policy import decide, expect

TASK = 'Look up "harbour" with the finder, then open the 5th result.'


def _results(names: list[str], pages: int = 3) -> str:
    rows = "".join(f'- link "{n}":\n  - /url: "#"\n- text: {n.lower()} - a page about the harbour\n' for n in names)
    pager = "".join(f'  - listitem:\n    - link "{i}":\n      - /url: "#"\n' for i in range(1, pages + 1))
    return (f'- text: {TASK}\n- textbox "Finder": harbour\n- button "Look up"\n{rows}- list:\n{pager}'
            '  - listitem:\n    - link "Next":\n      - /url: "#"\n')


def test_the_page_the_nth_result_falls_on_is_opened_then_the_result_clicked():
    first = decide(TASK, _results(["Quay", "Pier", "Dock"]), history=[Action("click", {"element": "Look up"})])
    expect(first, clicked=["2"])  # three a page: the 5th is the second of page 2
    second = decide(TASK, _results(["Wharf", "Marina", "Jetty"]), memory=first.memory,
                    history=[Action("click", {"element": "Look up"}), *first.actions])
    expect(second, clicked=["Marina"])


def test_a_result_on_the_page_shown_is_clicked_at_once_and_no_results_means_the_search_first():
    task = 'Type "ferries" into the box and press "Look up", then click the 2nd result.'
    shown = _results(["Quay", "Pier", "Dock"]).replace(TASK, task)
    expect(decide(task, shown), clicked=["Pier"])
    empty = f'- text: {task}\n- textbox\n- button "Look up"'
    expect(decide(task, empty), typed={"": "ferries"}, clicked=["Look up"])


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
