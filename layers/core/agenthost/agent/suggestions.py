"""A value the task describes by how it starts and ends, completed from the suggestions a field shows.

"Enter an item that starts with "Ber" and ends with "lin"": the field gets the start typed, the page lists
what matches it (an autocomplete's list), and the suggestion that also ends right is clicked; the form is
sent only once the field holds a value that starts and ends as asked. Nothing here acts when the task
states no such constraint.

A value just typed into a field that lists suggestions (an autocomplete: "Porto" lists "Porto Alegre,
Brazil" and "Porto, Portugal (OPO)") is completed with the suggestion holding it that shares the most of the
task's words, before anything else moves the focus and closes the list: pages that check the value against
their list take only its own form of it. Where the task tells suggestions no further apart, the first listed
(the one the page puts first, as pressing Enter on the list would take); a field that lists its own
suggestions (the browser's turned off) whose list has not shown yet gets the down arrow pressed once, which
opens a combobox's list at once by the keyboard convention (where no key can be pressed, a look once more).

Written here because no library reads such constraints from a sentence; the wording it knows is "starts/
begins with" and "ends with", each followed by a quoted text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agenthost.agent.actions import Action, norm
from agenthost.agent.outcome import line_key
from agenthost.agent.page import TEXT_ROLES, Element, Page
from agenthost.agent.progress import Seen
from agenthost.agent.task import TaskFacts
from agenthost.agent.wording import words

_STARTS = re.compile(r"\b(?:starts?|starting|begins?|beginning)\s+with\s+[\"“']([^\"”']{1,40})[\"”']", re.I)
_ENDS = re.compile(r"\b(?:ends?|ending)\s+with\s+[\"“']([^\"”']{1,40})[\"”']", re.I)
#: looks at a field whose suggestions have not shown (or none fits yet) before giving up on it
MAX_LOOKS = 3
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


def suggestion_actions(facts: TaskFacts, page: Page, seen: Seen,
                       names: Sequence[str] = ()) -> tuple[list[Action], bool] | None:
    """None when the task states no start (or no field takes it); else what to do now and whether the field
    is ready: the start to type, the suggestion that fits to click, a look again (the down arrow first where the
    field lists its own suggestions and ``names`` has a key to press) while none fits yet, at most
    :data:`MAX_LOOKS` times, or nothing (ready: the field holds a value that starts and ends as asked; not
    ready: no suggestion fits, nothing to send for it)."""
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
        if norm(shown) == norm(field.value) and not seen.clicked_here(e):
            # the field holds it (the down arrow highlighted it) and the list is still open over the form: the
            # suggestion is chosen, which closes the list
            return [Action("click", {"element": shown}, resolved=e,
                           why=f"the suggestion {shown!r} the field holds: chosen, which closes the list")], False
        if norm(shown) in (norm(facts.text), norm(field.value)) or seen.clicked_here(e):
            continue
        why = f"the suggestion {shown!r} starts with {start!r}" + (f" and ends with {end!r}" if end else "")
        return [Action("click", {"element": shown}, resolved=e, why=why)], False
    looks = seen.memory.get("suggestions_awaited")
    looks = int(looks) if isinstance(looks, (int, float)) else 0  # (an older memory kept True for one look)
    if not _fits(field.value, start, end) and looks < MAX_LOOKS:
        # a list shown a moment after typing: asked for with the down arrow where the field lists its own
        # suggestions and a key can be pressed (a combobox's list opens at once), else looked at again
        seen.memory["suggestions_awaited"] = looks + 1
        if looks == 0 and field.suggests and "press" in names:
            return [Action("press", {"element": field.name or field.placeholder, "key": "ArrowDown"},
                           resolved=field, why="open the field's own list of suggestions")], False
        return [Action("wait", {"condition": "load", "timeout": 1000}, why="the field's suggestions may still come",
                       progress=f"look {looks + 1}")], False
    return [], _fits(field.value, start, end)


def typed_suggestion(facts: TaskFacts, page: Page, history: Sequence[Action], seen: Seen,
                     names: Sequence[str] = ()) -> tuple[list[Action], bool]:
    """A click on the suggestion that completes the value the last action typed (the field holds that text,
    or the suggestion the down arrow highlighted), of the listed items holding it and saying more the one
    sharing the most of the task's words (the first listed of equals); and whether the field already holds
    its completed form (the page or the keyboard put the suggestion in). Nothing when the task describes the
    value by its start and end (see :func:`suggestion_actions`) or when nothing was just typed."""
    last = next((a for a in reversed(history or ()) if a.tool not in ("wait", "extract")
                 and not (a.tool == "press" and str(a.args.get("key")) == "ArrowDown")), None)
    if last is None or last.tool != "type" or _STARTS.search(facts.text):
        return [], False
    typed = norm(str(last.args.get("text") or ""))
    if not typed:
        return [], False
    target = norm(str(last.args.get("element") or ""))
    fields = [e for e in page.elements if e.role in TEXT_ROLES and not e.is_secret() and (
        norm(e.value) == typed or (typed in norm(e.value) and target and target == norm(e.name or e.placeholder)))]
    if not fields:
        return [], False
    completed = next((norm(f.value) for f in fields if norm(f.value) != typed), "")
    best: dict[str, tuple[int, Element]] = {}
    for e in page.elements:
        shown = e.name or e.value
        listed = e.interactive or e.role in ("listitem", "option", "menuitem")
        if e in fields or e.disabled or e.role not in _LISTED or not listed or e.role in TEXT_ROLES:
            continue
        t = norm(shown)
        if typed not in t or t == typed or t == norm(facts.text) or seen.clicked_here(e):
            continue
        score = len(words(shown) & facts.words)
        key = t
        if key not in best or (e.interactive and not best[key][1].interactive):
            best[key] = (score, e)  # the same item shown twice (a list item and its button): the control
    if not best:
        looked = seen.memory.setdefault("suggestions_looked", [])
        key = line_key(typed)
        listing = next((f for f in fields if f.suggests), None)
        if completed:
            return [], True  # the list is gone and the field holds the page's form of the value
        if listing is not None and isinstance(looked, list) and key not in looked:
            looked.append(key)  # a list shown a moment after typing: asked for (or looked at) once more
            if "press" in names:
                # the down arrow opens a combobox's list at once (the keyboard convention such fields follow)
                return [Action("press", {"element": listing.name or listing.placeholder, "key": "ArrowDown"},
                               resolved=listing, why="open the field's own list of suggestions")], False
            return [Action("wait", {"condition": "load", "timeout": 1000},
                           why="the field lists its own suggestions: they may still come")], False
        return [], False
    # a list's own box (its text all the items' together) is no suggestion to pick
    items = {k: v for k, v in best.items() if not any(o != k and o in k for o in best)}
    order = {id(e): i for i, e in enumerate(page.elements)}
    # the one sharing most of the task's words; where the task tells them no further apart, the first listed
    score, pick = min(items.values(), key=lambda p: (-p[0], order[id(p[1])]))
    if completed:
        same = items.get(completed)
        if same is not None and same[0] >= score:
            pick = same[1]  # the one the field holds (the down arrow highlighted it): chosen, which closes the list
        elif same is None and len(words(completed) & facts.words) >= score:
            return [], True  # the field holds a completed value that fits the task as well as any listed
    shown = pick.name or pick.value
    return [Action("click", {"element": shown}, resolved=pick,
                   why=f"the suggestion {shown!r} completes {last.args.get('text')!r} as the task gives it")], False
