"""The n-th entry of a list of results that may run over several pages: "open the 9th search result", "click
the second hit". The results are the page's links that are not the pager's (numbers, arrows, next/previous);
their count on the first page is the page size, so the entry the task wants is on page ``ceil(n / size)``:
the pager's link to that page (or its "next" one) is clicked until it shows, then the entry itself. The page
shown is remembered (``memory["results"]``), as a pager rarely says which page is current in what the
protocols show.

Written by hand: a page-size division over the page model's links; no library models a paged result list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agenthost.agent.actions import Action
from agenthost.agent.page import Element, Page
from agenthost.agent.pointing import ORDINAL, ordinal
from agenthost.agent.task import TaskFacts

#: "click the 9th search result", "open the second hit", "select the 3rd item in the results", "the last link"
_NTH = re.compile(r"\b(?:click|open|select|choose|pick|follow|visit)\b[^.;]*?\bthe\s+(?P<ord>" + ORDINAL +
                  r")\s+(?:(?:search|listed|matching)\s+)?(?:results?|hits?|entry|entries|matches|match)\b", re.I)
#: a pager's own links: page numbers, arrows, next/previous (arrows on either side: "Next ›", "« Prev")
_ARROWS = r"[<>«»‹›←→]{1,2}"
_PAGER = re.compile(r"^\s*(?:" + _ARROWS + r"\s*)?(?:\d{1,3}|next(?: page)?|prev(?:ious)?(?: page)?|first|last|older|"
                    r"newer)?(?:\s*" + _ARROWS + r")?\s*$", re.I)
_FORWARD = re.compile(r"^\s*(?:[>»›→]{1,2}|next(?: page)?(?:\s*[>»›→]{1,2})?|older)\s*$", re.I)
_BACKWARD = re.compile(r"^\s*(?:[<«‹←]{1,2}|(?:[<«‹←]{1,2}\s*)?prev(?:ious)?(?: page)?|newer)\s*$", re.I)


def _links(page: Page) -> tuple[list[Element], list[Element]]:
    """(the results, the pager's links): links after the last search or text box when the page has one (the
    site's own links above it are no results)."""
    boxes = [i for i, e in enumerate(page.elements) if e.role in ("textbox", "searchbox", "combobox")]
    start = boxes[-1] + 1 if boxes else 0
    links = [e for e in page.elements[start:] if e.role == "link" and not e.disabled and (e.name or "").strip()]
    return [e for e in links if not _PAGER.match(e.name)], [e for e in links if _PAGER.match(e.name)]


def nth_result(facts: TaskFacts, page: Page, memory: dict[str, Any], names: Sequence[str]) -> list[Action] | None:
    """A click toward the n-th result the task names: the entry itself when this page holds it, else the
    pager's link toward its page. None when the task names no such entry or the page lists no results."""
    m = _NTH.search(facts.text)
    n = ordinal(m.group("ord")) if m else None
    if n is None or "click" not in names:
        return None
    results, pager = _links(page)
    if not results:
        return None
    state = memory.setdefault("results", {})
    if state.get("query") != facts.text[:80]:
        state.clear()
        state["query"] = facts.text[:80]
    current = int(state.get("page") or 1)
    if current == 1 or not state.get("size"):
        state["size"] = len(results)
    size = int(state["size"])
    if n < 0:  # "the last result": the last on this page
        e = results[n]
        return [Action("click", {"element": e.name}, resolved=e, why="the last result the page lists")]
    want = (n - 1) // size + 1
    if want == current:
        i = n - (current - 1) * size - 1
        if i >= len(results):
            return None
        e = results[i]
        return [Action("click", {"element": e.name}, resolved=e, why=f"result {n}: entry {i + 1} of page {current}")]
    step = next((e for e in pager if e.name.strip() == str(want)), None)
    if step is None:
        towards = _FORWARD if want > current else _BACKWARD
        step = next((e for e in pager if towards.match(e.name)), None)
        if step is None:
            return None
    shown = int(step.name) if step.name.strip().isdigit() else current + (1 if want > current else -1)
    state["page"] = shown
    return [Action("click", {"element": step.name}, resolved=step,
                   why=f"result {n} is on page {want} of {size} a page: to page {shown}")]
