"""Task memory: what this agent tried on this task, kept in DynamoDB for a day.

One item per (agent, task): ``TASK#<agent>#<sha256(taskPrompt + origin of the page)>`` / ``META``: the same
prompt on two sites keeps two records (a task that moves to another site continues there with a fresh
record; the platform's cumulative ``previousActions`` still carry its history). The first URL of the task is
recorded in the item; ``turnNumber`` 1 (or a turn number that went backwards) starts a fresh record, so
re-running the same prompt never mixes attempts. At most one read and one write per turn. Text typed into
password or card fields is stored masked.

Contents, bounded and stored as one compressed JSON attribute (``data_z``, deflated against
:data:`PACKING`'s dictionary of the keys and phrases it usually holds) so the item, with the turn's usage riding
on it, stays within one write unit (1 KB): the last turn seen with its tree fingerprint, URL and the actions
sent (from which a page that did not change after our actions becomes a note), notes for the LLM, the
brain's own memory, and the answers of the last turns by request digest (:class:`agenthost.replay.KeptAnswers`:
the last turn's answer in full, so its signed body replayed gets the same answer; the turns before as a mark of
their digest, so theirs get an idle turn; neither decides or writes again). Items written before (plain zlib,
or one attribute per field; more turns and answers in full) are still read.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

from agenthost import urls
from agenthost.agent.page import MASK, is_sensitive
from agenthost.dynamo import CallLimits
from agenthost.items import Packing, item_bytes, keys, marshal, packed, unpacked
from agenthost.replay import KeptAnswers
from agenthost.store import Store

TTL_S = 86_400
#: turns kept: the previous one tells whether our actions changed the page (nothing reads older ones)
MAX_TURNS = 1
MAX_NOTES = 10
#: request digests kept: the newest with its answer, the others as a mark (their replay is an idle turn)
MAX_ANSWERS = 5
#: bytes of the item left for the usage that rides on its write (one webhook turn's, with the previous turn's tail
#: folded in: 115-135 bytes for agent ids of up to ~20 characters; ``agenthost.metering.carry``)
USAGE_RESERVE = 150
#: one write unit
WRITE_UNIT = 1024
#: how much of an earlier turn's request digest is kept as its mark (64 bits: a body is signed, never guessed)
MARK_CHARS = 16

#: what a task memory's JSON usually holds, most frequent last (deflate reaches back to it more cheaply): the
#: memory's and the brain's keys, the shapes of the tools' calls and the deterministic policy's phrases. Only an
#: efficiency: text it does not hold is stored in full. Tag 1 names this very text: change it only under a new
#: tag, keeping this one readable for a day (the items' TTL).
PACKING = Packing(1, (
    b"Nothing the task names is left to do on this page. (the task asks to (the task names option '"
    b"(the task gives ') (submit the form); Not completed: the page shows "
    b' the page did not change after ; try something else. LLM failed: deterministic policy answered'
    b'{"tool":"done","args":{"success":false,"result":"Not completed: "}}],"done":true,"result":{"success":'
    b'false,"reason":"Not completed: "}}{"tool":"done","args":{"success":true,"result":'
    b'{"tool":"navigate","args":{"url":"https://'
    b'{"tool":"scroll","args":{"direction":"down"}}{"tool":"submit","args":{"form":"'
    b'{"tool":"select","args":{"element":"","option":"'
    b'{"tool":"type","args":{"element":"","text":"","clear":true}},'
    b'{"tool":"click","args":{"element":"'
    b'"brain":{"loops":{"click||http://","type|","select|","navigate|","visited":["https://","user_answers":'
    b'"hints":,"navigated":,"suggestions_awaited":,"skills_used":,"before":[],"home":"","futile":{},"streak":["",1],'
    b'"sent":{"fp":"","acts":[["","click","","e"],["","type","","e"]]},"nav_only":false,"clicked":[],"acted":true,'
    b'"waiting":{},"codes":[],"notes":[]},"answers":{"'
    b'":{"thinking":"","actions":[],"done":false},"'
    b'{"first_url":"http://","started_at":,"last_turn":,"turns":[{"n":,"url":"https://","fp":"","actions":['
))


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
    notes: list[str] = field(default_factory=list)
    #: the brain's own memory (``Decision.memory``), handed back to it next turn
    brain: dict[str, Any] = field(default_factory=dict)
    #: the last turns' answers by request digest (sha256 of the signed body): a replayed body gets its answer
    answers: KeptAnswers = field(default_factory=lambda: KeptAnswers({}, MAX_ANSWERS))
    #: set by :meth:`MemoryStore.load` when this request was answered before: the answer given then
    replayed: dict[str, Any] | None = None

    # -- updates --------------------------------------------------------------------------------
    def observe(self, turn: int, url: str, fp: str) -> None:
        """Record the page seen at ``turn``; a page that did not change after the previous turn's actions
        becomes a note (try something else)."""
        prev = self.turns[-1] if self.turns else None
        if prev is not None and prev.get("fp") == fp and prev.get("actions"):
            tried = [f"{a.get('tool')} {_target(a.get('args', {}))!r}" for a in prev["actions"]
                     if a.get("tool") in ("click", "type", "select", "submit")]
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
        """Keep ``answer`` for the request ``digest``; the answers kept before become marks of their digests (the
        last :data:`MAX_ANSWERS` digests are kept). An answer that types into a password or card field is not
        kept (never stored in clear): its replay is an idle turn too."""
        secret = any(a.get("args", {}).get("text") == MASK for a in _masked_actions(answer.get("actions") or []))
        if not digest:
            return
        self.answers = KeptAnswers({k[:MARK_CHARS]: 0 for k in self.answers.kept}, MAX_ANSWERS)
        self.answers.keep(digest, {"idle": True} if secret else answer)

    def payload(self) -> dict[str, Any]:
        """What is stored of this memory (inside ``data_z``)."""
        return {"first_url": self.first_url[:500], "started_at": self.started_at, "last_turn": self.last_turn,
                "turns": self.turns, "notes": self.notes, "brain": self.brain, "answers": self.answers.kept}

    def to_item(self) -> dict[str, Any]:
        """The item to write. When the last answer in full would take the item (with the usage riding on it)
        past one write unit, it is kept as a mark instead (its replay is then an idle turn, like an earlier
        turn's): a write unit a turn is worth more than replaying a body's very answer, which only a resent
        body gets (the platform sends each turn once)."""
        key = keys.task(self.agent, self.task)
        data = packed(self.payload(), PACKING)
        room = WRITE_UNIT - USAGE_RESERVE - item_bytes(marshal({**key, "expires_at": 2_000_000_000, "data_z": b""}))
        if len(data) > room and any(isinstance(v, dict) and not v.get("idle") for v in self.answers.kept.values()):
            self.answers = KeptAnswers({k: (v if isinstance(v, dict) and v.get("idle") else 0)
                                        for k, v in self.answers.kept.items()}, MAX_ANSWERS)
            data = packed(self.payload(), PACKING)
        return {**key, "data_z": data}


def stored(item: dict[str, Any] | None) -> dict[str, Any]:
    """A task memory item's contents (``data_z`` unpacked; an item written field by field as it is)."""
    if not item:
        return {}
    data = item.get("data_z")
    if data is None:
        return item
    found = unpacked(data, PACKING)
    return found if isinstance(found, dict) else {}


def answered_before(answers: KeptAnswers, digest: str) -> dict[str, Any] | None:
    """The answer to give the request ``digest`` when it was answered before: the one kept, or an idle turn
    for a digest kept as a mark (or an answer that was not kept in clear); None when it is new."""
    if not digest:
        return None
    found = answers.find(digest)
    if found is None:
        found = answers.find(digest[:MARK_CHARS])
    if found is None:
        return None
    return dict(found) if isinstance(found, dict) else {"idle": True}


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
        item = stored(self.store.get(**keys.task(agent, th)))
        answers = KeptAnswers(item.get("answers"), MAX_ANSWERS)
        replayed = answered_before(answers, digest)
        if replayed is not None:
            return TaskMemory(agent=agent, task=th, replayed=replayed)
        if not item or turn <= 1 or turn <= int(item.get("last_turn", 0)):
            return TaskMemory(agent=agent, task=th, first_url=url, started_at=self.clock())
        return TaskMemory(
            agent=agent, task=th,
            first_url=str(item.get("first_url", "")),
            started_at=float(item.get("started_at", 0) or 0),
            last_turn=int(item.get("last_turn", 0)),
            turns=list(item.get("turns") or [])[-MAX_TURNS:],
            notes=list(item.get("notes") or [])[-MAX_NOTES:],
            brain=dict(item.get("brain") or {}),
            answers=answers,
        )

    def save(self, memory: TaskMemory) -> None:
        """One write (the open turn's usage rides on it: :mod:`agenthost.metering.carry`)."""
        self.store.put(memory.to_item(), ttl_s=TTL_S)
