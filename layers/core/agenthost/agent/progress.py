"""What earlier turns did and what changed nothing: the policy's memory of its own actions.

:class:`Seen` reads ``history`` (what was really sent) and the memory; :func:`action_key` is a short hashed
key of an action (its tool, target and value: the text typed, the option chosen, the key pressed; no typed text
kept); :func:`futile_keys` remembers, per page fingerprint, the actions that
were sent on exactly that page state without changing it, so a batch is never sent again unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenthost.agent.actions import Action, norm
from agenthost.agent.outcome import line_key
from agenthost.agent.page import MASK, Element, Page


class Seen:
    """What earlier turns did, from ``history`` (what was really sent) and the policy's memory."""

    def __init__(self, history: Sequence[Action], page: Page, memory: dict[str, Any]):
        self.clicks: dict[str, int] = {}
        self.typed: set[str] = set()
        #: (field, value) typed before a later click: a step that was sent in full (the form had its value)
        self.consumed: set[tuple[str, str]] = set()
        pending: list[tuple[str, str]] = []
        #: (tool, target) of every action the history shows sent
        self.sent: set[tuple[str, str]] = set()
        for a in history or ():
            target = norm(a.args.get("element") or a.args.get("id") or "")
            self.sent.add((a.tool, target))
            if a.tool in ("click", "check", "submit", "press") and (target or a.tool in ("submit", "press")):
                if target:
                    self.clicks[target] = self.clicks.get(target, 0) + 1
                self.consumed.update(pending)
                pending = []
            elif a.tool == "type" and a.args.get("text"):
                self.typed.add(norm(a.args.get("text")))
                pending.append((target, norm(a.args.get("text"))))
        self.filled = any(a.tool in ("type", "select") for a in history or ())
        # the last batch's clicks (``memory["sent"]``, :func:`sent_record`) count as done on their page state once
        # the history shows them sent (a protocol that runs one action a step, or a runner that stopped a batch
        # early, sent fewer than chosen; a caller that sends no history at all is taken at its word)
        sent = memory.get("sent")
        last: dict[str, Any] = sent if isinstance(sent, dict) else {}
        fp = str(last.get("fp", ""))
        batch = [(str(t[0]), str(t[1])) for _key, tool, *t in last.get("acts") or [] if tool == "click" and len(t) >= 2]
        self.confirmed = {f"{fp}|{name}" for name, ref in batch
                          if not history or self.clicks.get(norm(name)) or self.clicks.get(norm(ref))}
        self.on_page = set(memory.get("clicked", [])) | self.confirmed
        #: (name, id) of the last batch's clicks the history does not show sent
        self.unsent = [(norm(name), norm(ref)) for name, ref in batch if f"{fp}|{name}" not in self.confirmed]
        self.fingerprint = page.fingerprint
        #: the policy's memory of this task (codes seen on other pages: :mod:`agenthost.agent.codes`)
        self.memory = memory
        #: the task's site (its URL's host, else the first page's)
        self.home = str(memory.get("home") or "")

    def clicked(self, e: Element) -> int:
        return max(self.clicks.get(norm(e.name), 0), self.clicks.get(norm(e.ref), 0))

    def clicked_here(self, e: Element) -> bool:
        return f"{self.fingerprint}|{e.name}" in self.on_page

    def rest_of_batch(self, page: Page) -> list[Element]:
        """The elements of the last batch's clicks that were never sent (the protocol ran only the first
        actions), still on the page: the batch's plan, finished."""
        out = []
        for name, ref in self.unsent:
            el = next((e for e in page.elements if norm(e.ref) == ref), None) if ref else None
            el = el or next((e for e in page.elements if e.interactive and norm(e.name) == name), None)
            if el is not None and not el.disabled and el not in out and not self.clicked(el):
                out.append(el)
        return out


def action_key(action: Action) -> str:
    """A short key for an action (tool, target, value), hashed: kept in memory without the typed text."""
    el = action.resolved
    target = norm(el.name or el.ref) if el is not None else norm(action.target or action.args.get("url", "")
                                                                     or action.args.get("direction", ""))
    # the key a press sends is its value, as the text of a type: Enter and Tab on one field are two actions
    extra = action.value
    if extra and action.tool == "type" and el is not None and el.is_secret():
        extra = MASK  # a password's hash is no better kept than the password
    # a repeat that makes progress where the page shows none (a key moving a list's active option, each look of
    # a wait's series) is another action: what it moves is part of it
    return line_key(f"{action.tool}|{target}|{extra}" + (f"|{action.progress}" if action.progress else ""))


def sent_record(page: Page, acts: Sequence[Action]) -> dict[str, Any]:
    """What a batch sent on which page state, read next turn by :class:`Seen` and :func:`futile_keys`: each
    action's key and tool with the targets the history will show it by (its element's name and id)."""
    return {"fp": page.fingerprint,
            "acts": [[action_key(a), a.tool, *((a.resolved.name, a.resolved.ref) if a.resolved is not None
                                               else (a.target,))] for a in acts]}


def futile_keys(memory: dict[str, Any], page: Page, acted: bool, seen: Seen | None = None) -> set[str]:
    """Keys of the actions already sent on exactly this page state without changing it. Of the last batch,
    only the actions the history shows sent count (``seen``; a protocol that runs one action a step sends
    the first only); a caller that sends no history is taken at its word."""
    table = memory.get("futile")
    if not isinstance(table, dict):
        table = memory["futile"] = {}
    sent = memory.get("sent")
    if (acted or memory.get("acted")) and isinstance(sent, dict) and sent.get("fp") == page.fingerprint:
        keys = table.setdefault(page.fingerprint, [])
        shown = seen.sent if seen is not None else set()
        for k, tool, *targets in sent.get("acts") or [[k, "", ""] for k in sent.get("keys") or []]:
            named = [norm(str(x)) for x in targets if x]
            if shown and not any((tool, x) in shown for x in named or [""]):
                continue
            if k not in keys:
                keys.append(k)
        memory["sent"] = {}
        for old in list(table)[:-20]:
            del table[old]
    return set(table.get(page.fingerprint) or [])
