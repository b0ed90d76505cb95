"""A button that sends the task's work, held back while none of that work was done.

A page that judges what it is sent (a quiz, a form, a puzzle) records a wrong answer when its send button is
pressed with the task's work undone, and the attempt is spent. :func:`unsent_work` says why the first click of
a batch would do that: it presses a send button (Submit, Send, Done, Finish, Confirm, OK, Save, Apply), nothing
before it in the task was done (no action sent earlier but looks, scrolls and waits, none before it in the batch),
and the task asks for work before it: a clause joined to the button's own ("..., then press Submit", "... and hit
Send when done", "... and submit"), or a task that never names the button at all. A clause that asks for nothing
("select nothing", "tick none of the boxes", "leave it as it is") is no work, a task that is only the click
("Click on the Submit button") presses it, and so does a page that already holds a value the task states. Only
the clicks of rules that press a button because the task names it or as a way on are judged: the rules that
read the page as the task asks (a number generated that fits, a list or an order complete) send it themselves.
The policy then gives up honestly with the reason (:data:`~agenthost.agent.rules.WORK_UNDONE`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agenthost.agent import rules
from agenthost.agent.actions import Action
from agenthost.agent.calendar import date_in
from agenthost.agent.page import Page
from agenthost.agent.task import TaskFacts

#: a button whose press hands the page's state over to be judged
SENDS = re.compile(r"^\W*(?:submit|send|done|finish|confirm|ok|okay|save|apply)\b", re.I)
#: actions that do no work on the page: a look, a wait, a scroll, opening the page
_NO_WORK = frozenset({"navigate", "wait", "scroll", "extract", "observe"})
#: the rules that press a button because the task names it or as a way on, not because they read the page as
#: the task asks (a number generated that fits, a list or an order complete, a form just filled: those send it)
_ROUTES = frozenset(r.name for r in (rules.NAMED, rules.NEXT_STEP, rules.REST, rules.ALTERNATIVE, rules.QUOTED_SHOWN,
                                     rules.QUOTED_REVEAL, rules.REPEAT, rules.BEST_LINK))
#: a clause that asks for nothing to be done
_NOTHING = re.compile(r"\b(?:nothing|none|no\s+(?:boxes|items|options|checkboxes|entries|answers?)|"
                      r"(?:leave|keep)\b.*\b(?:as\s+(?:it|they)\s+(?:is|are)|empty|blank|unchecked|unticked))\b", re.I)
#: the verbs and words of a clause that only presses a button
_PRESS = r"(?:(?:press|click|hit|tap|push|select|choose|use)\s+(?:on\s+)?)?(?:the\s+)?"
_WHEN = r"(?:\s+(?:button|link))?(?:\s+when\s+(?:you\s+are\s+|you're\s+)?(?:done|finished|ready))?"


def _prior_clause(text: str, name: str) -> str | None:
    """The work the task asks for before pressing ``name`` as its last step ("X, then press Submit" -> "X"); ""
    when the task names the button without a clause before it; None when the task does not name it."""
    label = re.escape(name.strip())
    final = re.compile(rf"^(?P<before>.*?)(?:,|;|\band\b|\bthen\b)\s*(?:and\s+)?(?:then\s+)?(?:finally\s+)?"
                       rf"{_PRESS}[\"'“‘]?{label}[\"'”’]?{_WHEN}\s*[.!]?\s*$", re.I | re.S)
    for sentence in reversed([s.strip() for s in text.splitlines() if s.strip()]):
        m = final.match(sentence)
        if m:
            return m.group("before").strip(" ,;")
        if re.search(rf"\b{label}\b", sentence, re.I):
            return ""
    return None


def holds_task_value(facts: TaskFacts, page: Page) -> bool:
    """Whether a field already holds a value the task states (its words, or the same date written otherwise), or
    a list's chosen option is the one it names: the page is already as the task asks there."""
    want = date_in(facts.text)
    text = facts.text.lower()
    for e in page.elements:
        if e.role == "option" and e.selected and len(e.name.strip()) >= 2 and e.name.strip().lower() in text:
            return True  # a list whose chosen option is the one the task names
        value = (e.value or "").strip()
        if e.role not in ("textbox", "searchbox", "combobox", "spinbutton") or len(value) < 2 or e.is_secret():
            continue
        if value.lower() in text or (want is not None and date_in(value) == want):
            return True
    return False


def unsent_work(facts: TaskFacts, page: Page, history: Sequence[Action], acts: Sequence[Action], *,
                ready: bool = False) -> str:
    """Why the first of ``acts`` would send the task's work undone ("" when it would not): a click on a send
    button, with no work sent before it (``history``) and none before it in the batch, where the task asks for work
    before it and no field of ``page`` already holds a value it states. ``ready``: a rule that reads the page found
    it already as the task asks (a slider at its value)."""
    first = next((a for a in acts if a.tool not in _NO_WORK), None)
    if first is None or first.tool != "click" or first.resolved is None or ready or first.rule not in _ROUTES:
        return ""
    button = first.resolved
    if button.role != "button" or not SENDS.search(button.name or ""):
        return ""
    if any(a.tool not in _NO_WORK for a in history) or holds_task_value(facts, page):
        return ""
    before = _prior_clause(facts.text, button.name)
    if before is None:
        return (f"The task asks for work on the page that no action here does, and {button.name!r} would send "
                "the page as it stands, with that work undone.")
    if not before or _NOTHING.search(before):
        return ""
    return (f"Before {button.name!r} the task asks for this: {before!r}; no action here does that, so "
            f"{button.name!r} is not pressed with the task's work undone.")
