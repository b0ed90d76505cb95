"""Waiting the task asks for.

* An action the task asks for only once a value the page shows meets a bound: "buy the stock when the price is
  less than $61.20", "press Stop when the counter goes above 40". Until the page's value (the number it shows
  after the value's name, as in "Price: $62.10") meets the bound, the agent waits and looks again; once it
  does, the rest of the task goes on (the click the task names).
* A pause between two steps: "press Start, wait 3 seconds, then press Stop". :func:`pause_in` splits the task
  at the pause; the policy does what comes before it, then waits (a wait, or on the Proxy API a fresh look, each
  turn) until that many seconds have passed since the last action before it was handed out
  (:func:`pause_left`, on the wall clock: turns may run on different machines), then does the rest.

Written by hand: one pattern for the condition, one for the value the page shows, one for the pause; no library
reads them. Numbers (the bound, the value) are read by the agent's one number reader
(:func:`~agenthost.agent.choices.number_alone`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

from agenthost.agent.actions import Action
from agenthost.agent.choices import NUMBER, number_alone
from agenthost.agent.page import Page
from agenthost.agent.task import TaskFacts
from agenthost.agent.wording import NUMBER_WORDS

#: the clock pauses are measured on (tests replace it)
clock = time.time
#: the longest pause kept to (a longer one would outlast any turn budget: the agent goes on after this)
MAX_PAUSE_S = 120.0
#: "wait 3 seconds", "pause for two seconds", "wait about 1.5 s", "hold on for a minute"
_PAUSE = re.compile(r"\b(?:wait|pause|hold on)\s+(?:for\s+)?(?:about\s+|around\s+|exactly\s+|roughly\s+)?"
                    r"(?P<n>\d+(?:\.\d+)?|an?|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) +
                    r")\s*(?P<unit>seconds?|secs?|s|minutes?|mins?)\b", re.I)

_BELOW = r"less|lower|below|under|cheaper|smaller"
_ABOVE = r"more|greater|higher|above|over|bigger|larger"
#: "when the price is less than $61.20", "once the counter goes above 40", "as soon as the temperature drops below 5"
_WHEN = re.compile(r"\b(?:when|once|as\s+soon\s+as|after)\s+(?:the\s+|its\s+)?(?P<what>[a-z][a-z ]{1,30}?)\s+"
                   r"(?:is|goes|gets|drops|falls|rises|climbs|reaches)\s+(?:to\s+)?(?P<cmp>" + _BELOW + "|" + _ABOVE +
                   r")\s+(?:than\s+)?(?P<bound>" + NUMBER + ")", re.I)


def shown_value(page: Page, what: str, task: str) -> float | None:
    """The number the page shows after ``what`` ("Price: $62.10", "price $62.10"), outside the task's own
    sentence; None when it shows none."""
    text = page.text.replace(task, " ") if task else page.text
    m = re.search(r"\b" + re.escape(what) + r"\b\s*(?:is\s+|of\s+|now\s+)?:?\s*(?P<v>" + NUMBER + ")", text, re.I)
    return number_alone(m.group("v")) if m else None


def shows_label(page: Page, what: str, task: str) -> bool:
    """The page shows ``what`` as a label ("Price:", "Price -") outside the task's own sentence, whatever follows
    it (a number, or no reading yet: "--", "loading")."""
    text = page.text.replace(task, " ") if task else page.text
    return re.search(r"\b" + re.escape(what) + r"\s*[:=–-]", text, re.I) is not None


def wait_actions(facts: TaskFacts, page: Page, names: Sequence[str]) -> list[Action] | None:
    """A wait (the Proxy API: a fresh look) while the value the task's condition names does not meet its bound
    yet, or while the page shows its label with no number to check ("Price: --"); ``[]`` once it does (the
    task's action goes on); None when the task sets no such condition, the page shows no such value or the
    protocol cannot wait."""
    m = _WHEN.search(facts.text)
    if not m or not ({"wait", "extract"} & set(names)):  # the Proxy API waits by a fresh look (observe)
        return None
    what = m.group("what").strip().split()[-1]  # "the stock price" -> "price"
    bound = number_alone(m.group("bound"))
    value = shown_value(page, what, m.group(0))
    if bound is not None and value is None and shows_label(page, what, m.group(0)):
        # the condition cannot be checked: no action on it until a reading shows (the loop guards end a wait
        # that never sees one)
        return [Action("wait", {"condition": "load", "timeout": 500},
                       why=f"the page shows no reading of the {what}: waiting for one to check against {bound:g}")]
    if bound is None or value is None:
        return None
    below = re.fullmatch(_BELOW, m.group("cmp").lower()) is not None
    if (value < bound) if below else (value > bound):
        return []
    return [Action("wait", {"condition": "load", "timeout": 500},
                   why=f"the {what} is {value:g}: waiting until it is {m.group('cmp').lower()} than {bound:g}",
                   progress=f"{value:g}")]


def pause_in(task: str) -> tuple[str, float, str] | None:
    """``(what comes before the pause, its seconds, what comes after)`` for the task's first pause between two
    steps ("click A, wait 2 seconds, then click B"); None when it asks for none, or for one with nothing to do
    before it."""
    m = _PAUSE.search(task)
    if not m:
        return None
    n = m.group("n").lower()
    amount = float(n) if n[0].isdigit() else float(NUMBER_WORDS.get(n, 1))
    seconds = min(amount * (60.0 if m.group("unit").lower().startswith("m") else 1.0), MAX_PAUSE_S)
    before = re.sub(r"[\s,;:]*(?:\b(?:and|then)\b[\s,]*)*$", "", task[:m.start()]).strip()
    if not re.search(r"\w", before):
        return None
    after = re.sub(r"^[\s,;:]*(?:\b(?:and|then)\b[\s,]*)*", "", task[m.end():])
    return before, seconds, after.strip(" ,;.")


def pause_left(state: dict[str, Any], seconds: float) -> float:
    """Seconds of the pause still to wait: it runs from the last action handed out before it (``state["at"]``;
    now when none was)."""
    start = float(state.get("at") or state.setdefault("at", clock()))
    return start + seconds - clock()
