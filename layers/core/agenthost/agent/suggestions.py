"""A value the task describes by how it starts and ends, completed from the suggestions a field shows.

"Enter an item that starts with "Ber" and ends with "lin"": the field gets the start typed, the page lists
what matches it (an autocomplete's list), and the suggestion that also ends right is clicked; the form is
sent only once the field holds a value that starts and ends as asked. Nothing here acts when the task
states no such constraint.

Written here because no library reads such constraints from a sentence; the wording it knows is "starts/
begins with" and "ends with", each followed by a quoted text.
"""

from __future__ import annotations

import re

from agenthost.agent.actions import Action, norm
from agenthost.agent.page import TEXT_ROLES, Element, Page
from agenthost.agent.progress import Seen
from agenthost.agent.task import TaskFacts

_STARTS = re.compile(r"\b(?:starts?|starting|begins?|beginning)\s+with\s+[\"“']([^\"”']{1,40})[\"”']", re.I)
_ENDS = re.compile(r"\b(?:ends?|ending)\s+with\s+[\"“']([^\"”']{1,40})[\"”']", re.I)
_LISTED = ("button", "listitem", "option", "menuitem", "link", "text", "generic", "paragraph")


def _fits(text: str, start: str, end: str) -> bool:
    t = norm(text)
    return bool(t) and t.startswith(norm(start)) and (not end or t.endswith(norm(end)))


def _field(page: Page, start: str) -> Element | None:
    """The text field the value goes into: one already holding the start, else the only empty one."""
    fields = [e for e in page.elements if e.role in TEXT_ROLES and not e.disabled and not e.is_secret()]
    holding = [e for e in fields if norm(e.value).startswith(norm(start))]
    empty = [e for e in fields if not (e.value or "").strip()]
    return holding[0] if holding else (empty[0] if len(empty) == 1 else None)


def suggestion_actions(facts: TaskFacts, page: Page, seen: Seen) -> tuple[list[Action], bool] | None:
    """None when the task states no start (or no field takes it); else what to do now and whether the field
    is ready: the start to type, the suggestion that fits to click, or nothing (ready: the field holds a
    value that starts and ends as asked; not ready: no suggestion fits, nothing to send for it)."""
    starts = _STARTS.search(facts.text)
    if starts is None:
        return None
    start = starts.group(1)
    ends = _ENDS.search(facts.text)
    end = ends.group(1) if ends else ""
    field = _field(page, start)
    if field is None:
        return None
    if not (field.value or "").strip():
        why = f"the value starts with {start!r}: the page's suggestions show the rest"
        return [Action("type", {"element": field.name or field.placeholder, "text": start, "clear": True},
                       resolved=field, why=why)], False
    for e in page.elements:
        # a suggestion that fits and says more than the field holds (the whole item, not the start typed)
        shown = e.name or e.value
        listed = e.interactive or e.role in ("listitem", "option", "menuitem")
        if e is field or e.disabled or e.role not in _LISTED or not listed or not _fits(shown, start, end):
            continue
        if norm(shown) in (norm(facts.text), norm(field.value)) or seen.clicked_here(e):
            continue
        why = f"the suggestion {shown!r} starts with {start!r}" + (f" and ends with {end!r}" if end else "")
        return [Action("click", {"element": shown}, resolved=e, why=why)], False
    if not _fits(field.value, start, end) and not seen.memory.get("suggestions_awaited"):
        seen.memory["suggestions_awaited"] = True  # a list shown a moment after typing: looked at once more
        return [Action("wait", {"condition": "load", "timeout": 1000},
                       why="the field's suggestions may still come")], False
    return [], _fits(field.value, start, end)
