"""botocore hooks on the shared DynamoDB clients: each call, its consumed capacity and any throttle are
counted for the turn active in the calling thread (:func:`agenthost.metering.turns.active_turn`), so
protocol code does not report them."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from agenthost import aws
from agenthost.metering.turns import active_turn

_READS = {"GetItem": 0.5, "Query": 0.5, "Scan": 0.5, "BatchGetItem": 0.5, "TransactGetItems": 2.0}
_WRITES = {"PutItem": 1.0, "UpdateItem": 1.0, "DeleteItem": 1.0, "BatchWriteItem": 1.0,
           "TransactWriteItems": 2.0}
_instrument_lock = threading.Lock()


def instrument() -> None:
    """Register the hooks on every DynamoDB client, those made so far and those made later (a store picks
    clients by the time its call has left, and protocols may use their own client config)."""
    aws.on_client("dynamodb", _instrument_client)


def _instrument_client(client: Any) -> None:
    events = client.meta.events
    if getattr(events, "_agenthost_metered", False):
        return
    with _instrument_lock:
        if getattr(events, "_agenthost_metered", False):
            return
        events.register("provide-client-params.dynamodb", before_call, unique_id="agenthost-metering-params")
        events.register("after-call.dynamodb", after_call, unique_id="agenthost-metering-after")
        events.register("after-call-error.dynamodb", _after_error, unique_id="agenthost-metering-error")
        events.register("needs-retry.dynamodb", _on_retry, unique_id="agenthost-metering-retry")
        events._agenthost_metered = True


def before_call(params: dict[str, Any], model: Any, context: dict[str, Any] | None = None,
                **_: Any) -> None:
    t = active_turn()
    if t is None:
        return
    op = model.name
    if op in _READS or op in _WRITES:
        params.setdefault("ReturnConsumedCapacity", "TOTAL")


def _capacity(parsed: Mapping[str, Any]) -> float:
    cc = parsed.get("ConsumedCapacity")
    if isinstance(cc, dict):
        return float(cc.get("CapacityUnits") or 0)
    if isinstance(cc, list):
        return sum(float(c.get("CapacityUnits") or 0) for c in cc if isinstance(c, dict))
    return 0.0


def after_call(http_response: Any = None, parsed: Mapping[str, Any] | None = None, model: Any = None,
               context: dict[str, Any] | None = None, **_: Any) -> None:
    t = active_turn()
    if t is None or model is None:
        return
    op = model.name
    c = t.counters
    c["ddb_calls"] += 1
    units = _capacity(parsed or {})
    if op in _WRITES:
        c["ddb_wru"] += max(units, _WRITES[op])
    elif op in _READS:
        c["ddb_rru"] += max(units, _READS[op])


def _after_error(model: Any = None, **_: Any) -> None:
    t = active_turn()
    if t is not None:
        t.counters["ddb_calls"] += 1


def _on_retry(response: Any = None, **_: Any) -> None:
    t = active_turn()
    if t is None or not response or not isinstance(response, tuple) or len(response) < 2:
        return
    parsed = response[1] or {}
    code = aws.answer_code(parsed)
    if aws.throttle_code(code):
        t.counters["ddb_throttles"] += 1
