"""Idempotency-Key claims: one conditional write decides every case (first writer wins, a replay gets the
stored answer, another body 400, a running request 409, an abandoned claim is taken over once)."""

from __future__ import annotations

import pytest
from agents_api.idempotency import Conflict, Idempotency, fingerprint

from agenthost.store import Store
from tests.support.dynamo import on_every_client


@pytest.fixture
def counted(aws):
    """A store on a moved-by-hand clock and the DynamoDB operations sent, counted by a botocore hook."""
    clock = [1_000_000.0]
    store = Store(clock=lambda: clock[0])
    sent: list[str] = []

    def count(model, **_):
        sent.append(model.name)

    with on_every_client("before-call.dynamodb", count):
        yield store, clock, sent


def _idem(store: Store, key: str = "k-1") -> Idempotency:
    return Idempotency(store, "ip:198.51.100.7", "POST", "/cart/add", key, reclaim_after_s=35)


def _one_write(sent: list[str], action):
    sent.clear()
    try:
        return action()
    finally:
        assert sent == ["PutItem"], sent


def test_each_case_is_one_conditional_write(counted):
    store, clock, sent = counted
    fp = fingerprint(b'{"item_id": "mug1", "quantity": 1}')
    first = _idem(store)
    assert _one_write(sent, lambda: first.begin(fp)) is None  # the first writer claims the key

    with pytest.raises(Conflict) as running:
        _one_write(sent, lambda: _idem(store).begin(fp))  # still running: the protocol's conflict
    assert running.value.status == 409

    with pytest.raises(Conflict) as other:
        _one_write(sent, lambda: _idem(store).begin(fingerprint(b"{}")))
    assert other.value.status == 400

    first.finish(200, b'{"ok": true}', "application/json")
    stored = _one_write(sent, lambda: _idem(store).begin(fp))
    assert (stored.status, stored.body, stored.content_type) == (200, b'{"ok": true}', "application/json")


def test_an_abandoned_claim_is_taken_over_by_one_retry_in_one_write(counted):
    store, clock, sent = counted
    fp = fingerprint(b"{}")
    crashed = _idem(store, "k-2")
    crashed.begin(fp)
    clock[0] += 34
    with pytest.raises(Conflict):
        _one_write(sent, lambda: _idem(store, "k-2").begin(fp))  # not yet abandoned
    clock[0] += 1
    retry = _idem(store, "k-2")
    assert _one_write(sent, lambda: retry.begin(fp)) is None and retry.claimed_at == store.now()
    with pytest.raises(Conflict) as second:  # a second retry at the same moment finds the new claim
        _one_write(sent, lambda: _idem(store, "k-2").begin(fp))
    assert second.value.status == 409
    crashed.finish(200, b"late", "application/json")  # the first run's late answer is not kept
    retry.finish(201, b"mine", "application/json")
    assert _idem(store, "k-2").begin(fp).body == b"mine"


def test_an_expired_record_is_claimed_anew(counted):
    store, clock, sent = counted
    done = _idem(store, "k-3")
    done.begin(fingerprint(b"a"))
    done.finish(200, b"old", "application/json")
    clock[0] += 24 * 3600 + 1  # past the record's TTL, not yet deleted
    assert _one_write(sent, lambda: _idem(store, "k-3").begin(fingerprint(b"b"))) is None
