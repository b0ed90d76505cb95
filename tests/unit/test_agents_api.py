"""agents.json site SDK in process (moto): state, expiry, bounds, idempotency, checkout handoff."""

from __future__ import annotations

import json
import time
from urllib.parse import urlsplit

import pytest
from agents_api.catalog import DynamoCatalog
from agents_api.checkout import SignedCheckout
from agents_api.sdk import AgentsSite, Limits, SiteInfo, error_body

from agenthost.http import create_app, make_handler
from agenthost.store import Store
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
        self.t = time.time()

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def shop(aws):
    clock = Clock()
    DynamoCatalog(Store(), "t").load(PRODUCTS)

    def build(**limits):
        app = create_app("agents-test", error_body=error_body)
        site = AgentsSite(SiteInfo(name="Test Shop"), catalog=lambda s: DynamoCatalog(s, "t"),
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
    # another client (a session) has its own budget; the window passing restores the first
    assert req("GET", f"{API}/search", query={"q": "mug"}, headers={"x-session-token": "t"}).status == 200
    req.clock.t += 60
    assert req("GET", f"{API}/search", query={"q": "mug"}).status == 200


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
