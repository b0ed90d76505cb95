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
"""

from __future__ import annotations

import os

SLACK_S = float(os.environ.get("AGENTHOST_TEST_SLACK", "3.0"))


def within(nominal: float, *, before: float) -> float:
    """The wall-time limit for something that should take ``nominal`` seconds and, broken, would take
    ``before`` seconds or more: ``nominal`` plus the slack."""
    limit = nominal + SLACK_S
    if limit >= before:
        raise AssertionError(f"AGENTHOST_TEST_SLACK={SLACK_S:g} makes this limit {limit:.1f}s, not below the "
                             f"{before:.1f}s the test takes when the deadline is not kept: the test could not "
                             "fail; lower the slack or lengthen what the test cuts short")
    return limit


def waited(nominal: float) -> float:
    """How long to wait for something that should happen within ``nominal`` seconds (polling loops, stops)."""
    return nominal + 5 * SLACK_S
