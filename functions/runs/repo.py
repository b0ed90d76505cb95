"""Run state in the single table: one ``META`` item per run plus one ``STEP#<n>`` item per step.

* ``META`` carries an optimistic ``version``; every change is written with ``version = <read value>``
  as its condition, so two concurrent ``/step`` calls can never both advance a run.
* A step writes ``META`` and its ``STEP`` item in one ``TransactWriteItems`` call: a step costs one read
  and one write round trip.
* Everything expires together (``expires_at``, the table's TTL attribute) a fixed time after the run
  was created; readers treat an expired run as absent (TTL deletion is lazy).
"""

from __future__ import annotations

import threading
from typing import Any

from agenthost.store import Item, Store, VersionConflict, keys, marshal

#: DynamoDB serializes transactions itself; moto (tests, the local stack) snapshots and restores whole
#: tables around a transaction, which loses concurrent writes between threads of one process. Writes from
#: this process are therefore serialized here; the optimistic ``version`` check still decides who wins.
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
        """Write ``meta`` if nobody changed it since it was read (its ``version``), plus the new ``step``
        item (which must not exist yet), atomically. Returns the META as written (version + 1).
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
        if step is None:
            self.store.client.put_item(**meta_put)
            return
        step_body = {**step, **keys.run_step(meta["runId"], int(step["stepNumber"])), "expires_at": meta["expires_at"]}
        self.store.client.transact_write_items(TransactItems=[
            {"Put": meta_put},
            {"Put": {"TableName": self.store.table_name, "Item": marshal(step_body),
                     "ConditionExpression": "attribute_not_exists(pk)"}},
        ])
