"""agents.json Interaction API conformance over real HTTP against the local stack (seeded catalog).

Every capability, header and status code the spec names; concurrency; idempotent retries."""

from __future__ import annotations

import re
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote, urlsplit

import httpx
import pytest
from agents_api.models import AgentsJson

from tests.support.timing import waited

pytestmark = pytest.mark.e2e

API = "/.well-known/agents/api"
LINK = '</.well-known/agents.json>; rel="agents"'


@pytest.fixture(scope="module")
def http(stack):
    with httpx.Client(base_url=stack.http_url, timeout=30) as client:
        yield client


@pytest.fixture
def token(http) -> str:
    r = http.post(f"{API}/session")
    assert r.status_code == 201
    return r.json()["data"]["session_token"]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def assert_edge(r: httpx.Response) -> None:
    assert r.headers["link"] == LINK
    assert r.headers["access-control-allow-origin"] == "*"
    assert "Retry-After" in r.headers["access-control-expose-headers"]
    for h in ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"):
        assert r.headers[h].isdigit(), h


def assert_ok(r: httpx.Response, status: int = 200):
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json; charset=utf-8"
    assert_edge(r)
    body = r.json()
    assert set(body) == {"ok", "data"} and body["ok"] is True
    return body["data"]


def assert_error(r: httpx.Response, status: int, *words: str) -> str:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert_edge(r)
    body = r.json()
    assert set(body) == {"ok", "error"} and body["ok"] is False and isinstance(body["error"], str)
    for w in words:
        assert w in body["error"], (w, body["error"])
    return body["error"]


def in_stock_item(http, minimum: int = 1) -> dict:
    items = assert_ok(http.get(f"{API}/browse", params={"limit": 100, "in_stock": "true"}))["items"]
    return next(i for i in items if i["stock"] >= minimum)


# ---- discovery ---------------------------------------------------------------------------------

def test_agents_json_is_complete_and_valid(http, stack):
    r = http.get("/.well-known/agents.json")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert_edge(r)
    doc = AgentsJson.model_validate(r.json())
    names = {c.name for c in doc.capabilities}
    assert names == {"search", "browse", "detail", "cart.add", "cart.view", "cart.update", "cart.remove",
                     "checkout", "contact"}
    for cap in doc.capabilities:
        assert cap.endpoint.startswith(stack.http_url + API + "/"), cap.endpoint
        assert cap.requires_session == cap.name.startswith(("cart.", "checkout"))
        for param in cap.params.values():
            assert param.type in ("string", "integer", "number", "boolean")
    assert next(c for c in doc.capabilities if c.name == "checkout").human_handoff is True
    assert doc.session.create == doc.session.delete == stack.http_url + API + "/session"
    assert doc.session.ttl_seconds > 0 and doc.rate_limit.requests_per_minute > 0
    for flow in doc.flows:
        assert len(flow.steps) >= 2 and set(flow.steps) <= names
    assert doc.site.url == stack.http_url + "/"


def test_agents_txt_and_llms_txt(http, stack):
    r = http.get("/.well-known/agents.txt")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    assert_edge(r)
    lines = r.text.splitlines()
    assert f"Agents-JSON: {stack.http_url}/.well-known/agents.json" in lines
    assert "Allow: cart.add" in lines and "Allow: search" in lines
    assert any(re.fullmatch(r"Rate-Limit: \d+/minute", line) for line in lines)
    assert any(re.fullmatch(r"Session-TTL: \d+s", line) for line in lines)
    assert lines[1].startswith("Site: ") and lines[2] == f"URL: {stack.http_url}/"
    llms = http.get("/llms.txt")
    assert llms.status_code == 200 and llms.text.startswith("# ") and "/.well-known/agents.json" in llms.text


def test_openapi_document_lists_every_capability(http):
    r = http.get(f"{API}/openapi.json")
    assert r.status_code == 200
    paths = r.json()["paths"]
    for p in ("/search", "/browse", "/detail/{item_id}", "/session", "/cart/add", "/cart/view", "/cart/update",
              "/cart/remove", "/checkout", "/contact"):
        assert API + p in paths, p


def test_options_preflight_is_204_with_cors(http):
    for path in (f"{API}/cart/add", f"{API}/search", "/.well-known/agents.json", f"{API}/nope"):
        r = http.options(path, headers={"Origin": "https://agent.example",
                                        "Access-Control-Request-Method": "POST"})
        assert r.status_code == 204 and r.content == b""
        assert r.headers["access-control-allow-origin"] == "*"
        assert "Authorization" in r.headers["access-control-allow-headers"]
        assert "X-Session-Token" in r.headers["access-control-allow-headers"]
        assert "DELETE" in r.headers["access-control-allow-methods"]
        assert r.headers["link"] == LINK
        # not counted, so no RateLimit-Remaining; the limit, its window and the window's reset
        assert r.headers["ratelimit-limit"].isdigit() and r.headers["ratelimit-reset"].isdigit()
        assert re.fullmatch(r"\d+;w=\d+", r.headers["ratelimit-policy"])


# ---- read capabilities --------------------------------------------------------------------------

def test_search_returns_an_array_of_matching_items(http):
    data = assert_ok(http.get(f"{API}/search", params={"q": "blue mug", "limit": 5}))
    assert isinstance(data, list) and 1 <= len(data) <= 5
    for item in data:
        text = (item["name"] + " " + item["description"]).lower()
        assert "blue" in text and "mug" in text
        assert isinstance(item["price"], float | int) and item["price_minor"] == round(item["price"] * 100)
        assert item["currency"] == "USD"
    assert assert_ok(http.get(f"{API}/search", params={"q": "zzzzunobtainium"})) == []


def test_browse_pages_and_filters(http):
    page1 = assert_ok(http.get(f"{API}/browse", params={"page": 1, "limit": 7, "category": "vases"}))
    page2 = assert_ok(http.get(f"{API}/browse", params={"page": 2, "limit": 7, "category": "vases"}))
    assert set(page1) >= {"items", "total"} and page1["total"] == page2["total"] >= 14
    assert len(page1["items"]) == len(page2["items"]) == 7
    assert not {i["id"] for i in page1["items"]} & {i["id"] for i in page2["items"]}
    assert all(i["category"] == "vases" for i in page1["items"] + page2["items"])
    everything = assert_ok(http.get(f"{API}/browse", params={"limit": 100}))
    assert everything["total"] >= 300  # a few hundred seeded products
    cheap = assert_ok(http.get(f"{API}/browse", params={"max_price": "20", "min_price": "10", "limit": 100,
                                                        "sort": "price_asc"}))["items"]
    assert cheap and all(1000 <= i["price_minor"] <= 2000 for i in cheap)
    assert [i["price_minor"] for i in cheap] == sorted(i["price_minor"] for i in cheap)
    stocked = assert_ok(http.get(f"{API}/browse", params={"in_stock": "true", "limit": 100}))["items"]
    assert all(i["stock"] > 0 for i in stocked)


def test_detail_by_path_and_older_query_form(http):
    item = in_stock_item(http)
    assert assert_ok(http.get(f"{API}/detail/{item['id']}"))["id"] == item["id"]
    assert assert_ok(http.get(f"{API}/detail", params={"id": item["id"]}))["name"] == item["name"]
    assert_error(http.get(f"{API}/detail/prod_missing"), 404, "prod_missing")


def test_reference_client_fills_the_declared_detail_endpoint(http):
    """The reference client substitutes path parameters written ``:name`` (and only those) with the
    URL-encoded value, then requests the result as is; a template it does not fill goes out verbatim."""
    item = in_stock_item(http)
    doc = http.get("/.well-known/agents.json").json()
    endpoint = next(c["endpoint"] for c in doc["capabilities"] if c["name"] == "detail")
    url = re.sub(r":([A-Za-z_]\w*)", lambda m: quote(str({"id": item["id"]}[m.group(1)]), safe=""), endpoint)
    assert assert_ok(http.get(url, headers={"Content-Type": "application/json"}))["id"] == item["id"]
    # the brace form an older document declared stays accepted, filled or left as a template with ?id=
    assert assert_ok(http.get(f"{API}/detail/%7Bid%7D", params={"id": item["id"]}))["id"] == item["id"]


# ---- sessions and carts --------------------------------------------------------------------------

def test_session_create_and_delete(http):
    r = http.post(f"{API}/session", headers={"Content-Type": "application/json"})  # empty JSON body
    data = assert_ok(r, 201)
    assert set(data) == {"session_token", "expires_at", "capabilities"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["expires_at"])
    assert "cart.add" in data["capabilities"]
    h = {**auth(data["session_token"]), "Content-Type": "application/json"}
    assert assert_ok(http.request("DELETE", f"{API}/session", headers=h)) == {"ended": True}
    assert_error(http.get(f"{API}/cart/view", headers=h), 401, "invalid or expired")


def test_full_cart_flow_and_human_checkout_page(http, token):
    item = in_stock_item(http, minimum=5)
    other = in_stock_item(http, minimum=1)
    h = auth(token)
    added = assert_ok(http.post(f"{API}/cart/add", json={"item_id": item["id"], "quantity": 2, "name": "x",
                                                         "price": 0.01}, headers=h), 201)
    assert added == {"item_id": item["id"], "quantity": 2, "cart_size": 1}
    if other["id"] != item["id"]:
        assert assert_ok(http.post(f"{API}/cart/add", json={"item_id": other["id"]}, headers=h), 201)["cart_size"] == 2
        assert_ok(http.request("DELETE", f"{API}/cart/remove", json={"item_id": other["id"]}, headers=h))
    assert assert_ok(http.put(f"{API}/cart/update", json={"item_id": item["id"], "quantity": 3}, headers=h)) == \
        {"item_id": item["id"], "quantity": 3}
    cart = assert_ok(http.get(f"{API}/cart/view", headers=h))
    assert [i["item_id"] for i in cart["items"]] == [item["id"]]
    assert [i["itemId"] for i in cart["items"]] == [item["id"]]  # camelCase twin for SDK-style clients
    assert cart["subtotal_minor"] == 3 * item["price_minor"]
    assert cart["subtotal"] == pytest.approx(3 * item["price"])
    handoff = assert_ok(http.post(f"{API}/checkout", headers=h))
    assert handoff["human_handoff"] is True and handoff["checkout_url"].startswith("http")
    # the human opens the link: a real HTML page with the cart and total, confirmed once
    page = httpx.get(handoff["checkout_url"], timeout=waited(5))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert item["name"] in page.text and f"{cart['subtotal_minor'] / 100:,.2f} USD" in page.text
    action = re.search(r'action="([^"]+)"', page.text).group(1)
    fields = dict(re.findall(r'name="(exp|sig)" value="([^"]+)"', page.text))
    base = "{0.scheme}://{0.netloc}".format(urlsplit(handoff["checkout_url"]))
    assert httpx.post(base + action, data=fields, timeout=waited(5)).status_code == 200
    assert httpx.post(base + action, data=fields, timeout=waited(5)).status_code == 410


def test_remove_accepts_item_id_in_query_with_empty_json_body(http, token):
    item = in_stock_item(http)
    h = {**auth(token), "Content-Type": "application/json"}
    assert_ok(http.post(f"{API}/cart/add", json={"item_id": item["id"]}, headers=auth(token)), 201)
    data = assert_ok(http.request("DELETE", f"{API}/cart/remove", params={"item_id": item["id"]}, headers=h))
    assert data == {"item_id": item["id"], "removed": True}
    assert assert_ok(http.get(f"{API}/cart/view", headers=h))["items"] == []


def test_session_token_headers(http, token):
    for h in ({"Authorization": f"Bearer {token}"}, {"X-Session-Token": token}, {"X-Agent-Session": token}):
        assert_ok(http.get(f"{API}/cart/view", headers=h))


def test_older_dialect_agent_fills_a_cart(http):
    """X-Agent-Session, PATCH /cart/update and GET /detail?id= (older agents), over HTTP."""
    item = in_stock_item(http, minimum=4)
    assert assert_ok(http.get(f"{API}/detail", params={"id": item["id"]}))["price_minor"] == item["price_minor"]
    token = assert_ok(http.post(f"{API}/session"), 201)["session_token"]
    h = {"X-Agent-Session": token}
    assert assert_ok(http.post(f"{API}/cart/add", json={"item_id": item["id"]}, headers=h), 201)["quantity"] == 1
    assert assert_ok(http.patch(f"{API}/cart/update", json={"item_id": item["id"], "quantity": 4}, headers=h)) == \
        {"item_id": item["id"], "quantity": 4}
    assert_error(http.patch(f"{API}/cart/update", json={"item_id": item["id"], "quantity": -1}, headers=h), 400,
                 "quantity")
    assert_error(http.patch(f"{API}/cart/update", json={"item_id": item["id"], "quantity": 1},
                            headers={"X-Agent-Session": "tok_forged"}), 401, "invalid or expired")
    cart = assert_ok(http.get(f"{API}/cart/view", headers=h))
    assert [(i["item_id"], i["quantity"]) for i in cart["items"]] == [(item["id"], 4)]
    assert cart["subtotal_minor"] == 4 * item["price_minor"]
    assert_ok(http.patch(f"{API}/cart/update", json={"item_id": item["id"], "quantity": 0}, headers=h))
    assert assert_ok(http.get(f"{API}/cart/view", headers=h))["items"] == []
    assert assert_ok(http.request("DELETE", f"{API}/session", headers=h)) == {"ended": True}


def test_made_up_tokens_share_the_source_ip_counter(http, token):
    """A token that is not a live session gets no counter of its own: each made-up token's request lowers
    the same source-IP remaining count; a live session's requests count on the session."""
    def within_one_window(send, n):
        """n answers that all fell in one rate window (a window may roll over mid-burst: try again)."""
        for _ in range(4):
            seen = [send() for _ in range(n)]
            if len({r.headers["x-ratelimit-reset"] for r in seen}) == 1:
                return seen
        raise AssertionError("four bursts in a row straddled a rate window")

    seen = within_one_window(lambda: http.get(f"{API}/search", params={"q": "mug"},
                                              headers={"X-Session-Token": f"tok_{uuid.uuid4()}"}), 3)
    remaining = [int(r.headers["ratelimit-remaining"]) for r in seen]
    assert remaining == [remaining[0], remaining[0] - 1, remaining[0] - 2]
    mine = within_one_window(lambda: http.get(f"{API}/cart/view", headers=auth(token)), 2)
    assert [r.status_code for r in mine] == [200, 200]
    assert int(mine[1].headers["ratelimit-remaining"]) == int(mine[0].headers["ratelimit-remaining"]) - 1


def test_contact(http):
    assert assert_ok(http.post(f"{API}/contact", json={"name": "Jane", "email": "jane@example.com",
                                                       "message": "Do you ship to Norway?"})) == {"sent": True}


# ---- status codes -------------------------------------------------------------------------------

def test_400_names_the_bad_parameter(http, token):
    assert_error(http.get(f"{API}/search"), 400, "q")
    assert_error(http.get(f"{API}/search", params={"q": "mug", "limit": "0"}), 400, "limit")
    assert_error(http.get(f"{API}/browse", params={"page": "zero"}), 400, "page")
    assert_error(http.get(f"{API}/browse", params={"sort": "random"}), 400, "sort")
    assert_error(http.get(f"{API}/browse", params={"min_price": "cheap"}), 400, "min_price")
    assert_error(http.post(f"{API}/cart/add", json={"quantity": 1}, headers=auth(token)), 400, "item_id")
    assert_error(http.post(f"{API}/cart/add", json={"item_id": "x", "quantity": 0}, headers=auth(token)), 400,
                 "quantity")
    assert_error(http.post(f"{API}/cart/add", content=b"{bad", headers={**auth(token),
                                                                        "Content-Type": "application/json"}),
                 400, "JSON")
    assert_error(http.post(f"{API}/contact", json=["not", "an", "object"]), 400, "JSON object")
    assert_error(http.post(f"{API}/contact", json={"name": "J", "email": "j@example.com"}), 400, "message")


def test_401_missing_vs_invalid(http):
    missing = assert_error(http.get(f"{API}/cart/view"), 401, "missing")
    invalid = assert_error(http.get(f"{API}/cart/view", headers=auth("tok_forged")), 401, "invalid or expired")
    assert missing != invalid
    assert_error(http.post(f"{API}/checkout"), 401)
    assert_error(http.request("DELETE", f"{API}/session"), 401)


def test_404_405_413(http, token):
    assert_error(http.get(f"{API}/does-not-exist"), 404)
    assert_error(http.post(f"{API}/cart/add", json={"item_id": "prod_nope"}, headers=auth(token)), 404, "prod_nope")
    assert_error(http.put(f"{API}/cart/update", json={"item_id": "prod_nope", "quantity": 1}, headers=auth(token)),
                 404)
    assert_error(http.delete(f"{API}/search"), 405)
    assert_error(http.get(f"{API}/cart/add", headers=auth(token)), 405)
    big = b'{"name":"J","email":"j@example.com","message":"' + b"x" * 1_100_000 + b'"}'
    assert_error(http.post(f"{API}/contact", content=big, headers={"Content-Type": "application/json"}), 413)


def test_empty_json_bodies_on_get_post_delete(http):
    h = {"Content-Type": "application/json"}
    assert_ok(http.request("GET", f"{API}/search", params={"q": "bowl"}, headers=h, content=b""))
    token = assert_ok(http.request("POST", f"{API}/session", headers=h, content=b""), 201)["session_token"]
    assert_ok(http.request("GET", f"{API}/cart/view", headers={**h, **auth(token)}, content=b""))
    assert_error(http.request("POST", f"{API}/checkout", headers={**h, **auth(token)}, content=b""), 400, "empty")
    assert_ok(http.request("DELETE", f"{API}/session", headers={**h, **auth(token)}, content=b""))


# ---- concurrency and idempotency ---------------------------------------------------------------

def sent_until_answered(c: httpx.Client, path: str, body: dict, headers: dict, retry=(503,)) -> httpx.Response:
    """POST as a real client does (ours, ``agenthost.agents_client``): an answer of ``retry`` (the honest 503
    of a database that cannot keep up on a loaded machine) is sent again, with the same ``Idempotency-Key``
    (``headers``), after its ``Retry-After``, until a load-stretched deadline: the last answer."""
    deadline = time.monotonic() + waited(30.0)
    while True:
        r = c.post(path, json=body, headers=headers)
        if r.status_code not in retry or time.monotonic() > deadline:
            return r
        time.sleep(min(float(r.headers.get("retry-after") or 1), max(0.0, deadline - time.monotonic())))


def test_50_parallel_cart_adds_give_the_exact_quantity(stack, http, token):
    item = in_stock_item(http, minimum=80)

    def add(_):
        # each add its own key: a 503 is retried as one add, and a retry that added again shows in the total
        # (an add still running after its 503 answers 409: asked again after its Retry-After too)
        with httpx.Client(base_url=stack.http_url, timeout=60) as c:
            return sent_until_answered(c, f"{API}/cart/add", {"item_id": item["id"], "quantity": 1},
                                       {**auth(token), "Idempotency-Key": str(uuid.uuid4())}, retry=(503, 409))

    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(add, range(50)))
    assert [r.status_code for r in results] == [201] * 50
    quantities = [r.json()["data"]["quantity"] for r in results]
    # each answers the line after its add: its own write's answer, or, where the store's answer to that write
    # was lost (a loaded machine) and its retry found the add applied, the line as the retry read it
    assert all(1 <= q <= 50 for q in quantities) and max(quantities) == 50, sorted(quantities)
    cart = assert_ok(http.get(f"{API}/cart/view", headers=auth(token)))
    assert cart["items"][0]["quantity"] == 50 and cart["subtotal_minor"] == 50 * item["price_minor"]


def test_idempotent_retries_add_once(stack, http, token):
    item = in_stock_item(http, minimum=10)
    key = str(uuid.uuid4())
    h = {**auth(token), "Idempotency-Key": key}

    def add(_):
        with httpx.Client(base_url=stack.http_url, timeout=60) as c:
            return sent_until_answered(c, f"{API}/cart/add", {"item_id": item["id"], "quantity": 2}, h)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(add, range(8)))
    assert {r.status_code for r in results} <= {201, 409}
    assert sum(r.status_code == 201 for r in results) >= 1
    retry = sent_until_answered(http, f"{API}/cart/add", {"item_id": item["id"], "quantity": 2}, h)
    assert retry.status_code == 201 and retry.headers["idempotent-replayed"] == "true"
    assert retry.json()["data"]["quantity"] == 2
    assert assert_ok(http.get(f"{API}/cart/view", headers=auth(token)))["items"][0]["quantity"] == 2
