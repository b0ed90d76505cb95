"""The n-th result of a list split over pages ("click the 9th search result" where a page shows three results
and page links 1, 2, 3 below them).

The results are the links after the page's last field or button and before its page links (links named by a
number or an arrow). The results one page holds are counted on the first page (kept in the task memory); the
page the n-th falls on is opened through its numbered link, then the result is clicked by its place there. The
page shown is the last numbered link clicked (the first page when none was). No numbered link to the page
needed: nothing is proposed (the other rules go on).

Written by hand: a few lines of counting over the page model; no library knows a page's result list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agenthost.agent.actions import Action
from agenthost.agent.page import TEXT_ROLES, Element, Page
from agenthost.agent.task import TaskFacts

_NTH_RESULT = re.compile(r"\b(\d+)(?:st|nd|rd|th)\s+(?:search\s+)?result\b", re.I)
_PAGER = re.compile(r"^\s*(?:\d+|[<>«»‹›]|next|prev(?:ious)?|first|last)\s*$", re.I)


def _layout(page: Page) -> tuple[list[Element], list[Element]]:
    """(the result links, the page links) in page order."""
    start = max((i for i, e in enumerate(page.elements) if e.role in TEXT_ROLES or e.role == "button"), default=-1)
    links = [e for e in page.elements[start + 1:] if e.role == "link" and not e.disabled and e.name]
    pager = [e for e in links if _PAGER.match(e.name)]
    first_pager = links.index(pager[0]) if pager else len(links)
    return [e for e in links[:first_pager] if not _PAGER.match(e.name)], pager


def _page_shown(history: Sequence[Action]) -> int:
    for a in reversed(history):
        name = str(a.args.get("element", "")).strip() if a.tool == "click" else ""
        if name.isdigit():
            return int(name)
    return 1


def result_actions(facts: TaskFacts, page: Page, history: Sequence[Action],
                   memory: dict[str, Any]) -> list[Action] | None:
    """The click toward the n-th result the task names: its page's link, or the result itself; None when the
    task names no n-th result or the page lists none yet."""
    m = _NTH_RESULT.search(facts.text)
    if m is None:
        return None
    results, pager = _layout(page)
    if not results:
        return None
    n, shown = int(m.group(1)), _page_shown(history)
    if shown == 1:
        memory["results_per_page"] = len(results)
    per = memory.get("results_per_page")
    per = per if isinstance(per, int) and per > 0 else len(results)
    want = (n - 1) // per + 1 if pager else 1
    if want == shown:
        i = n - (shown - 1) * per - 1
        return [Action("click", {"element": results[i].name}, resolved=results[i],
                       why=f"result {n}: the {i + 1}. on page {shown}")] if 0 <= i < len(results) else []
    link = next((e for e in pager if e.name.strip() == str(want)), None)
    if link is None:
        return []
    return [Action("click", {"element": link.name}, resolved=link,
                   why=f"result {n} is on page {want} ({per} results a page)")]


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
