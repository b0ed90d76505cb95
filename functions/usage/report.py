"""The usage report: daily per-agent usage items (see ``agenthost.metering``) summed and priced.

``collect`` reads one ``Query`` per day of the range (narrowed to an agent's items when filtered);
``build`` turns the items into rows (one per day, agent and protocol), totals per protocol and in all,
each with a cost estimate from :mod:`agenthost.pricing`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from typing import Any

from agenthost.metering import COUNTERS
from agenthost.pricing import Prices

MAX_DAYS = 366


def days(start: date, end: date) -> list[str]:
    return [(start + timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]


def collect(store: Any, start: date, end: date, *, agent: str | None = None,
            protocol: str | None = None) -> list[dict[str, Any]]:
    """The usage items of ``[start, end]`` (UTC days), filtered exactly by agent and protocol."""
    items: list[dict[str, Any]] = []
    for day in days(start, end):
        for item in store.query(f"USAGE#{day}", f"{agent}#" if agent else None, consistent=False):
            if agent is not None and item.get("agent") != agent:
                continue
            if protocol is not None and item.get("protocol") != protocol:
                continue
            items.append(item)
    items.sort(key=lambda i: (str(i.get("day")), str(i.get("agent")), str(i.get("protocol"))))
    return items


def _number(value: Any) -> int | float:
    number = float(value or 0)
    return int(number) if number.is_integer() else round(number, 3)


def _cost(prices: Prices, counters: Mapping[str, Any], protocol: str, model: str | None,
          arch: str | None) -> dict[str, float]:
    return {k: round(v, 12) for k, v in prices.estimate(counters, protocol=protocol, model=model,
                                                       arch=arch).items()}


def _derived(counters: Mapping[str, Any], cost: Mapping[str, float]) -> dict[str, Any]:
    turns = float(counters.get("turns") or 0)
    llm_calls = float(counters.get("llm_calls") or 0)
    return {
        "fallback_rate": round(float(counters.get("fallbacks") or 0) / turns, 4) if turns else 0.0,
        "avg_duration_ms": round(float(counters.get("duration_ms") or 0) / turns, 3) if turns else 0.0,
        "avg_llm_ms": round(float(counters.get("llm_ms") or 0) / llm_calls, 1) if llm_calls else 0.0,
        "infra_usd_per_million_turns": round(cost["infra"] / turns * 1_000_000, 6) if turns else 0.0,
    }


def _row(item: Mapping[str, Any], prices: Prices) -> dict[str, Any]:
    counters = {k: _number(item.get(k)) for k in COUNTERS}
    protocol = str(item.get("protocol"))
    cost = _cost(prices, counters, protocol, item.get("model"), item.get("arch"))
    return {"date": item.get("day"), "agent": item.get("agent"), "protocol": protocol,
            "model": item.get("model") or "deterministic", **counters, **_derived(counters, cost), "cost": cost}


def _total(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    counters = {k: _number(sum(float(r.get(k) or 0) for r in rows)) for k in COUNTERS}
    cost = {k: round(sum(r["cost"][k] for r in rows), 12)
            for k in ("lambda_compute", "lambda_requests", "api", "dynamodb", "infra", "llm", "total")}
    return {**counters, **_derived(counters, cost), "cost": cost}


def build(items: Iterable[Mapping[str, Any]], prices: Prices) -> dict[str, Any]:
    """Rows, per-protocol totals and the grand total (costs priced per row: each row has one model)."""
    rows = [_row(i, prices) for i in items]
    protocols = sorted({r["protocol"] for r in rows})
    return {
        "rows": rows,
        "by_protocol": [{"protocol": p, **_total(r for r in rows if r["protocol"] == p)} for p in protocols],
        "totals": _total(rows),
    }
