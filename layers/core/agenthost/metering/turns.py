"""The per-turn recorder (:class:`Turn`) and which turn is active: the one of this context, or, from a
thread that did not inherit the context, the process's only active turn (:func:`active_turn`). A turn's
usage rides on its own writes (:func:`rider`, registered with :func:`agenthost.riders.ride_on_writes`)."""

from __future__ import annotations

import contextvars
import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agenthost import riders
from agenthost.deadline import Deadline
from agenthost.invocation import via_function_url
from agenthost.metering import carry
from agenthost.metering.budget import budget_allows, flying
from agenthost.metering.emf import emit_late
from agenthost.metering.settings import config, core, log_warning
from agenthost.metering.usage import COUNTERS, MAX_ID, USAGE_ATTR, USAGE_COST_COUNTERS, clean_id, day_of
from agenthost.metering.writes import attributes

_current: contextvars.ContextVar[Turn | None] = contextvars.ContextVar("agenthost_turn", default=None)
#: set around one invocation of its own (the local stack runs many functions in one process): no falling back
#: to another invocation's turn
_isolated: contextvars.ContextVar[bool] = contextvars.ContextVar("agenthost_isolated", default=False)


class Turn:
    """Usage of one turn. Create with :func:`agenthost.metering.turn`; all methods are cheap and never raise."""

    def __init__(self, protocol: str, agent: str, *, store: Any = None, clock: Any = time.time,
                 decides: bool = False, counts_as_turn: bool = True, deadline: Deadline | None = None):
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
        if counts_as_turn and via_function_url():
            self.counters["url_turns"] = 1
        self._t0 = time.perf_counter()
        #: the answer's deadline: metering's own write is skipped when it would make the answer late
        self.deadline = deadline
        #: what the turn's applied writes carried so far (see :func:`rider`)
        self.carried: dict[str, float] = dict.fromkeys(COUNTERS, 0)
        self._llm_latencies: list[float] = []
        #: the answer was due: what no write carried waits for the container's next write
        self.usage_late = False

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

    # internals
    def _attributes(self) -> dict[str, Any]:
        return attributes(self.agent, self.protocol, self.day, self.model)

    def final(self) -> dict[str, float]:
        """The counters as they stand now, with the time so far and whether the deterministic policy answered
        (a deciding turn without a successful LLM call, or one the budget stopped)."""
        c = dict(self.counters)
        elapsed = (time.perf_counter() - self._t0) * 1000
        c["duration_ms"] = round(elapsed, 3)
        c["mb_ms"] = math.ceil(elapsed) * config().memory_mb
        answered_by_llm = self._answered_by_llm(c)
        if self.budget_blocked and not answered_by_llm:
            c["fallbacks"] = 1
            c["budget_fallbacks"] = 1
        elif self.budget_blocked and self.fallback_reason == "budget":
            c["budget_fallbacks"] = 1
        elif self.decides and not answered_by_llm:
            # a policy answered this turn and no LLM call succeeded: the deterministic policy did
            c["fallbacks"] = 1
        return c

    def _answered_by_llm(self, c: dict[str, float]) -> bool:
        return c["llm_calls"] - c["llm_errors"] > 0 or (self.agent_answered and not self.counters["fallbacks"])

    def _why(self, c: dict[str, float]) -> str | None:
        """Why the deterministic policy answered (None: it did not)."""
        if self.budget_blocked and not self._answered_by_llm(c):
            return "budget"
        if self.decides and not self._answered_by_llm(c):
            return self.fallback_reason or ("llm_error" if c["llm_errors"] else "no_llm")
        return self.fallback_reason if c["fallbacks"] else None

    def _finish_counters(self) -> None:
        c = self.counters = self.final()
        self.fallback_reason = self._why(c)

    def uncarried(self) -> dict[str, float]:
        """What the turn recorded that no applied write of it carried."""
        return {k: v - self.carried.get(k, 0) for k, v in self.counters.items() if v - self.carried.get(k, 0)}

    def carrier(self) -> carry.Carrier:
        """What rides on a write this turn is about to send: what it recorded since its last applied write,
        counting this write (one call, at least one WRU; more units come later as a cost tail)."""
        snapshot = self.final()
        snapshot["ddb_calls"] += 1
        snapshot["ddb_wru"] += 1
        delta = {k: v - self.carried.get(k, 0) for k, v in snapshot.items() if v - self.carried.get(k, 0)}
        mine = [carry.entry(self._attributes(), delta, self._why(snapshot) if delta.get("fallbacks") else None)
                ] if delta else []
        at = self.clock()

        def applied() -> None:
            self.carried = snapshot
            self._flying(delta, found.at)

        found = carry.Carrier(mine, carry.take(), at, applied)
        return found

    def _emit(self) -> None:
        """The turn's metrics come from the rollup (``usage.rollup``), with its usage; the turn itself says
        only that its answer was due before its usage could be written."""
        if self.usage_late:
            emit_late(self.protocol, self.agent)

    def _write(self) -> None:
        """At the end: what no write carried. Anything but cost counters (the turn itself, when it wrote
        nothing) goes in one small usage item of its own (``TURNUSAGE#``, read by the rollup from the stream
        like any other), unless the answer is due; cost counters alone (the time after the turn's last
        write) wait for the container's next write."""
        left = self.uncarried()
        if not left:
            return
        if not any(k not in USAGE_COST_COUNTERS for k in left):
            carry.hold(carry.entry(self._attributes(), left))
            return
        reserve = core().usage_write_reserve_s
        if self.deadline is not None and self.deadline.remaining() <= reserve:
            carry.hold(carry.entry(self._attributes(), left, self.fallback_reason if left.get("fallbacks") else None))
            self.usage_late = True
            log_warning("usage left for the container's next write: the answer is due", exc_info=False)
            return
        from agenthost.metering.writes import write_own

        left["ddb_calls"] = left.get("ddb_calls", 0) + 1  # the usage item's write itself
        left["ddb_wru"] = left.get("ddb_wru", 0) + 1
        self.counters["ddb_calls"] += 1
        self.counters["ddb_wru"] += 1
        mine = carry.entry(self._attributes(), left, self.fallback_reason if left.get("fallbacks") else None)
        carrier = carry.Carrier([mine], carry.take(), self.clock(), lambda: self._flying(left, carrier.at),
                                lambda: carry.hold(mine))
        write_own(self.store, carrier)

    def _flying(self, delta: dict[str, float], at: float) -> None:
        tokens_in, tokens_out = delta.get("tokens_in", 0), delta.get("tokens_out", 0)
        if tokens_in or tokens_out:
            flying(self.day, self.agent, self.protocol, tokens_in, tokens_out, self.model, at)


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



_null = _NullTurn()
_active: set[Turn] = set()
_active_lock = threading.Lock()


def active_turn() -> Turn | None:
    """The turn of this context; from a thread that did not inherit the context (a worker pool running
    the LLM call), the process's only active turn (a Lambda container runs one invocation at a time)."""
    found = _current.get()
    if found is not None or _isolated.get():
        return found
    with _active_lock:
        return next(iter(_active)) if len(_active) == 1 else None


@contextmanager
def isolated() -> Iterator[None]:
    """Code in this block belongs to no other turn than one it opens itself: one Lambda invocation among
    others in the same process (the local stack), whose DynamoDB calls must not count for theirs."""
    token = _isolated.set(True)
    try:
        yield
    finally:
        _isolated.reset(token)


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


def rider() -> carry.Carrier | None:
    """What rides on a write about to be sent (see :mod:`agenthost.metering.carry`): the active turn's usage
    and whatever waits; outside a turn, whatever waits; in metering's own write, what it carries; None when
    there is nothing."""
    own = carry.forced()
    if own is not None:
        return own
    t = active_turn()
    if t is not None:
        return t.carrier()
    taken = carry.take()
    return carry.Carrier([], taken, time.time()) if taken else None


riders.ride_on_writes(rider, USAGE_ATTR)
