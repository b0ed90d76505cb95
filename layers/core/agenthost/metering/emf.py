"""A turn's EMF record through Powertools Metrics (namespace from the core settings; dimension sets
``[protocol, service]`` and ``[protocol, agent]``): one line on stdout that CloudWatch turns into
metrics."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

from agenthost.metering.settings import core

_emf = threading.local()


def emit(protocol: str, agent: str, c: Mapping[str, float], llm_latencies: Sequence[float],
         fallback_reason: str | None, usage_late: bool = False) -> None:
    from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

    m = getattr(_emf, "metrics", None)  # one isolated metric set per thread, reused (flush clears it)
    if m is None:
        m = _emf.metrics = EphemeralMetrics(namespace=core().metrics_namespace)
    m.clear_metrics()  # flush clears only when metrics are enabled; never carry a previous turn's
    m.add_dimension("protocol", protocol)
    m.add_dimensions(protocol=protocol, agent=agent)
    count = MetricUnit.Count
    # always: what the dashboard averages and the alarms sum; the rest only when it happened
    m.add_metric("Turns", count, c["turns"])
    m.add_metric("Errors", count, c["errors"])
    m.add_metric("Fallback", count, c["fallbacks"])
    m.add_metric("Duration", MetricUnit.Milliseconds, c["duration_ms"])
    m.add_metric("DynamoDBCalls", count, c["ddb_calls"])
    if c["budget_fallbacks"]:
        m.add_metric("BudgetFallback", count, c["budget_fallbacks"])
    if c["ddb_throttles"]:
        m.add_metric("DynamoDBThrottles", count, c["ddb_throttles"])
    if c["llm_calls"]:
        m.add_metric("LlmCalls", count, c["llm_calls"])
        m.add_metric("LlmErrors", count, c["llm_errors"])
        m.add_metric("TokensIn", count, c["tokens_in"])
        m.add_metric("TokensOut", count, c["tokens_out"])
        for latency in llm_latencies:
            m.add_metric("LlmLatency", MetricUnit.Milliseconds, latency)
    if usage_late:  # the answer was due: the turn's usage waits for the container's next write
        m.add_metric("UsageLate", count, 1)
    if fallback_reason:
        m.add_metadata("fallback_reason", fallback_reason)
    m.flush_metrics()
