"""A database outage of every kind, and every route that touches the database, for ``test_outage.py`` and
``tests/perf/bench_security.py``.

:func:`outage` puts a failing DynamoDB where the functions look for it: a real loopback endpoint
(``tests/support/faulty_dynamo.py``: ``hung`` accepts and never answers, ``dropped`` closes every connection,
``throttled``/``failing`` answer DynamoDB's throttle or 500, ``unreachable`` refuses connections) or, for
``missing table``, moto with no table (a local database that restarted). :data:`PROBES` call the real
handlers in process; :func:`wrong` says what is wrong with an answer: the webhooks must answer a valid 200
turn, every other route 503 with ``Retry-After`` in its protocol's error shape.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from agenthost import signing
from tests.security.routes import EVALS_ADMIN_KEY, RUNS_KEY, USAGE_KEY, WEREWOLF_KEY, prepare
from tests.support.apigw import Response, call
from tests.support.faulty_dynamo import FaultyDynamo
from tests.support.olympics import SECRET, signed, turn_body

MODES = ("hung", "dropped", "throttled", "failing", "unreachable", "missing table")
API = "/.well-known/agents/api"
#: a live-looking session token (the rate limit and the route both look it up)
TOKEN = "t" * 64


@dataclass(frozen=True)
class Probe:
    name: str
    shape: str          # "olympics" | "werewolf" | "agents" ({"ok": false, "error"}) | "plain" ({"error", "message"})
    budget: str         # the setting that bounds it (seconds)
    send: Callable[[], Response]

    @property
    def webhook(self) -> bool:
        return self.shape in ("olympics", "werewolf")


def _handler(module: str) -> Any:
    import importlib

    return importlib.import_module(module).handler


def _olympics(via_url: bool = False) -> Response:
    raw, headers = signed(turn_body())
    return call(_handler("olympics.app"), "POST", "/olympics/turn", body=raw, headers=headers, via_url=via_url)


def _werewolf() -> Response:
    from tests.support.werewolf import turn

    raw = json.dumps(turn("vote", game_id="outage")).encode()
    return call(_handler("werewolf.app"), "POST", "/werewolf/turn", body=raw.decode(),
                headers={"X-Werewolf-Signature": signing.sign(WEREWOLF_KEY, raw)})


def _agents(method: str, path: str, **kw: Any) -> Callable[[], Response]:
    return lambda: call(_handler("agents_api.app"), method, f"{API}{path}", **kw)


def _runs(method: str, path: str, **kw: Any) -> Callable[[], Response]:
    return lambda: call(_handler("runs.app"), method, path, headers={"x-api-key": RUNS_KEY}, **kw)


_BEARER = {"Authorization": f"Bearer {TOKEN}"}
PROBES: list[Probe] = [
    Probe("olympics turn", "olympics", "olympics_budget_s", _olympics),
    Probe("olympics turn (function URL)", "olympics", "olympics_budget_s", lambda: _olympics(via_url=True)),
    Probe("werewolf turn", "werewolf", "werewolf_budget_s", _werewolf),
    Probe("agents search", "agents", "api_budget_s", _agents("GET", "/search", query="q=mug")),
    Probe("agents browse", "agents", "api_budget_s", _agents("GET", "/browse")),
    Probe("agents detail", "agents", "api_budget_s", _agents("GET", "/detail/mug1")),
    Probe("agents session", "agents", "api_budget_s", _agents("POST", "/session")),
    Probe("agents cart view", "agents", "api_budget_s", _agents("GET", "/cart/view", headers=_BEARER)),
    Probe("agents cart add (Idempotency-Key)", "agents", "api_budget_s",
          _agents("POST", "/cart/add", json_body={"item_id": "mug1", "quantity": 1},
                  headers={**_BEARER, "Idempotency-Key": "k-outage"})),
    Probe("runs start", "plain", "runs_budget_s", _runs("POST", "/agent/run/start", json_body={"task": "find it"})),
    Probe("runs step", "plain", "runs_budget_s",
          _runs("POST", "/agent/run/r-outage/step", json_body={"snapshot": {"url": "http://shop.test/"}})),
    Probe("runs get", "plain", "runs_budget_s", _runs("GET", "/agent/run/r-outage")),
    Probe("evals clients", "plain", "api_budget_s",
          lambda: call(_handler("evals.app"), "GET", "/evals/clients", headers={"x-api-key": EVALS_ADMIN_KEY})),
    Probe("evals definitions upload", "plain", "api_budget_s",
          lambda: call(_handler("evals.app"), "POST", "/evals/definitions", headers={"x-api-key": EVALS_ADMIN_KEY},
                       json_body={"id": "o-1", "target": {"url": "http://x.test/"}, "tool": "chat",
                                  "input": {"message": "hi"}})),
    Probe("usage", "plain", "api_budget_s",
          lambda: call(_handler("usage.app"), "GET", "/usage", headers={"x-api-key": USAGE_KEY})),
]


def wrong(probe: Probe, r: Response) -> str | None:
    """What is wrong with ``r`` as ``probe``'s answer during an outage (None: nothing)."""
    try:
        doc = r.json()
    except ValueError:
        return f"{r.status}, not JSON: {r.text[:120]!r}"
    if probe.shape == "olympics":
        if r.status == 200 and isinstance(doc.get("actions"), list) and doc["actions"] and "done" in doc:
            return None
        return f"not a valid turn: {r.status} {r.text[:200]}"
    if probe.shape == "werewolf":
        return None if r.status == 200 and doc.get("target") else f"not a valid turn: {r.status} {r.text[:200]}"
    if r.status != 503 or not r.headers.get("retry-after", "").isdigit():
        return f"{r.status} (retry-after {r.headers.get('retry-after')!r}): {r.text[:200]}"
    if probe.shape == "agents":
        ok = doc.get("ok") is False and "retry" in str(doc.get("error", "")) and "link" in r.headers
    else:
        ok = doc.get("error") == "unavailable" and "retry" in str(doc.get("message", ""))
    return None if ok else f"503 in the wrong shape: {r.text[:200]}"


#: budgets for the in-process runs (seconds): short, so a suite of routes against a hung database is quick
QUICK_BUDGETS = {"AGENTHOST_API_BUDGET_S": "1.5", "AGENTHOST_RUNS_BUDGET_S": "2", "AGENTHOST_OLYMPICS_BUDGET_S": "3",
                 "AGENTHOST_WEREWOLF_BUDGET_S": "3", "AGENTHOST_WEREWOLF_WRITE_RESERVE_S": "1",
                 "AGENTHOST_WEREWOLF_ANSWER_RESERVE_S": "0.5"}


@contextlib.contextmanager
def outage(mode: str, tmp_path: Any, budgets: dict[str, str] | None = None) -> Iterator[FaultyDynamo | None]:
    """The functions' DynamoDB failing as ``mode`` says, with the suite's keys and ``budgets`` (settings) set;
    yields the loopback endpoint (None for ``missing table``)."""
    from agents_api import catalog

    from agenthost import aws, config, secrets

    with pytest.MonkeyPatch.context() as mp:
        for key, value in (budgets or {}).items():
            mp.setenv(key, value)
        catalog._cache.clear()  # no warm catalog snapshot: search and browse must read the table
        if mode == "missing table":
            from moto import mock_aws

            with mock_aws():
                config.reset()
                secrets.reset()
                aws.reset()
                prepare(mp, tmp_path)  # no table is created: DynamoDB answers ResourceNotFoundException
                mp.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)
                yield None
            aws.reset()
            return
        with FaultyDynamo(mode) as endpoint:
            mp.setenv("AWS_ENDPOINT_URL_DYNAMODB", endpoint.url)
            config.reset()
            secrets.reset()
            aws.reset()
            prepare(mp, tmp_path)
            mp.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)
            try:
                yield endpoint
            finally:
                aws.reset()
                config.reset()
