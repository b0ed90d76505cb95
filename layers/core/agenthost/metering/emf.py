"""CloudWatch metrics as EMF records through Powertools Metrics (namespace from the core settings; dimension
sets ``[protocol, service]`` and ``[protocol, agent]``): lines on stdout that CloudWatch turns into metrics.

The turns' metrics are written by the usage rollup (:func:`emit_turns`), from the usage the stream brings it:
one record per protocol and agent in each batch, one value per turn in each metric (``Turns``, ``Errors``,
``Fallback``, ``Duration``, ``DynamoDBCalls``; ``BudgetFallback``, ``DynamoDBThrottles``, ``LlmCalls``,
``LlmErrors``, ``TokensIn``, ``TokensOut``, ``LlmLatency`` when they happened), so averages and percentiles
per turn are as if each turn had written its own line, and a turn writes no metrics line of its own. A
turn's values are those its first write carried (what came after that write adds to the usage counters,
not to these values); ``LlmLatency`` is a turn's mean per call. A turn whose answer was due before its usage
could be written says so itself (:func:`emit_late`, ``UsageLate``)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from agenthost.metering.settings import core

_emf = threading.local()
#: the most values one metric of one EMF record may hold
MAX_VALUES = 100


def _metrics(protocol: str, agent: str) -> tuple[Any, Any]:
    from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

    m = getattr(_emf, "metrics", None)  # one isolated metric set per thread, reused (flush clears it)
    if m is None:
        m = _emf.metrics = EphemeralMetrics(namespace=core().metrics_namespace)
    m.clear_metrics()  # flush clears only when metrics are enabled; never carry a previous record's
    m.add_dimension("protocol", protocol)
    m.add_dimensions(protocol=protocol, agent=agent)
    return m, MetricUnit


def emit_turns(protocol: str, agent: str, turns: Iterable[Mapping[str, float]], reasons: Mapping[str, int]) -> None:
    """One EMF record for the turns (each a mapping of counters) of ``protocol`` and ``agent``, at most
    :data:`MAX_VALUES` per record; ``reasons``: why the deterministic policy answered, counted."""
    pending = list(turns)
    while pending:
        chunk, pending = pending[:MAX_VALUES], pending[MAX_VALUES:]
        m, unit = _metrics(protocol, agent)
        count = unit.Count
        for c in chunk:
            # always: what the dashboard averages and the alarms sum; the rest only when it happened
            m.add_metric("Turns", count, c.get("turns", 0))
            m.add_metric("Errors", count, c.get("errors", 0))
            m.add_metric("Fallback", count, c.get("fallbacks", 0))
            m.add_metric("Duration", unit.Milliseconds, c.get("duration_ms", 0))
            m.add_metric("DynamoDBCalls", count, c.get("ddb_calls", 0))
            for name, counter in (("BudgetFallback", "budget_fallbacks"), ("DynamoDBThrottles", "ddb_throttles")):
                if c.get(counter):
                    m.add_metric(name, count, c[counter])
            if c.get("llm_calls"):
                m.add_metric("LlmCalls", count, c["llm_calls"])
                m.add_metric("LlmErrors", count, c.get("llm_errors", 0))
                m.add_metric("TokensIn", count, c.get("tokens_in", 0))
                m.add_metric("TokensOut", count, c.get("tokens_out", 0))
                m.add_metric("LlmLatency", unit.Milliseconds,
                             c.get("llm_ms", 0) / c["llm_calls"])
        if reasons:
            m.add_metadata("fallback_reasons", dict(reasons))
        m.flush_metrics()


def emit_late(protocol: str, agent: str) -> None:
    """``UsageLate``: this turn's answer was due before its usage could be written (it waits for the next write)."""
    m, unit = _metrics(protocol, agent)
    m.add_metric("UsageLate", unit.Count, 1)
    m.flush_metrics()
