"""Today's LLM spend per agent, for budget checks: one ``Query`` of the day's usage items, cached per
container for ``budget_cache_s`` and refreshed from each of our own counter writes (:func:`remember`),
so a budget check usually costs no read."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from agenthost.config import settings as core_settings
from agenthost.metering.settings import config
from agenthost.metering.usage import clean_id, day_of
from agenthost.pricing import prices
from agenthost.store import Store

_cache_lock = threading.Lock()
# (day, agent) -> (fetched_at, {protocol: {"tokens_in", "tokens_out", "model"}})
_day_cache: dict[tuple[str, str], tuple[float, dict[str, dict[str, Any]]]] = {}


def reset() -> None:
    """Forget cached configuration (the settings it is read from included) and budget snapshots (tests)."""
    core_settings.cache_clear()
    config.cache_clear()
    prices.cache_clear()
    with _cache_lock:
        _day_cache.clear()


def remember(day: str, agent: str, protocol: str, item: Mapping[str, Any], now: float) -> None:
    """Refresh the cached row of ``protocol`` from the usage item our counter write returned."""
    with _cache_lock:
        fetched, rows = _day_cache.get((day, agent), (0.0, {}))
        rows = dict(rows)
        rows[protocol] = {"tokens_in": item.get("tokens_in", 0), "tokens_out": item.get("tokens_out", 0),
                          "model": item.get("model")}
        # a row refreshed from our own write does not make the other protocols' rows fresher
        _day_cache[(day, agent)] = (fetched, rows)


def _load_day(store: Any, day: str, agent: str) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for item in store.query(f"USAGE#{day}", f"{agent}#", consistent=False):
        if item.get("agent") == agent:
            rows[str(item.get("protocol"))] = {"tokens_in": item.get("tokens_in", 0),
                                               "tokens_out": item.get("tokens_out", 0),
                                               "model": item.get("model")}
    return rows


def spent_today(agent: str, *, store: Any = None, now: float | None = None) -> dict[str, float]:
    """``{"tokens": n, "usd": x}`` the agent's LLM calls used today (UTC), across protocols."""
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
    table = prices()
    tokens = sum(float(r.get("tokens_in") or 0) + float(r.get("tokens_out") or 0) for r in rows.values())
    usd = sum(table.llm_usd(r.get("model"), float(r.get("tokens_in") or 0), float(r.get("tokens_out") or 0))
              for r in rows.values())
    return {"tokens": tokens, "usd": usd}


def budget_allows(agent: str, *, store: Any = None, now: float | None = None) -> bool:
    """Whether ``agent`` may still call the LLM today. No budget configured: True, without any I/O."""
    budget = config().budget_for(clean_id(agent))
    if not budget.limited:
        return True
    spent = spent_today(agent, store=store, now=now)
    if budget.tokens is not None and spent["tokens"] >= budget.tokens:
        return False
    return not (budget.usd is not None and spent["usd"] >= budget.usd)
