"""Task memory: what this agent tried on this task, kept in DynamoDB for a day.

One item per (agent, task): ``TASK#<agent>#<sha256(taskPrompt + origin of the page)>`` / ``META``: the same
prompt on two sites keeps two records (a task that moves to another site continues there with a fresh
record; the platform's cumulative ``previousActions`` still carry its history). The first URL of the task is
recorded in the item; ``turnNumber`` 1 (or a turn number that went backwards) starts a fresh record, so
re-running the same prompt never mixes attempts. At most one read and one write per turn. Text typed into
password or card fields is stored masked.

Contents (bounded so the item stays small): the turns seen with their tree fingerprints and URLs, the
actions sent each turn, inferred failures (the tree did not change after our actions), and free-form notes
for the LLM.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

from agenthost import urls
from agenthost.agent.page import MASK, is_sensitive
from agenthost.store import CallLimits, Store, keys

TTL_S = 86_400
MAX_TURNS = 30
MAX_FAILURES = 30
MAX_NOTES = 20
MAX_ANSWERS = 5


def task_hash(task_prompt: str, url: str = "") -> str:
    """The task's key: the prompt plus the origin of the page it plays on (the start page's origin for a
    task that stays on one site), so the same prompt on two sites keeps two records."""
    material = (task_prompt or "") + "\n" + urls.origin(url)
    return hashlib.sha256(material.encode("utf-8", "replace")).hexdigest()[:32]


#: the task memory's calls: turn-sized (a turn must answer within 20 s), and cut further by the turn's deadline
TURN_LIMITS = CallLimits(connect_s=1.0, read_s=2.0, attempts=3)


def turn_store() -> Store:
    """The single table with :data:`TURN_LIMITS` on every call."""
    return Store(reads=TURN_LIMITS)


@dataclass
class TaskMemory:
    agent: str
    task: str
    first_url: str = ""
    started_at: float = 0.0
    last_turn: int = 0
    turns: list[dict[str, Any]] = field(default_factory=list)   # {n, url, fp, actions:[{tool,args}]}
    failures: list[dict[str, Any]] = field(default_factory=list)  # {n, tool, args, why}
    notes: list[str] = field(default_factory=list)
    #: the brain's own memory (``Decision.memory``), handed back to it next turn
    brain: dict[str, Any] = field(default_factory=dict)
    #: the last turns' answers by request digest (sha256 of the signed body): a replayed body gets its answer
    answers: dict[str, Any] = field(default_factory=dict)
    #: set by :meth:`MemoryStore.load` when this request was answered before: the answer given then
    replayed: dict[str, Any] | None = None
    version: int = 0
    fresh: bool = True

    # -- derived views --------------------------------------------------------------------------
    def last(self) -> dict[str, Any] | None:
        return self.turns[-1] if self.turns else None

    def tried(self) -> list[dict[str, Any]]:
        """Every action sent on this task, oldest first."""
        return [a for t in self.turns for a in t.get("actions", [])]

    def failed_keys(self) -> set[tuple[str, str, str]]:
        """(tool, target, fingerprint) of actions that changed nothing."""
        return {(f.get("tool", ""), _target(f.get("args", {})), f.get("fp", "")) for f in self.failures}

    def unchanged_streak(self) -> int:
        """How many consecutive recent turns saw the same tree."""
        streak = 0
        for prev, cur in zip(reversed(self.turns[:-1]), reversed(self.turns), strict=False):
            if prev.get("fp") != cur.get("fp"):
                break
            streak += 1
        return streak

    # -- updates --------------------------------------------------------------------------------
    def observe(self, turn: int, url: str, fp: str) -> None:
        """Record the page seen at ``turn``; infer failures from the previous turn's actions."""
        prev = self.last()
        if prev is not None and prev.get("fp") == fp and prev.get("actions"):
            tried = []
            for a in prev["actions"]:
                if a.get("tool") in ("click", "type", "select", "submit"):
                    self.failures.append({"n": prev.get("n"), "tool": a.get("tool"),
                                          "args": _bounded(a.get("args", {})), "fp": fp,
                                          "why": "page unchanged after the action"})
                    tried.append(f"{a.get('tool')} {_target(a.get('args', {}))!r}")
            self.failures = self.failures[-MAX_FAILURES:]
            if tried:
                self.note(f"Turn {prev.get('n')}: the page did not change after " + ", ".join(tried[:5])
                          + "; try something else.")
        self.turns.append({"n": turn, "url": url[:500], "fp": fp, "actions": []})
        self.turns = self.turns[-MAX_TURNS:]
        self.last_turn = turn

    def record_actions(self, actions: list[dict[str, Any]]) -> None:
        if self.turns:
            self.turns[-1]["actions"] = [{"tool": a["tool"], "args": _bounded(a.get("args", {}))} for a in actions]

    def note(self, text: str) -> None:
        if text and text not in self.notes:
            self.notes.append(text[:300])
            self.notes = self.notes[-MAX_NOTES:]

    def remember_answer(self, digest: str, answer: dict[str, Any]) -> None:
        """Keep ``answer`` for the request ``digest`` (the last :data:`MAX_ANSWERS`). An answer that types into
        a password or card field is kept masked (never stored in clear), so its replay is an idle turn."""
        if not digest:
            return
        secret = any(a.get("args", {}).get("text") == MASK for a in _masked_actions(answer.get("actions") or []))
        kept = {"idle": True} if secret else answer
        self.answers = {k: v for k, v in self.answers.items() if k != digest}
        self.answers[digest] = kept
        self.answers = dict(list(self.answers.items())[-MAX_ANSWERS:])

    def to_item(self) -> dict[str, Any]:
        return {
            **keys.task(self.agent, self.task),
            "first_url": self.first_url[:500],
            "started_at": self.started_at,
            "last_turn": self.last_turn,
            "turns": self.turns,
            "failures": self.failures,
            "notes": self.notes,
            "brain": self.brain,
            "answers": self.answers,
        }


def _target(args: dict[str, Any]) -> str:
    return str(args.get("element") or args.get("url") or args.get("form") or "").lower()


def _masked_actions(actions: list[Any]) -> list[dict[str, Any]]:
    return [{"tool": a.get("tool"), "args": _bounded(a.get("args") or {})} for a in actions if isinstance(a, dict)]


def _bounded(args: dict[str, Any]) -> dict[str, Any]:
    """Arguments as stored: strings bounded, text typed into a password or card field masked."""
    out = {k: (v[:300] if isinstance(v, str) else v) for k, v in args.items() if isinstance(k, str)}
    if out.get("text") and is_sensitive(str(args.get("element") or "")):
        out["text"] = MASK
    return out


class MemoryStore:
    """Load and save :class:`TaskMemory` (one ``get_item`` and one ``put_item`` per turn)."""

    def __init__(self, store: Store | None = None, clock: Any = time.time):
        self.store = store or turn_store()
        self.clock = clock

    def load(self, agent: str, task_prompt: str, turn: int, url: str, digest: str = "") -> TaskMemory:
        """The task's memory for ``turn``; when the request ``digest`` was answered before (a replayed signed
        body), ``replayed`` holds that answer and nothing else should be done or written."""
        th = task_hash(task_prompt, url)
        item = self.store.get(**keys.task(agent, th))
        answers = dict(item.get("answers") or {}) if item else {}
        if digest and digest in answers:
            return TaskMemory(agent=agent, task=th, replayed=dict(answers[digest]), fresh=False,
                              version=int(item.get("version", 0)) if item else 0)
        fresh = TaskMemory(agent=agent, task=th, first_url=url, started_at=self.clock())
        if item is None or turn <= 1 or turn <= int(item.get("last_turn", 0)):
            fresh.version = int(item.get("version", 0)) if item else 0
            return fresh
        return TaskMemory(
            agent=agent, task=th,
            first_url=str(item.get("first_url", "")),
            started_at=float(item.get("started_at", 0) or 0),
            last_turn=int(item.get("last_turn", 0)),
            turns=list(item.get("turns") or []),
            failures=list(item.get("failures") or []),
            notes=list(item.get("notes") or []),
            brain=dict(item.get("brain") or {}),
            answers=answers,
            version=int(item.get("version", 0)),
            fresh=False,
        )

    def save(self, memory: TaskMemory) -> None:
        """One write (the open turn's usage rides on it: :mod:`agenthost.metering.carry`)."""
        item = memory.to_item()
        item["version"] = memory.version + 1
        self.store.put(item, ttl_s=TTL_S)
