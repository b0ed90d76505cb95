"""The answer to the task's own question, read from the page: an e-mail address, a phone number, a table
cell (the row naming the entity, the column the question names), a price, or the line of text that best
matches the question. A line answers only what it can: a question of how many, how much or when needs a number
(or a number word) in it, and a question of what or which thing ("what colour", "which platform") needs that
thing named in it; a line that merely shares the question's other words is no answer, and the task is not
reported done with it.
"""

from __future__ import annotations

import re

from agenthost.agent.page import Page
from agenthost.agent.task import TaskFacts
from agenthost.agent.wording import NUMBER_WORDS, words

_ASK_EMAIL = re.compile(r"\be-?mail\b", re.I)
_ASK_PHONE = re.compile(r"\b(phone|telephone|number to call)\b", re.I)
_ASK_PRICE = re.compile(r"\b(price|cost|total|amount|how much)\b", re.I)
_PRICE = re.compile(r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP)")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"\+?\d[\d ().-]{6,}\d")
#: a question whose answer is an amount (how many, how much, how long, how old...), or a time (when, what year)
_ASK_AMOUNT = re.compile(r"\b(?:how\s+(?:many|much|long|old|far|often|tall|big|large|heavy)|number\s+of)\b", re.I)
_ASK_TIME = re.compile(r"\b(?:when|what\s+(?:year|date|time|day|month))\b", re.I)
_AMOUNT = re.compile(r"\d|\b(?:" + "|".join(sorted((w for w in NUMBER_WORDS if len(w) > 2 and w != "single"),
                                                      key=len, reverse=True)) + r"|none|no)\b", re.I)
_TIME = re.compile(r"\d|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:january|february|march|april|may|june|"
                   r"july|august|september|october|november|december|noon|midnight|today|tomorrow|yesterday)\b", re.I)
#: "what colour ...", "which platform ...": the thing asked for, which an answering line names
_ASK_THING = re.compile(r"\b(?:what|which)\s+(?!is\b|are\b|was\b|were\b|does\b|do\b|did\b|can\b|will\b|"
                        r"would\b|should\b|has\b|have\b|of\b)([a-z]+)", re.I)


def answer_from(facts: TaskFacts, page: Page) -> tuple[str | None, str]:
    """An answer to the task's question from page text and tables, with its kind (``email``, ``phone``,
    ``table``, ``price``, ``line``); ``(None, "")`` when the page does not show one."""
    text = page.text or ""
    if _ASK_EMAIL.search(facts.text):
        found = [e for e in _EMAIL.findall(text) if e not in facts.emails]
        if found:
            return found[0], "email"
    if _ASK_PHONE.search(facts.text):
        found = [p.strip() for p in _PHONE.findall(text) if sum(c.isdigit() for c in p) >= 7]
        if found:
            return found[0], "phone"
    goal = facts.words
    # tables: the row naming the entity, the column named by the question
    best: tuple[int, str] | None = None
    for table in page.tables:
        if len(table) < 2:
            continue
        header = table[0]
        for row in table[1:]:
            entity_cols = {i for i, c in enumerate(row) if words(c) & goal}
            if not entity_cols:
                continue
            for i, h in enumerate(header):
                if i in entity_cols or i >= len(row) or not (words(h) & goal):
                    continue
                score = sum(len(words(row[j]) & goal) for j in entity_cols)
                if best is None or score > best[0]:
                    best = (score, row[i])
    if best is not None:
        return best[1], "table"
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if _ASK_PRICE.search(facts.text):
        price: tuple[int, str] | None = None
        for ln in lines:
            pm = _PRICE.search(ln)
            if pm:
                score = len(words(ln) & goal)
                if price is None or score > price[0]:
                    price = (score, pm.group(0))
        if price:
            return price[1], "price"
    labels = {e.name for e in page.elements if e.interactive and e.name}
    needs = _AMOUNT if _ASK_AMOUNT.search(facts.text) else _TIME if _ASK_TIME.search(facts.text) else None
    thing = _ASK_THING.search(facts.text)
    asked = words(thing.group(1)) if thing and needs is None else frozenset()
    best_line, best_score = None, 0.0
    for ln in lines:
        lw = words(ln)
        if not lw or len(ln) > 400 or ln in labels:
            continue
        if (needs is not None and not needs.search(ln)) or (asked and not asked <= lw):
            continue  # shares the question's words but does not say what it asks
        line_score = len(lw & goal) / (len(goal) ** 0.5 or 1)
        if line_score > best_score and not (lw <= goal):  # the line must add something the task does not say
            best_line, best_score = ln, line_score
    if best_line is not None and best_score >= 0.6:
        return best_line[:300], "line"
    return None, ""
