"""Today's LLM spend per agent, for budget checks: the day's rolled-up usage items (one ``Query``, cached
per container for ``budget_cache_s``) plus this container's turns in flight.

A turn's tokens reach the usage items through the table's stream (:mod:`agenthost.metering.carry`), a few
seconds after its write. Each usage item says how far the rollup got (``rolled_at``: the newest write time,
``at``, of the usage it added); the tokens of this container's own turns written after that are added
here (:func:`flying`), so a container never misses its own spending. Other containers' turns count once
the rollup has added them: that lag (the stream's batching window and the rollup's run, seconds) plus the
cache's age is how late a check can be."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping
from typing import Any

from agenthost.config import settings as core_settings
from agenthost.metering.settings import config
from agenthost.metering.usage import clean_id, day_of
from agenthost.pricing import prices
from agenthost.store import Store

_cache_lock = threading.Lock()
# (day, agent) -> (fetched_at, {protocol: {"tokens_in", "tokens_out", "model", "rolled_at"}})
_day_cache: dict[tuple[str, str], tuple[float, dict[str, dict[str, Any]]]] = {}
# (day, agent) -> [(written_at, protocol, tokens_in, tokens_out, model)] of this container's turns
#: per (day, agent), oldest first: (written at, protocol, tokens in, tokens out, model); a deque so a turn's
#: bookkeeping drops the expired from its front instead of copying the list (hundreds of turns in 15 minutes)
_in_flight: dict[tuple[str, str], deque[tuple[float, str, float, float, str | None]]] = {}
#: a turn in flight longer than this is surely rolled up (the stream keeps records 24 h; the rollup runs in seconds)
FLIGHT_MAX_S = 900


def reset() -> None:
    """Forget cached configuration (the settings it is read from included), budget snapshots and the turns
    in flight (tests)."""
    core_settings.cache_clear()
    config.cache_clear()
    prices.cache_clear()
    with _cache_lock:
        _day_cache.clear()
        _in_flight.clear()


def _row(item: Mapping[str, Any]) -> dict[str, Any]:
    return {"tokens_in": item.get("tokens_in", 0), "tokens_out": item.get("tokens_out", 0),
            "model": item.get("model"), "rolled_at": float(item.get("rolled_at") or 0)}


def flying(day: str, agent: str, protocol: str, tokens_in: float, tokens_out: float, model: str | None,
           now: float) -> None:
    """A turn of this container wrote ``tokens_in``/``tokens_out`` at ``now``; the rollup has not added them yet."""
    with _cache_lock:
        kept = _in_flight.setdefault((day, agent), deque())
        while kept and now - kept[0][0] > FLIGHT_MAX_S:
            kept.popleft()
        kept.append((now, protocol, tokens_in, tokens_out, model))


def _load_day(store: Any, day: str, agent: str) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for item in store.query(f"USAGE#{day}", f"{agent}#", consistent=False):
        if item.get("agent") == agent:
            rows[str(item.get("protocol"))] = _row(item)
    return rows


def spent_today(agent: str, *, store: Any = None, now: float | None = None) -> dict[str, float]:
    """``{"tokens": n, "usd": x}`` the agent's LLM calls used today (UTC), across protocols: the rolled-up
    counters and this container's turns written after the newest the rollup added."""
    ts = time.time() if now is None else now
    day, agent = day_of(ts), clean_id(agent)
    with _cache_lock:
        cached = _day_cache.get((day, agent))
    if cached is None or ts - cached[0] > config().budget_cache_s:
        rows = _load_day(store or Store(), day, agent)
        with _cache_lock:
            _day_cache[(day, agent)] = (ts, rows)
    else:
        rows = cached[1]
    with _cache_lock:
        flights = list(_in_flight.get((day, agent), []))
    table = prices()
    uses = [(r.get("model"), float(r.get("tokens_in") or 0), float(r.get("tokens_out") or 0)) for r in rows.values()]
    for at, protocol, tokens_in, tokens_out, model in flights:
        if at > (rows.get(protocol) or {}).get("rolled_at", 0):
            uses.append((model, tokens_in, tokens_out))
    return {"tokens": sum(i + o for _, i, o in uses), "usd": sum(table.llm_usd(m, i, o) for m, i, o in uses)}


def budget_allows(agent: str, *, store: Any = None, now: float | None = None) -> bool:
    """Whether ``agent`` may still call the LLM today. No budget configured: True, without any I/O."""
    budget = config().budget_for(clean_id(agent))
    if not budget.limited:
        return True
    spent = spent_today(agent, store=store, now=now)
    if budget.tokens is not None and spent["tokens"] >= budget.tokens:
        return False
    return not (budget.usd is not None and spent["usd"] >= budget.usd)
