"""A number to find by guessing: the task gives the range ("guess the number between 0-9", "a secret number from 1
to 100") and the page answers each guess with "higher than 4", "lower than 7", "too high" or "too low". The
range left is kept in the task memory (``memory["guess"] = [low, high, last guess]``) and narrowed by each
answer; the next guess is its middle (a binary search), typed into the answer field and submitted.

Written by hand: a few lines of bookkeeping over the page's feedback; no library plays this.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agenthost.agent.actions import Action, norm
from agenthost.agent.forms import submit_button
from agenthost.agent.page import TEXT_ROLES, Page
from agenthost.agent.problems import answer_field
from agenthost.agent.task import TaskFacts

_GAME = re.compile(r"\b(?:guess|find|work\s+out|figure\s+out)\b[^.]*?\bnumber\b", re.I)
_RANGE = re.compile(r"\b(?:between|from)\s+(-?\d+)\s*(?:-|–|and|to)\s*(-?\d+)\b", re.I)
#: "The number is higher than 4.", "Try a bigger number than 15", "It's less than 30"
_ABOVE = re.compile(r"\b(?:higher|greater|bigger|larger|more|above)\s+(?:number\s+)?than\s+(-?\d+)\b", re.I)
_BELOW = re.compile(r"\b(?:lower|smaller|less|fewer|below)\s+(?:number\s+)?than\s+(-?\d+)\b", re.I)
_TOO_HIGH = re.compile(r"\btoo\s+(?:high|big|large)\b", re.I)
_TOO_LOW = re.compile(r"\btoo\s+(?:low|small)\b", re.I)


def guess_actions(facts: TaskFacts, page: Page, memory: dict[str, Any], names: Sequence[str],
                  avoid: set[tuple[str, str]], *, submitted: bool) -> list[Action] | None:
    """The next guess typed into the answer field and the form's submit, or None when the task is no guessing
    game. An empty list when the page's answers leave no number in the range. ``submitted``: the last action
    sent was a click (a "too high" on the page answers the last guess, not one only typed since)."""
    if "type" not in names or not _GAME.search(facts.text):
        return None
    state = memory.get("guess")
    if isinstance(state, list) and len(state) == 3 and all(isinstance(x, int) for x in state):
        low, high, last = state
    else:
        m = _RANGE.search(facts.text) or _RANGE.search(page.text)
        if not m:
            return None
        low, high = sorted((int(m.group(1)), int(m.group(2))))
        last = None
    fields = [e for e in page.elements if e.role in TEXT_ROLES and not e.disabled and not e.is_secret()]
    field = answer_field(page, facts) or (fields[0] if len(fields) == 1 else None)  # the last guess still in it
    if field is None:
        return None
    shown = page.text
    for m in _ABOVE.finditer(shown):
        low = max(low, int(m.group(1)) + 1)
    for m in _BELOW.finditer(shown):
        high = min(high, int(m.group(1)) - 1)
    if last is not None and submitted and _TOO_HIGH.search(shown):
        high = min(high, last - 1)
    if last is not None and submitted and _TOO_LOW.search(shown):
        low = max(low, last + 1)
    if low > high:
        memory["guess"] = [low, high, last if last is not None else low]
        return []
    guess = (low + high) // 2
    memory["guess"] = [low, high, guess]
    acts = [] if norm(field.value) == str(guess) else [  # typed already: the submit is what is left
        Action("type", {"element": field.name or field.placeholder, "text": str(guess), "clear": True},
               resolved=field, why=f"guess {guess}: the number is between {low} and {high}")]
    submit = submit_button(facts, page, acts, avoid)
    if submit is not None:
        acts.append(Action("click", {"element": submit.name}, resolved=submit, why="send the guess"))
    return acts
