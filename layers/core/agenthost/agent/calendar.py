"""A date the task names, picked on the page's calendar widget.

A date field that opens a calendar when clicked (often read-only: typing into it does nothing) is filled by
clicking: open the field, move month by month with the calendar's previous/next controls until its heading
shows the date's month and year, then click the day. A date field that shows no calendar once clicked is
left to the usual typing rules. Dates in the task are read as written in English: ``04/08/2016`` (month
first, as the US writes it; also with dashes or dots: ``04-08-2016``), ``2016-04-08``, ``April 8, 2016`` and
``8 April 2016``.

Written here because no library reads a calendar widget out of a page snapshot; the months' names are the
only wording it knows.
"""

from __future__ import annotations

import re
from datetime import date

from agenthost.agent.actions import Action, norm
from agenthost.agent.page import TEXT_NODE_ROLES, TEXT_ROLES, Element, Page
from agenthost.agent.progress import Seen
from agenthost.agent.task import TaskFacts

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH = r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|" \
         r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_WRITTEN = (
    re.compile(r"\b(?P<m>\d{1,2})(?P<sep>[/.-])(?P<d>\d{1,2})(?P=sep)(?P<y>\d{4})\b"),
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
    re.compile(_MONTH + r"\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})\b", re.I),
    re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"\.?,?\s+(?P<y>\d{4})\b", re.I),
)
#: a calendar's heading: a month's full name and a year
_HEADING = re.compile(r"\b(" + "|".join(MONTHS) + r")\s+(\d{4})\b", re.I)
_PREV = re.compile(r"^\s*(?:prev(?:ious)?(?:\s+month)?|[‹«<←]|<<)\s*$", re.I)
_NEXT = re.compile(r"^\s*(?:next(?:\s+month)?|[›»>→]|>>)\s*$", re.I)
_DATE_FIELD = re.compile(r"\b(?:date|day|when|calendar)\b", re.I)


def date_in(text: str, *, whole: bool = False) -> date | None:
    """The first date ``text`` writes (see the module's forms), or None; with ``whole``, only a date that is all
    of ``text`` (spaces around it aside). The one reader of written dates: the calendar's, and the form a date
    input takes (:mod:`agenthost.agent.references`)."""
    found: list[tuple[int, date]] = []
    for rx in _WRITTEN:
        m = rx.fullmatch(text.strip()) if whole else rx.search(text)
        if m is None:
            continue
        mon = m.groupdict().get("mon")
        month = next(i for i, name in enumerate(MONTHS, 1) if name.startswith(mon.lower()[:3])) if mon \
            else int(m.group("m"))
        try:
            found.append((m.start(), date(int(m.group("y")), month, int(m.group("d")))))
        except ValueError:
            continue
    return min(found)[1] if found else None


def _days(page: Page) -> list[Element]:
    """The page's day controls (named 1 to 31), in page order."""
    return [e for e in page.elements if e.interactive and not e.disabled and e.role not in TEXT_ROLES
            and re.fullmatch(r"\d{1,2}", (e.name or "").strip()) and 1 <= int(e.name) <= 31]


def shown_month(page: Page, task: str) -> tuple[int, int] | None:
    """(year, month) of the calendar the page shows: a heading with a month and a year (not the task's own
    sentence) and at least 28 day controls; None when no calendar is shown."""
    found = _heading(page, task)
    return found[:2] if found is not None else None


def _heading(page: Page, task: str) -> tuple[int, int, int] | None:
    """(year, month, index of the heading's element) of the calendar the page shows (see :func:`shown_month`)."""
    if len({e.name.strip() for e in _days(page)}) < 28:
        return None
    own = norm(task)
    for i, e in enumerate(page.elements):
        shown = e.value if e.role in TEXT_NODE_ROLES else e.name
        if not shown or (own and own in norm(shown)):
            continue
        m = _HEADING.search(shown)
        if m:
            return int(m.group(2)), MONTHS.index(m.group(1).lower()) + 1, i
    return None


def _arrow_word(page: Page, at: int, rx: re.Pattern[str]) -> tuple[Element, str] | None:
    """A month arrow that shows as text only, on the heading's line or the line before it (an anchor without
    a link has no role: an ARIA snapshot shows its word inside the heading's text, "Prev Next May 2025"):
    the text element and the word. A runner that clicks by text reaches the arrow by that word."""
    for e in reversed(page.elements[max(0, at - 1):at + 1]):
        if e.role not in TEXT_NODE_ROLES:
            continue
        word = next((w for w in (e.value or "").split() if rx.fullmatch(w)), None)
        if word is not None:
            return e, word
    return None


def _field(page: Page) -> Element | None:
    """The page's date field: a text field its label, name or placeholder calls a date."""
    for e in page.elements:
        if e.role in ("textbox", "combobox") and not e.disabled and \
                _DATE_FIELD.search(" ".join((e.name or "", e.label or "", e.placeholder or "", e.hint or ""))):
            return e
    return None


def _holds(e: Element, want: date) -> bool:
    got = date_in(e.value or "")
    return got == want


def calendar_actions(facts: TaskFacts, page: Page, seen: Seen) -> list[Action]:
    """The next click toward the task's date on the page's calendar (open the field, previous or next month,
    the day), or nothing: no date in the task, no date field or calendar, or the field holds the date."""
    want = date_in(facts.text)
    if want is None:
        return []
    field = _field(page)
    if field is not None and _holds(field, want):
        return []
    heading = _heading(page, facts.text)
    month = heading[:2] if heading is not None else None
    if heading is None or month is None:
        if field is None or seen.clicked(field) or seen.clicks.get(norm(field.ref)):
            return []  # no calendar, or one click on the field showed none: typing is left to the other rules
        return [Action("click", {"element": field.name or field.label}, resolved=field,
                       why="open the date field's calendar")]
    steps = (want.year - month[0]) * 12 + (want.month - month[1])
    if steps == 0:
        days = _days(page)
        first = next((i for i, e in enumerate(days) if int(e.name) == 1), 0)  # days of the month before come first
        day = next((e for e in days[first:] if int(e.name) == want.day), None)
        return [Action("click", {"element": day.name}, resolved=day, why=f"the day {want.isoformat()}")] \
            if day is not None else []
    rx = _NEXT if steps > 0 else _PREV
    move = next((e for e in page.elements if e.interactive and not e.disabled
                 and rx.fullmatch(e.name or e.value or "")), None)
    word = move.name or move.value if move is not None else None
    if move is None and page.source == "aria":
        shown = _arrow_word(page, heading[2], rx)
        if shown is not None:
            move, word = shown
    if move is None:
        return []
    return [Action("click", {"element": word}, resolved=move, progress=f"{month[0]}-{month[1]:02d}",
                   why=f"the calendar shows {MONTHS[month[1] - 1].title()} {month[0]}; "
                       f"{want.strftime('%B %Y')} is {abs(steps)} month(s) {'on' if steps > 0 else 'back'}")]
