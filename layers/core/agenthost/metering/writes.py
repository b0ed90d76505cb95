"""Writing a turn's counters to the daily usage item: one atomic ``UpdateItem`` (``SET`` the turn's
attributes, ``ADD`` its counters) on exit, or the same update as a ``TransactWriteItems`` entry that
rides on the protocol's own write (:meth:`agenthost.metering.Turn.fold`)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from agenthost.metering.settings import config
from agenthost.metering.usage import USAGE_TTL_S, usage_key
from agenthost.store import Store, marshal


def attributes(agent: str, protocol: str, day: str, model: str | None) -> dict[str, Any]:
    """What a counter write sets on the usage item (besides the counters and the expiry)."""
    attrs: dict[str, Any] = {"agent": agent, "protocol": protocol, "day": day, "arch": config().arch,
                             "memory_mb": config().memory_mb}
    if model:
        attrs["model"] = model
    return attrs


def update_expression(attrs: Mapping[str, Any], counters: Mapping[str, float],
                      clock: Any) -> tuple[str, dict[str, str], dict[str, Any]]:
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    sets, adds = [], []
    for i, (k, v) in enumerate(attrs.items()):
        names[f"#s{i}"], values[f":s{i}"] = k, v
        sets.append(f"#s{i} = :s{i}")
    names["#exp"], values[":exp"] = "expires_at", Store(table_name="-", clock=clock).now() + USAGE_TTL_S
    sets.append("#exp = :exp")
    for i, (k, v) in enumerate((k, v) for k, v in counters.items() if v):
        names[f"#a{i}"], values[f":a{i}"] = k, v
        adds.append(f"#a{i} :a{i}")
    return "SET " + ", ".join(sets) + (" ADD " + ", ".join(adds) if adds else ""), names, values


def fold_entry(table_name: str, day: str, attrs: Mapping[str, Any], counters: Mapping[str, float],
               clock: Any) -> dict[str, Any]:
    """The ``TransactWriteItems`` entry that adds ``counters`` to the usage item of ``attrs``' agent and
    protocol on ``day``."""
    expr, names, values = update_expression(attrs, counters, clock)
    return {"Update": {
        "TableName": table_name,
        "Key": marshal(usage_key(day, attrs["agent"], attrs["protocol"])),
        "UpdateExpression": expr,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": marshal(values),
    }}


def add_counters(store: Store, day: str, attrs: Mapping[str, Any], counters: Mapping[str, float]) -> dict[str, Any]:
    """Add ``counters`` (the non-zero ones) to the usage item with one ``UpdateItem``; returns the item.
    A concurrent fold (transaction) on the same item makes DynamoDB ask for a retry: up to 3 tries."""
    expr_counters = {k: v for k, v in counters.items() if v}
    failures = 0
    while True:
        try:
            item: dict[str, Any] = store.update(
                f"USAGE#{day}", f"{attrs['agent']}#{attrs['protocol']}",
                set_=dict(attrs), add=expr_counters, ttl_s=USAGE_TTL_S,
            )
            return item
        except Exception as exc:
            code = getattr(exc, "response", {}).get("Error", {}).get("Code")
            failures += 1
            if code != "TransactionConflictException" or failures == 3:
                raise
            time.sleep(0.01 * failures)
