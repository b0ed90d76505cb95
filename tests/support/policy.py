"""The deterministic policy on an ARIA snapshot, as the agent's unit tests drive it."""

from __future__ import annotations

from agenthost.agent import DeterministicPolicy, deadline_in
from agenthost.agent import page as pages
from agenthost.agent.actions import OLYMPICS_TOOLS

POLICY = DeterministicPolicy()


def decide(task, tree, *, url="https://site.test/", history=(), memory=None, tools=OLYMPICS_TOOLS, **kw):
    """One decision of the shared policy on ``tree`` (an ARIA snapshot or a Page)."""
    page = tree if isinstance(tree, pages.Page) else pages.from_aria(tree, url=url)
    return POLICY.decide(task, page, list(history), memory or {}, tools, deadline_in(5), **kw)


def wire(d):
    """The decision's AI Olympics actions as (tool, element, text or option)."""
    return [(a["tool"], a["args"].get("element"), a["args"].get("text") or a["args"].get("option"))
            for a in d.olympics()["actions"]]


def snapshot_of(parts, url="https://site.test/"):
    """A Proxy API snapshot page from ``parts`` in page order: strings are shown text, dicts are elements, each
    placed (``at``) where its own text starts in the visible text."""
    text, elements = "", []
    for p in parts:
        if isinstance(p, str):
            text += p + " "
        else:
            elements.append({**p, "at": len(text)})
            text += p["text"] + " " if p.get("text") else ""
    return pages.from_snapshot({"url": url, "title": "", "visibleText": text.rstrip(), "elements": elements})
