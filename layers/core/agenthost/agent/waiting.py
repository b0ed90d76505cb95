"""An action the task asks for only once a value the page shows meets a bound: "buy the stock when the price is
less than $61.20", "press Stop when the counter goes above 40". Until the page's value (the number it shows
after the value's name, as in "Price: $62.10") meets the bound, the agent waits and looks again; once it does,
the rest of the task goes on (the click the task names).

Written by hand: one pattern for the condition and one for the value the page shows; no library reads them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agenthost.agent.actions import Action
from agenthost.agent.page import Page
from agenthost.agent.task import TaskFacts

_BELOW = r"less|lower|below|under|cheaper|smaller"
_ABOVE = r"more|greater|higher|above|over|bigger|larger"
#: "when the price is less than $61.20", "once the counter goes above 40", "as soon as the temperature drops below 5"
_WHEN = re.compile(r"\b(?:when|once|as\s+soon\s+as|after)\s+(?:the\s+|its\s+)?(?P<what>[a-z][a-z ]{1,30}?)\s+"
                   r"(?:is|goes|gets|drops|falls|rises|climbs|reaches)\s+(?:to\s+)?(?P<cmp>" + _BELOW + "|" + _ABOVE +
                   r")\s+(?:than\s+)?(?P<bound>[-+]?[$€£]?\s?\d[\d,]*(?:\.\d+)?)", re.I)


def _amount(s: str) -> float | None:
    try:
        return float(re.sub(r"[$€£,\s]", "", s))
    except ValueError:
        return None


def shown_value(page: Page, what: str, task: str) -> float | None:
    """The number the page shows after ``what`` ("Price: $62.10", "price $62.10"), outside the task's own
    sentence; None when it shows none."""
    text = page.text.replace(task, " ") if task else page.text
    m = re.search(r"\b" + re.escape(what) + r"\b\s*(?:is\s+|of\s+|now\s+)?:?\s*(?P<v>[-+]?[$€£]?\s?\d[\d,]*(?:\.\d+)?)",
                  text, re.I)
    return _amount(m.group("v")) if m else None


def wait_actions(facts: TaskFacts, page: Page, names: Sequence[str]) -> list[Action] | None:
    """A wait (the Proxy API: a fresh look) while the value the task's condition names does not meet its bound
    yet; ``[]`` once it does (the task's action goes on); None when the task sets no such condition, the page
    shows no such value or the protocol cannot wait."""
    m = _WHEN.search(facts.text)
    if not m or not ({"wait", "extract"} & set(names)):  # the Proxy API waits by a fresh look (observe)
        return None
    what = m.group("what").strip().split()[-1]  # "the stock price" -> "price"
    bound = _amount(m.group("bound"))
    value = shown_value(page, what, m.group(0))
    if bound is None or value is None:
        return None
    below = re.fullmatch(_BELOW, m.group("cmp").lower()) is not None
    if (value < bound) if below else (value > bound):
        return []
    return [Action("wait", {"condition": "load", "timeout": 500},
                   why=f"the {what} is {value:g}: waiting until it is {m.group('cmp').lower()} than {bound:g}")]
