"""The ways protocol code is metered: the :func:`turn` context manager, :func:`wrap_handler` for a
Lambda handler with no place inside the app to open the turn, and :class:`MeteredProvider` for an LLM
provider (budget check before each call, tokens, latency and failures after)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agenthost.deadline import Deadline
from agenthost.invocation import arrived
from agenthost.metering.hooks import instrument
from agenthost.metering.settings import log_warning
from agenthost.metering.turns import Turn, closed, current, opened


@contextmanager
def turn(protocol: str, agent: str, *, store: Any = None, clock: Any = time.time,
         decides: bool = False, counts_as_turn: bool = True, deadline: Deadline | None = None) -> Iterator[Turn]:
    """Meter one turn of ``protocol`` for ``agent`` (see the package docstring). ``decides``: an agent
    policy answers this turn, so a turn without a successful LLM call counts as a deterministic
    fallback. ``counts_as_turn=False``: an invocation that is not a turn (a timer, a connect) whose
    costs still count (``invocations``, duration, DynamoDB, WebSocket). ``deadline``: the answer's; a turn
    that wrote nothing does not add its usage itself when that would make the answer late (the
    container's next write carries it). ``store``: the one metering's own counter write goes through
    (default: a client with a short, bounded wait). An exception escaping the block counts as an error and
    is re-raised; metering itself never raises."""
    t = Turn(protocol, agent, store=store, clock=clock, decides=decides, counts_as_turn=counts_as_turn,
             deadline=deadline)
    instrument()
    token = opened(t)
    try:
        yield t
    except BaseException as exc:
        # a refusal the protocol answers with a 4xx (its ApiError/HTTPException) is not a failed turn
        status = getattr(exc, "status", None) or getattr(exc, "status_code", None)
        if not (isinstance(status, int) and status < 500):
            t.counters["errors"] = 1
        raise
    finally:
        closed(t, token)
        _close(t)


def _close(t: Turn) -> None:
    t._finish_counters()
    try:
        t._write()
    except Exception:  # noqa: BLE001 - a lost counter write is logged, never fails the turn
        log_warning("usage counters not written")
    try:
        t._emit()
    except Exception:  # noqa: BLE001
        log_warning("usage metrics not emitted")


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
