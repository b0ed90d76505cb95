"""Choices the task picks by what their values are, not by their names: the one with the greatest or the
smallest number ("pick the card with the greatest number", "choose the plan with the lowest price"); for
each number the page lists, the button that says what kind of number it is ("mark each number as odd or
even", "label the amounts positive or negative"); and a number generated again until it is of the kind asked
("generate an odd number, then press submit").

Written by hand: two small scans over the page model (numbers in the choices' names; a number's neighbouring
buttons in page order) that no library does for an element tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from agenthost.agent.actions import Action, norm
from agenthost.agent.forms import NEXT_STEP, NOT_SUBMIT, submit_button
from agenthost.agent.page import Element, Page
from agenthost.agent.progress import Seen
from agenthost.agent.references import shown_text
from agenthost.agent.task import TaskFacts

_MOST = r"greatest|largest|biggest|highest|maximum|max|most\s+expensive|costliest"
_LEAST = r"smallest|lowest|least|minimum|min|cheapest|fewest"
#: "the card with the greatest number", "the plan with the lowest price", "the cheapest offer", "the largest value"
_EXTREME = re.compile(r"\b(?:the|a)\s+(?:[\w-]+\s+){0,3}?(?:(?:with|showing|having|that\s+has|of)\s+(?:the\s+)?)?"
                      r"(?P<which>" + _MOST + "|" + _LEAST + r")\b(?:\s+(?:number|value|price|amount|score|total|"
                      r"figure|count|rating|one))?", re.I)
_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d+(?:[.,]\d+)?(?![\w])")
_CHOICE_ROLES = ("button", "radio", "link", "option", "listitem", "cell")

#: kinds of numbers a task asks to tell apart, each with its test
_KINDS: dict[str, Callable[[float], bool]] = {
    "odd": lambda x: x == int(x) and int(x) % 2 != 0,
    "even": lambda x: x == int(x) and int(x) % 2 == 0,
    "positive": lambda x: x > 0,
    "negative": lambda x: x < 0,
}
#: "mark the numbers below as odd or even", "label each amount positive or negative"
_CLASSIFY = re.compile(r"\b(?:mark|label|classify|tag|flag|identify)\b[^.;]*?\b(?:as\s+)?(?:either\s+)?"
                       r"(?P<a>" + "|".join(_KINDS) + r")\s+or\s+(?P<b>" + "|".join(_KINDS) + r")\b", re.I)


def number_in(text: str) -> float | None:
    """The one number ``text`` shows (None when it shows none or several)."""
    found = _NUMBER.findall(text or "")
    if len(found) != 1:
        return None
    try:
        return float(found[0].replace("−", "-").replace(",", "."))
    except ValueError:
        return None


def number_alone(text: str) -> float | None:
    """The number ``text`` is, nothing else around it (a card's "9", a readout's "-5"); else None."""
    shown = (text or "").strip()
    return number_in(shown) if _NUMBER.fullmatch(shown) else None


def extreme_choice(facts: TaskFacts, page: Page, seen: Seen) -> list[Action]:
    """A click on the choice whose number is the greatest (or smallest) when the task asks for that one: of
    two or more alike choices (same role), each showing one number, the one the task's superlative picks.
    Nothing when the choices tie, when it is already chosen, or when the task names no such pick."""
    m = _EXTREME.search(facts.text)
    if not m:
        return []
    most = re.fullmatch(_MOST, m.group("which").lower()) is not None
    by_role: dict[str, list[tuple[float, Element]]] = {}
    for e in page.elements:
        if e.role not in _CHOICE_ROLES or e.disabled or NEXT_STEP.search(e.name) or NOT_SUBMIT.search(e.name):
            continue
        x = number_in(e.name)
        if x is not None:
            by_role.setdefault(e.role, []).append((x, e))
    groups = [g for g in by_role.values() if len(g) >= 2]
    if len(groups) != 1:
        return []  # no choices to compare, or two kinds of them and no telling which the task means
    ranked = sorted(groups[0], key=lambda p: p[0], reverse=most)
    if ranked[0][0] == ranked[1][0]:
        return []
    pick = ranked[0][1]
    if pick.checked or pick.selected or seen.clicked_here(pick):
        return []
    return [Action("click", {"element": pick.name}, resolved=pick,
                   why=f"the choice with the {m.group('which').lower()} number ({pick.name})")]


def classify_clicks(facts: TaskFacts, page: Page, seen: Seen) -> list[Action]:
    """For each number the page shows between buttons named for the two kinds the task asks to tell apart
    ("as odd or even"), a click on the neighbouring button that names its kind (the one right before or right
    after it in page order). Nothing for a number whose buttons are not both there."""
    m = _CLASSIFY.search(facts.text)
    if not m:
        return []
    kinds = (m.group("a").lower(), m.group("b").lower())
    els: Sequence[Element] = page.elements
    out: list[Action] = []
    for i, e in enumerate(els):
        shown = (e.value or e.name or "").strip()
        x = number_alone(shown) if e.role in ("paragraph", "text", "generic", "cell") else None
        if x is None:
            continue  # a number alone, not a sentence with one in it
        near = [n for n in (els[i - 1] if i else None, els[i + 1] if i + 1 < len(els) else None)
                if n is not None and n.role in ("button", "radio") and norm(n.name) in kinds]
        if {norm(n.name) for n in near} != set(kinds):
            continue
        for n in near:
            if _KINDS[norm(n.name)](x) and not (n.checked or seen.clicked_here(n)):
                out.append(Action("click", {"element": n.name}, resolved=n, why=f"{shown} is {norm(n.name)}"))
    return out


#: "Generate an odd number", "generate a number greater than 3", "roll a number less than 20"
_GENERATE = re.compile(r"\b(?:generate|roll|draw|get)\s+(?:a|an)\s+(?:(?P<kind>" + "|".join(_KINDS) + r")\s+number|"
                       r"number\s+(?P<cmp>greater|larger|bigger|higher|more|less|smaller|lower)\s+than\s+"
                       r"(?P<bound>[-+]?\d+(?:\.\d+)?))\b", re.I)


def _fits(m: re.Match[str], x: float) -> bool:
    if m.group("kind"):
        return _KINDS[m.group("kind").lower()](x)
    bound = float(m.group("bound"))
    return x > bound if m.group("cmp").lower() in ("greater", "larger", "bigger", "higher", "more") else x < bound


def generate_actions(facts: TaskFacts, page: Page, avoid: set[tuple[str, str]]) -> list[Action] | None:
    """A number to generate until it fits ("generate an odd number, then press submit"): the page's generate
    button clicked again while the number it shows (right below the task's sentence) does not fit, the form's
    submit once it does. None when the task asks for no such number or the page has no generate button."""
    m = _GENERATE.search(facts.text)
    if not m:
        return None
    verb = m.group(0).split()[0].lower()
    button = next((e for e in page.elements if e.role == "button" and not e.disabled
                   and norm(e.name).startswith(verb[:4])), None)
    if button is None:
        return None
    shown = shown_text(page, facts.text, below=True) or ""
    x = number_alone(shown)
    if x is not None and _fits(m, x):
        submit = submit_button(facts, page, [], avoid)
        return [Action("click", {"element": submit.name}, resolved=submit, why=f"{shown.strip()} fits: send it")] \
            if submit is not None and submit is not button else []
    return [Action("click", {"element": button.name}, resolved=button,
                   why="generate a number" if x is None else f"{shown.strip()} does not fit: generate another")]
