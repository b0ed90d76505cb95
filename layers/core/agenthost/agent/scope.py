"""The item a task is about, on pages that repeat the same controls for every item: lists of messages,
posts, contacts or products, each with its own "Reply", "Like", trash or "+" control.

A task singles out its item by something only that item shows: a person's name ("the email by Helena"), a
handle ("the user @kenda"), a quoted title, a product name. :func:`anchors` reads those from the task;
:func:`scoped` picks, among controls that share a name, the one that belongs to the anchor's item: the first
such control after the anchor in page order (a list shows an item's text, then its controls) and before the
next item's. When the task's control is not on the page at all, :func:`opener` is the anchor's own item
to open first (a message in an inbox opens to show its Reply and Forward).

Hand-written: a reading of page order and of the task's proper names; no library models list items.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agenthost.agent.actions import norm
from agenthost.agent.page import Element, Page
from agenthost.agent.task import TaskFacts
from agenthost.agent.wording import QUOTED

#: a handle, or a capitalised word that does not open a sentence or a clause
_HANDLE = re.compile(r"@\w+")
_PROPER = re.compile(r"(?<![.!?:;,]\s)(?<!^)\b[A-Z][a-zA-Z'-]{2,}\b")
#: words that are capitalised in tasks without being names of an item
_NOT_NAMES = frozenset({"submit", "ok", "cancel", "click", "select", "enter", "type", "find", "the", "then", "and",
                        "like", "reply", "retweet", "share", "forward", "delete", "search", "next", "previous",
                        "prev", "yes", "no", "save", "send", "menu", "tab", "section", "button", "link", "i"})
#: what opens an item (a row, a link, a card made clickable); never a box to tick
_OPENERS = frozenset({"button", "link", "menuitem", "listitem", "treeitem", "row", "img"})


def anchors(facts: TaskFacts, exclude: Sequence[str] = ()) -> list[str]:
    """What singles out the task's item: handles and proper names (not the names of controls, nor words in
    ``exclude``), and quoted texts that name no control."""
    skip = {norm(x) for x in exclude} | _NOT_NAMES
    out: list[str] = []
    for m in _HANDLE.finditer(facts.text):
        out.append(m.group(0))
    names: list[tuple[int, str]] = []
    quoted = [(q.start(), q.end()) for q in QUOTED.finditer(facts.text)]
    for m in _PROPER.finditer(facts.text):
        w = m.group(0)
        # a possessive names its owner ("Ana's message"); a capitalised word inside a quote is its content
        owner = re.search(r"['’]s?$", w) is not None
        w = re.sub(r"['’]s?$", "", w)
        if len(w) < 3 or any(a <= m.start() < b for a, b in quoted):
            continue
        if norm(w) not in skip and w not in out and not any(w in o for o in out) and \
                not any(w in o for _, o in names):
            # the item's own (after "from"/"by", or its owner: "Ana's message") first; one after "to" is where
            # it goes, tried last
            before = facts.text[max(0, m.start() - 12):m.start()].lower()
            rank = 0 if owner or re.search(r"\b(?:from|by|of)\s+$", before) else \
                2 if re.search(r"\bto\s+$", before) else 1
            names.append((rank, w))
    out += [w for _, w in sorted(names, key=lambda p: p[0])]
    for q in facts.quoted:
        if norm(q) not in skip and q not in out:
            out.append(q)
    return out


_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
#: "on 3 posts by @x", "for two of the messages from Ana", "in 4 rows"
_ON_N = re.compile(r"\b(?:on|for|in|of)\s+(?P<n>\d{1,2}|" + "|".join(_COUNTS) + r")\s+"
                   r"(?:of\s+(?:the|their|his|her)\s+)?(?:\w+\s+)?(?:posts?|items?|messages?|tweets?|rows?|entries|emails?|products?|comments?|"
                   r"cards?|results?|photos?|videos?|articles?)\b", re.I)


def how_many(facts: TaskFacts) -> int:
    """How many of the anchor's items the task wants acted on: the number it gives ("on 3 posts by @x"),
    else one."""
    m = _ON_N.search(facts.text)
    if not m:
        return 1
    n = m.group("n").lower()
    return int(n) if n.isdigit() else _COUNTS[n]


def _shows(e: Element, anchor: str) -> bool:
    text = e.value if e.role in ("text", "paragraph", "generic", "listitem", "cell", "heading") and e.value else e.name
    return bool(text) and re.search(r"(?<![\w@])" + re.escape(anchor) + r"(?![\w])", text, re.I) is not None


def anchor_positions(page: Page, anchor: str, task: str = "") -> list[int]:
    """Where ``anchor`` shows on the page (indices of the elements showing it, page order), not counting the
    page's copy of the task's own sentence."""
    said = norm(task)[:40]
    return [i for i, e in enumerate(page.elements) if _shows(e, anchor)
            and not (said and said in norm(e.value or e.name))]


def scoped(page: Page, group: Sequence[Element], facts: TaskFacts, *, every: bool = False) -> list[Element]:
    """Of ``group`` (controls sharing a name, page order), those belonging to the task's item: for each place
    the anchor shows, the first of them after it and before the next item's occurrence of the same control.
    ``every``: all the anchor's items ("all posts by @x"), else as many as the task says (:func:`how_many`,
    one unless it gives a number). [] when no anchor decides."""
    if len(group) < 2:
        return list(group)
    index = {id(e): i for i, e in enumerate(page.elements)}
    places = sorted(index[id(e)] for e in group)
    for anchor in anchors(facts, exclude=[group[0].name]):
        members = {id(g) for g in group}
        hits = [i for i in anchor_positions(page, anchor, facts.text) if id(page.elements[i]) not in members]
        if not hits:
            continue
        chosen: list[Element] = []
        for at in hits:
            after = [p for p in places if p > at]
            if after:
                el = page.elements[after[0]]
                if el not in chosen:
                    chosen.append(el)
        if chosen:
            return chosen if every else chosen[:how_many(facts)]
    return []


def opener(page: Page, facts: TaskFacts, exclude: Sequence[str] = ()) -> Element | None:
    """The clickable item the anchor shows on (a message by Helena, a post by @kenda): opened first when the
    control the task wants is not on the page yet."""
    for anchor in anchors(facts, exclude=exclude):
        for i in anchor_positions(page, anchor, facts.text):
            e = page.elements[i]
            if e.role in _OPENERS and not e.disabled:
                return e
    return None
