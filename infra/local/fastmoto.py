"""Makes the embedded DynamoDB (moto server) faithful under concurrency and fast enough for a whole stack.

:func:`tune` patches moto's DynamoDB backend in this process, keeping its results identical:

* **Writes are serialized.** moto applies a conditional write as read, check, write with no lock, and its
  server is threaded, so concurrent writes to one item can interleave; DynamoDB serializes writes per
  item (atomic counters and conditions rely on it). One lock around the write operations fixes that; it
  covers moto's whole request handler for a write, not just the backend call, because the handler reads the
  old item before and serializes the new one after the backend call (``ReturnValues`` read outside the lock
  could show another writer's update: two concurrent cart adds both answered quantity 4, none 3).
* **A table query reads only its partition.** moto sorts every item of the table on every query and then
  keeps those of the partition; here it sorts the partition alone (same items, same order).
* **Transactions back up only the items they touch.** moto deep-copies every table a transaction names
  before running it, so one transaction costs as much as the whole table; here each touched item is
  copied and put back on rollback (same outcome, all-or-nothing as before).
* **The stream keeps what a reader can still want.** moto keeps every stream record for ever and every
  shard iterator it ever handed out; here only the last :data:`STREAM_ITERATORS` iterators are kept (an
  older one has expired, as DynamoDB's do after 15 minutes) and a shard keeps its last :data:`STREAM_KEEP`
  records (DynamoDB keeps 24 hours); an iterator older than what is kept reads from the oldest record kept.
* **Data-plane responses are written as JSON directly.** For DynamoDB's JSON protocol (and the stream's
  ``GetRecords``) moto's result is already the wire document; its generic model-driven serializer walks
  every attribute value (3x the cost of the query itself). Results it cannot write directly (dates in
  control-plane answers) still go through moto's serializer.
"""

from __future__ import annotations

import base64
import copy as _copy
import json
import threading
from typing import Any

_state = threading.local()
_lock = threading.RLock()
#: stream records a shard keeps (the oldest half is dropped past this), and shard iterators kept
STREAM_KEEP = 50_000
STREAM_ITERATORS = 1_000


class _CopyShim:
    """Stands in for the ``copy`` module inside moto's DynamoDB backend: while a transaction runs under
    :func:`_transact_write_items`, deep copies of whole tables are skipped (items are backed up instead)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_copy, name)

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        from moto.dynamodb.models.table import Table

        if isinstance(value, Table) and getattr(_state, "transaction", False):
            return value
        return _copy.deepcopy(value, memo)


def _locked(fn: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _lock:
            return fn(*args, **kwargs)

    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapper


def _key_of(table: Any, op: dict[str, Any]) -> tuple[Any, Any] | None:
    from moto.dynamodb.models.dynamo_type import DynamoType

    attrs = op.get("Item") if "Item" in op else op.get("Key")
    if not isinstance(attrs, dict) or table.hash_key_attr not in attrs:
        return None
    hash_key = DynamoType(attrs[table.hash_key_attr])
    range_key = None
    if table.range_key_attr:
        if table.range_key_attr not in attrs:
            return None
        range_key = DynamoType(attrs[table.range_key_attr])
    return hash_key, range_key


def _restore(table: Any, hash_key: Any, range_key: Any, old: Any) -> None:
    if table.range_key_attr:
        part = table.items[hash_key]
        if old is None:
            part.pop(range_key, None)
            if not part:
                table.items.pop(hash_key, None)
        else:
            part[range_key] = old
    elif old is None:
        table.items.pop(hash_key, None)
    else:
        table.items[hash_key] = old


def _make_transact(original: Any) -> Any:
    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        with _lock:
            backups = []
            for entry in transact_items if isinstance(transact_items, list) else []:
                op = next(iter(entry.values()), None) if isinstance(entry, dict) and entry else None
                table = self.tables.get(op.get("TableName")) if isinstance(op, dict) else None
                key = _key_of(table, op) if table is not None else None
                if key is None:
                    continue
                current = table.items.get(key[0])
                if table.range_key_attr:
                    current = current.get(key[1]) if current else None
                backups.append((table, key[0], key[1], _copy.deepcopy(current)))
            _state.transaction = True
            try:
                return original(self, transact_items)
            except BaseException:
                for table, hash_key, range_key, old in reversed(backups):
                    _restore(table, hash_key, range_key, old)
                raise
            finally:
                _state.transaction = False

    transact_write_items.__wrapped__ = original  # type: ignore[attr-defined]
    return transact_write_items


def _make_query(original: Any) -> Any:
    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = kwargs.get("index_name", args[6] if len(args) > 6 else None)
        if index_name or hash_key is None or not self.range_key_attr:
            return original(self, hash_key, *args, **kwargs)
        _state.partition = (self, hash_key)
        try:
            return original(self, hash_key, *args, **kwargs)
        finally:
            _state.partition = None

    query.__wrapped__ = original  # type: ignore[attr-defined]
    return query


def _make_all_items(original: Any) -> Any:
    def all_items(self: Any) -> Any:
        hint = getattr(_state, "partition", None)
        if hint is not None and hint[0] is self:
            part = self.items.get(hint[1])
            return sorted(part.values(), key=lambda item: item.range_key) if part else []
        return original(self)

    all_items.__wrapped__ = original  # type: ignore[attr-defined]
    return all_items


def _b64(value: Any) -> str:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    raise TypeError(type(value).__name__)


def _make_execute_result(original: Any) -> Any:
    def execute_result(self: Any, context: Any) -> Any:
        if isinstance(self.result, dict):
            try:
                body = json.dumps(self.result, default=_b64)
            except (TypeError, ValueError):
                return original(self, context)
            return 200, {"Content-Type": "application/x-amz-json-1.0"}, body
        return original(self, context)

    execute_result.__wrapped__ = original  # type: ignore[attr-defined]
    return execute_result


def _make_shard_add(original: Any) -> Any:
    def add(self: Any, old: Any, new: Any) -> None:
        original(self, old, new)
        if len(self.items) > STREAM_KEEP:
            drop = len(self.items) - STREAM_KEEP // 2
            self.items = self.items[drop:]
            self.starting_sequence_number += drop

    add.__wrapped__ = original  # type: ignore[attr-defined]
    return add


def _make_shard_get(original: Any) -> Any:
    def get(self: Any, start: int, quantity: int) -> Any:
        return original(self, max(int(start), self.starting_sequence_number), quantity)

    get.__wrapped__ = original  # type: ignore[attr-defined]
    return get


def _make_get_records(original: Any) -> Any:
    def get_records(self: Any, iterator_arn: str, limit: int) -> Any:
        result = original(self, iterator_arn, limit)
        while len(self.shard_iterators) > STREAM_ITERATORS:  # the oldest first (dicts keep insertion order)
            self.shard_iterators.pop(next(iter(self.shard_iterators)))
        return result

    get_records.__wrapped__ = original  # type: ignore[attr-defined]
    return get_records


def _get_records_json(self: Any) -> Any:
    """DynamoDB Streams ``GetRecords`` answered as JSON directly (dates as epoch seconds, as on the wire)."""
    limit = self._get_param("Limit") or 1000
    result = self.backend.get_records(self._get_param("ShardIterator"), limit)

    def default(value: Any) -> Any:
        if hasattr(value, "timestamp"):
            return value.timestamp()
        return _b64(value)

    return 200, {"Content-Type": "application/x-amz-json-1.0"}, json.dumps(result, default=default)


def tune() -> None:
    """Apply the patches (idempotent)."""
    import moto.dynamodb.models as models
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table
    from moto.dynamodb.responses import DynamoResult

    if getattr(DynamoDBBackend, "_agenthost_tuned", False):
        return
    from moto.dynamodb.responses import DynamoHandler

    for name in ("put_item", "update_item", "delete_item", "batch_write_item"):
        if hasattr(DynamoDBBackend, name):
            setattr(DynamoDBBackend, name, _locked(getattr(DynamoDBBackend, name)))
        if hasattr(DynamoHandler, name):
            setattr(DynamoHandler, name, _locked(getattr(DynamoHandler, name)))
    DynamoDBBackend.transact_write_items = _make_transact(DynamoDBBackend.transact_write_items)  # type: ignore[method-assign]
    models.copy = _CopyShim()  # type: ignore[attr-defined]
    Table.query = _make_query(Table.query)  # type: ignore[method-assign]
    Table.all_items = _make_all_items(Table.all_items)  # type: ignore[method-assign]
    DynamoResult.execute_result = _make_execute_result(DynamoResult.execute_result)  # type: ignore[method-assign]
    from moto.dynamodb.models.table import StreamShard
    from moto.dynamodbstreams.models import DynamoDBStreamsBackend
    from moto.dynamodbstreams.responses import DynamoDBStreamsHandler

    DynamoDBStreamsHandler.get_records = _get_records_json  # type: ignore[method-assign]
    StreamShard.add = _make_shard_add(StreamShard.add)  # type: ignore[method-assign]
    StreamShard.get = _make_shard_get(StreamShard.get)  # type: ignore[method-assign]
    DynamoDBStreamsBackend.get_records = _make_get_records(DynamoDBStreamsBackend.get_records)  # type: ignore[method-assign]
    DynamoDBBackend._agenthost_tuned = True  # type: ignore[attr-defined]
