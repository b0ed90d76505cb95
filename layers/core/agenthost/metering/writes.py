"""Metering's own write, for a turn whose writes carried none of its usage (it wrote nothing, or something
not a cost was recorded after its last write): one small item of its own, ``TURNUSAGE#<id>``, carrying the
usage like any other write (the rollup reads it from the table's stream), through a client whose wait is
bounded (1 s connect, 1 s read, one request: at most the 2 s of ``AGENTHOST_USAGE_WRITE_RESERVE_S``), so it
never makes an answer late. A failed write leaves the usage for the container's next write."""

from __future__ import annotations

from typing import Any

from agenthost.items import keys
from agenthost.metering import carry
from agenthost.metering.settings import config, log_warning
from agenthost.store import CallLimits, Store

#: how long a turn's own usage item stays in the table (the stream has brought it to the rollup long before)
OWN_TTL_S = 86_400


def attributes(agent: str, protocol: str, day: str, model: str | None) -> dict[str, Any]:
    """What a usage entry says besides its counters (the usage item's attributes)."""
    attrs: dict[str, Any] = {"day": day, "agent": agent, "protocol": protocol, "arch": config().arch,
                             "mb": config().memory_mb}
    if model:
        attrs["model"] = model
    return attrs


#: metering's own write: one request, 1 s connect and 1 s read at most (and the deadline bound to the work)
OWN_LIMITS = CallLimits(connect_s=1.0, read_s=1.0, attempts=1)


def write_own(store: Store | None, carrier: carry.Carrier) -> None:
    """Write ``carrier`` on a usage item of its own (one ``PutItem``); never raises."""
    target = store or Store(writes=OWN_LIMITS)
    try:
        with carry.riding(carrier):
            target.put({**keys.turn_usage(carrier.id)}, ttl_s=OWN_TTL_S)
    except Exception:  # noqa: BLE001 - its usage waits for the next write (the rider was told it failed)
        log_warning("usage item not written; its usage waits for the container's next write")
