"""A database outage answers in each protocol's own error shape with 503 and ``Retry-After``, never an
unhandled 500: agents.json search and session, ``/agent/run/start`` and ``/usage`` (the webhooks keep
answering valid 200 turns). Two outages: nothing listens at DynamoDB's address, and DynamoDB throttles."""

from __future__ import annotations

import json
import socket
import time

import pytest
from botocore.client import BaseClient
from botocore.exceptions import ClientError

from agenthost import aws as aws_clients
from tests.security.routes import RUNS_KEY, USAGE_KEY, prepare
from tests.support.apigw import call
from tests.support.olympics import SECRET, signed, turn_body

API = "/.well-known/agents/api"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends: nothing listens there


@pytest.fixture(params=["unreachable", "throttled"])
def outage(request, monkeypatch, tmp_path):
    prepare(monkeypatch, tmp_path)
    monkeypatch.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)
    if request.param == "unreachable":  # no emulator at all: the endpoint refuses connections
        monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", f"http://127.0.0.1:{closed_port()}")
        real_client = aws_clients.client

        def quick(service, endpoint_url=None, **config):  # one attempt: the test need not wait for retries
            config.update(total_max_attempts=1, connect_timeout=1)
            return real_client(service, endpoint_url, **config)

        monkeypatch.setattr(aws_clients, "client", quick)
    else:  # DynamoDB answers, but throttles every call
        request.getfixturevalue("aws")
        real_call = BaseClient._make_api_call

        def throttled(self, operation, params):
            if self.meta.service_model.service_name != "dynamodb":
                return real_call(self, operation, params)
            raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"},
                               "ResponseMetadata": {"HTTPStatusCode": 400}}, operation)

        monkeypatch.setattr(BaseClient, "_make_api_call", throttled)
    aws_clients.reset()
    return request.param


def check_503(r, shape):
    assert r.status == 503, (r.status, r.text[:300])
    assert r.headers.get("retry-after", "").isdigit()
    doc = r.json()
    if shape == "agents":
        assert doc["ok"] is False and "retry" in doc["error"]
    else:
        assert doc["error"] == "unavailable" and "retry" in doc["message"]


def test_agents_json_search_and_session(outage):
    import agents_api.app as agents_app

    check_503(call(agents_app.handler, "GET", f"{API}/search", query="q=mug"), "agents")
    check_503(call(agents_app.handler, "POST", f"{API}/session"), "agents")
    check_503(call(agents_app.handler, "POST", f"{API}/cart/add", json_body={"item_id": "p1", "quantity": 1},
                   headers={"Idempotency-Key": "k-1", "Authorization": "Bearer nope"}), "agents")


def test_runs_start_and_usage(outage):
    import runs.app as runs_app
    import usage.app as usage_app

    check_503(call(runs_app.handler, "POST", "/agent/run/start", json_body={"task": "find the price"},
                   headers={"x-api-key": RUNS_KEY}), "plain")
    check_503(call(runs_app.handler, "GET", "/agent/run/r-1", headers={"x-api-key": RUNS_KEY}), "plain")
    check_503(call(usage_app.handler, "GET", "/usage", headers={"x-api-key": USAGE_KEY}), "plain")


def test_the_webhooks_still_answer_turns(outage):
    import olympics.app as olympics_app
    import werewolf.app as werewolf_app

    from agenthost import signing
    from tests.security.routes import WEREWOLF_KEY
    from tests.support.werewolf import turn as ww_turn

    started = time.monotonic()
    raw, headers = signed(turn_body())
    r = call(olympics_app.handler, "POST", "/olympics/turn", body=raw, headers=headers)
    assert r.status == 200 and r.json()["actions"]
    raw = json.dumps(ww_turn("vote")).encode()
    r = call(werewolf_app.handler, "POST", "/werewolf/turn", body=raw.decode(),
             headers={"X-Werewolf-Signature": signing.sign(WEREWOLF_KEY, raw)})
    assert r.status == 200 and r.json().get("target")
    assert time.monotonic() - started < 20
