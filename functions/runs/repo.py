"""Run state in the single table: one ``META`` item per run, and the history of its older steps in blocks.

* ``META`` carries an optimistic ``version``; every change is written with ``version = <read value>``
  as its condition, so two concurrent ``/step`` calls can never both advance a run.
* A step is one read and one write: ``META`` holds the run's last :data:`RECENT` steps (``recent``: what
  each step chose, when, and what came of it, which ``GET`` shows as the step's history entry), so the step
  writes nothing but ``META``. A step whose oldest recent entry drops out of ``META`` starts a new block
  and first writes the :data:`BLOCK` steps before it as one ``HIST#<first step>`` item (one more write every
  :data:`BLOCK` steps: 1.05 writes per step). That block holds steps already committed on ``META``, so it
  is written before the conditional ``META`` write (a request that then loses the race has written the
  same block the winner writes). ``GET`` therefore never sees ``META`` ahead of the history it shows.
* Everything expires together (``expires_at``, the table's TTL attribute) a fixed time after the run
  was created; readers treat an expired run as absent (TTL deletion is lazy).
* ``META`` also carries the current snapshot (``snap_z``: zlib-compressed JSON, a few KB), so
  ``GET /agent/run/{id}`` is one query over the run's partition that reads only the attributes it shows
  (:data:`VIEW_ATTRIBUTES`). Runs written before blocks existed kept one ``STEP#<n>`` item per step; ``GET``
  still reads those.
* The usage of the metered turn rides on its writes (``agenthost.metering``): no write of its own.
"""

from __future__ import annotations

import threading
from typing import Any

from agenthost.items import Item, Key, keys
from agenthost.store import Store, VersionConflict

#: recent steps kept on the run item (policy context, loop detection, stale-retry detection, GET's history)
RECENT = 20
#: steps per history block (a block is written when its first step leaves ``recent``)
BLOCK = RECENT

#: moto (tests, the local stack) is not atomic between threads of one process (conditional checks and
#: writes can interleave); DynamoDB is. Writes from this process are serialized here; the optimistic
#: ``version`` check still decides who wins between processes.
_write_lock = threading.Lock()


def block_key(run_id: str, first: int) -> Key:
    return {"pk": keys.run(run_id)["pk"], "sk": f"HIST#{first:06d}"}


class RunRepo:
    def __init__(self, store: Store):
        self.store = store

    @property
    def calls(self) -> int:
        return self.store.calls

    def now(self) -> int:
        return self.store.now()

    def create(self, meta: Item) -> Item:
        """Write a new run's META (version 1). ``meta`` must carry ``expires_at``."""
        return self.store.put({**meta, **keys.run(meta["runId"])}, expected_version=0)

    def load(self, run_id: str) -> Item | None:
        """The run's META, or None when unknown or expired."""
        return _plain(self.store.get(**keys.run(run_id)))

    def load_view(self, run_id: str) -> tuple[Item | None, list[Item]]:
        """What ``GET`` shows: META and the run's history entries (``recent`` entries: ``step``, ``action``,
        ``t``, ``result``), oldest first, from one query over the run's partition reading only
        :data:`VIEW_ATTRIBUTES` (not the policy's memory, the loop state or the stored last answer)."""
        meta: Item | None = None
        found: dict[int, Item] = {}
        legacy: list[Item] = []
        for item in self.store.query(keys.run(run_id)["pk"], attributes=VIEW_ATTRIBUTES):
            if item["sk"] == "META":
                meta = _plain(item)
            elif item["sk"].startswith("HIST#"):
                found.update({int(e["step"]): e for e in item.get("entries") or []})
            elif item["sk"].startswith("STEP#"):
                legacy.append(item)
        found.update({int(e["step"]): e for e in _from_step_items(legacy)})
        if meta is not None:
            for e in meta.get("recent") or []:  # newest; a step recorded before blocks keeps what it lacks
                found[int(e["step"])] = {**found.get(int(e["step"]), {}), **{k: v for k, v in e.items()
                                                                             if v is not None}}
        return meta, [found[n] for n in sorted(found)]

    def save(self, meta: Item, dropped: list[Item] | None = None) -> Item:
        """Write ``meta`` if nobody changed it since it was read (its ``version``); ``dropped``: the recent
        entries this write lets go (see the module docstring). Returns the META as written (version + 1).
        Raises :class:`VersionConflict` when another writer got there first."""
        expected = int(meta["version"])
        body = {**meta, **keys.run(meta["runId"])}
        body.pop("version", None)
        try:
            with _write_lock:
                for first, entries in _blocks(dropped or [], meta.get("recent") or []):
                    self.store.put({**block_key(meta["runId"], first), "entries": entries,
                                    "expires_at": meta["expires_at"]})
                written = self.store.put(body, expected_version=expected)
        except VersionConflict:
            raise VersionConflict(f"run {meta['runId']} changed concurrently") from None
        return written


def _blocks(dropped: list[Item], recent: list[Item]) -> list[tuple[int, list[Item]]]:
    """The history blocks a write must store: one for each dropped entry that opens a block, holding that
    block's steps (from the dropped entries and what ``recent`` still has)."""
    out = []
    known = {int(e["step"]): e for e in [*dropped, *recent]}
    for entry in dropped:
        first = int(entry["step"])
        if (first - 1) % BLOCK == 0:
            out.append((first, [known[n] for n in range(first, first + BLOCK) if n in known]))
    return out


def _from_step_items(items: list[Item]) -> list[Item]:
    """History entries from a run's ``STEP#`` items (runs written before blocks): a step's result is what
    the next step reported of it."""
    from runs.models import ToolResult

    items = sorted(items, key=lambda s: int(s["stepNumber"]))
    out = []
    for i, s in enumerate(items):
        following = items[i + 1] if i + 1 < len(items) else None
        reported = (following or {}).get("lastActionResult")
        out.append({"step": int(s["stepNumber"]), "action": s.get("action"), "t": s.get("timestamp"),
                    "result": ToolResult.model_validate(reported).describe() if reported else None,
                    "finished": s.get("result"), "failed": s.get("error")})
    return out


#: the attributes GET /agent/run/{id} reads (META's, history blocks' and legacy STEP items'); nothing else
VIEW_ATTRIBUTES = (
    "pk", "sk", "expires_at", "version", "runId", "task", "mode", "status", "current_step", "max_steps",
    "reflections", "snap_z", "created_at", "updated_at", "claimed_at", "browser", "result", "error", "pending",
    "declined", "recent", "entries", "stepNumber", "action", "timestamp", "lastActionResult", "secrets",
)


def _plain(item: Item | None) -> Item | None:
    """boto3 reads binary attributes as ``Binary``; the engine stores and copies plain bytes."""
    if item is not None and item.get("snap_z") is not None:
        raw: Any = item["snap_z"]
        item["snap_z"] = bytes(raw.value if hasattr(raw, "value") else raw)
    return item
