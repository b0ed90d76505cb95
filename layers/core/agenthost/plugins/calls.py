"""Calling user code under a deadline: on its own daemon thread, abandoned at the deadline, with at most
``MAX_STUCK`` abandoned calls still running; every failure becomes a :class:`Refused` with a short reason."""

from __future__ import annotations

import concurrent.futures
import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any

from agenthost.deadline import Deadline
from agenthost.errors import Declined
from agenthost.plugins.loading import where

#: calls still running past their deadline before new ones are refused (each holds a thread)
MAX_STUCK = 4


def agent_deadline(deadline: Deadline | float, reserve_s: float | None = None) -> float:
    """When the agent must have answered (a ``time.monotonic()`` instant): ``reserve_s`` (the setting
    ``AGENTHOST_AGENT_RESERVE_S`` when not given) before the turn's ``deadline``, and at most
    ``AGENTHOST_AGENT_TIMEOUT_S`` seconds from now when that is set."""
    from agenthost.config import settings

    cfg = settings()
    reserve = cfg.agent_reserve_s if reserve_s is None else reserve_s
    until = Deadline.of(deadline, 0.0).reserve(reserve, "our fallback and guards").at
    limit = cfg.agent_timeout_s
    return min(until, time.monotonic() + limit) if limit > 0 else until


class Refused(Declined):
    """User code did not give a usable answer; ``reason`` is a short code (``error``, ``timeout``,
    ``invalid``, ``unsafe``, ``declined``, ``busy``, ``load``) and ``detail`` says what, without secrets."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


_stuck = 0
_stuck_lock = threading.Lock()


def call_with_deadline(fn: Callable[..., Any], *args: Any, deadline: float) -> Any:
    """``fn(*args)`` on its own daemon thread (in this context: metering sees the turn), abandoned at
    ``deadline``. Raises :class:`Refused` (``timeout``, ``error``, ``busy``)."""
    global _stuck
    left = deadline - time.monotonic()
    if left <= 0.05:
        raise Refused("timeout", "no time left for the agent")
    with _stuck_lock:
        if _stuck >= MAX_STUCK:
            raise Refused("busy", f"{_stuck} earlier calls are still running past their deadline")
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()
    ctx = contextvars.copy_context()
    late = threading.Event()

    def run() -> None:
        global _stuck
        try:
            future.set_result(ctx.run(fn, *args))
        except BaseException as exc:  # noqa: BLE001 - reported to the caller
            future.set_exception(exc)
        finally:
            with _stuck_lock:  # the caller marks a call late under the same lock, only while it is not done
                if late.is_set():
                    _stuck -= 1

    threading.Thread(target=run, name="user-agent", daemon=True).start()
    try:
        return future.result(timeout=left)
    except concurrent.futures.TimeoutError:
        with _stuck_lock:
            finished = future.done()  # in the instant between the timeout and the lock
            if not finished:
                late.set()
                _stuck += 1
        if finished:
            return _result(future)
        raise Refused("timeout", f"no answer within {left:.1f} s") from None
    except Exception as exc:  # noqa: BLE001 - any user failure becomes a refusal
        raise Refused("error", f"{type(exc).__name__} at {where(exc)}") from None


def _result(future: concurrent.futures.Future[Any]) -> Any:
    try:
        return future.result()
    except Exception as exc:  # noqa: BLE001
        raise Refused("error", f"{type(exc).__name__} at {where(exc)}") from None


def stuck() -> int:
    """How many user calls are still running past their deadline."""
    return _stuck
