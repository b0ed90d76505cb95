"""Choices the task picks by what their values are, not by their names: the one with the greatest or the
smallest number ("pick the card with the greatest number", "choose the plan with the lowest price"), or the
card whose details show the shortest or longest duration or the lowest or highest price ("buy the ticket with
the shortest duration", "reserve the cheapest hotel": the alike buttons of a result list, each read with the
text of its own card); for
each number the page lists, the button that says what kind of number it is ("mark each number as odd or
even", "label the amounts positive or negative"); and a number generated again until it is of the kind asked
("generate an odd number, then press submit"). :func:`number_in` and :func:`number_alone` are the agent's
reader of a number a page or a task writes (a sign, a currency sign, thousands in groups of three or a decimal
comma): the sliders and the waiting conditions read theirs with it.

Written by hand: small scans over the page model (numbers in the choices' names; the text between alike
buttons in page order as each one's card; a number's neighbouring buttons) that no library does for an
element tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from agenthost.agent.actions import Action, norm
from agenthost.agent.forms import NEXT_STEP, NOT_SUBMIT, submit_button, without_task
from agenthost.agent.page import Element, Page
from agenthost.agent.progress import Seen
from agenthost.agent.reference_values import shown_text
from agenthost.agent.task import TaskFacts

_MOST = r"greatest|largest|biggest|highest|maximum|max|most\s+expensive|costliest|priciest"
_LEAST = r"smallest|lowest|least\s+expensive|least|minimum|min|cheapest|fewest"
#: superlatives of a duration: the first kind picks the least, the second the most
_SHORT = r"shortest|quickest|fastest|briefest"
_LONG = r"longest|slowest|lengthiest"
#: "the card with the greatest number", "the plan with the lowest price", "the cheapest offer", "the largest value",
#: "the ticket with the shortest duration", "the quickest train"
_EXTREME = re.compile(r"\b(?:the|a)\s+(?:[\w-]+\s+){0,3}?(?:(?:with|showing|having|that\s+has|of)\s+(?:the\s+)?)?"
                      r"(?P<which>" + "|".join((_MOST, _LEAST, _SHORT, _LONG)) + r")\b(?:\s+(?P<what>number|value|"
                      r"price|amount|score|total|figure|count|rating|one|cost|fare|rate|duration|(?:travel\s+|journey\s+)?"
                      r"time|trip|journey|length))?", re.I)
#: what a superlative compares: a price (money), a duration, or the plain number a choice shows
_PRICED = re.compile(r"^(?:cheapest|most\s+expensive|least\s+expensive|costliest|priciest)$|^(?:price|cost|fare|rate)$",
                     re.I)
_TIMED = re.compile(r"^(?:" + _SHORT + "|" + _LONG + r")$|^(?:duration|(?:travel\s+|journey\s+)?time|trip|journey|"
                    r"length)$", re.I)
#: a duration as pages write it: "13h 9m", "2 hr 15 min", "1 day 4 hours", "45 minutes" (a bare "m" only after
#: hours or days: alone it may be metres); never a time of day ("07:10")
_SPAN = re.compile(r"(?<![\w.:])(?:(?P<d>\d+(?:\.\d+)?)\s*(?:days?|d)\b\s*(?:and\s+|,\s*)?)?"
                   r"(?:(?P<h>\d+(?:\.\d+)?)\s*(?:hours?|hrs?|h)\b\s*(?:and\s+|,\s*)?)?"
                   r"(?:(?P<m>\d+)\s*(?P<mu>minutes?|mins?|m)\b)?", re.I)
#: an amount of money: a currency sign or name with the number
_MONEY = re.compile(r"[$€£¥]\s?(?P<a>\d[\d,]*(?:\.\d+)?)|(?<![\w.])(?P<b>\d[\d,]*(?:\.\d+)?)\s?"
                    r"(?:€|£|\$|USD|EUR|GBP|dollars?|euros?|pounds?)\b", re.I)
#: a number as pages write it: a sign, a currency sign ("-$3.40", "€ 62.10"), thousands in groups of three
#: ("1,085.50"), else a decimal comma ("2,5")
NUMBER = r"[-+−]?(?:[$€£¥]\s?)?(?:\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:[.,]\d+)?)"
_NUMBER = re.compile(r"(?<![\w.])" + NUMBER + r"(?![\w])")
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
    return _value(found[0]) if len(found) == 1 else None


def _value(token: str) -> float | None:
    digits = re.sub(r"[$€£¥\s]", "", token).replace("−", "-")
    grouped = re.fullmatch(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?", digits)
    try:
        return float(digits.replace(",", "") if grouped else digits.replace(",", "."))
    except ValueError:
        return None


def number_alone(text: str) -> float | None:
    """The number ``text`` is, nothing else around it (a card's "9", a readout's "-5"); else None."""
    shown = (text or "").strip()
    return number_in(shown) if _NUMBER.fullmatch(shown) else None


def durations(text: str) -> list[float]:
    """The durations ``text`` shows, in minutes ("13h 9m" is 789)."""
    out = []
    for m in _SPAN.finditer(text or ""):
        d, h, mins = m.group("d"), m.group("h"), m.group("m")
        if not (d or h or mins) or (mins and not (d or h) and m.group("mu").lower() == "m"):
            continue
        out.append(float(d or 0) * 1440 + float(h or 0) * 60 + float(mins or 0))
    return out


def amounts(text: str) -> list[float]:
    """The amounts of money ``text`` shows ("$1,085" is 1085)."""
    return [float((m.group("a") or m.group("b")).replace(",", "")) for m in _MONEY.finditer(text or "")]


def _shape(name: str) -> str:
    """A choice's name without its numbers and amounts: alike choices ("Book for $55", "Book for $458") share it."""
    return norm(re.sub(r"[$€£¥]|\d[\d,.]*", " ", name or ""))


def _card_values(facts: TaskFacts, page: Page, group: list[Element],
                 read: Callable[[str], list[float]]) -> list[float] | None:
    """One value per choice of ``group`` (alike buttons in page order), read from the text of its own card: the
    text between one choice and the next, the card's details either before each button (the value nearest it)
    or after it, whichever way every choice has one and the text past the last card (or before the first) has
    none. None when the cards do not tell."""
    at = {id(e): i for i, e in enumerate(page.elements)}
    bounds = [at[id(e)] for e in group]
    gaps: list[list[float]] = []
    for lo, hi in zip([-1, *bounds], [*bounds, len(page.elements)], strict=True):
        found: list[float] = []
        for e in page.elements[lo + 1:hi]:
            if not e.interactive:
                found += read(without_task(e.value or e.name, facts.text))
        gaps.append(found)
    before, after = gaps[:-1], gaps[1:]
    if all(before) and not gaps[-1]:
        return [g[-1] for g in before]
    if all(after) and not gaps[0]:
        return [g[0] for g in after]
    return None


def extreme_choice(facts: TaskFacts, page: Page, seen: Seen) -> list[Action]:
    """A click on the choice whose number is the greatest (or smallest) when the task asks for that one: of
    two or more alike choices (same role), each showing one number, the one the task's superlative picks; a
    price or a duration ("the cheapest", "the shortest duration") is read from the choice's name, else from
    its card's text (alike buttons, each after or before its own details). Nothing when the choices tie, when
    it is already chosen, or when the task names no such pick."""
    m = _EXTREME.search(facts.text)
    if not m:
        return []
    which = re.sub(r"\s+", " ", m.group("which").lower())
    what = re.sub(r"\s+", " ", (m.group("what") or "").lower())
    timed = bool(_TIMED.match(which) or _TIMED.match(what))
    priced = not timed and bool(_PRICED.match(which) or _PRICED.match(what))
    most = re.fullmatch(_MOST + "|" + _LONG, which) is not None
    choices = [e for e in page.elements if e.role in _CHOICE_ROLES and not e.disabled
               and not NEXT_STEP.search(e.name) and not NOT_SUBMIT.search(e.name)]
    ranked: list[tuple[float, Element]] = []
    if not timed:
        by_role: dict[str, list[tuple[float, Element]]] = {}
        for e in choices:
            x = number_in(e.name)
            if x is not None:
                by_role.setdefault(e.role, []).append((x, e))
        groups = [g for g in by_role.values() if len(g) >= 2]
        if len(groups) > 1:
            return []  # two kinds of choices and no telling which the task means
        ranked = groups[0] if groups else []
    if not ranked and (timed or priced):
        # alike buttons with the same name but for a number: the value is in each one's card
        alike: dict[tuple[str, str], list[Element]] = {}
        for e in choices:
            alike.setdefault((e.role, _shape(e.name)), []).append(e)
        cards = [g for g in alike.values() if len(g) >= 2]
        if len(cards) != 1:
            return []
        values = _card_values(facts, page, cards[0], durations if timed else amounts)
        if values is None:
            return []
        ranked = list(zip(values, cards[0], strict=True))
    if len(ranked) < 2:
        return []
    ranked = sorted(ranked, key=lambda p: p[0], reverse=most)
    if ranked[0][0] == ranked[1][0]:
        return []
    pick = ranked[0][1]
    if pick.checked or pick.selected or seen.clicked_here(pick):
        return []
    kind = "duration" if timed else "price" if priced else "number"
    return [Action("click", {"element": pick.name}, resolved=pick,
                   why=f"the choice with the {which} {kind} ({pick.name})")]


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
