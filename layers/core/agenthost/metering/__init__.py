"""Pay-per-turn metering: usage per turn, daily per-agent counters, LLM budgets.

LLM calls made through ``agenthost.llm.provider_from_settings()`` are metered by :class:`MeteredProvider`
(budget check before, tokens/latency/failure after); protocol code only opens the turn. Wrap every
protocol turn (a webhook call, a ``/step``, a capability call, an evaluation message)::

    from agenthost import metering

    with metering.turn("olympics", agent_id) as t:
        if t.llm_allowed():                 # False past the agent's daily LLM budget
            ...                             # call the LLM, then:
            t.llm(tokens_in=812, tokens_out=64, latency_ms=930.0, model="gpt-4o-mini")
        else:
            ...                             # the deterministic policy answers (recorded automatically)
        t.fallback("llm_error")             # whenever the deterministic policy answered instead

On exit the turn

* emits one EMF record through Powertools Metrics (namespace ``agenthost``; dimension sets
  ``[protocol, service]`` and ``[protocol, agent]``): ``Turns``, ``Errors``, ``LlmCalls``, ``LlmErrors``,
  ``TokensIn``, ``TokensOut``, ``LlmLatency``, ``Fallback``, ``BudgetFallback``, ``Duration``,
  ``DynamoDBCalls``, ``DynamoDBThrottles``;
* adds its counters to the agent's daily usage item with one atomic ``UpdateItem`` (``ADD``), unless
  they were already folded into the protocol's own write: with ``AGENTHOST_METERING_FOLD=true``,
  ``store.put(item, also=[t.fold()])`` sends the protocol's put and the counters in one
  ``TransactWriteItems`` (one round trip fewer, but 2 WRU per item instead of 1: off by default, see
  the README's cost model; anything recorded after the fold is written on exit, so counters stay exact).

DynamoDB calls, throttles and consumed capacity are counted by a botocore hook on the shared DynamoDB
client for the turn that is active in the calling thread (:func:`current`), so protocol code does not
report them. Code without a turn object (the LLM client) reports through ``metering.current()``,
which is a no-op recorder outside a turn. Metering never fails a turn: a failed counter write is logged.

Usage items: ``pk = USAGE#<yyyy-mm-dd>`` (UTC), ``sk = <agent>#<protocol>``, attributes ``agent``,
``protocol``, ``day``, the counters in :data:`COUNTERS`, and ``model``/``arch``/``memory_mb`` of the
last turn. A day's items for one agent are one ``Query``; a date range is one ``Query`` per day.

Budgets (daily, per agent, UTC days; tokens = in + out, dollars from :mod:`agenthost.pricing`):
``AGENTHOST_LLM_BUDGET_TOKENS``, ``AGENTHOST_LLM_BUDGET_USD`` (defaults for every agent; empty or 0 =
none) and ``AGENTHOST_LLM_BUDGETS`` (JSON, per agent: ``{"agent-1": {"tokens": 50000, "usd": 0.5}}``).
Past a budget the turn is still answered, by the deterministic policy, and counts as ``fallbacks`` and
``budget_fallbacks``. The day's totals are cached per container for ``AGENTHOST_BUDGET_CACHE_S``
(default 5 s) and refreshed from each counter write, so a budget check usually costs no read.

The package, by concern: :mod:`~agenthost.metering.settings` (budgets and the rest of its configuration,
read from :mod:`agenthost.config`), :mod:`~agenthost.metering.usage` (the usage item's key and counters),
:mod:`~agenthost.metering.budget` (today's spend per agent, cached), :mod:`~agenthost.metering.turns` (the
per-turn recorder and which turn is active), :mod:`~agenthost.metering.writes` (the counter write and the
fold), :mod:`~agenthost.metering.emf` (the EMF record), :mod:`~agenthost.metering.hooks` (the botocore
hooks) and :mod:`~agenthost.metering.wrappers` (``turn()``, ``wrap_handler``, ``metered``).
"""

from __future__ import annotations

from agenthost.metering.budget import budget_allows, reset, spent_today
from agenthost.metering.settings import Budget, MeteringConfig, config
from agenthost.metering.turns import Turn, arrived, current
from agenthost.metering.usage import COUNTERS, USAGE_TTL_S, day_of, usage_key
from agenthost.metering.wrappers import MeteredProvider, metered, turn, wrap_handler

__all__ = [
    "COUNTERS", "USAGE_TTL_S", "Budget", "MeteredProvider", "MeteringConfig", "Turn", "arrived", "budget_allows",
    "config", "current", "day_of", "metered", "reset", "spent_today", "turn", "usage_key", "wrap_handler",
]
