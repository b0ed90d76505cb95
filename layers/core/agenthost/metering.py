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
"""

from __future__ import annotations

import contextvars
import json
import math
import platform
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from agenthost import aws
from agenthost.deadline import Deadline
from agenthost.pricing import prices
from agenthost.store import keys

#: The numeric counters of a usage record, in report order.
COUNTERS = (
    "turns", "errors", "llm_calls", "llm_errors", "tokens_in", "tokens_out", "llm_ms", "fallbacks",
    "budget_fallbacks", "duration_ms", "mb_ms", "invocations", "ddb_calls", "ddb_rru", "ddb_wru",
    "ddb_throttles", "ws_messages", "ws_connection_minutes", "url_turns",
)
USAGE_TTL_S = 400 * 86400
_READS = {"GetItem": 0.5, "Query": 0.5, "Scan": 0.5, "BatchGetItem": 0.5, "TransactGetItems": 2.0}
_WRITES = {"PutItem": 1.0, "UpdateItem": 1.0, "DeleteItem": 1.0, "BatchWriteItem": 1.0,
           "TransactWriteItems": 2.0}
_THROTTLES = {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
_MAX_ID = 128


def usage_key(day: str, agent: str, protocol: str) -> dict[str, str]:
    """Key of one agent's usage of one protocol on one UTC day."""
    return keys.usage(day, agent, protocol)


def day_of(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).strftime("%Y-%m-%d")


def _clean_id(value: Any) -> str:
    text = str(value or "").strip()
    return text[:_MAX_ID] if text else "unknown"


# --- configuration --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Budget:
    """A daily LLM budget; ``None`` means no limit on that measure."""

    tokens: int | None = None
    usd: float | None = None

    @property
    def limited(self) -> bool:
        return self.tokens is not None or self.usd is not None


def _positive_float(raw: Any, name: str) -> float | None:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    try:
        value = float(raw)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc
    return value if value > 0 else None


@dataclass(frozen=True)
class MeteringConfig:
    default_budget: Budget
    budgets: dict[str, Budget]
    budget_cache_s: float
    memory_mb: int
    arch: str
    fold: bool = False

    @classmethod
    def from_env(cls) -> MeteringConfig:
        from agenthost.config import settings as core_settings

        cfg = core_settings()
        tokens = _positive_float(cfg.llm_budget_tokens, "AGENTHOST_LLM_BUDGET_TOKENS")
        usd = _positive_float(cfg.llm_budget_usd, "AGENTHOST_LLM_BUDGET_USD")
        default = Budget(int(tokens) if tokens else None, usd)
        budgets: dict[str, Budget] = {}
        raw = cfg.llm_budgets.strip()
        if raw:
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise ValueError(f"AGENTHOST_LLM_BUDGETS is not valid JSON: {exc.msg}") from exc
            if not isinstance(data, dict):
                raise ValueError("AGENTHOST_LLM_BUDGETS must be a JSON object of agent -> {tokens, usd}")
            for agent, spec in data.items():
                if not isinstance(spec, dict):
                    raise ValueError(f"AGENTHOST_LLM_BUDGETS[{agent!r}] must be an object with tokens and/or usd")
                t = _positive_float(spec.get("tokens"), f"AGENTHOST_LLM_BUDGETS[{agent!r}].tokens")
                u = _positive_float(spec.get("usd"), f"AGENTHOST_LLM_BUDGETS[{agent!r}].usd")
                budgets[str(agent)] = Budget(int(t) if t else None, u)
        machine = platform.machine().lower()
        return cls(
            default_budget=default,
            budgets=budgets,
            budget_cache_s=cfg.budget_cache_s,
            memory_mb=cfg.memory,
            arch="arm64" if machine in ("aarch64", "arm64") else "x86_64",
            fold=cfg.metering_fold,
        )

    def budget_for(self, agent: str) -> Budget:
        return self.budgets.get(agent, self.default_budget)


def _core() -> Any:
    from agenthost.config import settings as core_settings

    return core_settings()


@lru_cache(maxsize=1)
def config() -> MeteringConfig:
    return MeteringConfig.from_env()


def reset() -> None:
    """Forget cached configuration (the settings it is read from included) and budget snapshots (tests)."""
    from agenthost.config import settings as core_settings

    core_settings.cache_clear()
    config.cache_clear()
    prices.cache_clear()
    with _cache_lock:
        _day_cache.clear()


# --- today's totals per agent (budget checks) ------------------------------------------------------

_cache_lock = threading.Lock()
# (day, agent) -> (fetched_at, {protocol: {"tokens_in", "tokens_out", "model"}})
_day_cache: dict[tuple[str, str], tuple[float, dict[str, dict[str, Any]]]] = {}


def _remember(day: str, agent: str, protocol: str, item: Mapping[str, Any], now: float) -> None:
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
    day, agent = day_of(ts), _clean_id(agent)
    with _cache_lock:
        cached = _day_cache.get((day, agent))
    if cached is None or ts - cached[0] > config().budget_cache_s:
        from agenthost.store import Store

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
    budget = config().budget_for(_clean_id(agent))
    if not budget.limited:
        return True
    spent = spent_today(agent, store=store, now=now)
    if budget.tokens is not None and spent["tokens"] >= budget.tokens:
        return False
    return not (budget.usd is not None and spent["usd"] >= budget.usd)


# --- the per-turn recorder -------------------------------------------------------------------------

_current: contextvars.ContextVar[Turn | None] = contextvars.ContextVar("agenthost_turn", default=None)
_via_url: contextvars.ContextVar[bool] = contextvars.ContextVar("agenthost_via_function_url", default=False)


def arrived(event: Any) -> None:
    """Note how the current invocation's request arrived, before its turn opens: through a Lambda
    function URL (``requestContext.domainName`` ``<id>.lambda-url.<region>.on.aws``; no API Gateway
    request is billed) or not. Its turns then count in ``url_turns``, which the cost model prices at the
    ``function_url`` rate instead of the HTTP API's. Called by every HTTP entry point for every event."""
    ctx = event.get("requestContext") if isinstance(event, dict) else None
    domain = ctx.get("domainName") if isinstance(ctx, dict) else None
    _via_url.set(isinstance(domain, str) and ".lambda-url." in domain)


class Turn:
    """Usage of one turn. Create with :func:`turn`; all methods are cheap and never raise."""

    def __init__(self, protocol: str, agent: str, *, store: Any = None, clock: Any = time.time,
                 decides: bool = False, counts_as_turn: bool = True):
        self.decides = decides
        self.protocol = _clean_id(protocol)
        self.agent = _clean_id(agent)
        self.store = store
        self.clock = clock
        self.started_at = clock()
        self.day = day_of(self.started_at)
        self.model: str | None = None
        self.fallback_reason: str | None = None
        #: set by :meth:`answered`: a user's agent (``agenthost.plugins``) answered this turn itself
        self.agent_answered = False
        self.budget_blocked = False
        self.counters: dict[str, float] = dict.fromkeys(COUNTERS, 0)
        self.counters["turns"] = 1 if counts_as_turn else 0
        self.counters["invocations"] = 1
        if counts_as_turn and _via_url.get():
            self.counters["url_turns"] = 1
        self._t0 = time.perf_counter()
        self._folded: dict[str, float] | None = None  # counters already written by a committed fold
        self._pending_fold: Any = None
        self._llm_latencies: list[float] = []
        self.written: dict[str, Any] | None = None

    # what protocols record
    def llm_allowed(self, deadline: Deadline | float | None = None) -> bool:
        """False when the agent's daily LLM budget is spent: answer with the deterministic policy
        (the turn then counts as a budget fallback). Errors reading usage allow the call. ``deadline``
        (the LLM call's): the check ends ``llm_call_reserve_s`` before it, leaving that for the call; a
        check that cannot finish in time allows the call (the call itself is bounded by the same deadline)."""
        if not config().budget_for(self.agent).limited:
            return True  # no budget: no I/O at all

        def check() -> bool:
            return budget_allows(self.agent, store=self.store, now=self.clock())

        try:
            if deadline is None:
                allowed = check()
            else:
                from agenthost.config import settings as core_settings
                from agenthost.llm.base import run_before

                call_by = Deadline.of(deadline, 0.0)
                allowed = run_before(call_by.reserve(core_settings().llm_call_reserve_s, "the LLM call"), check)
        except Exception:  # noqa: BLE001 - metering must never fail a turn (a timeout included)
            _log_warning("budget check failed or ran out of time; allowing the LLM call")
            return True
        if not allowed:
            self.budget_blocked = True
        return allowed

    def llm(self, *, tokens_in: int = 0, tokens_out: int = 0, latency_ms: float = 0.0,
            model: str | None = None, error: bool = False, calls: int = 1) -> None:
        """One LLM call (or ``calls`` retried ones): token usage as the provider reported it, latency and
        whether it failed."""
        c = self.counters
        calls = max(1, int(calls or 1))
        c["llm_calls"] += calls
        c["tokens_in"] += max(0, int(tokens_in or 0))
        c["tokens_out"] += max(0, int(tokens_out or 0))
        c["llm_ms"] += max(0.0, float(latency_ms or 0.0))
        self._llm_latencies.append(max(0.0, float(latency_ms or 0.0)))
        if error:  # every attempt of a call that failed in the end failed
            c["llm_errors"] += calls
        if model:
            self.model = str(model)[:_MAX_ID]

    def answered(self) -> None:
        """A user's agent answered this turn (no LLM of ours needed): not a fallback."""
        self.agent_answered = True

    def fallback(self, reason: str = "policy") -> None:
        """The deterministic policy answered this turn (``reason``: ``budget``, ``llm_error``, ``timeout``,
        ``invalid``, ``no_llm``...). Counted once per turn."""
        if self.fallback_reason is None:
            self.fallback_reason = reason
        self.counters["fallbacks"] = 1
        if reason == "budget":
            self.budget_blocked = True

    def ws(self, *, messages: int = 0, connection_minutes: float = 0.0) -> None:
        """WebSocket messages (each 32 KB unit counts) and connection minutes this turn caused."""
        self.counters["ws_messages"] += max(0, int(messages))
        self.counters["ws_connection_minutes"] += max(0.0, float(connection_minutes))

    def error(self) -> None:
        """The turn failed (it still answered, in the protocol's error shape)."""
        self.counters["errors"] = 1

    # folding into the protocol's own write
    def fold(self, table_name: str | None = None) -> dict[str, Any] | None:
        """A ``TransactWriteItems`` entry adding this turn's counters so far to the daily usage item, or
        ``None`` when folding is off (``AGENTHOST_METERING_FOLD``, default off: the counters are then one
        ``ADD`` on exit).

        Pass it as ``store.put(item, also=[t.fold()])``: one round trip instead of two, but DynamoDB bills
        a transaction at 2 WRU per item, so a fold costs more than the separate ``ADD`` it saves. Counters
        recorded after the fold are written on exit; a fold whose transaction failed is written on exit
        in full."""
        from agenthost.config import settings
        from agenthost.store import marshal

        if not config().fold:
            return None
        self._finish_counters()
        snapshot = dict(self.counters)
        # the transaction itself: one call, two transactional writes of at least 2 WRU each
        snapshot["ddb_calls"] += 1
        snapshot["ddb_wru"] += 4
        expr, names, values = _update_expression(self, snapshot)
        entry = {"Update": {
            "TableName": table_name or settings().table_name,
            "Key": marshal(usage_key(self.day, self.agent, self.protocol)),
            "UpdateExpression": expr,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": marshal(values),
        }}
        self._pending_fold = (entry, snapshot)
        return entry

    # internals
    def _finish_counters(self) -> None:
        c = self.counters
        elapsed = (time.perf_counter() - self._t0) * 1000
        c["duration_ms"] = round(elapsed, 3)
        c["mb_ms"] = math.ceil(elapsed) * config().memory_mb
        answered_by_llm = c["llm_calls"] - c["llm_errors"] > 0 or (self.agent_answered and not c["fallbacks"])
        if self.budget_blocked and not answered_by_llm:
            c["fallbacks"] = 1
            c["budget_fallbacks"] = 1
            self.fallback_reason = "budget"
        elif self.budget_blocked and self.fallback_reason == "budget":
            c["budget_fallbacks"] = 1
        elif self.decides and not answered_by_llm:
            # a policy answered this turn and no LLM call succeeded: the deterministic policy did
            c["fallbacks"] = 1
            self.fallback_reason = self.fallback_reason or ("llm_error" if c["llm_errors"] else "no_llm")

    def _fold_committed(self) -> None:
        if self._pending_fold is not None:
            self._folded = self._pending_fold[1]
            self._pending_fold = None

    def _emit(self) -> None:
        from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

        c = self.counters
        m = getattr(_emf, "metrics", None)  # one isolated metric set per thread, reused (flush clears it)
        if m is None:
            m = _emf.metrics = EphemeralMetrics(
                namespace=_core().metrics_namespace)
        m.clear_metrics()  # flush clears only when metrics are enabled; never carry a previous turn's
        m.add_dimension("protocol", self.protocol)
        m.add_dimensions(protocol=self.protocol, agent=self.agent)
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
            for latency in self._llm_latencies:
                m.add_metric("LlmLatency", MetricUnit.Milliseconds, latency)
        if self.fallback_reason:
            m.add_metadata("fallback_reason", self.fallback_reason)
        m.flush_metrics()

    def _write(self) -> None:
        from agenthost.store import Store

        delta = dict(self.counters)
        if self._folded is not None:
            delta = {k: v - self._folded.get(k, 0) for k, v in delta.items()}
            # only handler time ran on after the fold: nothing worth a second write
            if not any(v for k, v in delta.items() if k not in ("duration_ms", "mb_ms", "ddb_calls",
                                                                "ddb_rru", "ddb_wru")):
                return
        else:
            # the counter write itself is part of this turn's DynamoDB use
            delta["ddb_calls"] += 1
            delta["ddb_wru"] += 1
            self.counters["ddb_calls"] += 1
            self.counters["ddb_wru"] += 1
        store = self.store or Store()
        expr_counters = {k: v for k, v in delta.items() if v}
        for attempt in range(3):
            try:
                item = store.update(
                    f"USAGE#{self.day}", f"{self.agent}#{self.protocol}",
                    set_=_attributes(self), add=expr_counters, ttl_s=USAGE_TTL_S,
                )
                break
            except Exception as exc:
                # a concurrent fold (transaction) on the same item: DynamoDB asks to retry
                code = getattr(exc, "response", {}).get("Error", {}).get("Code")
                if code != "TransactionConflictException" or attempt == 2:
                    raise
                time.sleep(0.01 * (attempt + 1))
        self.written = item
        _remember(self.day, self.agent, self.protocol, item, self.clock())


_emf = threading.local()


class _NullTurn(Turn):
    """What :func:`current` returns outside a turn: records nothing anywhere."""

    def __init__(self) -> None:
        super().__init__("none", "none")

    def llm_allowed(self, deadline: Deadline | float | None = None) -> bool:
        return True

    def llm(self, **_: Any) -> None:
        return None

    def fallback(self, reason: str = "policy") -> None:
        return None

    def answered(self) -> None:
        return None

    def ws(self, **_: Any) -> None:
        return None

    def error(self) -> None:
        return None

    def fold(self, table_name: str | None = None) -> None:
        return None  # outside a turn there is nothing to write


def _attributes(t: Turn) -> dict[str, Any]:
    attrs: dict[str, Any] = {"agent": t.agent, "protocol": t.protocol, "day": t.day, "arch": config().arch,
                             "memory_mb": config().memory_mb}
    if t.model:
        attrs["model"] = t.model
    return attrs


def _update_expression(t: Turn, counters: Mapping[str, float]) -> tuple[str, dict[str, str], dict[str, Any]]:
    from agenthost.store import Store

    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    sets, adds = [], []
    for i, (k, v) in enumerate(_attributes(t).items()):
        names[f"#s{i}"], values[f":s{i}"] = k, v
        sets.append(f"#s{i} = :s{i}")
    names["#exp"], values[":exp"] = "expires_at", Store(table_name="-", clock=t.clock).now() + USAGE_TTL_S
    sets.append("#exp = :exp")
    for i, (k, v) in enumerate((k, v) for k, v in counters.items() if v):
        names[f"#a{i}"], values[f":a{i}"] = k, v
        adds.append(f"#a{i} :a{i}")
    return "SET " + ", ".join(sets) + (" ADD " + ", ".join(adds) if adds else ""), names, values


_null = _NullTurn()


_active: set[Turn] = set()
_active_lock = threading.Lock()


def _active_turn() -> Turn | None:
    """The turn of this context; from a thread that did not inherit the context (a worker pool running
    the LLM call), the process's only active turn (a Lambda container runs one invocation at a time)."""
    found = _current.get()
    if found is not None:
        return found
    with _active_lock:
        return next(iter(_active)) if len(_active) == 1 else None


def current() -> Turn:
    """The turn active in this thread/context (see :func:`_active_turn`), or a no-op recorder."""
    return _active_turn() or _null


@contextmanager
def turn(protocol: str, agent: str, *, store: Any = None, clock: Any = time.time,
         decides: bool = False, counts_as_turn: bool = True) -> Iterator[Turn]:
    """Meter one turn of ``protocol`` for ``agent`` (see the module docstring). ``decides``: an agent
    policy answers this turn, so a turn without a successful LLM call counts as a deterministic
    fallback. ``counts_as_turn=False``: an invocation that is not a turn (a timer, a connect) whose
    costs still count (``invocations``, duration, DynamoDB, WebSocket). An exception escaping the block
    counts as an error and is re-raised; metering itself never raises."""
    t = Turn(protocol, agent, store=store, clock=clock, decides=decides, counts_as_turn=counts_as_turn)
    _instrument()
    token = _current.set(t)
    with _active_lock:
        _active.add(t)
    try:
        yield t
    except BaseException as exc:
        # a refusal the protocol answers with a 4xx (its ApiError/HTTPException) is not a failed turn
        status = getattr(exc, "status", None) or getattr(exc, "status_code", None)
        if not (isinstance(status, int) and status < 500):
            t.counters["errors"] = 1
        raise
    finally:
        _current.reset(token)
        with _active_lock:
            _active.discard(t)
        _close(t)


def _close(t: Turn) -> None:
    t._finish_counters()
    try:
        t._write()
    except Exception:  # noqa: BLE001 - a lost counter write is logged, never fails the turn
        _log_warning("usage counters not written")
    try:
        t._emit()
    except Exception:  # noqa: BLE001
        _log_warning("usage metrics not emitted")


def _log_warning(message: str) -> None:
    try:
        from aws_lambda_powertools import Logger

        Logger(service=_core().service_name).warning(
            message, exc_info=True)
    except Exception:  # noqa: BLE001, S110 - logging must not fail the turn either
        pass


def wrap_handler(handler: Any, protocol: str, *, agent: str | Any,
                 is_turn: Any = None, decides: bool = False, ws_messages: int = 0) -> Any:
    """A Lambda handler that meters each invocation ``is_turn(event)`` accepts (default: every one) as a
    turn of ``protocol`` for ``agent`` (a string or ``agent(event) -> str``); ``ws_messages``: WebSocket
    messages each turn costs (the request and its reply: 2). For protocols with no place inside the
    app to open the turn."""
    def metered_handler(event: Any, context: Any) -> Any:
        arrived(event)
        if is_turn is not None and not is_turn(event):
            return handler(event, context)
        name = agent(event) if callable(agent) else agent
        with turn(protocol, name, decides=decides) as t:
            if ws_messages:
                t.ws(messages=ws_messages)
            result = handler(event, context)
            status = result.get("statusCode") if isinstance(result, dict) else None
            if isinstance(status, int) and status >= 500:
                t.error()
            return result

    return metered_handler


# --- LLM providers: budget check and usage per call ------------------------------------------------

class MeteredProvider:
    """Wraps an ``agenthost.llm`` provider: each ``complete_json`` first checks the current turn's
    budget (over it: raises ``LlmError``, so the caller's deterministic fallback answers) and reports
    tokens, latency and failures to :func:`current`. Everything else is the wrapped provider's."""

    def __init__(self, provider: Any):
        self._provider = provider

    def __getattr__(self, name: str) -> Any:
        return getattr(self._provider, name)

    def complete_json(self, messages: Any, schema: Any, deadline: Deadline | float, *args: Any, **kwargs: Any) -> Any:
        from agenthost.llm.base import LlmError

        t = current()
        if not t.llm_allowed(deadline):
            raise LlmError("the agent's daily LLM budget is spent")
        started = time.perf_counter()
        model = getattr(self._provider, "model", None)
        try:
            obj, usage = self._provider.complete_json(messages, schema, deadline, *args, **kwargs)
        except Exception as exc:
            spent = getattr(exc, "usage", None)  # tokens of replies that were invalid: paid for all the same
            t.llm(tokens_in=getattr(spent, "input_tokens", 0) or 0, tokens_out=getattr(spent, "output_tokens", 0) or 0,
                  latency_ms=(time.perf_counter() - started) * 1000, model=model, error=True,
                  calls=getattr(spent, "calls", 0) or 1)
            raise
        t.llm(tokens_in=getattr(usage, "input_tokens", 0), tokens_out=getattr(usage, "output_tokens", 0),
              latency_ms=(time.perf_counter() - started) * 1000, model=model,
              calls=getattr(usage, "calls", 1) or 1)
        return obj, usage


def metered(provider: Any) -> Any:
    """``provider`` wrapped in :class:`MeteredProvider` (None stays None; never wrapped twice)."""
    if provider is None or isinstance(provider, MeteredProvider):
        return provider
    return MeteredProvider(provider)


# --- botocore hooks: DynamoDB calls, capacity and throttles per turn ------------------------------

_instrument_lock = threading.Lock()
_FOLD_KEY = "agenthost_fold"


def _instrument() -> None:
    """Register the hooks on every cached DynamoDB client (protocols may use their own client config)."""
    try:
        aws.client("dynamodb")
        found = [c for key, c in list(aws._clients.items()) if key[0] == "dynamodb"]
    except Exception:  # noqa: BLE001 - no client, nothing to count
        return
    for client in found:
        events = client.meta.events
        if getattr(events, "_agenthost_metered", False):
            continue
        with _instrument_lock:
            if getattr(events, "_agenthost_metered", False):
                continue
            events.register("provide-client-params.dynamodb", _before_call, unique_id="agenthost-metering-params")
            events.register("after-call.dynamodb", _after_call, unique_id="agenthost-metering-after")
            events.register("after-call-error.dynamodb", _after_error, unique_id="agenthost-metering-error")
            events.register("needs-retry.dynamodb", _on_retry, unique_id="agenthost-metering-retry")
            events._agenthost_metered = True


def _before_call(params: dict[str, Any], model: Any, context: dict[str, Any] | None = None,
                 **_: Any) -> None:
    t = _active_turn()
    if t is None:
        return
    op = model.name
    if op in _READS or op in _WRITES:
        params.setdefault("ReturnConsumedCapacity", "TOTAL")
    if op == "TransactWriteItems" and t._pending_fold is not None and context is not None:
        entry = t._pending_fold[0]
        if any(item is entry or item == entry for item in params.get("TransactItems", ())):
            context[_FOLD_KEY] = t


def _capacity(parsed: Mapping[str, Any]) -> float:
    cc = parsed.get("ConsumedCapacity")
    if isinstance(cc, dict):
        return float(cc.get("CapacityUnits") or 0)
    if isinstance(cc, list):
        return sum(float(c.get("CapacityUnits") or 0) for c in cc if isinstance(c, dict))
    return 0.0


def _after_call(http_response: Any = None, parsed: Mapping[str, Any] | None = None, model: Any = None,
                context: dict[str, Any] | None = None, **_: Any) -> None:
    t = _active_turn()
    if t is None or model is None:
        return
    op = model.name
    c = t.counters
    c["ddb_calls"] += 1
    units = _capacity(parsed or {})
    if op in _WRITES:
        floor = _WRITES[op]
        ok = getattr(http_response, "status_code", 200) < 300  # after-call also follows error replies
        folded = context is not None and context.get(_FOLD_KEY) is t
        if op == "TransactWriteItems" and folded:
            floor *= 2  # at least two items: the protocol's and the counters
            if ok:
                t._fold_committed()
        c["ddb_wru"] += max(units, floor)
    elif op in _READS:
        c["ddb_rru"] += max(units, _READS[op])


def _after_error(model: Any = None, **_: Any) -> None:
    t = _active_turn()
    if t is not None:
        t.counters["ddb_calls"] += 1


def _on_retry(response: Any = None, **_: Any) -> None:
    t = _active_turn()
    if t is None or not response or not isinstance(response, tuple) or len(response) < 2:
        return
    parsed = response[1] or {}
    code = parsed.get("Error", {}).get("Code") if isinstance(parsed, dict) else None
    if code in _THROTTLES:
        t.counters["ddb_throttles"] += 1
