"""The daily usage item: its key, its counters and how identifiers are cleaned for it.

Usage items: ``pk = USAGE#<yyyy-mm-dd>`` (UTC), ``sk = <agent>#<protocol>``, attributes ``agent``,
``protocol``, ``day``, the counters in :data:`COUNTERS`, ``model``/``arch``/``memory_mb`` of the
last turn and ``rolled_at`` (the newest ``at`` of the usage the rollup added, epoch seconds); they expire after
:data:`USAGE_TTL_S`.

:data:`USAGE_ATTR` is the attribute a turn's usage rides in on the item it writes (see
:mod:`agenthost.metering.carry`): one string, ``<id>|<at>|<entry>|...`` (:func:`~agenthost.metering.carry.encode`),
read back as ``{"id": <unique per write>, "at": <epoch s>, "e": [<entry>...]}``, an entry being ``{"day", "agent",
"protocol", "arch", "mb", "model"?, "why"?, "c": [<counters in COUNTERS order>], "t"?: [...]}`` (items written
before carry that map itself, still read).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from agenthost.items import Key, keys

#: The numeric counters of a usage record, in report order.
COUNTERS = (
    "turns", "errors", "llm_calls", "llm_errors", "tokens_in", "tokens_out", "llm_ms", "fallbacks",
    "budget_fallbacks", "duration_ms", "mb_ms", "invocations", "ddb_calls", "ddb_rru", "ddb_wru",
    "ddb_throttles", "ws_messages", "ws_connection_minutes", "url_turns",
)
#: what a turn costs us rather than what it did: after the turn's last write they may wait for the container's next
USAGE_COST_COUNTERS = frozenset({"duration_ms", "mb_ms", "ddb_calls", "ddb_rru", "ddb_wru", "ddb_throttles"})
USAGE_ATTR = "usage"
USAGE_TTL_S = 400 * 86400
MAX_ID = 128


def usage_key(day: str, agent: str, protocol: str) -> Key:
    """Key of one agent's usage of one protocol on one UTC day."""
    return keys.usage(day, agent, protocol)


_day: tuple[int, str] = (-1, "")


def day_of(epoch_s: float) -> str:
    """The UTC day of ``epoch_s`` (``yyyy-mm-dd``; the last one asked is remembered: every turn asks)."""
    global _day
    number = int(epoch_s // 86400)
    if _day[0] != number:
        _day = (number, datetime.fromtimestamp(epoch_s, UTC).strftime("%Y-%m-%d"))
    return _day[1]


def clean_id(value: Any) -> str:
    text = str(value or "").strip()
    return text[:MAX_ID] if text else "unknown"
