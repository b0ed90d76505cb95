"""A date picked on a calendar widget (``agent.calendar``), on pages written for these tests: the field is
opened, the calendar moved month by month, the day clicked; a field that already holds the date is left
alone and the form is sent."""

from __future__ import annotations

from datetime import date

from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.calendar import date_in
from agenthost.agent.snapshot import from_snapshot
from tests.support.policy import decide, wire

TASK = "Pick March 3rd, 2025 as the appointment day and confirm."


def _page(calendar: str | None = None, value: str = "", leading: range = range(0)):
    field = {"id": "f1", "tag": "input", "type": "text", "label": "Appointment day"}
    els = [{**field, "value": value} if value else field, {"id": "ok", "tag": "button", "text": "Confirm"}]
    text = f"{TASK} Appointment day"
    if calendar:
        els += [{"id": "back", "tag": "a", "text": "«", "clickable": True},
                {"id": "fwd", "tag": "a", "text": "»", "clickable": True}]
        days = [*leading, *range(1, 32)]
        els += [{"id": f"d{i}", "tag": "button", "text": str(d)} for i, d in enumerate(days)]
        text += f" « » {calendar} Mo Tu We Th Fr Sa Su"
    return from_snapshot({"url": "https://clinic.test/book", "title": "", "visibleText": text, "elements": els})


def _first(page):
    d = decide(TASK, page, tools=PROXY_TOOLS)
    a = d.actions[0]
    return a.tool, a.resolved.ref if a.resolved else a.target


def test_dates_as_the_task_writes_them():
    assert date_in("on 04/08/2016 please") == date(2016, 4, 8)
    assert date_in("due 2024-11-30.") == date(2024, 11, 30)
    assert date_in(TASK) == date(2025, 3, 3)
    assert date_in("the 9th of February 2023") == date(2023, 2, 9)
    assert date_in("Call me at 4:30 about order 12/40") is None
    assert date_in("booked 04-08-2016, paid 04.09.2016") == date(2016, 4, 8)
    assert date_in(" 04/08/2016 ", whole=True) == date(2016, 4, 8)
    assert date_in("on 04/08/2016", whole=True) is None  # not all of it a date
    assert date_in("13/45/2016") is None  # no such day


def test_the_field_is_opened_the_calendar_moved_and_the_day_clicked():
    assert _first(_page()) == ("click", "f1")
    assert _first(_page("January 2025")) == ("click", "fwd")
    assert _first(_page("June 2025")) == ("click", "back")
    # the days of the month before come first on this calendar: the 3rd is the one after the 1st
    shown = _page("March 2025", leading=range(24, 29))
    tool, ref = _first(shown)
    assert tool == "click" and next(e for e in shown.elements if e.ref == ref).name == "3" and ref == "d7"


def test_a_field_that_holds_the_date_is_left_and_the_form_sent():
    assert _first(_page(value="03/03/2025")) == ("click", "ok")


def _month_grid(heading_line: str, days: int = 30) -> str:
    """An ARIA snapshot of a date field whose calendar is open: month arrows without a role show as text
    only (anchors without a link), on the heading's line."""
    tree = ('- text: Choose 2025-03-03 as your check-in day, then press Continue.\n- paragraph:\n'
            '  - text: "Check-in:"\n  - textbox\n- button "Continue"\n'
            f"- text: {heading_line}\n- table:\n  - rowgroup:\n"
            '    - row "Mo Tu We Th Fr Sa Su":\n      - columnheader "Mo"\n      - columnheader "Tu"\n  - rowgroup:\n')
    for week in range(0, days, 7):
        ds = range(week + 1, min(week + 8, days + 1))
        tree += f'    - row "{" ".join(map(str, ds))}":\n'
        tree += "".join(f'      - cell "{d}":\n        - link "{d}":\n          - /url: "#"\n' for d in ds)
    return tree + '- text: "Visits so far: 3, average stay: 2 nights"\n'


def test_month_arrows_shown_as_text_only_are_clicked_by_their_word_and_a_month_grid_is_no_data_table():
    task = "Choose 2025-03-03 as your check-in day, then press Continue."
    # the calendar shows a later month: its "Previous" word is what the runner's text match reaches
    d = decide(task, _month_grid("Previous Next May 2025", days=31))
    assert wire(d) == [("click", "Previous", None)]
    assert wire(decide(task, _month_grid("Prev Next January 2025", days=31))) == [("click", "Next", None)]
    # the month shown: the day; the grid's weekday headers and the page's "average" line pose no table question
    assert wire(decide(task, _month_grid("Prev Next March 2025", days=31))) == [("click", "3", None)]
    # an arrow word the runner's text match would find first elsewhere (the heading is not the first text
    # holding it) is not sent: no click that lands somewhere else
    elsewhere = _month_grid("Prev Next May 2025", days=31).replace('- button "Continue"', '- button "Continue"\n'
                                                                    '- text: Previous bookings are listed below')
    assert ("click", "Prev", None) not in wire(decide(task, elsewhere))


def test_a_calendar_many_months_away_is_stepped_all_the_way_no_loop_stop():
    """Each "previous month" click moves the calendar a month nearer: the same click sent turn after turn is
    progress the page shows, not a loop (the loop guard stops a batch repeated six turns in a row)."""
    task = "Choose 2025-03-03 as your check-in day, then press Continue."
    memory: dict = {}
    history: list = []
    for month in ("December", "November", "October", "September", "August", "July", "June", "May", "April"):
        d = decide(task, _month_grid(f"Prev Next {month} 2025", days=30), memory=memory, history=history)
        assert wire(d) == [("click", "Prev", None)], month
        memory, history = d.memory, [*history, *d.actions]
    d = decide(task, _month_grid("Prev Next March 2025", days=31), memory=memory, history=history)
    assert wire(d) == [("click", "3", None)]
