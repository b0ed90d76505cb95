"""Run state in the single table: one ``META`` item per run plus one ``STEP#<n>`` item per step.

* ``META`` carries an optimistic ``version``; every change is written with ``version = <read value>``
  as its condition, so two concurrent ``/step`` calls can never both advance a run.
* A step writes ``META`` (conditional: the optimistic check decides which concurrent request wins) and
  then its ``STEP`` item (only the winner gets there): one read and two writes per step. Not a
  ``TransactWriteItems``: it costs twice the write units, and moto (tests, the local stack) copies the
  whole table on every transaction, which made long local runs slow. Should a function die between the
  two writes, the run stays consistent (the stored answer replays on retry); only that step's history
  entry is missing.
* Everything expires together (``expires_at``, the table's TTL attribute) a fixed time after the run
  was created; readers treat an expired run as absent (TTL deletion is lazy).
* ``META`` also carries the current snapshot (``snap_z``: zlib-compressed JSON, a few KB); ``STEP`` items
  carry no snapshot, so ``GET /agent/run/{id}`` is one query over small items that reads only the
  attributes it shows (:data:`VIEW_ATTRIBUTES`).
* The usage of the metered turn rides on its writes (``agenthost.metering``): no write of its own.
"""

from __future__ import annotations

import threading
import time

from agenthost.store import Item, Store, VersionConflict, keys

#: moto (tests, the local stack) is not atomic between threads of one process (conditional checks and
#: writes can interleave); DynamoDB is. Writes from this process are serialized here; the optimistic
#: ``version`` check still decides who wins between processes.
_write_lock = threading.Lock()


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
        """What ``GET`` shows: META and the STEP items, in one query (they share the partition) reading
        only :data:`VIEW_ATTRIBUTES` (not the policy's memory, recent steps or the stored last answer).

        :meth:`save` writes META before the step it claimed, so a read between the two writes sees META
        at step n (a run already ``completed``, say) without step n. Every step META counts is written
        right after it, so the view reads again, briefly, until it holds step n: a poller that sees the
        run end also sees its last step (and the result of the step before). A step whose write never came
        (the writer died in between) is shown missing after :data:`VIEW_SETTLE_TRIES` reads."""
        for attempt in range(VIEW_SETTLE_TRIES):
            meta, steps = self._view_once(run_id)
            if meta is None or int(meta.get("current_step", 0)) <= max(
                    (int(s["stepNumber"]) for s in steps), default=0):
                break
            time.sleep(VIEW_SETTLE_PAUSE_S * (attempt + 1))
        return meta, steps

    def _view_once(self, run_id: str) -> tuple[Item | None, list[Item]]:
        meta: Item | None = None
        steps: list[Item] = []
        for item in self.store.query(keys.run(run_id)["pk"], attributes=VIEW_ATTRIBUTES):
            if item["sk"] == "META":
                meta = _plain(item)
            elif item["sk"].startswith("STEP#"):
                steps.append(item)
        return meta, steps

    def save(self, meta: Item, step: Item | None = None) -> Item:
        """Write ``meta`` if nobody changed it since it was read (its ``version``), then the new ``step``
        item. Returns the META as written (version + 1).
        Raises :class:`VersionConflict` when another writer got there first."""
        expected = int(meta["version"])
        body = {**meta, **keys.run(meta["runId"])}
        body.pop("version", None)
        try:
            with _write_lock:
                written = self._write(body, expected, meta, step)
        except VersionConflict:
            raise VersionConflict(f"run {meta['runId']} changed concurrently") from None
        return written

    def _write(self, body: Item, expected: int, meta: Item, step: Item | None) -> Item:
        written = self.store.put(body, expected_version=expected)
        if step is None:
            return written
        # Only the writer whose conditional META write won gets here, so the step item needs no condition.
        step_body = {**step, **keys.run_step(meta["runId"], int(step["stepNumber"])), "expires_at": meta["expires_at"]}
        self.store.put(step_body)
        return written


#: how often GET reads a run whose META is ahead of its step items (see ``load_view``), and the first pause
VIEW_SETTLE_TRIES = 6
VIEW_SETTLE_PAUSE_S = 0.01

#: the attributes GET /agent/run/{id} reads (META's and STEP items'); everything else stays unread
VIEW_ATTRIBUTES = (
    "pk", "sk", "expires_at", "version", "runId", "task", "mode", "status", "current_step", "max_steps",
    "reflections", "snap_z", "created_at", "updated_at", "claimed_at", "browser", "result", "error", "pending",
    "declined", "stepNumber", "action", "timestamp", "lastActionResult", "secrets",
)


def _plain(item: Item | None) -> Item | None:
    """boto3 reads binary attributes as ``Binary``; the engine stores and copies plain bytes."""
    if item is not None and item.get("snap_z") is not None:
        raw = item["snap_z"]
        item["snap_z"] = bytes(raw.value if hasattr(raw, "value") else raw)
    return item
