"""Clicks on what a task names in quotes, and on the controls that reveal what the page does not show yet.

:func:`quoted_clicks`: the element showing a name the task quotes ("click on the link "quisque.""), once; when
the page does not show it yet, the next control that may reveal it (:func:`reveal`: a tab, a closed
section, a menu, the next page). :func:`shown_as` finds the element that shows a text (an "x" is the close
button). :func:`expand_clicks`: the closed sections a clause asks to expand.

Hand-written: the phrases are general English ways of naming a control; no library reads them.
"""

from __future__ import annotations

import re

from agenthost.agent import scope
from agenthost.agent.actions import Action, norm
from agenthost.agent.page import Element, Page
from agenthost.agent.pointing import clauses, kind_of
from agenthost.agent.progress import Seen
from agenthost.agent.task import TaskFacts

_CLICK_QUOTED = re.compile(r"\b(?:click|press|tap|open|pick)\b[^\"“]{0,60}?[\"“]([^\"”]{1,80})[\"”]", re.I)
#: controls that show more of a page when opened (a menu button, an expander, a tree's toggle, the next page)
_REVEALS = re.compile(r"\b(?:expand(?:able)?|collapsed|show\s+more|more|menu|toggle|hitarea|next(?:\s+page)?|older)\b|"
                      r"^\s*(?:[+▸▶>»›]|next\s*[>»›])\s*$", re.I)


#: the glyphs a close button shows, and what such a button is called when its glyph is an icon
_CLOSE_GLYPHS = frozenset({"x", "×", "✕", "✖", "✗", "╳"})
_CLOSE_NAME = re.compile(r"^\s*(?:close|closethick|dismiss|[x×✕✖✗╳])\s*$", re.I)


def shown_as(page: Page, text: str, task: str = "") -> Element | None:
    """The element that shows exactly ``text``: a control by its name, else a piece of text (page order). An
    "x" is a close button's glyph: the button called Close shows it. Else a control whose name is ``text``
    followed only by words of the ``task`` (a menu's "Mute @nathalie" for "the Mute button" of @nathalie's
    post)."""
    t = norm(text)
    if not t:
        return None
    if t in _CLOSE_GLYPHS:
        close = next((e for e in page.elements if e.role in ("button", "link") and not e.disabled
                      and _CLOSE_NAME.match(e.name or e.hint or "")), None)
        if close is not None:
            return close
    lists = {e.ref for e in page.elements if e.role == "listbox"}
    best = None
    for e in page.elements:
        if e.role in ("textbox", "searchbox", "combobox") or (e.role == "option" and e.parent not in lists):
            continue
        shown = norm(e.name if e.interactive or e.name else e.value)
        if shown == t or shown.rstrip(".,;:") == t.rstrip(".,;:"):
            if e.interactive:
                return e
            best = best or e
    if best is None and task:
        said = set(re.findall(r"[@\w]+", norm(task)))
        for e in page.elements:
            shown = norm(e.name)
            if not e.disabled and e.role in ("button", "link", "menuitem", "listitem", "option") and \
                    shown.startswith(t + " ") and set(re.findall(r"[@\w]+", shown[len(t):])) <= said:
                return e
    return best


def reveal(page: Page, seen: Seen, facts: TaskFacts | None = None) -> Element | None:
    """The next control that may show what the page does not show yet: a tab not open yet, a closed section,
    a menu button, an expander, the next page; each tried once (page order). Of several alike (every post's
    "more" menu), the one of the task's item (:func:`agenthost.agent.scope.scoped`)."""
    found: list[Element] = []
    for e in page.elements:
        if e.disabled or not (e.name or e.value) or seen.clicks.get(norm(e.ref)) or seen.clicked_here(e):
            continue
        if (e.role == "tab" and not (e.selected or e.expanded)) or \
                (e.expanded is False and e.role in ("button", "link", "tab", "treeitem", "menuitem")) or \
                (e.role in ("button", "link", "menuitem", "treeitem") and _REVEALS.search(e.name or "")):
            found.append(e)
    for e in found:
        alike = [x for x in found if norm(x.name) == norm(e.name)]
        if len(alike) > 1 and facts is not None:
            mine = scope.scoped(page, alike, facts)
            if mine:
                return mine[0]
        if len(alike) == 1 and seen.clicked(e):
            continue
        return e
    return None


#: a clause asking to open the page's closed parts ("expand the section below", "open all the panels")
_EXPAND = re.compile(r"\b(?:expand|unfold|uncollapse|open)\b[^.;\"“]{0,30}?\b(?P<all>all\b[^.;\"“]{0,15})?"
                     r"(?:sections?|panels?|accordions?|collapsibles?|headers?|headings?|parts?)\b", re.I)


def expand_clicks(facts: TaskFacts, page: Page, seen: Seen) -> list[Action]:
    """The closed sections a clause asks to expand (a header whose ``aria-expanded`` is false, a tab of an
    accordion not open yet): the first, or all of them when the clause says all or speaks of several; each
    clicked once."""
    out: list[Action] = []
    for clause in clauses(facts.text):
        m = _EXPAND.search(clause)
        if m is None:
            continue
        several = bool(m.group("all")) or m.group(0).lower().rstrip().endswith("s")
        for e in page.elements:
            closed = e.expanded is False or (e.role == "tab" and not (e.selected or e.expanded))
            if e.disabled or not closed or e.role not in ("button", "link", "tab", "treeitem", "heading") or \
                    not (e.name or e.value) or seen.clicks.get(norm(e.ref)) or seen.clicked(e):
                continue
            out.append(Action("click", {"element": e.name or e.value}, resolved=e,
                              why=f"expand {e.name or e.value!r} (the task asks to expand)"))
            if not several:
                break
        break
    return out


def quoted_clicks(facts: TaskFacts, page: Page, seen: Seen, *, reveals: bool = True) -> list[Action]:
    """What a clause asks to click by a quoted name: the element showing it, once; when the page does not
    show it yet, the next control that may reveal it (a tab, a section, a menu, a folder's expander), or
    nothing with ``reveals=False``."""
    for clause in clauses(facts.text):
        for m in _CLICK_QUOTED.finditer(clause):
            name = m.group(1).strip()
            if kind_of(name):
                continue
            el = shown_as(page, name, facts.text)
            if el is not None:
                alike = [e for e in page.elements if e.role == el.role and norm(e.name) == norm(el.name)]
                if len(alike) > 1:  # the task's item's own (several when it says "on 3 posts"): the next not clicked
                    mine = scope.scoped(page, alike, facts) or [el]
                    el = next((x for x in mine if not (seen.clicks.get(norm(x.ref)) or seen.clicked_here(x))), mine[0])
                if seen.clicks.get(norm(el.ref)) or seen.clicked_here(el) or (len(alike) == 1 and seen.clicked(el)):
                    continue
                return [Action("click", {"element": el.name if el.interactive and el.name else name}, resolved=el,
                               why=f"the task's {name!r}")]
            more = reveal(page, seen, facts)
            if more is not None:
                return [Action("click", {"element": more.name or more.value}, resolved=more,
                               why=f"open {more.name or more.value!r}: {name!r} is not shown yet")] if reveals else []
    return []
