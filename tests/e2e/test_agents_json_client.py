"""Our agents_client against our own site over real HTTP: the whole purchase flow on the shared local
stack; 429 recovery, expired-session recovery, checkout-link expiry and the exact rate limit on a stack
started with tight limits."""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from agenthost.agents_client import AgentsApiError, AgentsClient
from agenthost.agents_client.cli import main
from tests.support.stack import start_stack
from tests.support.timing import stretch

pytestmark = pytest.mark.e2e

API = "/.well-known/agents/api"
LIMIT, WINDOW_S, TTL_S, CHECKOUT_TTL_S = 10, 5, 3, 4


@pytest.fixture(scope="module")
def tight():
    # a burst must fit in one window: a loaded machine sends it slower, so the window is stretched with the load
    window_s = WINDOW_S * stretch()
    running = start_stack({"AGENTHOST_AGENTS_RATE_LIMIT": str(LIMIT), "AGENTHOST_AGENTS_RATE_WINDOW_S": str(window_s),
                           "AGENTHOST_AGENTS_SESSION_TTL_S": str(TTL_S),
                           "AGENTHOST_AGENTS_CHECKOUT_TTL_S": str(CHECKOUT_TTL_S)})
    running.window_s = window_s
    yield running
    running.stop()


def client(url: str, **kw) -> AgentsClient:
    return AgentsClient(url, http=httpx.Client(timeout=30), **kw)


def test_purchase_flow_end_to_end(stack):
    with client(stack.http_url) as shop:
        site = shop.discover()
        assert site.name and "cart.add" in site.capabilities
        found = shop.search("teapot", limit=5)
        item = next(i for i in found if i["stock"] >= 2)
        assert shop.detail(item["id"])["id"] == item["id"]
        assert shop.browse(category="teapots", limit=3)["total"] >= 1
        assert shop.add_to_cart(item["id"], 2)["quantity"] == 2
        assert shop.update_cart(item["id"], 1) == {"item_id": item["id"], "quantity": 1}
        cart = shop.view_cart()
        assert cart["subtotal_minor"] == item["price_minor"]
        handoff = shop.checkout()
        assert handoff.url.startswith(stack.http_url + "/.well-known/agents/checkout/")
        assert not any("/checkout/" in url for _, url, _ in shop.history)  # handed over, never followed
        assert shop.contact("Agent", "agent@example.com", "Is this dishwasher safe?") is True
        with pytest.raises(AgentsApiError) as exc:
            shop.detail("prod_does_not_exist")
        assert exc.value.status == 404
        assert shop.end_session() is True and shop.token is None


def test_cli_against_the_stack(stack, capsys):
    assert main([stack.http_url, "discover"], http=httpx.Client(timeout=30)) == 0
    out = capsys.readouterr().out
    assert '"cart.add"' in out and "[session]" in out


def test_rate_limit_admits_exactly_the_limit_even_with_rotating_made_up_tokens(tight):
    # every request carries a fresh made-up token: none is a live session, so all count against the
    # source IP, which this module's other (sequential) tests leave alone from the next window on
    time.sleep(tight.window_s - time.time() % tight.window_s + 0.05)

    def hit(i):
        with httpx.Client(base_url=tight.http_url, timeout=60) as c:
            # an unknown endpoint: after the rate limit it costs nothing, so only the limit is measured
            return c.get(f"{API}/no-such-capability", headers={"X-Session-Token": f"tok_made_up_{i}"})

    with ThreadPoolExecutor(max_workers=25) as pool:
        results = list(pool.map(hit, range(3 * LIMIT)))
    assert {r.status_code for r in results} <= {404, 429}
    admitted = Counter(r.headers["x-ratelimit-reset"] for r in results if r.status_code == 404)
    refused = Counter(r.headers["x-ratelimit-reset"] for r in results if r.status_code == 429)
    assert refused, "the burst should exceed the limit"
    for window in refused:  # windows that refused something admitted exactly the limit
        assert admitted[window] == LIMIT
    assert all(n <= LIMIT for n in admitted.values())
    limited = next(r for r in results if r.status_code == 429)
    assert 1 <= int(limited.headers["retry-after"]) <= tight.window_s
    assert limited.json() == {"ok": False, "error": "Rate limit exceeded"}


def test_client_recovers_from_429(tight):
    slept: list[tuple[int, float]] = []
    answered = threading.local()  # the status each of the client's threads last got: what its next wait is for

    def sleep(s: float) -> None:
        slept.append((getattr(answered, "status", 0), s))
        time.sleep(s)

    def seen(response: httpx.Response) -> None:
        answered.status = response.status_code

    # not paced to the site's declared rate (the window stretched on a loaded machine lowers it): the 429s are
    # what this test is about
    with client(tight.http_url, sleep=sleep, pace=False) as shop:
        shop.http.event_hooks = {"request": [], "response": [seen]}
        # its own live session, sent on every call, so the counter is this client's alone (made-up tokens
        # would share the source IP's counter with the other tests)
        shop.http.headers["X-Session-Token"] = shop.start_session()
        item = shop.search("bowl", limit=1)[0]
        # more calls at once than one window allows (sent one by one, a loaded machine can spread them over
        # several windows); a round that straddles a window's end may pass, so up to three rounds
        with ThreadPoolExecutor(LIMIT + 3) as pool:
            for _ in range(3):
                results = list(pool.map(lambda _: shop.detail(item["id"]), range(LIMIT + 3)))
                assert [r["id"] for r in results] == [item["id"]] * (LIMIT + 3)
                if any(status == 429 for _, _, status in shop.history):
                    break
        assert any(status == 429 for _, _, status in shop.history)
        # each 429 waited its Retry-After; a 503 (a database that cannot keep up on a loaded machine) waits the
        # client's own backoff, as it should
        limited = [s for status, s in slept if status == 429]
        assert limited and all(1 <= s <= tight.window_s for s in limited), slept
        assert all(status == 429 or status >= 500 for status, _ in slept), slept


def test_client_recovers_from_expired_session(tight):
    with client(tight.http_url, sleep=time.sleep) as shop:
        item = next(i for i in shop.browse(limit=50, in_stock="true")["items"] if i["stock"] >= 1)
        shop.add_to_cart(item["id"], 1)
        first = shop.token
        time.sleep(TTL_S + 1)
        cart = shop.view_cart()  # 401 (expired) -> one new session -> retried
        assert shop.token != first and cart["items"] == []
        assert [s for _, u, s in shop.history if u.endswith("/cart/view")] == [401, 200]


def test_checkout_link_expires(tight):
    with client(tight.http_url, sleep=time.sleep) as shop:
        item = next(i for i in shop.browse(limit=50, in_stock="true")["items"] if i["stock"] >= 1)
        shop.add_to_cart(item["id"], 1)
        url = shop.checkout().url
    with httpx.Client(timeout=30) as human:
        page = human.get(url)
        assert page.status_code == 200 and item["name"] in page.text
        fields = {k: v for k, v in (p.split("=", 1) for p in url.split("?", 1)[1].split("&"))}
        time.sleep(CHECKOUT_TTL_S + 1.5)
        late = human.get(url)
        assert late.status_code == 410 and "expired" in late.text
        confirm = human.post(url.split("?", 1)[0] + "/confirm", data=fields)
        assert confirm.status_code == 410 and "Order confirmed" not in confirm.text


@pytest.mark.browser
def test_a_person_reviews_and_confirms_checkout_in_chromium(stack):
    from playwright.sync_api import sync_playwright

    with client(stack.http_url) as shop:
        item = next(i for i in shop.browse(category="mugs", limit=50, in_stock="true")["items"] if i["stock"] >= 3)
        shop.add_to_cart(item["id"], 3)
        url = shop.checkout().url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_page()
            page.goto(url)
            assert item["name"] in page.inner_text("table")
            assert page.inner_text("#total") == f"{3 * item['price_minor'] / 100:,.2f} USD"
            page.get_by_role("button", name="Confirm order").click()
            page.wait_for_selector("text=Order confirmed")
            page.goto(url)  # one-time: the link is spent
            assert "Already completed" in page.inner_text("h1")
        finally:
            browser.close()
