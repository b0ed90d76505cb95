"""A database outage, of every kind, answers in each protocol's own way and within the route's budget: the
webhooks keep playing valid 200 turns (without memory), every other route answers 503 with ``Retry-After`` in
its protocol's error shape, never an unhandled 500 and never after its time is up.

The kinds (``tests/security/outages.py``): DynamoDB accepts connections and never answers (``hung``), drops
every connection (``dropped``), throttles or fails every call, refuses connections (``unreachable``), or has
lost its table (``missing table``, as after a local database restarted). The failing DynamoDB is a real
loopback endpoint; the routes are the real handlers, called in process with the events API Gateway sends.
Budgets are shortened (``QUICK_BUDGETS``) so a hung database costs seconds, not minutes; at the deployed
budgets ``tests/perf/bench_security.py`` prints the same run.
"""

from __future__ import annotations

import time

import pytest

from agenthost.config import settings
from tests.security.outages import MODES, PROBES, QUICK_BUDGETS, outage, wrong
from tests.support.timing import within


@pytest.mark.parametrize("mode", MODES)
def test_every_route_answers_its_own_way_within_its_budget(mode, tmp_path):
    problems = []
    with outage(mode, tmp_path, QUICK_BUDGETS):
        for probe in PROBES:
            budget = float(getattr(settings(), probe.budget))
            started = time.monotonic()
            r = probe.send()
            took = time.monotonic() - started
            # unbounded, a hung database held every route for 20 s or more (4 attempts of 5 s reads)
            limit = within(budget, before=budget + 16)
            why = wrong(probe, r)
            if why or took > limit:
                problems.append(f"{probe.name}: {why or 'ok'} after {took:.1f} s (limit {limit:.1f} s)")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("route", ["$connect", "$default", "$disconnect"])
def test_a_websocket_event_during_a_hung_database_ends_within_the_lambdas_time(route, tmp_path):
    """WebSocket events have no request budget of their own: their DynamoDB calls end before the Lambda's own
    timeout does (here a Lambda given 3 s), instead of running past it on a database that never answers."""
    import evals.app as evals_app

    from infra.local.events import LambdaContext, ws_event

    with outage("hung", tmp_path):
        event = ws_event(route, "Y29ubi1odW5n", body='{"type": "ping"}' if route == "$default" else None)
        started = time.monotonic()
        try:
            evals_app.handler(event, LambdaContext("evals", timeout_s=3))
        except Exception:  # noqa: BLE001, S110 - how the function fails is not the point: when it does is
            pass
        took = time.monotonic() - started
    # unbounded: 4 attempts of a 5 s read on the first call alone
    assert took < within(3.0, before=20.0), f"{took:.1f} s"
