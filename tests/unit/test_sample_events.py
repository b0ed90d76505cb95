"""The sample events in infra/events (for `sam local invoke`): one for every route of template.yaml, and
each one, given to its function's real handler, gets a real answer (no 5xx)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from infra.local.events import LambdaContext
from infra.local.template import parse

EVENTS = Path(__file__).resolve().parents[2] / "infra" / "events"


def stored() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(EVENTS.glob("*.json"))}


def test_every_route_has_a_sample_event_and_the_files_are_current():
    from infra.events.__main__ import events

    tpl = parse()
    have = {e.get("routeKey") or e["requestContext"].get("routeKey") for e in stored().values()}
    for route in tpl.http_routes:
        assert route.route_key in have, f"no sample event for {route.route_key}"
    for key in tpl.ws_routes:
        assert key in have, f"no sample event for WebSocket route {key}"
    assert set(events()) == set(stored()), "run `python -m infra.events` to regenerate infra/events"


def _handler_for(event: dict):
    tpl = parse()
    rk = event.get("routeKey") or event["requestContext"]["routeKey"]
    if ".lambda-url." in event["requestContext"].get("domainName", ""):  # a function URL: any path, one function
        fn_name = next(r.function for r in tpl.http_routes if r.regex.match(event["rawPath"]))
        assert fn_name in ("OlympicsFunction", "WerewolfFunction"), "only the webhooks have function URLs"
        return fn_name, _handler_of(tpl, fn_name)
    if "http" not in event["requestContext"]:  # a WebSocket event ($default there is the WebSocket API's)
        fn_name = tpl.ws_routes[rk]
    else:
        fn_name = next(r.function for r in tpl.http_routes if r.route_key == rk)
    return fn_name, _handler_of(tpl, fn_name)


def _handler_of(tpl, fn_name: str):
    fn = tpl.functions[fn_name]
    module, attr = fn.handler.rsplit(".", 1)
    return getattr(importlib.import_module(module), attr)


@pytest.mark.parametrize("name", sorted(stored()))
def test_each_sample_event_gets_an_answer_from_its_function(aws, monkeypatch, name):
    from infra.events.__main__ import events
    from infra.local.defaults import LOCAL_SECRETS

    for key, value in LOCAL_SECRETS.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY", "")  # the sample turn is unsigned (no key deployed)
    monkeypatch.setenv("AGENTHOST_LOCAL", "true")  # admin and usage APIs open, as in the local stack
    monkeypatch.setenv("AGENTHOST_EVALS_SECRET", "")
    from agenthost import config

    config.reset()
    event = events()[name] if name.startswith("olympics-turn") else stored()[name]  # signed just now
    fn_name, handler = _handler_for(event)
    if name.startswith("evals-") and "http" not in event["requestContext"]:
        from evals import connections

        monkeypatch.setattr(connections, "post", lambda *_a, **_k: None)
        monkeypatch.setattr(connections, "close", lambda *_a, **_k: None)
        if name == "evals-connect":
            from agenthost import aws as aws_clients

            class _Lambda:
                def invoke(self, **_kw):
                    return {"StatusCode": 202}

            real_client = aws_clients.client
            monkeypatch.setattr(aws_clients, "client", lambda service, *a, **k: _Lambda()
                                if service == "lambda" else real_client(service, *a, **k))
    result = handler(event, LambdaContext(fn_name))
    status = int(result.get("statusCode", 200)) if isinstance(result, dict) else 200
    assert status < 500, (name, result)
    if name in ("runs-health", "agents-json", "olympics-turn", "werewolf-turn", "olympics-turn-url",
                "werewolf-turn-url", "usage", "agents-search"):
        assert status == 200, (name, result)
