"""agents.json site SDK in process (moto): state, expiry, bounds, idempotency, checkout handoff."""

from __future__ import annotations

import json
import time
from urllib.parse import urlsplit

import pytest
from agents_api.catalog import DynamoCatalog
from agents_api.checkout import SignedCheckout
from agents_api.sdk import AgentsSite, Limits, SiteInfo, error_body

from agenthost.items import keys
from agenthost.store import Store
from agenthost.webapp import create_app, make_handler
from tests.support.apigw import call

API = "/.well-known/agents/api"
PRODUCTS = [
    {"id": "mug1", "name": "Ocean Blue Mug", "category": "mugs", "price_minor": 2800, "currency": "USD", "stock": 10},
    {"id": "mug2", "name": "Sand Espresso Mug", "category": "mugs", "price_minor": 1999, "currency": "USD",
     "stock": 150},
    {"id": "vase1", "name": "Tall Cobalt Vase", "category": "vases", "price_minor": 9900, "currency": "USD",
     "stock": 0},
]


class Clock:
    def __init__(self) -> None:
        # a second into the current minute: the rate limit's fixed windows (60 s here) start on the minute, so
        # a test's few seconds never cross into the next window by chance (one run in ~60 did, resetting the
        # counter a test was counting down)
        self.t = float(int(time.time()) // 60 * 60 + 1)

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def shop(aws):
    clock = Clock()
    DynamoCatalog(Store(), "t").load(PRODUCTS)

    def build(catalog_cache_s=0, **limits):
        app = create_app("agents-test", error_body=error_body)
        site = AgentsSite(SiteInfo(name="Test Shop"), catalog=lambda s: DynamoCatalog(s, "t", catalog_cache_s),
                          checkout=SignedCheckout(ttl_s=300), limits=Limits(**limits),
                          store=lambda: Store(clock=clock))
        site.install(app)
        handler = make_handler(app)

        def req(method, path, **kw):
            kw.setdefault("headers", {})
            kw["headers"].setdefault("host", "shop.test")
            return call(handler, method, path, **kw)
        req.clock = clock
        return req
    return build


def session(req) -> dict[str, str]:
    r = req("POST", f"{API}/session")
    assert r.status == 201
    return {"authorization": "Bearer " + r.json()["data"]["session_token"]}


def test_prices_and_totals_come_from_the_catalog_not_the_agent(shop):
    req = shop()
    h = session(req)
    r = req("POST", f"{API}/cart/add", json_body={"item_id": "mug1", "quantity": 2, "price": 0.01,
                                                 "name": "Free mug"}, headers=h)
    assert r.status == 201 and r.json() == {"ok": True, "data": {"item_id": "mug1", "quantity": 2, "cart_size": 1}}
    req("POST", f"{API}/cart/add", json_body={"item_id": "mug2"}, headers=dict(h))
    cart = req("GET", f"{API}/cart/view", headers=dict(h)).json()["data"]
    assert cart["subtotal_minor"] == 2 * 2800 + 1999 and cart["subtotal"] == 75.99
    line = next(i for i in cart["items"] if i["item_id"] == "mug1")
    assert line["name"] == "Ocean Blue Mug" and line["price"] == 28.0 and line["line_total_minor"] == 5600


def test_session_token_is_stored_hashed(shop, aws):
    req = shop()
    token = session(req)["authorization"].split()[1]
    raw = aws.client.scan(TableName=aws.table_name)["Items"]
    assert token not in json.dumps(raw)


def test_expired_session_is_401_before_ttl_deletion(shop):
    req = shop(session_ttl_s=60)
    h = session(req)
    assert req("GET", f"{API}/cart/view", headers=dict(h)).status == 200
    req.clock.t += 61  # DynamoDB has not deleted the item: only the reader's check refuses it
    r = req("GET", f"{API}/cart/view", headers=dict(h))
    assert r.status == 401 and "expired" in r.json()["error"]
    assert r.headers["www-authenticate"].startswith("Bearer")


def test_missing_vs_invalid_token(shop):
    req = shop()
    missing = req("GET", f"{API}/cart/view")
    invalid = req("GET", f"{API}/cart/view", headers={"x-session-token": "tok_nope"})
    assert missing.status == invalid.status == 401
    assert "missing" in missing.json()["error"] and "invalid" in invalid.json()["error"]


def test_all_three_token_headers_work(shop):
    req = shop()
    token = session(req)["authorization"].split()[1]
    for headers in ({"authorization": f"Bearer {token}"}, {"x-session-token": token}, {"x-agent-session": token}):
        assert req("GET", f"{API}/cart/view", headers=headers).status == 200


def test_quantity_bounds_and_stock(shop):
    req = shop(max_quantity=20)
    h = session(req)
    for q in (0, -1, 21, "many", 1.5):
        r = req("POST", f"{API}/cart/add", json_body={"item_id": "mug2", "quantity": q}, headers=dict(h))
        assert r.status == 400 and "quantity" in r.json()["error"], q
    assert req("POST", f"{API}/cart/add", json_body={"item_id": "mug2", "quantity": 20}, headers=dict(h)).status == 201
    r = req("POST", f"{API}/cart/add", json_body={"item_id": "mug2", "quantity": 1}, headers=dict(h))
    assert r.status == 400 and "at most 20" in r.json()["error"]
    # stock bounds the line too (mug1 has 10)
    r = req("POST", f"{API}/cart/add", json_body={"item_id": "mug1", "quantity": 11}, headers=dict(h))
    assert r.status == 400 and "10 in stock" in r.json()["error"]
    r = req("POST", f"{API}/cart/add", json_body={"item_id": "vase1"}, headers=dict(h))
    assert r.status == 400 and "out of stock" in r.json()["error"]
    r = req("POST", f"{API}/cart/add", json_body={"item_id": "nope"}, headers=dict(h))
    assert r.status == 404 and "nope" in r.json()["error"]
    r = req("PUT", f"{API}/cart/update", json_body={"item_id": "mug2", "quantity": 21}, headers=dict(h))
    assert r.status == 400


def test_update_remove_and_older_dialect(shop):
    req = shop()
    h = session(req)
    req("POST", f"{API}/cart/add", json_body={"item_id": "mug1", "quantity": 1}, headers=dict(h))
    r = req("PATCH", f"{API}/cart/update", json_body={"item_id": "mug1", "quantity": 3}, headers=dict(h))
    assert r.json() == {"ok": True, "data": {"item_id": "mug1", "quantity": 3}}
    r = req("PUT", f"{API}/cart/update", json_body={"item_id": "mug2", "quantity": 3}, headers=dict(h))
    assert r.status == 404 and "not in cart" in r.json()["error"]
    # item_id in the query string with an empty JSON body (the reference client's DELETE)
    r = req("DELETE", f"{API}/cart/remove", query={"item_id": "mug1"},
            headers={**h, "content-type": "application/json"})
    assert r.json() == {"ok": True, "data": {"item_id": "mug1", "removed": True}}
    assert req("DELETE", f"{API}/cart/remove", json_body={"item_id": "mug1"}, headers=dict(h)).status == 404
    assert req("GET", f"{API}/detail", query={"id": "mug2"}).json()["data"]["id"] == "mug2"
    r = req("DELETE", f"{API}/cart/remove", json_body={}, headers=dict(h))
    assert r.status == 400 and r.json()["error"] == "missing required parameter: item_id"


def test_session_end(shop):
    req = shop()
    h = session(req)
    assert req("DELETE", f"{API}/session", headers=dict(h)).json() == {"ok": True, "data": {"ended": True}}
    assert req("GET", f"{API}/cart/view", headers=dict(h)).status == 401


def test_idempotency_key_replays_without_adding_twice(shop):
    req = shop()
    h = session(req)
    hdrs = {**h, "idempotency-key": "k-1"}
    first = req("POST", f"{API}/cart/add", json_body={"item_id": "mug2", "quantity": 2}, headers=dict(hdrs))
    again = req("POST", f"{API}/cart/add", json_body={"item_id": "mug2", "quantity": 2}, headers=dict(hdrs))
    assert first.status == again.status == 201 and first.body == again.body
    assert again.headers.get("idempotent-replayed") == "true"
    assert req("GET", f"{API}/cart/view", headers=dict(h)).json()["data"]["items"][0]["quantity"] == 2
    other = req("POST", f"{API}/cart/add", json_body={"item_id": "mug2", "quantity": 5}, headers=dict(hdrs))
    assert other.status == 400 and "Idempotency-Key" in other.json()["error"]
    new = req("POST", f"{API}/cart/add", json_body={"item_id": "mug2", "quantity": 2},
              headers={**h, "idempotency-key": "k-2"})
    assert new.json()["data"]["quantity"] == 4


def test_rate_limit_headers_and_429(shop):
    req = shop(rate_limit=3, rate_window_s=60)
    seen = [req("GET", f"{API}/search", query={"q": "mug"}) for _ in range(4)]
    assert [r.status for r in seen] == [200, 200, 200, 429]
    assert [r.headers["ratelimit-remaining"] for r in seen] == ["2", "1", "0", "0"]
    limited = seen[-1]
    assert limited.json() == {"ok": False, "error": "Rate limit exceeded"}
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert limited.headers["x-ratelimit-remaining"] == "0"
    assert int(limited.headers["x-ratelimit-reset"]) > time.time() - 5
    assert limited.headers["link"] == '</.well-known/agents.json>; rel="agents"'
    req.clock.t += 60  # the window passing restores the client
    assert req("GET", f"{API}/search", query={"q": "mug"}).status == 200


def test_made_up_tokens_count_against_the_source_ip(shop):
    req = shop(rate_limit=4, rate_window_s=60)
    h = session(req)  # 1 of the IP's 4
    expired = session(req)  # 2 of 4
    req.clock.t += 1
    # a fresh made-up token per request gets no bucket of its own (on any route, in any header)
    seen = [req("GET", f"{API}/search", query={"q": "mug"}, headers={"x-session-token": f"tok_made_up_{i}"})
            for i in range(2)]
    assert [r.status for r in seen] == [200, 200]
    assert [r.headers["ratelimit-remaining"] for r in seen] == ["1", "0"]
    for headers in ({"authorization": "Bearer tok_another"}, {"x-agent-session": "tok_yet_another"},
                    {"x-session-token": "t" * 5000}, {}):
        r = req("GET", f"{API}/cart/view", headers=headers)
        assert r.status == 429 and r.json() == {"ok": False, "error": "Rate limit exceeded"}, headers
    # a live session has its own budget on its own item
    mine = [req("GET", f"{API}/cart/view", headers=dict(h)) for _ in range(5)]
    assert [r.status for r in mine] == [200, 200, 200, 200, 429]
    assert [r.headers["ratelimit-remaining"] for r in mine] == ["3", "2", "1", "0", "0"]
    # once past its lifetime, a real token is no better than a made-up one
    req.clock.t += 1800
    r = req("GET", f"{API}/cart/view", headers={"authorization": expired["authorization"]})
    assert r.status == 401 and "expired" in r.json()["error"]
    assert r.headers["ratelimit-remaining"] == "3"  # a new window of the IP's counter


def test_rate_limit_headers_on_preflight_and_when_the_limiter_fails_open(shop, monkeypatch):
    from agents_api.ratelimit import RateLimiter

    req = shop(rate_limit=7, rate_window_s=60)
    pre = req("OPTIONS", f"{API}/cart/add", headers={"access-control-request-method": "POST"})
    assert pre.status == 204
    assert pre.headers["ratelimit-limit"] == "7" and pre.headers["ratelimit-policy"] == "7;w=60"
    assert 0 < int(pre.headers["ratelimit-reset"]) <= 60 and "ratelimit-remaining" not in pre.headers
    h = session(req)

    def broken(*a, **k):
        raise RuntimeError("DynamoDB unavailable")
    monkeypatch.setattr(RateLimiter, "hit", broken)
    monkeypatch.setattr(RateLimiter, "hit_session", broken)
    r = req("GET", f"{API}/search", query={"q": "mug"})
    assert r.status == 200 and r.headers["ratelimit-limit"] == "7" and r.headers["ratelimit-policy"] == "7;w=60"
    assert "ratelimit-remaining" not in r.headers and int(r.headers["x-ratelimit-reset"]) > time.time() - 5
    # the session is then read by the route itself
    assert req("GET", f"{API}/cart/view", headers=dict(h)).status == 200
    assert req("GET", f"{API}/cart/view", headers={"x-session-token": "tok_made_up"}).status == 401


def test_checkout_handoff_page_is_signed_expiring_and_one_time(shop):
    req = shop()
    h = session(req)
    assert req("POST", f"{API}/checkout", headers=dict(h)).status == 400  # empty cart
    req("POST", f"{API}/cart/add", json_body={"item_id": "mug1", "quantity": 2}, headers=dict(h))
    r = req("POST", f"{API}/checkout", headers=dict(h))
    data = r.json()["data"]
    assert r.status == 200 and data["human_handoff"] is True
    url = urlsplit(data["checkout_url"])
    assert url.netloc == "shop.test"
    page = req("GET", url.path, query=url.query)
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assert "Ocean Blue Mug" in page.text and "56.00 USD" in page.text
    tampered = url.query.replace("sig=", "sig=0")
    assert req("GET", url.path, query=tampered).status == 403
    form = "&".join(p for p in url.query.split("&"))
    done = req("POST", url.path + "/confirm", body=form,
               headers={"content-type": "application/x-www-form-urlencoded"})
    assert done.status == 200 and "confirmed" in done.text
    again = req("POST", url.path + "/confirm", body=form,
                headers={"content-type": "application/x-www-form-urlencoded"})
    assert again.status == 410
    assert req("GET", url.path, query=url.query).status == 410
    # a fresh link expires
    url2 = urlsplit(req("POST", f"{API}/checkout", headers=dict(h)).json()["data"]["checkout_url"])
    req.clock.t += 301
    assert req("GET", url2.path, query=url2.query).status == 410


def test_errors_keep_envelope_and_headers(shop, monkeypatch):
    req = shop()
    r = req("POST", f"{API}/contact", body="{not json", headers={"content-type": "application/json"})
    assert r.status == 400 and r.json()["ok"] is False and "Malformed JSON" in r.json()["error"]
    r = req("POST", f"{API}/contact", json_body={"name": "Jane", "email": "nope", "message": "hi"})
    assert r.status == 400 and "email" in r.json()["error"]
    r = req("GET", f"{API}/browse", query={"limit": "1000"})
    assert r.status == 400 and "limit" in r.json()["error"]
    r = req("GET", f"{API}/search")
    assert r.status == 400 and r.json()["error"] == "missing required parameter: q"
    r = req("POST", f"{API}/contact", body="x" * 1_100_000, headers={"content-type": "application/json"})
    assert r.status == 413 and r.json()["ok"] is False and r.headers["access-control-allow-origin"] == "*"

    def boom(*a, **k):
        raise RuntimeError("secret internals /var/task")
    monkeypatch.setattr(DynamoCatalog, "get", boom)
    r = req("GET", f"{API}/detail/mug1")
    assert r.status == 500 and r.json()["ok"] is False and "internals" not in r.text
    assert r.headers["link"] == '</.well-known/agents.json>; rel="agents"'


def test_contact_is_stored(shop, aws):
    req = shop()
    r = req("POST", f"{API}/contact", json_body={"name": "Jane", "email": "jane@example.com", "message": "Hello"})
    assert r.status == 200 and r.json() == {"ok": True, "data": {"sent": True}}
    items = aws.client.scan(TableName=aws.table_name)["Items"]
    assert any(i["pk"]["S"].startswith("CONTACT#") and i["message"]["S"] == "Hello" for i in items)


def test_no_idempotency_record_holds_a_token_or_a_checkout_signature(shop, aws):
    req = shop()
    # the client sends an Idempotency-Key on every POST, session creation included
    created = req("POST", f"{API}/session", headers={"idempotency-key": "s-1"})
    token = created.json()["data"]["session_token"]
    again = req("POST", f"{API}/session", headers={"idempotency-key": "s-1"})
    assert again.status == 201 and "idempotent-replayed" not in again.headers  # a new session, not a replay
    other = again.json()["data"]["session_token"]
    assert other != token
    h = {"authorization": f"Bearer {token}"}
    req("POST", f"{API}/cart/add", json_body={"item_id": "mug1", "quantity": 1}, headers={**h, "idempotency-key": "a"})
    first = req("POST", f"{API}/checkout", headers={**h, "idempotency-key": "c-1"})
    replay = req("POST", f"{API}/checkout", headers={**h, "idempotency-key": "c-1"})
    assert replay.headers.get("idempotent-replayed") == "true" and replay.body == first.body
    url = urlsplit(replay.json()["data"]["checkout_url"])
    sig = dict(p.split("=", 1) for p in url.query.split("&"))["sig"]
    assert req("GET", url.path, query=url.query).status == 200  # the replayed link works
    items = aws.client.scan(TableName=aws.table_name)["Items"]
    idemp = json.dumps([i for i in items if i["pk"]["S"].startswith("IDEMP#")], default=str)
    assert '"IDEMP#' in idemp and "checkout_url" in idemp  # the records exist (cart add, checkout)...
    for secret in (token, other, sig):  # ...and hold no token nor signature
        assert secret not in idemp
    assert token not in json.dumps(items, default=str) and sig not in json.dumps(items, default=str)


def test_an_abandoned_idempotency_claim_is_taken_over_after_the_function_timeout(shop, aws):
    from agents_api.idempotency import Idempotency
    from agents_api.sessions import token_hash

    req = shop(idempotency_reclaim_s=35)
    h = session(req)
    token = h["authorization"].split()[1]
    body = json.dumps({"item_id": "mug2", "quantity": 3})
    # an invocation claimed the key (in its session's rate-limit write), then died before answering
    claim = Idempotency.claim_attribute("POST", f"{API}/cart/add", "k-9")
    Store(clock=req.clock).update(**keys.session(token_hash(token)), set_={claim: int(req.clock())})
    crashed = Idempotency(Store(clock=req.clock), "s:" + token_hash(token)[:32], "POST", f"{API}/cart/add", "k-9",
                          session=token_hash(token))
    crashed.claimed(int(req.clock()))
    hdrs = {**h, "idempotency-key": "k-9", "content-type": "application/json"}
    busy = req("POST", f"{API}/cart/add", body=body, headers=dict(hdrs))
    assert busy.status == 409 and "still being processed" in busy.json()["error"]
    assert busy.headers["retry-after"] == "1"
    req.clock.t += 20
    assert req("POST", f"{API}/cart/add", body=body, headers=dict(hdrs)).status == 409  # it might still run
    req.clock.t += 16  # past the function's timeout: the first run cannot be alive
    taken = req("POST", f"{API}/cart/add", body=body, headers=dict(hdrs))
    assert taken.status == 201 and taken.json()["data"]["quantity"] == 3
    replay = req("POST", f"{API}/cart/add", body=body, headers=dict(hdrs))
    assert replay.headers.get("idempotent-replayed") == "true" and replay.body == taken.body
    assert req("GET", f"{API}/cart/view", headers=dict(h)).json()["data"]["items"][0]["quantity"] == 3
    # the crashed run finishing late does not overwrite the record of the run that answered
    crashed.finish(201, b'{"late": true}', "application/json")
    assert req("POST", f"{API}/cart/add", body=body, headers=dict(hdrs)).body == taken.body


def test_an_idempotency_key_without_a_live_session_is_claimed_on_its_record(shop, aws):
    """A keyed POST of no session (here: the contact form) claims the key on its own record: a retry is a
    replay, another body a 400."""
    req = shop()
    msg = {"name": "Ada", "email": "ada@example.com", "message": "Hello"}
    first = req("POST", f"{API}/contact", json_body=msg, headers={"idempotency-key": "c-9"})
    again = req("POST", f"{API}/contact", json_body=msg, headers={"idempotency-key": "c-9"})
    assert first.status == 200 and again.headers.get("idempotent-replayed") == "true" and again.body == first.body
    other = req("POST", f"{API}/contact", json_body={**msg, "message": "Bye"}, headers={"idempotency-key": "c-9"})
    assert other.status == 400
    items = aws.client.scan(TableName=aws.table_name)["Items"]
    assert sum(1 for i in items if i["pk"]["S"].startswith("CONTACT#")) == 1


def test_cart_lines_are_bounded(shop):
    req = shop(max_lines=2)
    h = session(req)
    assert req("POST", f"{API}/cart/add", json_body={"item_id": "mug1"}, headers=dict(h)).status == 201
    assert req("POST", f"{API}/cart/add", json_body={"item_id": "mug2"}, headers=dict(h)).json()["data"] == \
        {"item_id": "mug2", "quantity": 1, "cart_size": 2}
    DynamoCatalog(Store(), "t").load([{"id": "bowl1", "name": "Bowl", "price_minor": 500, "currency": "USD",
                                       "stock": 5}])
    r = req("POST", f"{API}/cart/add", json_body={"item_id": "bowl1"}, headers=dict(h))
    assert r.status == 400 and "2 different items" in r.json()["error"]
    # an existing line may still grow
    assert req("POST", f"{API}/cart/add", json_body={"item_id": "mug2"}, headers=dict(h)).json()["data"] == \
        {"item_id": "mug2", "quantity": 2, "cart_size": 2}


def test_a_session_ended_mid_request_is_401_not_resurrected(shop, aws, monkeypatch):
    from agents_api.sessions import Sessions, token_hash

    req = shop()
    h = session(req)
    req("POST", f"{API}/cart/add", json_body={"item_id": "mug1"}, headers=dict(h))
    real_add = Sessions.add

    def ended_first(self, session, *a, **k):
        # the rate-limit write saw the session; another request ends it before the cart write
        self.store.delete(pk=f"SESSION#{session.hash}", sk="META")
        return real_add(self, session, *a, **k)
    monkeypatch.setattr(Sessions, "add", ended_first)
    r = req("POST", f"{API}/cart/add", json_body={"item_id": "mug2"}, headers=dict(h))
    assert r.status == 401 and "invalid or expired" in r.json()["error"]
    assert aws.get(pk=f"SESSION#{token_hash(h['authorization'].split()[1])}", sk="META") is None


class Calls:
    """DynamoDB operations made while :meth:`during` runs (botocore events on every DynamoDB client)."""

    def during(self, fn):
        from tests.support.usage import DynamoCalls

        with DynamoCalls() as seen:
            out = fn()
        return out, seen.ops


def test_dynamodb_calls_per_call_rate_limit_plus_the_operation(shop):
    req = shop()
    h = session(req)
    calls = Calls()
    # (this site has no catalog snapshot: a product lookup is a GetItem; the reference store's warm
    # container answers it from its snapshot, see tests/perf/bench_agents_api.py)
    r, ops = calls.during(lambda: req("POST", f"{API}/cart/add", json_body={"item_id": "mug1"}, headers=dict(h)))
    assert r.status == 201 and ops == ["UpdateItem", "GetItem", "UpdateItem"]  # rate limit, product, cart
    r, ops = calls.during(lambda: req("GET", f"{API}/cart/view", headers=dict(h)))
    assert r.status == 200 and ops == ["UpdateItem", "BatchGetItem"]  # no session read
    r, ops = calls.during(lambda: req("PUT", f"{API}/cart/update", json_body={"item_id": "mug1", "quantity": 2},
                                      headers=dict(h)))
    assert r.status == 200 and ops == ["UpdateItem", "GetItem", "UpdateItem"]
    r, ops = calls.during(lambda: req("POST", f"{API}/checkout", headers=dict(h)))
    assert r.status == 200 and ops[0] == "UpdateItem" and ops[1] == "BatchGetItem" and ops[-1] == "PutItem"
    assert "Query" not in ops and len(ops) in (3, 4)  # (+ the signing key once per container)
    r, ops = calls.during(lambda: req("DELETE", f"{API}/cart/remove", json_body={"item_id": "mug1"},
                                      headers=dict(h)))
    assert r.status == 200 and ops == ["UpdateItem", "UpdateItem"]
    r, ops = calls.during(lambda: req("GET", f"{API}/cart/view", headers={"x-session-token": "tok_forged"}))
    assert r.status == 401 and ops == ["UpdateItem", "UpdateItem"]  # the refused session write, then the IP


def test_with_a_warm_catalog_a_read_only_call_is_one_write_a_cart_add_two_and_with_a_key_three(shop):
    """The reference store's warm container answers products from its catalog snapshot: a read-only call
    is its rate-limit write alone (which carries its usage), a cart add that and the cart's write, and an
    Idempotency-Key claims its key in the rate-limit write and stores the answer: three."""
    from agents_api import catalog

    catalog._cache.clear()
    req = shop(catalog_cache_s=600)
    h = session(req)
    req("GET", f"{API}/browse")  # the container's catalog snapshot
    calls = Calls()
    for path, query in ((f"{API}/search", {"q": "mug"}), (f"{API}/detail/mug1", None), (f"{API}/browse", None)):
        r, ops = calls.during(lambda path=path, query=query: req("GET", path, query=query))
        assert r.status == 200 and ops == ["UpdateItem"], path
    r, ops = calls.during(lambda: req("POST", f"{API}/cart/add", json_body={"item_id": "mug1"}, headers=dict(h)))
    assert r.status == 201 and ops == ["UpdateItem", "UpdateItem"]  # rate limit, cart
    r, ops = calls.during(lambda: req("GET", f"{API}/cart/view", headers=dict(h)))
    assert r.status == 200 and ops == ["UpdateItem"]
    keyed = {**h, "idempotency-key": "k-3"}
    r, ops = calls.during(lambda: req("POST", f"{API}/cart/add", json_body={"item_id": "mug2"}, headers=dict(keyed)))
    assert r.status == 201 and ops == ["UpdateItem", "UpdateItem", "PutItem"]  # rate limit + claim, cart, answer
    again, ops = calls.during(lambda: req("POST", f"{API}/cart/add", json_body={"item_id": "mug2"},
                                          headers=dict(keyed)))
    assert again.headers.get("idempotent-replayed") == "true" and again.body == r.body
    assert ops == ["UpdateItem", "GetItem"]  # the refused claim, then the stored answer
    assert req("GET", f"{API}/cart/view", headers=dict(h)).json()["data"]["item_count"] == 2
    catalog._cache.clear()


def test_a_calls_usage_rides_on_its_own_writes(shop, aws, rollup):
    """The rate limit's write carries a call's usage (a read-only call writes nothing else); a cart change
    carries what came after it: no counter write of metering's own."""
    from agents_api import checkout

    from agenthost import metering

    req = shop()
    h = session(req)
    req("POST", f"{API}/cart/add", json_body={"item_id": "mug1", "quantity": 2}, headers=dict(h))
    checkout.signing_key(Store())  # the key's one-time write is not the checkout's (whichever test ran first)
    calls = Calls()

    def metered(method, path, **kw):
        with metering.turn("agents_api", "ride-test"):
            return req(method, path, **kw)
    r, ops = calls.during(lambda: metered("PUT", f"{API}/cart/update", json_body={"item_id": "mug1",
                                                                                  "quantity": 3},
                                          headers=dict(h)))
    assert r.status == 200 and ops == ["UpdateItem", "GetItem", "UpdateItem"]  # no counter write
    r, ops = calls.during(lambda: metered("POST", f"{API}/checkout", headers=dict(h)))
    assert r.status == 200 and ops[0] == "UpdateItem" and ops[-1] == "PutItem" and ops.count("UpdateItem") == 1
    r, ops = calls.during(lambda: metered("GET", f"{API}/cart/view", headers=dict(h)))
    assert ops == ["UpdateItem", "BatchGetItem"]  # the rate limit's write carried it
    rollup()
    usage = aws.get(**metering.usage_key(metering.day_of(time.time()), "ride-test", "agents_api"))
    assert usage["turns"] == 3
    assert req("GET", f"{API}/cart/view", headers=dict(h)).json()["data"]["items"][0]["quantity"] == 3


def test_a_session_item_without_a_cart_map_gets_one_on_the_first_add(shop, aws):
    from agents_api.sessions import token_hash

    req = shop()
    h = session(req)
    key = {"pk": f"SESSION#{token_hash(h['authorization'].split()[1])}", "sk": "META"}
    aws.client.update_item(TableName=aws.table_name, Key={k: {"S": v} for k, v in key.items()},
                           UpdateExpression="REMOVE cart")  # as written before carts moved into the item
    r = req("POST", f"{API}/cart/add", json_body={"item_id": "mug1", "quantity": 2}, headers=dict(h))
    assert r.status == 201 and r.json()["data"] == {"item_id": "mug1", "quantity": 2, "cart_size": 1}


def test_checkout_links_are_signed_with_the_configured_parameter(shop, aws, monkeypatch):
    import hashlib
    import hmac

    from agents_api import checkout

    from agenthost import aws as aws_clients

    aws_clients.client("ssm").put_parameter(Name="/agenthost/agents-checkout-key", Value="k" * 40,
                                            Type="SecureString")
    monkeypatch.delenv("AGENTHOST_AGENTS_CHECKOUT_SECRET", raising=False)
    monkeypatch.setenv("AGENTHOST_AGENTS_CHECKOUT_SECRET_PARAM", "/agenthost/agents-checkout-key")
    checkout._key_cache.clear()
    req = shop()
    h = session(req)
    req("POST", f"{API}/cart/add", json_body={"item_id": "mug1"}, headers=dict(h))
    url = urlsplit(req("POST", f"{API}/checkout", headers=dict(h)).json()["data"]["checkout_url"])
    q = dict(p.split("=", 1) for p in url.query.split("&"))
    checkout_id = url.path.rsplit("/", 1)[-1]
    assert q["sig"] == hmac.new(b"k" * 40, f"{checkout_id}.{q['exp']}".encode(), hashlib.sha256).hexdigest()
    assert req("GET", url.path, query=url.query).status == 200
    assert aws.get(pk="SECRET#agents-checkout", sk="META") is None  # no generated fallback key


def test_a_bad_body_is_a_400_before_the_session_is_looked_at(shop):
    # the body is parsed and bounded ahead of the session (a dependency declared before it): an agent
    # that sends a broken request learns what is wrong with it, with or without a live session
    req = shop()
    cases = [("POST", "cart/add", {"quantity": 1}, "missing required parameter: item_id"),
             ("POST", "cart/add", {"item_id": "mug1", "quantity": 100}, "quantity must be an integer between 1 and 99"),
             ("PUT", "cart/update", {"item_id": "mug1"}, "missing required parameter: quantity"),
             ("PATCH", "cart/update", {"item_id": "mug1", "quantity": -1}, "between 0 and 99"),
             ("DELETE", "cart/remove", {}, "missing required parameter: item_id")]
    for method, path, body, message in cases:
        for headers in ({}, {"authorization": "Bearer tok_made_up"}):
            r = req(method, f"{API}/{path}", json_body=body, headers=dict(headers))
            assert r.status == 400 and message in r.json()["error"], (method, path, headers, r.json())
    r = req("POST", f"{API}/checkout", body="[1]", headers={"content-type": "application/json"})
    assert r.status == 400 and r.json() == {"ok": False, "error": "the request body must be a JSON object"}
    # a well-formed request without a session is the 401 that says how to get one
    r = req("POST", f"{API}/cart/add", json_body={"item_id": "mug1"})
    assert r.status == 401 and "POST /.well-known/agents/api/session" in r.json()["error"]


def test_a_cart_add_resent_by_the_sdk_after_it_was_applied_adds_once(shop):
    """The store resends a request whose answer was lost (a timeout, a dropped connection, a 5xx): the first
    attempt may already be applied. The add carries a request id of its own, so the resent write is refused
    and recognised."""
    from botocore.exceptions import ReadTimeoutError

    from tests.support.dynamo import on_every_client

    req = shop()
    h = session(req)
    resends = []

    def lose_the_first_answer(model=None, parsed=None, **_):
        if model.name == "UpdateItem" and not resends and "Attributes" in (parsed or {}) \
                and "cart" in parsed["Attributes"]:
            resends.append(1)  # DynamoDB applied it; the answer never arrives
            raise ReadTimeoutError(endpoint_url="http://dynamodb.test")

    with on_every_client("after-call.dynamodb", lose_the_first_answer):
        added = req("POST", f"{API}/cart/add", json_body={"item_id": "mug2", "quantity": 2}, headers=dict(h))
    assert resends == [1]
    assert added.status == 201 and added.json()["data"]["quantity"] == 2
    assert req("GET", f"{API}/cart/view", headers=dict(h)).json()["data"]["items"][0]["quantity"] == 2


def test_a_keyed_cart_add_applied_then_answered_503_adds_once_when_the_client_retries(shop):
    """Every answer to a keyed add's cart write is lost, the first after DynamoDB applied it: the request answers
    503 and its key is free again (5xx answers are not kept). The client's retry with the same Idempotency-Key
    is recognised as the add already made: 201, and the cart holds the quantity once."""
    from botocore.exceptions import ReadTimeoutError

    from tests.support.dynamo import on_every_client

    req = shop()
    h = {**session(req), "Idempotency-Key": "add-mug2-once"}
    lost = []

    def lose_every_cart_answer(model=None, parsed=None, **_):
        parsed = parsed or {}
        applied = "mug2" in parsed.get("Attributes", {}).get("cart", {}).get("M", {})
        refused = parsed.get("Error", {}).get("Code") == "ConditionalCheckFailedException" and \
            "mug2" in (parsed.get("Item") or {}).get("cart", {}).get("M", {})
        if model.name == "UpdateItem" and (applied or refused):
            lost.append(1)  # the write was applied (or refused as already applied); its answer never arrives
            raise ReadTimeoutError(endpoint_url="http://dynamodb.test")

    with on_every_client("after-call.dynamodb", lose_every_cart_answer):
        first = req("POST", f"{API}/cart/add", json_body={"item_id": "mug2", "quantity": 2}, headers=dict(h))
    assert first.status == 503 and lost
    retry = req("POST", f"{API}/cart/add", json_body={"item_id": "mug2", "quantity": 2}, headers=dict(h))
    assert retry.status == 201 and retry.json()["data"]["quantity"] == 2
    assert req("GET", f"{API}/cart/view", headers=dict(h)).json()["data"]["items"][0]["quantity"] == 2


@pytest.mark.parametrize("who", ["source ip", "session"])
def test_a_rate_limit_hit_resent_by_the_sdk_after_it_was_applied_counts_once(shop, who):
    """A counter write whose answer was lost is resent by the store; the first attempt may already be applied.
    The hit carries a request id of its own, so the resent write is refused and recognised: the request
    counts once (counted twice, a loaded machine's lost answers admitted fewer than the limit)."""
    from botocore.exceptions import ReadTimeoutError

    from tests.support.dynamo import on_every_client

    req = shop(rate_limit=5, rate_window_s=60)
    h = session(req) if who == "session" else {}
    req.clock.t += 60  # a fresh window: the session's creation counted in the one before
    resends = []

    def lose_the_first_answer(model=None, parsed=None, **_):
        attributes = (parsed or {}).get("Attributes", {})
        if model.name == "UpdateItem" and not resends and ("count" in attributes or "cart" in attributes):
            resends.append(1)  # DynamoDB applied it; the answer never arrives
            raise ReadTimeoutError(endpoint_url="http://dynamodb.test")

    with on_every_client("after-call.dynamodb", lose_the_first_answer):
        first = req("GET", f"{API}/cart/view" if h else f"{API}/search", query={"q": "mug"}, headers=dict(h))
    assert resends == [1]
    assert first.status in (200, 401) and first.headers["ratelimit-remaining"] == "4"
    seen = [req("GET", f"{API}/search", query={"q": "mug"}, headers=dict(h)) for _ in range(5)]
    assert [r.status for r in seen] == [200, 200, 200, 200, 429]
    assert [r.headers["ratelimit-remaining"] for r in seen] == ["3", "2", "1", "0", "0"]


def test_the_generated_signing_key_is_stored_once_and_shared_in_one_write(aws, monkeypatch):
    from agents_api import checkout

    monkeypatch.delenv("AGENTHOST_AGENTS_CHECKOUT_SECRET", raising=False)
    checkout._key_cache.clear()
    calls = Calls()
    first, ops = calls.during(lambda: checkout.signing_key(Store()))
    assert ops == ["PutItem"] and len(first) == 64
    checkout._key_cache.clear()  # another container: its own key is refused, the stored one comes back
    second, ops = calls.during(lambda: checkout.signing_key(Store()))
    assert second == first and ops == ["PutItem"]
    assert aws.get(pk="SECRET#agents-checkout", sk="META")["value"] == first


def test_the_sites_other_routes_carry_the_discovery_link_too(shop):
    """The spec: the Link header is on every response of the site, also outside the agents API. A path the
    site does not serve is its own 404 in the envelope, with Link (and CORS), and is not counted."""
    req = shop(rate_limit=1, rate_window_s=60)
    for path in ("/", "/no/such/page", "/.well-known/other"):
        r = req("GET", path)
        assert r.status == 404 and r.json()["ok"] is False, r.text
        assert r.headers["link"] == '</.well-known/agents.json>; rel="agents"'
        assert r.headers["access-control-allow-origin"] == "*"
    assert req("GET", f"{API}/search", query={"q": "mug"}).status == 200  # those used none of the limit
