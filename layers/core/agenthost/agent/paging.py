"""An entry the task seeks by name in a list the page shows a page at a time ("find Ginny in the contact book"
where each page shows one contact and a ">" link): while the page shown does not name it, the next-page link is
clicked; once it does, the usual rules act on it. Each page is a step the loop guard tells apart (the action's
progress mark is what the page shows). No next-page link: nothing is proposed (the other rules go on).

Written by hand: a few lines over the page model; no library knows a page's pager.
"""

from __future__ import annotations

import re

from agenthost.agent.actions import Action
from agenthost.agent.page import Page
from agenthost.agent.task import TaskFacts

#: "find Ginny in the contact book", "look up Marta Ruiz in the directory": the entry the task seeks by name
_SEEK = re.compile(r"\b(?i:find|look\s+up|locate)\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2})\s+(?i:in|on|from|among)\b")
_NEXT = re.compile(r"^\s*(?:[>»›→]|next(?:\s+page)?|next\s*[>»›])\s*$", re.I)


def seek_actions(facts: TaskFacts, page: Page) -> list[Action] | None:
    """The next page of a list the task seeks an entry in by name, while the page shown does not name it; None
    when the task seeks no entry, the page names it, or it has no next-page link."""
    m = _SEEK.search(facts.text)
    if m is None:
        return None
    name = m.group(1).lower()
    task = facts.text.strip().lower()
    shown = [ln for ln in (page.text or "").lower().splitlines() if ln.strip() and task not in ln]  # not the task
    if any(re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", ln) for ln in shown):
        return None
    nxt = next((e for e in page.elements if e.role in ("link", "button") and not e.disabled
                and _NEXT.match(e.name or "")), None)
    if nxt is None:
        return None
    here = next((e.name for e in page.elements if e.role == "heading" and e.name), "") or \
        (shown[0][:40] if shown else "")
    return [Action("click", {"element": nxt.name}, resolved=nxt, progress=here,
                   why=f"{m.group(1)} is not on this page ({here}): the next page")]
