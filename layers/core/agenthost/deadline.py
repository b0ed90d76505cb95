"""One time budget per turn, cut only by named reserves.

A turn's edge (an AI Olympics turn, a Werewolf turn, a Proxy API step, an evaluation task step) creates
one :class:`Deadline` and passes it down. Whoever needs time kept back for what comes after their work
does not subtract a private margin: they call :meth:`Deadline.reserve` with the seconds and the reason,
and work to the deadline it returns. The reserves travel with the deadline, so the turn's log line can
say how the budget was split (:meth:`Deadline.describe`)::

    >>> clock = iter([100.0, 100.0]).__next__
    >>> turn = Deadline.after(20.0, clock=clock)
    >>> model = turn.reserve(3.0, "fallback").reserve(1.0, "validation")
    >>> model.describe("llm")
    'budget 20.0s: llm 16.0s + validation 1.0s + fallback 3.0s'

A deadline can also be bound to the work running now (:func:`bound`): whoever waits on another service
without being handed the deadline (every DynamoDB call goes through :class:`agenthost.store.Store`, which
reads :func:`current`) sizes its waits to the time left. The request's edge binds it (an HTTP app's handler,
a webhook turn), so nothing inside can outlive the answer::

    >>> with bound(Deadline.after(5.0)):
    ...     current().remaining() <= 5.0
    True

The clock is injectable (tests drive it by hand); every instant is on that clock (``time.monotonic``
unless told otherwise). Written here rather than taken from a library: the named, nested reserves and
the one-line split are the point, and no time-budget package offers them.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator

Clock = Callable[[], float]


class Deadline:
    """An instant by which some work must be done, and the reserves set aside after it.

    ``budget`` is the whole turn's budget in seconds (what :meth:`after` was given); ``reserves`` the
    ``(why, seconds)`` pairs set aside so far, outermost first. A deadline is immutable: :meth:`reserve`
    returns a new, earlier one."""

    __slots__ = ("at", "budget", "clock", "reserves")

    def __init__(self, at: float, *, clock: Clock = time.monotonic, budget: float | None = None,
                 reserves: tuple[tuple[str, float], ...] = ()) -> None:
        self.at = float(at)
        self.clock = clock
        self.budget = float(budget) if budget is not None else max(0.0, self.at - clock())
        self.reserves = tuple(reserves)

    @classmethod
    def after(cls, seconds: float, clock: Clock = time.monotonic) -> Deadline:
        """The deadline ``seconds`` from now."""
        return cls(clock() + float(seconds), clock=clock, budget=seconds)

    @classmethod
    def since(cls, started: float, seconds: float, clock: Clock = time.monotonic) -> Deadline:
        """A budget of ``seconds`` counted from an earlier instant ``started`` (a cold start's beginning)."""
        return cls(float(started) + float(seconds), clock=clock, budget=seconds)

    @classmethod
    def of(cls, value: Deadline | float | None, default_s: float, clock: Clock = time.monotonic) -> Deadline:
        """``value`` as a deadline: itself; a ``time.monotonic()`` instant (older callers); or, for
        ``None``, :meth:`after` ``default_s``."""
        if isinstance(value, Deadline):
            return value
        if value is None:
            return cls.after(default_s, clock=clock)
        return cls(float(value), clock=clock)

    def remaining(self) -> float:
        """Seconds left before the deadline (never negative)."""
        return max(0.0, self.at - self.clock())

    @property
    def expired(self) -> bool:
        return self.clock() >= self.at

    def reserve(self, seconds: float, why: str) -> Deadline:
        """Set ``seconds`` aside at the end for ``why``; returns the deadline for the work before it."""
        if not why or not why.strip():
            raise ValueError("every reserve is named")
        seconds = float(seconds)
        if seconds < 0:
            raise ValueError(f"a reserve cannot be negative ({why}: {seconds})")
        return Deadline(self.at - seconds, clock=self.clock, budget=self.budget,
                        reserves=self.reserves + ((why.strip(), seconds),))

    def split(self, work: str = "work") -> list[tuple[str, float]]:
        """How the budget is split, in the order the time is spent: the work before this deadline, then
        each reserve from the innermost to the outermost. The shares add up to the budget."""
        kept = sum(s for _, s in self.reserves)
        return [(work, self.budget - kept)] + [(why, s) for why, s in reversed(self.reserves)]

    def describe(self, work: str = "work") -> str:
        """The split on one line, for a turn's log: ``budget 20.0s: llm 16.0s + validation 1.0s + ...``."""
        parts = " + ".join(f"{why} {s:.1f}s" for why, s in self.split(work))
        return f"budget {self.budget:.1f}s: {parts}"

    def __repr__(self) -> str:
        return f"Deadline(remaining={self.remaining():.3f}s, {self.describe()})"


def remaining(deadline: Deadline | float) -> float:
    """Seconds left before ``deadline``: a :class:`Deadline` or a ``time.monotonic()`` instant."""
    if isinstance(deadline, Deadline):
        return deadline.remaining()
    return max(0.0, float(deadline) - time.monotonic())


_bound: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("agenthost_deadline", default=None)


def current() -> Deadline | None:
    """The deadline bound to the work running now (:func:`bound`), or None."""
    return _bound.get()


@contextlib.contextmanager
def bound(deadline: Deadline) -> Iterator[Deadline]:
    """Bind ``deadline`` to the work inside the block (and to threads started with a copy of its context);
    a deadline bound outside that comes sooner stays in force. Yields the deadline in force."""
    outer = _bound.get()
    inner = outer if outer is not None and outer.remaining() <= deadline.remaining() else deadline
    token = _bound.set(inner)
    try:
        yield inner
    finally:
        _bound.reset(token)
