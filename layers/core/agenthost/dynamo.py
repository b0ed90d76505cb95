"""One DynamoDB request after another, within the time the work has left.

:class:`Caller` sends each of :class:`agenthost.store.Store`'s requests: with the longest (connect, read)
timeouts of :data:`TIMEOUTS` that fit both the store's :class:`CallLimits` and the deadline bound to the
work (:func:`agenthost.deadline.current`); again after a short pause when the failure is one another attempt
may fix (:func:`agenthost.aws.fault` says which) and attempts and time remain; never when the time left
cannot hold the shortest timeouts. Every failure leaves as one of ours (:func:`agenthost.aws.translate`),
with ``retried`` set when the request went out more than once (an earlier attempt may have been applied) and
``maybe_applied`` when any attempt went out and got no answer.

Retries are made here rather than by botocore because botocore fixes attempts, backoff and timeouts per
client, and none of them can see a deadline: each timeout pair has its own cached client (a few fixed pairs),
each with botocore's retries off.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from agenthost import aws, errors
from agenthost import deadline as deadlines

#: (connect, read) timeouts one request may be given, longest first: a request gets the longest pair within
#: its store's limits that still fits the time left (a few fixed pairs: one cached client each)
TIMEOUTS: tuple[tuple[float, float], ...] = ((2.0, 5.0), (1.0, 2.0), (0.5, 1.0), (0.2, 0.4))
#: a retry's pause before the next request: full jitter up to ``BACKOFF_S * 2 ** (attempt - 1)``, at most
#: ``MAX_BACKOFF_S``
BACKOFF_S = 0.05
MAX_BACKOFF_S = 1.0
READ_OPS = frozenset({"get_item", "query", "batch_get_item", "scan", "transact_get_items"})


@dataclass(frozen=True)
class CallLimits:
    """The most one call may wait: ``connect_s`` and ``read_s`` per request, ``attempts`` requests in all (the
    first included). A deadline bound to the work (:func:`agenthost.deadline.bound`) cuts them further."""

    connect_s: float = 2.0
    read_s: float = 5.0
    attempts: int = aws.DEFAULT_TOTAL_ATTEMPTS


def no_time_left(operation: str) -> aws.AwsUnavailable:
    """What a call raises when the bound deadline leaves no time for even its shortest request."""
    found = aws.Fault(errors.Unavailable, "DeadlineExhausted", "no time left")
    return aws.AwsUnavailable(found, f"dynamodb {operation} not sent: no time left before the deadline",
                              service="dynamodb", operation=operation)


class Caller:
    """Sends DynamoDB requests under ``reads``/``writes`` limits (see the module docstring)."""

    def __init__(self, reads: CallLimits | None = None, writes: CallLimits | None = None):
        self.reads = reads or CallLimits()
        self.writes = writes or self.reads

    @staticmethod
    def timeouts(limits: CallLimits) -> list[tuple[float, float]]:
        """The (connect, read) pairs a request under ``limits`` may get, longest first."""
        fits = [(c, r) for c, r in TIMEOUTS if c <= limits.connect_s and r <= limits.read_s]
        return fits or [TIMEOUTS[-1]]

    @staticmethod
    def _client(connect_s: float, read_s: float) -> Any:
        return aws.client("dynamodb", connect_timeout=connect_s, read_timeout=read_s, total_max_attempts=1)

    def client(self, limits: CallLimits) -> Any:
        """The client for requests with the longest timeouts ``limits`` allow."""
        return self._client(*self.timeouts(limits)[0])

    def warm(self) -> None:
        """Create every client these limits may use."""
        for pair in {*self.timeouts(self.reads), *self.timeouts(self.writes)}:
            self._client(*pair)

    def send(self, op: str, kwargs: dict[str, Any]) -> Any:
        """The answer to one call (``op``, a boto3 client method, with ``kwargs``). Raises
        :class:`agenthost.aws.AwsFailure` of the failure's kind."""
        limits = self.reads if op in READ_OPS else self.writes
        bound = deadlines.current()
        attempt = 0
        unanswered = False  # some request went out and got no answer: a write may have applied
        while True:
            attempt += 1
            pair = self._pair(limits, bound)
            if pair is None:
                raise no_time_left(op)
            try:
                return getattr(self._client(*pair), op)(**kwargs)
            except Exception as exc:
                found = aws.fault(exc, "dynamodb")
                if found is None:
                    raise
                unanswered = unanswered or found.maybe_applied
                if found.retryable and attempt < limits.attempts and self._pause(attempt, limits, bound):
                    continue
                raise aws.translate(exc, "dynamodb", op, retried=attempt > 1, found=found,
                                    maybe_applied=unanswered) from exc

    def _pair(self, limits: CallLimits, bound: deadlines.Deadline | None) -> tuple[float, float] | None:
        pairs = self.timeouts(limits)
        if bound is None:
            return pairs[0]
        left = bound.remaining()
        return next(((c, r) for c, r in pairs if c + r <= left), None)

    def _pause(self, attempt: int, limits: CallLimits, bound: deadlines.Deadline | None) -> bool:
        """Sleep before another attempt; False (no sleep) when the pause would leave no time for it."""
        pause = random.random() * min(MAX_BACKOFF_S, BACKOFF_S * 2 ** (attempt - 1))
        if bound is not None and bound.remaining() - pause < sum(self.timeouts(limits)[-1]):
            return False
        time.sleep(pause)
        return True
