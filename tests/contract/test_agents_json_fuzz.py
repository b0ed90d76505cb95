"""Property-based fuzzing of every agents.json endpoint (in process, moto): whatever arrives, the site
answers without a 5xx, in the envelope (discovery documents and the human's checkout pages in their own
formats), with its discovery Link header; a forged checkout confirmation never confirms."""

from __future__ import annotations

import json

import pytest
from agents_api.catalog import DynamoCatalog
from agents_api.checkout import SignedCheckout
from agents_api.sdk import AgentsSite, Limits, SiteInfo, error_body
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agenthost.store import Store
from agenthost.webapp import create_app, make_handler
from tests.support.apigw import call

API = "/.well-known/agents/api"
PRODUCTS = [{"id": f"p{i}", "name": f"Item {i}", "category": "mugs" if i % 2 else "bowls",
             "price_minor": 1000 + i, "currency": "USD", "stock": i} for i in range(6)]
ENDPOINTS = [API + p for p in ("/search", "/browse", "/detail/p1", "/detail/nope", "/detail", "/session", "/cart/add",
                                "/cart/view", "/cart/update", "/cart/remove", "/checkout", "/contact", "/openapi.json",
                                "/unknown")] + ["/.well-known/agents.json", "/.well-known/agents.txt", "/llms.txt"]
DOCUMENTS = {"/.well-known/agents.json": "application/json", "/.well-known/agents.txt": "text/plain",
             "/llms.txt": "text/markdown"}
PARAMS = ["q", "query", "limit", "page", "category", "min_price", "max_price", "in_stock", "sort", "id", "item_id",
          "quantity", "name", "email", "message", "price"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True),
                    st.text(max_size=40), st.sampled_from(["p1", "p2", "nope", "", " ", "0", "-1", "1e9", "NaN"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                           max_leaves=10)
bodies = st.one_of(
    st.none(),
    st.dictionaries(st.sampled_from(PARAMS), json_values, max_size=5).map(json.dumps),
    json_values.map(json.dumps),
    st.binary(max_size=60),
    st.sampled_from(['{"item_id": "\\ud800"}', '{"item_id": "p1", "quantity": 1e400}', "{", "null", "[]", '""',
                     '{"item_id": "p1", "quantity": "2"}', '{"item_id": {"$ne": 1}}']),
)
queries = st.dictionaries(st.sampled_from(PARAMS), st.one_of(st.text(max_size=30), st.sampled_from(
    ["1", "0", "-5", "999999999999999999999", "1.5", "true", "price_asc", "mugs", "p1", "%00", "\u00e9"])), max_size=4)
methods = st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"])


@pytest.fixture
def site_handler(aws):
    DynamoCatalog(Store(), "fz").load(PRODUCTS)
    app = create_app("agents-fuzz", error_body=error_body)
    AgentsSite(SiteInfo(name="Fuzz"), catalog=lambda s: DynamoCatalog(s, "fz"), checkout=SignedCheckout(),
               limits=Limits(rate_limit=10**9)).install(app)
    handler = make_handler(app)
    token = call(handler, "POST", f"{API}/session").json()["data"]["session_token"]
    return handler, token


@pytest.fixture
def checkout_url(site_handler) -> str:
    handler, token = site_handler
    h = {"authorization": f"Bearer {token}"}
    assert call(handler, "POST", f"{API}/cart/add", json_body={"item_id": "p3"}, headers=h).status == 201
    return call(handler, "POST", f"{API}/checkout", headers=h).json()["data"]["checkout_url"]


def check(r, path: str = "") -> None:
    assert r.status < 500, (r.status, r.text[:300])
    assert r.headers.get("link") == '</.well-known/agents.json>; rel="agents"'
    if r.status == 200 and path in DOCUMENTS:
        assert r.headers["content-type"].startswith(DOCUMENTS[path])
        if path.endswith(".json"):
            assert r.json()["capabilities"]
    elif r.status >= 400:
        body = r.json()
        assert body["ok"] is False and isinstance(body["error"], str) and body["error"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method=methods, endpoint=st.sampled_from(ENDPOINTS), query=queries, body=bodies,
       token_kind=st.sampled_from(["valid", "none", "forged", "long", "bearer-empty"]),
       content_type=st.sampled_from(["application/json", "text/plain", None]),
       idem=st.one_of(st.none(), st.text(min_size=1, max_size=20), st.just("k" * 300)))
def test_no_endpoint_answers_5xx(site_handler, method, endpoint, query, body, token_kind, content_type, idem):
    handler, token = site_handler
    headers: dict[str, str] = {}
    if token_kind == "valid":
        headers["authorization"] = f"Bearer {token}"
    elif token_kind == "forged":
        headers["x-session-token"] = "tok_forged"
    elif token_kind == "long":
        headers["x-agent-session"] = "t" * 5000
    elif token_kind == "bearer-empty":
        headers["authorization"] = "Bearer "
    if content_type:
        headers["content-type"] = content_type
    if idem is not None and idem.strip() and idem.isprintable() and idem.isascii():
        headers["idempotency-key"] = idem
    check(call(handler, method, endpoint, query=query, body=body, headers=headers), endpoint)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(item_id=st.text(min_size=1, max_size=250), quantity=json_values)
def test_cart_add_with_any_item_and_quantity(site_handler, item_id, quantity):
    handler, token = site_handler
    r = call(handler, "POST", f"{API}/cart/add", json_body={"item_id": item_id, "quantity": quantity},
             headers={"authorization": f"Bearer {token}"})
    check(r)
    if r.status == 201:
        assert item_id.strip() in {p["id"] for p in PRODUCTS}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.text(max_size=40))
def test_checkout_page_with_any_id(site_handler, path):
    handler, _ = site_handler
    r = call(handler, "GET", "/.well-known/agents/checkout/" + path.replace("/", "_"),
             query={"exp": "1", "sig": path[:10]})
    assert r.status < 500


forms = st.one_of(
    st.binary(max_size=80),
    st.dictionaries(st.sampled_from(["exp", "sig", "confirm", "id"]),
                    st.one_of(st.text(max_size=70), st.sampled_from(["1", "0", "9" * 30, "-1", ""])),
                    max_size=4).map(lambda d: "&".join(f"{k}={v}" for k, v in d.items())),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(form=forms, real_id=st.booleans(), keep_exp=st.booleans(), suffix=st.text(max_size=20),
       content_type=st.sampled_from(["application/x-www-form-urlencoded", "application/json", "text/plain", None]))
def test_checkout_confirm_with_any_form(site_handler, checkout_url, form, real_id, keep_exp, suffix, content_type):
    """The human's confirm POST: whatever arrives, an HTML answer without a 5xx, and nothing without the
    link's own signature confirms the order."""
    handler, _ = site_handler
    path, query = checkout_url.split("://", 1)[1].split("/", 1)[1].split("?", 1)
    checkout_id = path.rsplit("/", 1)[-1] if real_id else (suffix.replace("/", "_") or "x")
    exp = dict(p.split("=", 1) for p in query.split("&"))["exp"]
    body = (f"exp={exp}&" if keep_exp else "") + (form if isinstance(form, str) else form.decode("latin-1"))
    headers = {"content-type": content_type} if content_type else {}
    r = call(handler, "POST", f"/.well-known/agents/checkout/{checkout_id}/confirm", body=body, headers=headers)
    assert r.status < 500, (r.status, r.text[:300])
    assert r.headers["content-type"].startswith("text/html")
    assert r.status in (403, 410) and "Order confirmed" not in r.text
