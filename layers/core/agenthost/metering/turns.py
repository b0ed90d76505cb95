"""The per-turn recorder (:class:`Turn`) and which turn is active: the one of this context, or, from a
thread that did not inherit the context, the process's only active turn (:func:`active_turn`)."""

from __future__ import annotations

import contextvars
import math
import threading
import time
from typing import Any

from agenthost.deadline import Deadline
from agenthost.metering.budget import budget_allows, remember
from agenthost.metering.emf import emit
from agenthost.metering.settings import config, core, log_warning
from agenthost.metering.usage import COUNTERS, MAX_ID, clean_id, day_of
from agenthost.metering.writes import add_counters, attributes, fold_entry
from agenthost.store import Store

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
    """Usage of one turn. Create with :func:`agenthost.metering.turn`; all methods are cheap and never raise."""

    def __init__(self, protocol: str, agent: str, *, store: Any = None, clock: Any = time.time,
                 decides: bool = False, counts_as_turn: bool = True):
        self.decides = decides
        self.protocol = clean_id(protocol)
        self.agent = clean_id(agent)
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
                from agenthost.llm.base import run_before

                call_by = Deadline.of(deadline, 0.0)
                allowed = run_before(call_by.reserve(core().llm_call_reserve_s, "the LLM call"), check)
        except Exception:  # noqa: BLE001 - metering must never fail a turn (a timeout included)
            log_warning("budget check failed or ran out of time; allowing the LLM call")
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
            self.model = str(model)[:MAX_ID]

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
        if not config().fold:
            return None
        self._finish_counters()
        snapshot = dict(self.counters)
        # the transaction itself: one call, two transactional writes of at least 2 WRU each
        snapshot["ddb_calls"] += 1
        snapshot["ddb_wru"] += 4
        entry = fold_entry(table_name or core().table_name, self.day, self._attributes(), snapshot,
                                  self.clock)
        self._pending_fold = (entry, snapshot)
        return entry

    # internals
    def _attributes(self) -> dict[str, Any]:
        return attributes(self.agent, self.protocol, self.day, self.model)

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
        emit(self.protocol, self.agent, self.counters, self._llm_latencies, self.fallback_reason)

    def _write(self) -> None:
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
        item = add_counters(self.store or Store(), self.day, self._attributes(), delta)
        self.written = item
        remember(self.day, self.agent, self.protocol, item, self.clock())


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


_null = _NullTurn()
_active: set[Turn] = set()
_active_lock = threading.Lock()


def active_turn() -> Turn | None:
    """The turn of this context; from a thread that did not inherit the context (a worker pool running
    the LLM call), the process's only active turn (a Lambda container runs one invocation at a time)."""
    found = _current.get()
    if found is not None:
        return found
    with _active_lock:
        return next(iter(_active)) if len(_active) == 1 else None


def current() -> Turn:
    """The turn active in this thread/context (see :func:`active_turn`), or a no-op recorder."""
    return active_turn() or _null


def opened(t: Turn) -> contextvars.Token[Turn | None]:
    """Make ``t`` the active turn (of this context, and in the process's set); see :func:`closed`."""
    token = _current.set(t)
    with _active_lock:
        _active.add(t)
    return token


def closed(t: Turn, token: contextvars.Token[Turn | None]) -> None:
    _current.reset(token)
    with _active_lock:
        _active.discard(t)
