"""Metering's own counter write, for a turn whose writes carried none of its usage (it wrote nothing, or
something was recorded after its last write): one atomic ``UpdateItem`` (``SET`` the turn's attributes,
``ADD`` its counters) on the daily usage item, through a store whose wait is bounded (0.5 s connect, 1 s
read, one request: within the 2 s of ``AGENTHOST_USAGE_WRITE_RESERVE_S``, and the deadline bound to the
work), so it never makes an answer late."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from agenthost import aws
from agenthost.metering.settings import config
from agenthost.metering.usage import USAGE_TTL_S
from agenthost.store import CallLimits, Store


def attributes(agent: str, protocol: str, day: str, model: str | None) -> dict[str, Any]:
    """What a usage entry sets on the usage item (besides the counters and the expiry)."""
    attrs: dict[str, Any] = {"agent": agent, "protocol": protocol, "day": day, "arch": config().arch,
                             "memory_mb": config().memory_mb}
    if model:
        attrs["model"] = model
    return attrs


#: metering's own write: one request, 0.5 s connect and 1 s read at most (``agenthost.dynamo.TIMEOUTS``)
COUNTER_LIMITS = CallLimits(connect_s=1.0, read_s=1.0, attempts=1)


def add_counters(store: Store | None, day: str, attrs: Mapping[str, Any],
                 counters: Mapping[str, float]) -> dict[str, Any]:
    """Add ``counters`` (the non-zero ones) to the usage item with one ``UpdateItem``; returns the item. The
    rollup's transaction on the same item makes DynamoDB refuse it with a conflict: tried again, 3 times
    in all."""
    target = store or Store(writes=COUNTER_LIMITS)
    for attempt in range(3):
        try:
            item: dict[str, Any] = target.update(
                f"USAGE#{day}", f"{attrs['agent']}#{attrs['protocol']}",
                set_=dict(attrs), add={k: v for k, v in counters.items() if v}, ttl_s=USAGE_TTL_S,
            )
            return item
        except Exception as exc:
            if aws.error_code(exc) != "TransactionConflictException" or attempt == 2:
                raise
            time.sleep(0.01 * (attempt + 1))
    raise AssertionError("unreachable")  # pragma: no cover
