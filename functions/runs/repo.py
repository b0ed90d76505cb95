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
"""

from __future__ import annotations

import threading
from typing import Any

from agenthost import metering
from agenthost.config import settings
from agenthost.store import Item, Store, VersionConflict, keys, marshal

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
        return self.store.get(**keys.run(run_id))

    def load_all(self, run_id: str) -> tuple[Item | None, list[Item]]:
        """META and every STEP item in one query (they share the partition)."""
        meta: Item | None = None
        steps: list[Item] = []
        for item in self.store.query(keys.run(run_id)["pk"]):
            if item["sk"] == "META":
                meta = item
            elif item["sk"].startswith("STEP#"):
                steps.append(item)
        return meta, steps

    def save(self, meta: Item, step: Item | None = None) -> Item:
        """Write ``meta`` if nobody changed it since it was read (its ``version``), then the new ``step``
        item. Returns the META as written (version + 1).
        Raises :class:`VersionConflict` when another writer got there first."""
        expected = int(meta["version"])
        body = {**meta, **keys.run(meta["runId"]), "version": expected + 1}
        meta_put: dict[str, Any] = {
            "TableName": self.store.table_name,
            "Item": marshal(body),
            "ConditionExpression": "version = :v",
            "ExpressionAttributeValues": marshal({":v": expected}),
        }
        try:
            with _write_lock:
                self._write(meta_put, meta, step)
        except Exception as exc:
            code = getattr(exc, "response", {}).get("Error", {}).get("Code", "")
            if code in ("ConditionalCheckFailedException", "TransactionCanceledException"):
                raise VersionConflict(f"run {meta['runId']} changed concurrently") from None
            raise
        return body

    def _write(self, meta_put: dict[str, Any], meta: Item, step: Item | None) -> None:
        self.store.calls += 1
        self.store.client.put_item(**meta_put)
        if step is None:
            return
        # Only the writer whose conditional META write won gets here, so the step item needs no condition.
        step_body = {**step, **keys.run_step(meta["runId"], int(step["stepNumber"])), "expires_at": meta["expires_at"]}
        turn = metering.current()
        if hasattr(turn, "fold") and not settings().local:
            # the turn's usage counters ride along with the step item (one round trip instead of two);
            # not locally, where moto copies the whole shared table for every transaction
            self.store.put(step_body, also=[turn.fold(self.store.table_name)])
        else:
            self.store.put(step_body)
