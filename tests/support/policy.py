"""The deterministic policy on an ARIA snapshot, as the agent's unit tests drive it."""

from __future__ import annotations

from collections import Counter

from agenthost.agent import DeterministicPolicy, deadline_in
from agenthost.agent import page as pages
from agenthost.agent.actions import OLYMPICS_TOOLS, PROXY_TOOLS
from agenthost.agent.aria import from_aria
from agenthost.agent.snapshot import from_snapshot

POLICY = DeterministicPolicy()


def decide(task, tree, *, url="https://site.test/", history=(), memory=None, tools=OLYMPICS_TOOLS, **kw):
    """One decision of the shared policy on ``tree`` (an ARIA snapshot or a Page)."""
    page = tree if isinstance(tree, pages.Page) else from_aria(tree, url=url)
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
    return from_snapshot({"url": url, "title": "", "visibleText": text.rstrip(), "elements": elements})


class Effect:
    """What a decision does to the page, as a user would see it: the value typed into each field (the last one
    typed there), the option chosen in each list, how often each element is clicked (a tick box is a click:
    ``check`` counts as one), the element the last action targets (the form sent after its values), whether
    the task ends and with what. The order of unrelated actions and the words of the reasons are left out:
    they change with any improvement of the rules."""

    def __init__(self, d, by_ref=False):
        self.typed: dict[str, str] = {}
        self.selected: dict[str, str] = {}
        self.clicks: Counter[str] = Counter()
        self.tools = [a.tool for a in d.actions]
        for a in d.actions:
            key = a.resolved.ref if by_ref and a.resolved is not None else a.target
            if a.tool == "type":
                self.typed[key] = a.args.get("text", "")
            elif a.tool == "select":
                self.selected[key] = a.args.get("option", "")
            elif a.tool in ("click", "check"):
                self.clicks[key] += 1
        last = d.actions[-1] if d.actions else None
        self.last = None if last is None else last.resolved.ref if by_ref and last.resolved else last.target
        self.done = bool(d.done)
        self.success = d.success
        self.result = d.result or ""


def expect(d, *, typed=None, typed_into=None, typed_has=None, selected=None, clicked=None, clicked_has=(),
           not_clicked=(), last=None, done=None, success=None, result=None, nothing=False, acts=None, tools=None,
           by_ref=False):
    """Assert the observable effect of decision ``d``; each keyword left out is not checked.

    ``typed``/``selected``: exactly these fields get these values (no other field is typed into);
    ``typed_into``: each of these fields gets this value (others may be typed into too); ``typed_has``: each of
    these fields gets a value holding this text; ``clicked``: exactly these elements are clicked, each as often
    as it is listed; ``clicked_has``: these are among the elements clicked; ``not_clicked``: elements left
    alone; ``last``: the element the last action targets; ``done``/``success``/``result``: whether the task
    ends, whether it says it succeeded, and text its result holds; ``nothing``: no action at all; ``acts``: at
    least one action; ``tools``: the tools used, each as often as listed. Elements are named as the action
    names them (an accessible name), or by their page reference with ``by_ref`` (a Proxy API snapshot's
    element ids)."""
    e = Effect(d, by_ref)
    if typed is not None:
        assert e.typed == typed, f"typed {e.typed}, expected {typed}"
    for name, text in (typed_into or {}).items():
        assert e.typed.get(name) == text, f"typed {e.typed}, expected {text!r} in {name!r}"
    for name, text in (typed_has or {}).items():
        assert text in e.typed.get(name, ""), f"typed {e.typed}, expected {text!r} in {name!r}"
    if selected is not None:
        assert e.selected == selected, f"selected {e.selected}, expected {selected}"
    if clicked is not None:
        assert e.clicks == Counter(clicked), f"clicked {dict(e.clicks)}, expected {list(clicked)}"
    for name in clicked_has:
        assert name in e.clicks, f"{name!r} not clicked: {dict(e.clicks)}"
    for name in not_clicked:
        assert name not in e.clicks, f"{name!r} clicked: {dict(e.clicks)}"
    if last is not None:
        assert e.last == last, f"last action on {e.last!r}, expected {last!r}"
    if done is not None:
        assert e.done == done, f"done is {e.done} ({e.result!r})"
    if success is not None:
        assert e.success is success, f"success is {e.success} ({e.result!r})"
    if result is not None:
        assert result in e.result, f"result {e.result!r} lacks {result!r}"
    if acts:
        assert d.actions, "no action"
    if nothing:
        assert not d.actions, f"actions {[(a.tool, a.target) for a in d.actions]}"
    if tools is not None:
        assert Counter(e.tools) == Counter(tools), f"tools {e.tools}, expected {list(tools)}"
    return e


#: how a table row's decision is made: with the AI Olympics runner's tools, elements named by their accessible
#: names (ARIA), or with the Proxy API's tools on a snapshot, elements named by their ids (PROXY)
ARIA: dict = {}
PROXY = {"tools": PROXY_TOOLS, "by_ref": True}


def check(task, page, how, outcome):
    """:func:`expect` ``outcome`` of the decision on ``task`` and ``page``, made ``how`` (:data:`ARIA` or
    :data:`PROXY`, with any other :func:`decide` keywords)."""
    how = dict(how)
    by_ref = how.pop("by_ref", False)
    return expect(decide(task, page, **how), by_ref=by_ref, **outcome)
