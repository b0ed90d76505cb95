"""Items a task orders by quantity, on a page that gives each item its own "+" control and shows how many.

"Get two of each: Lentil soup, Plum tart" or "Pick 3 dishes that are vegan": a page listing items, each with a
"-" and a "+" (a quantity stepper) and the number chosen between them, is a form whose fields are those
quantities. Each decision reads the quantities the page shows and clicks the "+" (or the "-") of one item
still off the asked amount; once every item the task asks for shows its amount and no other holds any, the
form is complete (the task's own button, "Order" or "Buy", is the policy's to press). An order the page
gives no way to place (the items are shown, no "+" beside them) is reported, so that the order button is
never pressed with nothing chosen: the give-up says why.

An item's row is read from the page model in page order: the text naming it, then its controls and marks
(images or words such as "vegan"), the "-", the number shown, the "+". Written here because no library reads
a shop's rows from an accessibility snapshot; the wording it knows is "N of each (item): A, B" and "N items
that are K" (with "dishes", "products"... for items).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agenthost.agent.actions import Action, norm
from agenthost.agent.page import Element, Page
from agenthost.agent.task import TaskFacts
from agenthost.agent.wording import NUMBER_WORDS

_NUMBER = r"(?P<n>\d+|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
_THINGS = r"(?:items?|dish(?:es)?|products?|things?|meals?|articles?|pieces?)"
#: "one of each item: A, B", "two of each of these: A and B"
_EACH = re.compile(_NUMBER + r"\s+of\s+each(?:\s+(?:of\s+(?:these|the\s+following)|" + _THINGS + r"))?\s*:\s*"
                   r"(?P<list>[^.;\n]+)", re.I)
#: "3 items that are vegan", "two dishes which are gluten-free", "4 products tagged organic"
_OF_KIND = re.compile(r"\b" + _NUMBER + r"\s+" + _THINGS + r"\s+(?:that\s+are|which\s+are|tagged|marked(?:\s+as)?)\s+"
                      r"(?P<kind>[\w-]+(?:\s+[\w-]+)?)", re.I)
_PLUS = {"+", "\uff0b"}
_MINUS = {"-", "\u2212", "\u2013", "\uff0d"}
#: a stepper shown as text only: "-" then "+" (an amount between them), each standing alone
_DRAWN = re.compile(r"(?:^|\s)[-\u2212\u2013]\s+(?:\d+\s+)?\+(?=\s|$)")


@dataclass
class Row:
    """One item of the page: its name's text, the marks shown with it, its "-" and "+", the amount shown."""

    name: str
    plus: Element
    minus: Element | None = None
    quantity: int = 0
    marks: list[str] = field(default_factory=list)


def _count(word: str) -> int:
    w = word.lower()
    return int(w) if w.isdigit() else NUMBER_WORDS.get(w, 1)


def rows(page: Page) -> list[Row]:
    """The page's items that have a "+" of their own, in page order."""
    out: list[Row] = []
    els = page.elements
    for i, e in enumerate(els):
        if e.role != "button" or e.name.strip() not in _PLUS:
            continue
        minus: Element | None = None
        quantity = 0
        marks: list[str] = []
        name = ""
        for prev in reversed(els[:i]):
            label = (prev.name or prev.value or "").strip()
            if prev.role == "button" and label in _PLUS:
                break  # the item before
            if prev.role == "button" and label in _MINUS:
                minus = minus or prev
            elif prev.role in ("paragraph", "text", "generic") and label.isdigit():
                quantity = int(label)
            elif prev.role in ("paragraph", "text", "heading", "generic", "listitem", "cell") and label:
                name = label
                break
            elif label:
                marks.append(label)
        if name:
            out.append(Row(name, e, minus, quantity, marks))
    return out


def _names(listed: str, found: list[Row]) -> list[str]:
    """The items of a listed phrase: split at commas; a piece no row names whole split at "and" too (an item's
    own name may hold an "and": "Rice and beans")."""
    out: list[str] = []
    for piece in re.split(r"[,;]", listed):
        piece = re.sub(r"^\s*and\s+", "", piece).strip(" \"'“”")
        if not piece:
            continue
        if any(_holds(r, piece) for r in found):
            out.append(piece)
        else:
            out.extend(p.strip(" \"'“”") for p in re.split(r"\band\b", piece) if p.strip(" \"'“”"))
    return out


def _holds(row: Row, item: str) -> bool:
    """Whether the row's text names the item (a section heading may run before it in a flat snapshot)."""
    r, i = norm(row.name), norm(item)
    return bool(i) and (r == i or r.endswith(" " + i))


def wanted(facts: TaskFacts, found: list[Row]) -> tuple[dict[int, int], str] | None:
    """``{row index: amount}`` the task asks for, and what it asks in words; None when it orders nothing by
    quantity. A row index of -1 stands for an item the page shows no "+" for (the order cannot be placed)."""
    m = _EACH.search(facts.text)
    if m:
        n = _count(m.group("n"))
        want: dict[int, int] = {}
        for item in _names(m.group("list"), found):
            idx = next((k for k, r in enumerate(found) if _holds(r, item)), -1)
            if idx < 0:
                return {-1: n}, item
            want[idx] = n
        return (want, m.group(0)) if want else None
    m = _OF_KIND.search(facts.text)
    if m:
        n, kind = _count(m.group("n")), norm(m.group("kind"))
        of_kind = [k for k, r in enumerate(found) if any(norm(x) == kind for x in r.marks)]
        if not of_kind:
            return {-1: n}, m.group("kind")
        # any items of the kind make up the amount: those already chosen first, the rest on the first of them
        want = {k: found[k].quantity for k in of_kind if found[k].quantity}
        left = n - sum(want.values())
        if left < 0:
            return {of_kind[0]: n}, m.group(0)  # too many chosen: start over on the first one
        first = next(iter(want), of_kind[0])
        want[first] = want.get(first, 0) + left
        return want, m.group(0)
    return None


def order_actions(facts: TaskFacts, page: Page) -> tuple[list[Action], bool, str] | None:
    """None when the task orders no items by quantity; else the one click that brings an item nearer its
    amount, whether the order is complete (every asked item shows its amount, no other item any), and, when
    there is nothing to click and it is not complete, why."""
    if not (_EACH.search(facts.text) or _OF_KIND.search(facts.text)):
        return None
    found = rows(page)
    if not found:
        if _DRAWN.search(page.text):
            # the page draws its quantity steppers as text this protocol lists as no control
            return [], False, ("The page's quantity controls ('-' and '+' beside each item) are not controls this "
                               "protocol can press, so the order is not placed with nothing chosen.")
        return None
    asked = wanted(facts, found)
    if asked is None:
        return None
    want, what = asked
    if -1 in want:
        return [], False, (f"The page shows no control to choose {what!r} by quantity, so the order is not "
                           "placed with nothing chosen.")
    for k, r in enumerate(found):
        goal = want.get(k, 0)
        if r.quantity < goal:
            return [Action("click", {"element": r.plus.name}, resolved=r.plus, progress=f"{r.name} {r.quantity}",
                           why=f"{r.name!r}: {r.quantity} chosen, the task asks for {goal}")], False, ""
        if r.quantity > goal:
            if r.minus is None:
                return [], False, f"{r.name!r} shows {r.quantity} chosen and no control to take one off."
            return [Action("click", {"element": r.minus.name}, resolved=r.minus, progress=f"{r.name} {r.quantity}",
                           why=f"{r.name!r}: {r.quantity} chosen, the task asks for {goal}")], False, ""
    return [], True, ""
