"""What a failing DynamoDB means, decided in one place (``agenthost.aws.fault``), and what the store does about
it: every call is bounded by the deadline bound to the work, each failure arrives as one of our kinds (a
timeout, a dropped connection, a throttle or a missing table is ``Unavailable``), never as an AttributeError
from an exception that carries no answer. The failing DynamoDB is a real loopback endpoint
(``tests/support/faulty_dynamo.py``)."""

from __future__ import annotations

import time

import pytest
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)

from agenthost import aws, errors
from agenthost.deadline import Deadline, bound
from agenthost.items import keys
from agenthost.store import CallLimits, ConditionFailed, Store
from tests.support.faulty_dynamo import FaultyDynamo
from tests.support.timing import settled, within


def _client_error(code: str, status: int) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": status}},
                       "PutItem")


@pytest.mark.parametrize("exc,kind,reason,retryable", [
    (ReadTimeoutError(endpoint_url="http://d"), errors.Unavailable, "timeout", True),
    (ConnectTimeoutError(endpoint_url="http://d"), errors.Unavailable, "timeout", True),
    (ConnectionClosedError(endpoint_url="http://d"), errors.Unavailable, "connection dropped", True),
    (EndpointConnectionError(endpoint_url="http://d"), errors.Unavailable, "unreachable", True),
    (NoCredentialsError(), errors.Upstream, "not configured", False),
    (_client_error("ProvisionedThroughputExceededException", 400), errors.Unavailable, "throttled", True),
    (_client_error("ThrottlingException", 400), errors.Unavailable, "throttled", True),
    (_client_error("InternalServerError", 500), errors.Unavailable, "server error", True),
    (_client_error("SomethingNew", 503), errors.Unavailable, "server error", True),
    (_client_error("ResourceNotFoundException", 400), errors.Unavailable, "table missing", False),
    (_client_error("ValidationException", 400), errors.BadInput, "refused", False),
    (_client_error("ConditionalCheckFailedException", 400), errors.Conflict, "conflict", False),
    (_client_error("AccessDeniedException", 400), errors.Upstream, "not allowed", False),
    (_client_error("SomethingNew", 400), errors.Upstream, "refused", False),
])
def test_every_botocore_failure_has_one_meaning(exc, kind, reason, retryable):
    found = aws.fault(exc, "dynamodb")
    assert (found.kind, found.reason, found.retryable) == (kind, reason, retryable)
    ours = aws.translate(exc, "dynamodb", "PutItem")
    assert isinstance(ours, kind) and isinstance(ours, errors.AgentHostError)
    assert aws.error_code(ours) == aws.error_code(exc) == found.code
    assert isinstance(ours.response, dict)  # transport errors carry response=None: ours is always a dict


def test_a_code_means_what_its_service_means():
    missing = _client_error("ResourceNotFoundException", 400)
    assert aws.fault(missing, "dynamodb").kind is errors.Unavailable  # the table: an outage
    assert aws.fault(missing, "scheduler").kind is errors.NotFound  # a schedule: simply not there
    assert aws.fault(ValueError("not AWS")) is None and aws.error_code(ValueError()) == ""


@pytest.fixture
def dynamo(monkeypatch):
    """A failing DynamoDB of the given mode at ``AWS_ENDPOINT_URL_DYNAMODB``."""
    made: list[FaultyDynamo] = []

    def make(mode: str) -> FaultyDynamo:
        made.append(FaultyDynamo(mode))
        monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", made[-1].url)
        aws.reset()
        return made[-1]

    yield make
    for endpoint in made:
        endpoint.close()
    aws.reset()


QUICK = CallLimits(connect_s=0.5, read_s=1.0, attempts=3)


@pytest.mark.parametrize("mode,reason", [("hung", "timeout"), ("dropped", "connection dropped"),
                                         ("throttled", "throttled"), ("failing", "server error"),
                                         ("unreachable", "unreachable")])
@pytest.mark.parametrize("call", ["get", "conditional put", "update", "query"])
def test_each_failure_is_unavailable_within_the_stores_limits(dynamo, mode, reason, call):
    endpoint = dynamo(mode)
    store = Store(reads=QUICK)
    started = time.monotonic()
    with pytest.raises(errors.Unavailable) as raised:
        if call == "get":
            store.get(**keys.run("r1"))
        elif call == "conditional put":
            store.put({**keys.run("r1"), "status": "created"}, if_absent=True)
        elif call == "update":
            store.update(**keys.run("r1"), set_={"status": "x"}, condition="attribute_exists(pk)")
        else:
            list(store.query("RUN#r1"))
    took = time.monotonic() - started
    assert not isinstance(raised.value, ConditionFailed)
    assert raised.value.fault.reason == reason
    # three attempts, each cut by its timeouts (1.5 s at most), and the pauses between them
    assert took < within(3 * 1.5 + 0.2, before=3 * (2 + 5) + 1), f"{took:.1f} s"
    if mode in ("dropped", "throttled", "failing"):
        assert endpoint.requests == QUICK.attempts  # retried while attempts remained
        assert raised.value.retried
    if mode == "hung":
        # each attempt gave up on its own connection
        assert settled(lambda: endpoint.connections, lambda n: n >= QUICK.attempts) == QUICK.attempts


@pytest.mark.parametrize("mode", ["hung", "dropped", "throttled"])
def test_the_bound_deadline_cuts_timeouts_retries_and_pauses(dynamo, mode):
    endpoint = dynamo(mode)
    store = Store()  # 2 s connect, 5 s read, 4 attempts: about 28 s against a hung endpoint unbounded
    started = time.monotonic()
    with bound(Deadline.after(1.0)), pytest.raises(errors.Unavailable):
        store.put({**keys.run("r1"), "status": "created"})
    took = time.monotonic() - started
    assert took < within(1.0, before=7.0), f"{took:.1f} s"
    assert settled(lambda: endpoint.connections, lambda n: n >= 1) >= 1  # it did try, with the timeouts that fitted


def test_no_request_starts_without_time_for_the_shortest_timeouts(dynamo):
    endpoint = dynamo("hung")
    with bound(Deadline.after(0.1)), pytest.raises(errors.Unavailable) as raised:
        Store().get(**keys.run("r1"))
    assert raised.value.fault.reason == "no time left"
    assert endpoint.connections == 0


def test_a_bound_deadline_inside_a_later_one_wins_and_the_sooner_outer_one_stays():
    with bound(Deadline.after(5.0)) as outer:
        with bound(Deadline.after(60.0)) as inner:
            assert inner is outer  # the sooner, outer deadline stays in force
        with bound(Deadline.after(1.0)) as inner:
            assert inner.remaining() <= 1.0


def test_a_missing_table_is_unavailable_at_once(monkeypatch):
    """A table that is gone (a local database restarted): one request, no retries, ``Unavailable``."""
    from moto import mock_aws

    sent: list[str] = []
    with mock_aws():
        aws.reset()
        from tests.support.dynamo import on_every_client

        with on_every_client("before-call.dynamodb", lambda model, **_: sent.append(model.name)), \
                pytest.raises(errors.Unavailable) as raised:
            Store().put({**keys.run("r1"), "status": "created"}, if_absent=True)
    aws.reset()
    assert raised.value.fault.reason == "table missing" and sent == ["PutItem"]


def test_a_refused_condition_still_carries_the_stored_item(aws):
    aws.put({**keys.run("r2"), "status": "created"})
    with pytest.raises(ConditionFailed) as refused:
        aws.put({**keys.run("r2"), "status": "again"}, if_absent=True)
    assert refused.value.item["status"] == "created" and not refused.value.retried
