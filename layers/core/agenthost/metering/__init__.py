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

The turn's usage rides on the writes it makes anyway (:mod:`~agenthost.metering.carry`): every
``Put``/``Update`` sent through :class:`agenthost.store.Store` while the turn is open carries, in its
``usage`` attribute, what the turn recorded since its previous write. The table's DynamoDB Stream delivers
the item to the usage rollup (``functions/usage/rollup.py``), which adds the entries to the agent's daily
usage item once per stream record (a re-delivered batch is not counted twice) and writes the turns' EMF
metrics (namespace ``agenthost``; dimension sets ``[protocol, service]`` and ``[protocol, agent]``:
``Turns``, ``Errors``, ``LlmCalls``, ``LlmErrors``, ``TokensIn``, ``TokensOut``, ``LlmLatency``, ``Fallback``,
``BudgetFallback``, ``Duration``, ``DynamoDBCalls``, ``DynamoDBThrottles``; :mod:`~agenthost.metering.emf`). A
turn that wrote nothing of its own (a replayed webhook, a read-only call) writes one small usage item of its
own on exit (``TURNUSAGE#<id>``, read from the stream like any other), unless its answer is due
(``AGENTHOST_USAGE_WRITE_RESERVE_S`` before its deadline): then its usage, like anything recorded after a
turn's last write, waits for the container's next write, and the turn's own EMF line says ``UsageLate``.

DynamoDB calls, throttles and consumed capacity are counted by a botocore hook on the shared DynamoDB
client for the turn that is active in the calling thread (:func:`current`), so protocol code does not
report them. Code without a turn object (the LLM client) reports through ``metering.current()``,
which is a no-op recorder outside a turn. Metering never fails a turn: a failed usage write is logged
and its usage waits for the next write.

Usage items: ``pk = USAGE#<yyyy-mm-dd>`` (UTC), ``sk = <agent>#<protocol>``, attributes ``agent``,
``protocol``, ``day``, the counters in :data:`COUNTERS`, and ``model``/``arch``/``memory_mb`` of the
last turn. A day's items for one agent are one ``Query``; a date range is one ``Query`` per day.

Budgets (daily, per agent, UTC days; tokens = in + out, dollars from :mod:`agenthost.pricing`):
``AGENTHOST_LLM_BUDGET_TOKENS``, ``AGENTHOST_LLM_BUDGET_USD`` (defaults for every agent; empty or 0 =
none) and ``AGENTHOST_LLM_BUDGETS`` (JSON, per agent: ``{"agent-1": {"tokens": 50000, "usd": 0.5}}``).
Past a budget the turn is still answered, by the deterministic policy, and counts as ``fallbacks`` and
``budget_fallbacks``. A check reads the rolled-up day totals (cached per container for
``AGENTHOST_BUDGET_CACHE_S``, default 5 s, so it usually costs no read) plus this container's turns that the
rollup has not added yet (:mod:`~agenthost.metering.budget`).

The package, by concern: :mod:`~agenthost.metering.settings` (budgets and the rest of its configuration,
read from :mod:`agenthost.config`), :mod:`~agenthost.metering.usage` (the usage item's key and counters),
:mod:`~agenthost.metering.budget` (today's spend per agent: rolled up, cached, plus the turns in flight),
:mod:`~agenthost.metering.turns` (the per-turn recorder, which turn is active, the rider on its writes),
:mod:`~agenthost.metering.carry` (usage riding on writes, and what waits for the next one),
:mod:`~agenthost.metering.writes` (a turn's own usage item), :mod:`~agenthost.metering.emf` (the EMF
records the rollup writes), :mod:`~agenthost.metering.hooks` (the botocore hooks) and
:mod:`~agenthost.metering.wrappers` (``turn()``, ``wrap_handler``, ``metered``).
"""

from __future__ import annotations

from agenthost.invocation import arrived
from agenthost.metering import carry
from agenthost.metering.budget import budget_allows, spent_today
from agenthost.metering.budget import reset as _reset_budget
from agenthost.metering.settings import Budget, MeteringConfig, config
from agenthost.metering.turns import Turn, current, isolated
from agenthost.metering.usage import COUNTERS, USAGE_ATTR, USAGE_COST_COUNTERS, USAGE_TTL_S, day_of, usage_key
from agenthost.metering.wrappers import MeteredProvider, metered, turn, wrap_handler


def reset() -> None:
    """Forget cached configuration, budget snapshots, turns in flight and usage waiting for a write (tests)."""
    _reset_budget()
    carry.reset()


__all__ = [
    "COUNTERS", "USAGE_ATTR", "USAGE_COST_COUNTERS", "USAGE_TTL_S", "Budget", "MeteredProvider", "MeteringConfig",
    "Turn", "arrived", "budget_allows", "config", "current", "day_of", "isolated", "metered", "reset",
    "spent_today", "turn", "usage_key", "wrap_handler",
]
