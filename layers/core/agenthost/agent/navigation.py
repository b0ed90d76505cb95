"""Where to go next: the buttons, tabs and links the task names, the link toward the goal, the next step of a
flow, and other routes when a batch changed nothing.

Links are scored by the words they share with the task and with the page's clues about it, unvisited
targets first ("highest"/"lowest" pick among numbered links), backtracking from dead ends; a link to
another site needs a reason in the task (it names the host or the site).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urljoin

from agenthost.agent import scope
from agenthost.agent.actions import Action, is_avoided, norm
from agenthost.agent.forms import NEXT_STEP, NOT_SUBMIT, SUBMIT, blocked
from agenthost.agent.guards import resolve
from agenthost.agent.loops import LoopGuard
from agenthost.agent.outcome import judge
from agenthost.agent.page import TEXT_ROLES, Element, Page
from agenthost.agent.progress import Seen, action_key
from agenthost.agent.task import TaskFacts
from agenthost.agent.web_guard import off_site
from agenthost.agent.wording import ID, has_phrase, id_kind, identifiers, stem, words

_EVERY = re.compile(r"\b(?:all|every|each)\b", re.I)
_REPEAT = re.compile(r"\b(until|again|repeat|each|every|all of|one by one)\b", re.I)
_HIGHEST = re.compile(r"\b(highest|largest|biggest|greatest|most|maximum|last|top)\b", re.I)
_LOWEST = re.compile(r"\b(lowest|smallest|least|minimum|first|fewest)\b", re.I)


def named_clicks(facts: TaskFacts, page: Page, seen: Seen, fills: list[Action],
                 avoid: set[tuple[str, str]]) -> list[Action]:
    """Buttons, tabs and links the task names that earlier turns have not clicked yet (task order); a
    form's submit button is held back while a field the task refers to is still empty."""
    found: list[tuple[int, float, Element]] = []
    filling = {id(a.resolved) for a in fills}
    named = [e for e in page.elements if e.role in ("button", "link", "tab", "menuitem") and e.name and not e.disabled
             and _name_score(facts, e.name) >= 0.9]
    # a control the task names in other words gives way to one that carries the very word ("Share" is the
    # share button, not the retweet one, where a page has both)
    exact = {norm(e.name) for e in named if _name_score(facts, e.name) >= 1.0}
    named = [e for e in named if _name_score(facts, e.name) >= 1.0 or not any(
        syn in exact for w in re.findall(r"[a-z]+", e.name.lower()) for syn in _SYNONYMS.get(w, ()))]
    same: dict[str, list[Element]] = {}
    for e in named:
        same.setdefault(norm(e.name), []).append(e)
    every = bool(_EVERY.search(facts.text))
    mine = {id(e) for g in same.values() if len(g) > 1 for e in scope.scoped(page, g, facts, every=every)}
    for e in named:
        several = len(same[norm(e.name)]) > 1
        if seen.clicked_here(e) or (seen.clicks.get(norm(e.ref)) if several else seen.clicked(e)):
            continue  # (one of several alike: this very one, by its id)
        score = _name_score(facts, e.name)
        if len(same[norm(e.name)]) > 1:
            if id(e) not in mine:
                continue  # a control every item has: the task's item's own (its anchor decides), or none
        elif resolve(page, "click", e.name) is not e:
            continue  # the runner would click another element with this name first
        if e.role == "link" and e.href and off_site(urljoin(page.url, e.href), seen.home, facts):
            continue
        if e.role == "button" and blocked(facts, page, e, filling):
            continue
        act = Action("click", {"element": e.name}, resolved=e, why=f"the task names {e.name!r}")
        if is_avoided(act, avoid):
            continue
        found.append((facts.position(e.name), score, e))
    found = _without_partial(facts, found)
    if not found:
        return []
    links = [f for f in found if f[2].role == "link"]
    others = sorted((f for f in found if f[2].role != "link"), key=lambda f: (f[0], -f[1]))
    out = [Action("click", {"element": e.name}, resolved=e, why=f"the task names {e.name!r}") for _, _, e in others]
    if links:
        best = max(links, key=lambda f: (f[1], len(f[2].name)))[2]
        out.append(Action("click", {"element": best.name}, resolved=best, why=f"the task names {best.name!r}"))
    return out


def _without_partial(facts: TaskFacts, found: list[tuple[int, float, Element]]) -> list[tuple[int, float, Element]]:
    """Once an element carries an identifier the task names, the partial matches of the same target go: an
    element matching only a number of the task, or sharing a word with the exact one's name without its
    identifier ("Track every order of 2025" beside "Track ORD-7782 (March 2025)")."""
    exact = [e for _, _, e in found if identifiers(e.name) & facts.ids]
    if not exact:
        return found
    target = frozenset().union(*(words(e.name) for e in exact))
    keep = {id(e) for e in exact}
    return [f for f in found if id(f[2]) in keep or (f[1] >= 1.0 and not words(f[2].name) & target)]


def repeat_named(facts: TaskFacts, page: Page, seen: Seen,
                 avoid: set[tuple[str, str]]) -> list[Action]:
    """A named button clicked on an earlier page state, again, when the task says to repeat it (or quotes
    it): never twice on the same page state."""
    for e in page.elements:
        if e.role not in ("button", "link", "tab", "menuitem") or not e.name or e.disabled:
            continue
        if seen.clicked_here(e):
            continue
        # a named button once more only when the task says to repeat it ("again", "until", "each"); a name it
        # quotes once ("click the "Menu" button, then ...") is clicked once
        if not (_REPEAT.search(facts.text) and facts.mentions(e.name, min_cover=1.0) >= 1.0
                and not other_id(facts, e.name)):
            continue
        act = Action("click", {"element": e.name}, resolved=e, why=f"the task names {e.name!r} again")
        if not is_avoided(act, avoid):
            return [act]
    return []


def best_link(facts: TaskFacts, page: Page, seen: Seen, visited: Sequence[str],
              avoid: set[tuple[str, str]], loops: LoopGuard, *, explore: bool = True) -> Element | None:
    """The link (or tab) toward the goal: words shared with the task and with the page's clues about
    it, unvisited targets first, "highest"/"lowest" among numbered links; a visited one only to
    backtrack from a dead end. With ``explore`` (a navigation task: nothing typed yet), an unexplored
    link on a page that gives clues is worth trying even when it shares no word with the goal."""
    goal = set(facts.words)
    clues = clue_text(facts, page)
    goal |= words(clues)
    numbered: dict[str, list[tuple[float, Element]]] = {}
    scored: list[tuple[float, int, Element]] = []
    for i, e in enumerate(page.elements):
        if e.role not in ("link", "tab") or not e.name or e.disabled or seen.clicked_here(e):
            continue
        act = Action("click", {"element": e.name}, resolved=e)
        if is_avoided(act, avoid) or loops.is_looping(act, page):
            continue
        target = urljoin(page.url, e.href).split("#", 1)[0] if e.href else ""
        if target and off_site(target, seen.home, facts):
            continue  # leaving the site needs a reason in the task
        lw = words(e.name) | words(re.sub(r"[/_.-]", " ", e.href))
        if not lw:
            continue
        score = len(lw & goal) / (len(lw) ** 0.5)
        if target and target in visited and target != page.url.split("#", 1)[0]:  # in-page links are not
            score = score * 0.1 - 1.0
        elif clues and score <= 0 and explore:
            score = 0.01  # unexplored, on a page that gives clues about the goal
        num = re.search(r"\d+(?:\.\d+)?", e.name)
        if num:
            numbered.setdefault(re.sub(r"\d+(?:\.\d+)?", "#", e.name.lower()), []).append((float(num.group(0)), e))
        scored.append((score, -i, e))
    if not scored:
        return None
    boost: dict[int, float] = {}
    if clues and (_HIGHEST.search(clues) or _LOWEST.search(clues)):
        for group in numbered.values():
            if len(group) > 1:
                pick = max(group, key=lambda g: g[0]) if _HIGHEST.search(clues) else min(group, key=lambda g: g[0])
                boost[id(pick[1])] = 0.5
    best = max(scored, key=lambda s: (s[0] + boost.get(id(s[2]), 0.0), s[1]))
    if best[0] + boost.get(id(best[2]), 0.0) > 0:
        return best[2]
    # a dead end: go back the way we came (a visited page may still have unexplored links)
    back = [s for s in scored if s[0] < 0 and not judge(page).success]
    return max(back, key=lambda s: (s[0], s[1]))[2] if back and clues and explore else None


def alternatives(facts: TaskFacts, page: Page, seen: Seen, visited: Sequence[str],
                 avoid: set[tuple[str, str]], loops: LoopGuard) -> list[Action]:
    link = best_link(facts, page, seen, visited, avoid, loops)
    if link is not None:
        alt = Action("click", {"element": link.name}, resolved=link, why="earlier attempts made no progress")
        if not loops.is_looping(alt, page):
            return [alt]
    return []


def next_step(facts: TaskFacts, page: Page, seen: Seen, avoid: set[tuple[str, str]],
              futile: set[str]) -> list[Action]:
    """An enabled next-step button (checkout, next, continue, start...) not clicked on this page state:
    a flow goes on rather than repeating a step that already took effect."""
    for e in page.elements:
        if e.role != "button" or not e.name or e.disabled or not NEXT_STEP.search(e.name):
            continue
        if NOT_SUBMIT.search(e.name) or seen.clicked_here(e) or facts.negated(e.name) or seen.clicked(e) >= 3:
            continue  # (clicked three times already in this task: going round in circles)
        if resolve(page, "click", e.name) is not e:
            continue
        act = Action("click", {"element": e.name}, resolved=e, why="the next step")
        if not is_avoided(act, avoid) and action_key(act) not in futile:
            return [act]
    return []


def escalate(facts: TaskFacts, page: Page, seen: Seen, visited: Sequence[str],
             avoid: set[tuple[str, str]], loops: LoopGuard, futile: set[str],
             names: Sequence[str]) -> list[Action]:
    """After a batch that changed nothing: another matching button, Enter in the last field, scrolling
    the target into view, another route (a link toward the goal, or back)."""
    tried = [k for k in futile]
    # several submit buttons named only by a value are a question's answers, not ways to send a form
    answers = sum(1 for e in page.elements if e.role == "button" and e.input_type == "submit") > 1
    for e in page.elements:
        if e.role != "button" or not e.name or e.disabled or NOT_SUBMIT.search(e.name):
            continue
        if not (SUBMIT.search(e.name) or (e.input_type == "submit" and not answers) or NEXT_STEP.search(e.name)):
            continue
        act = Action("click", {"element": e.name}, resolved=e, why="another way to submit")
        if action_key(act) not in futile and not seen.clicked_here(e) and not is_avoided(act, avoid) \
                and not loops.is_looping(act, page):
            return [act]
    enter = Action("press", {"key": "Enter"}, why="submit with Enter") if "press" in names else \
        Action("submit", {}, why="submit the form")
    if enter.tool in names and action_key(enter) not in futile and \
            any(e.role in TEXT_ROLES and (e.value or "").strip() for e in page.elements):
        return [enter]
    scroll = Action("scroll", {"direction": "down", "amount": 600}, why="bring the target into view")
    if "scroll" in names and action_key(scroll) not in futile and not is_avoided(scroll, avoid) and tried and \
            (len(page.elements) > 12 or any(not e.in_viewport for e in page.elements)):
        return [scroll]
    link = best_link(facts, page, seen, visited, avoid, loops, explore=True)
    if link is not None:
        act = Action("click", {"element": link.name}, resolved=link, why="another route")
        if action_key(act) not in futile:
            return [act]
    return []

# ------------------------------------------------------------------ endings


def _name_score(facts: TaskFacts, name: str) -> float:
    """How clearly the task names an element: 2 quoted, 1 named, 0.9 a number the task gives (``the one
    published in 1974`` -> ``The Dispossessed (1974)``), else 0."""
    if any(norm(q) == norm(name) for q in facts.quoted):
        return 2.0
    if other_id(facts, name):
        return 0.0
    if facts.mentions(name, min_cover=1.0) >= 1.0:
        return 1.0
    if _by_synonym(facts, name):
        return 0.9
    if facts.numbers and any(c.isdigit() for c in name) and \
            set(re.findall(r"(?<![\d.])\d{2,}(?!\d|\.\d)", ID.sub(" ", name))) & facts.numbers:
        return 0.9
    return 0.0


#: what a task says for a control's usual names (an icon called "forward" is what "send it on to Ana" asks for)
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "forward": ("send it to", "send it on", "send to", "send this to", "pass it on", "pass on"),
    "trash": ("delete", "remove", "bin", "discard"), "delete": ("trash", "remove", "discard", "bin"),
    "remove": ("delete", "trash", "discard"), "star": ("important", "flag", "favorite", "favourite"),
    "reply": ("respond", "answer", "write back"), "retweet": ("share", "repost"), "like": ("favorite", "heart"),
}


def _by_synonym(facts: TaskFacts, name: str) -> bool:
    """Every word of a control's name is what the task says in other words ("trash" for "delete")."""
    ws = [w for w in re.findall(r"[a-z]+", name.lower()) if len(w) > 2]
    if not ws or len(ws) > 3:
        return False
    return all(w in facts.words or stem(w) in facts.words or (w == "forward" and facts.passes_on) or
               any(has_phrase(facts.low, syn) for syn in _SYNONYMS.get(w, ())) for w in ws) and \
        any(w in _SYNONYMS for w in ws)


def other_id(facts: TaskFacts, name: str) -> bool:
    """Whether ``name`` carries an identifier of a kind the task names but not the task's own (``Download
    PO-2023-07`` when the task names PO-2023-08; ``v2.1`` when it names v2.10): another thing, not the
    named one, however many words and numbers it shares with the task."""
    ids = identifiers(name)
    if not ids or not facts.ids or ids & facts.ids:
        return False
    kinds = {id_kind(i) for i in facts.ids}
    return any(id_kind(i) in kinds for i in ids)


def clue_text(facts: TaskFacts, page: Page) -> str:
    """Page sentences about the task's goal (they share a content word with it), links excluded."""
    labels = {e.name for e in page.elements if e.interactive and e.name}
    out = []
    for line in page.text.splitlines():
        line = line.strip()
        if not line or line in labels or len(line) > 400:
            continue
        if words(line) & facts.words:
            out.append(line)
    return " ".join(out)
