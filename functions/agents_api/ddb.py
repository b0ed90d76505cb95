"""Low-level single-item writes the site needs beyond :class:`agenthost.store.Store`: ``REMOVE`` and
nested map paths in update expressions, the item as it was when a condition refused the write
(``ReturnValuesOnConditionCheckFailure``), and an optional ``metering`` fold.

``write(store, "Update", params, fold=t.fold())``: with a fold entry (``metering.Turn.fold()``; ``None``
when folding is off) the write and the turn's usage counters go in one ``TransactWriteItems`` (no return
values then); without one it is a plain ``UpdateItem``/``DeleteItem``/``PutItem`` returning ``ALL_NEW``
(updates) when asked. A refused condition raises :class:`Refused` carrying the stored item (or ``None``
when there was none), so callers tell "not there" from "over the limit" without another read. When only
the fold makes the transaction fail (a conflict on the shared usage item), the write is retried alone and
the counters are written when the turn ends, as ``metering`` documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agenthost.store import Store, marshal, unmarshal

_OPS = {"Update": "update_item", "Delete": "delete_item", "Put": "put_item"}


class Refused(Exception):
    """A conditional write did not apply; ``item`` is the stored item (``None``: there was none)."""

    def __init__(self, item: dict[str, Any] | None):
        super().__init__("conditional write refused")
        self.item = item


def live(store: Store, item: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``item`` unless it is missing or past its ``expires_at`` (TTL deletion is lazy)."""
    if not item:
        return None
    exp = item.get("expires_at")
    if exp is not None and int(exp) <= store.now():
        return None
    return dict(item)


def code(exc: Exception) -> str:
    """The DynamoDB error code of a botocore ``ClientError`` (empty for anything else)."""
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))


def write(store: Store, kind: str, params: Mapping[str, Any], *, fold: Mapping[str, Any] | None = None,
          returns: bool = False) -> dict[str, Any] | None:
    """One conditional write of ``kind`` (``Update``/``Delete``/``Put``) with low-level ``params`` (``Key``,
    ``UpdateExpression``, ``ConditionExpression``, marshalled values...). Returns the item after an update
    when ``returns`` and no fold was sent, else ``None``. Raises :class:`Refused`."""
    body = {"TableName": store.table_name, **params}
    if params.get("ConditionExpression"):
        body["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    if fold:
        store.calls += 1
        try:
            store.client.transact_write_items(TransactItems=[{kind: body}, fold])
            return None
        except Exception as exc:
            if code(exc) != "TransactionCanceledException":
                raise
            reasons = getattr(exc, "response", {}).get("CancellationReasons") or []
            first = reasons[0] if reasons else {}
            if first.get("Code") == "ConditionalCheckFailed":
                raw = first.get("Item")
                raise Refused(unmarshal(raw) if raw else None) from None
            # the write itself was fine: the fold (the shared usage item) failed; write alone
            return write(store, kind, params, fold=None, returns=returns)
    if returns and kind == "Update":
        body["ReturnValues"] = "ALL_NEW"
    store.calls += 1
    try:
        resp = getattr(store.client, _OPS[kind])(**body)
    except Exception as exc:
        if code(exc) == "ConditionalCheckFailedException":
            raw = getattr(exc, "response", {}).get("Item")
            raise Refused(unmarshal(raw) if raw else None) from None
        raise
    attrs = resp.get("Attributes")
    return unmarshal(attrs) if returns and attrs else None


def values(**named: Any) -> dict[str, Any]:
    """``ExpressionAttributeValues`` from ``name=value`` pairs (``:name`` placeholders)."""
    return marshal({f":{k}": v for k, v in named.items()})
