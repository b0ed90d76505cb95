"""The loop guard: repeats of the same action on an unchanged page, counted across turns.

:class:`LoopGuard` counts repeats of (tool, target, value, url, page fingerprint) in the caller's memory (the
value: the text typed, the option chosen, the key pressed): it nudges first (the action is withheld and the
policy told), and asks to stop only when repeats persist (the same action on an unchanged page, or the same
batch sent turn after turn on one URL). Typed secrets never enter
the keys it stores.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from agenthost.agent.actions import Action
from agenthost.agent.page import MASK, Page, is_sensitive


class LoopGuard:
    """Counts repeats of (tool, target, value, url, page fingerprint) in ``memory['loops']``.

    ``nudge_at`` repeats withhold the action (the policy is told and picks something else);
    ``stop_at`` repeats on the same page ask the caller to stop.
    """

    def __init__(self, memory: dict[str, Any], *, nudge_at: int = 2, stop_at: int = 4, streak_at: int = 6):
        self.counts: dict[str, int] = memory.setdefault("loops", {})
        self.nudge_at = nudge_at
        self.stop_at = stop_at
        #: the same batch sent this many turns in a row on one URL asks to stop, whatever changed on the page
        #: meanwhile (a clock, a counter, a toggle that opens and closes)
        self.streak_at = streak_at
        self.memory = memory

    @staticmethod
    def batch_key(actions: Iterable[Action], page: Page) -> str:
        parts = []
        for a in actions:
            target = a.target or a.args.get("url", "") or a.args.get("direction", "")
            extra = "" if a.tool == "type" and a.resolved is not None and a.resolved.is_secret() else \
                str(a.value)[:40]
            parts.append(f"{a.tool}|{str(target).lower()}|{extra}|{a.progress}")
        return hashlib.sha1((page.url.split("#")[0] + "\n" + "\n".join(parts)).encode(),
                            usedforsecurity=False).hexdigest()[:12]

    def streak(self, actions: list[Action], page: Page) -> int:
        """How many turns in a row this very batch was sent on this URL."""
        last = self.memory.get("streak")
        if isinstance(last, list) and len(last) == 2 and last[0] == self.batch_key(actions, page):
            return int(last[1])
        return 0

    @staticmethod
    def key(action: Action, page: Page) -> str:
        target = action.target or action.args.get("url", "") or action.args.get("direction", "")
        # what is typed, chosen or pressed: ArrowDown then ArrowRight on one page are two actions, not a repeat
        extra = action.value
        if extra and action.tool == "type" and (
                (action.resolved is not None and action.resolved.is_secret()) or is_sensitive(str(target))):
            extra = MASK  # the memory holding these keys is stored: no passwords or card numbers in it
        return (f"{action.tool}|{str(target).lower()}|{str(extra)[:40]}|{page.url.split('#')[0]}|{page.fingerprint}"
                + (f"|{action.progress}" if action.progress else ""))

    def count(self, action: Action, page: Page) -> int:
        return self.counts.get(self.key(action, page), 0)

    def is_looping(self, action: Action, page: Page) -> bool:
        return self.count(action, page) >= self.nudge_at

    def record(self, actions: Iterable[Action], page: Page) -> None:
        actions = list(actions)
        if actions:
            self.memory["streak"] = [self.batch_key(actions, page), self.streak(actions, page) + 1]
        for a in actions:
            k = self.key(a, page)
            self.counts[k] = self.counts.get(k, 0) + 1
        if len(self.counts) > 200:  # keep memory small
            for k in list(self.counts)[:-200]:
                del self.counts[k]

    def filter(self, actions: list[Action], page: Page) -> tuple[list[Action], list[str], bool]:
        """(kept actions, nudges, stop?)."""
        kept, nudges, stop = [], [], False
        n = self.streak(actions, page) if actions else 0
        if n >= self.streak_at:
            return [], [f"the same actions were sent {n} turns in a row without the task ending"], True
        for a in actions:
            c = self.count(a, page)
            if c >= self.stop_at:
                stop = True
                nudges.append(f"{a.tool} {a.target or a.args} repeated {c} times on an unchanged page")
            elif c >= self.nudge_at:
                nudges.append(f"{a.tool} {a.target or a.args} already tried {c} times on this unchanged page")
            else:
                kept.append(a)
        return kept, nudges, stop
