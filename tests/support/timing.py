"""One setting for how late a timed thing may end in a test.

Tests that check a deadline is kept (an LLM call abandoned, a stuck agent left behind, a slow engine start
not waited for) measure wall time, and on a loaded machine everything ends later than its nominal time. The
slack those assertions allow comes from one place, ``AGENTHOST_TEST_SLACK`` (seconds, default 3.0: sized for
a 2-core machine running ``pytest -n 2`` beside other work), never from a margin picked test by test.
Tests about logic rather than wall time take an injected clock instead (``Deadline(clock=...)``, the
evaluation server's ``clock``).

:func:`within` keeps each such test able to fail: its limit must stay below ``before``, the time the test
takes when the deadline is *not* kept (the hang it cuts short). A slack that large raises instead of letting
every run pass.

On a machine busier than its cores (a load average of 20 on 2 cores), everything a test waits for (a
connection, a message, a stream's rollup) comes that much later: :func:`waited` and :func:`stretch` scale
by :func:`load_factor`, read when the wait starts, so a test waits on its condition as long as the machine
needs, and still ends at a deadline. :func:`settled` is that wait for a value another thread, process or
server writes (a counter, a record, a state): read until it holds, never once right after the action. An
assertion that something ended *early* (:func:`within`) stretches too on a loaded machine, but never to the
hang it tells apart: its limit stays below ``before`` (at most nine tenths of it), so the test can still
fail.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable

SLACK_S = float(os.environ.get("AGENTHOST_TEST_SLACK", "3.0"))
#: the most a wait is stretched for load (a wait that long is no longer a wait on the machine)
MAX_LOAD_FACTOR = 10.0


def load_factor() -> float:
    """How many times busier than its cores the machine is now (the last minute's load average per core):
    at least 1, at most :data:`MAX_LOAD_FACTOR`."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system: nothing to scale by
        return 1.0
    return max(1.0, min(load / (os.cpu_count() or 1), MAX_LOAD_FACTOR))


def stretch() -> int:
    """The whole number of times a test stretches the times it sets up itself and the system under test must
    keep (an evaluation's timeout, a pause that must come before it): read once, used for both, so they keep
    their order and proportions on a loaded machine."""
    return math.ceil(load_factor())


def within(nominal: float, *, before: float) -> float:
    """The wall-time limit for something that should take ``nominal`` seconds and, broken, would take
    ``before`` seconds or more: ``nominal`` plus the slack; on a machine busier than its cores, ``nominal``
    stretched by the load, capped at nine tenths of ``before``."""
    limit = nominal + SLACK_S
    if limit >= before:
        raise AssertionError(f"AGENTHOST_TEST_SLACK={SLACK_S:g} makes this limit {limit:.1f}s, not below the "
                             f"{before:.1f}s the test takes when the deadline is not kept: the test could not "
                             "fail; lower the slack or lengthen what the test cuts short")
    return max(limit, min(nominal * load_factor() + SLACK_S, 0.9 * before))


def waited(nominal: float) -> float:
    """How long to wait for something that should happen within ``nominal`` seconds (polling loops, stops,
    a message to arrive): ``nominal`` stretched by the machine's load, plus the slack."""
    return nominal * load_factor() + 5 * SLACK_S


def settled[T](read: Callable[[], T], done: Callable[[T], bool], nominal: float = 1.0, *, every: float = 0.05) -> T:
    """``read()`` until ``done`` says what it read holds, or :func:`waited` (``nominal``) seconds have passed:
    what it read last (the caller asserts on it, so a value that never comes still fails the test)."""
    deadline = time.monotonic() + waited(nominal)
    while True:
        got = read()
        if done(got) or time.monotonic() > deadline:
            return got
        time.sleep(every)
