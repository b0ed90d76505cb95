"""agents_client against scripted sites (httpx.MockTransport): discovery, retries, sessions, handoff."""

from __future__ import annotations

import json

import httpx
import pytest

from agenthost.agents_client import AgentsApiError, AgentsClient, DiscoveryError, parse_agents_txt
from agenthost.agents_client.cli import main

AGENTS_JSON = {
    "schema_version": "1.0",
    "site": {"name": "Shop", "url": "/"},
    "capabilities": [
        {"name": "search", "description": "", "method": "GET", "endpoint": "/api/search"},
        {"name": "detail", "description": "", "method": "GET", "endpoint": "api/detail/:id"},
        {"name": "cart.add", "description": "", "method": "POST", "endpoint": "/api/cart/add",
         "requires_session": True},
        {"name": "cart.remove", "description": "", "method": "DELETE", "endpoint": "/api/cart/remove",
         "requires_session": True},
        {"name": "checkout", "description": "", "method": "POST", "endpoint": "/api/checkout",
         "requires_session": True, "human_handoff": True},
    ],
    "session": {"create": "/api/session", "delete": "/api/session", "ttl_seconds": 60},
    "rate_limit": {"requests_per_minute": 30},
}


class Site:
    """A scripted site: ``script[(method, path)]`` is a list of responses consumed in order (last repeats)."""

    def __init__(self, script: dict[tuple[str, str], list[httpx.Response]]):
        self.script = script
        self.requests: list[httpx.Request] = []
        self.sessions = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        key = (request.method, request.url.path)
        if key == ("POST", "/.well-known/agents/api/session") or key == ("POST", "/api/session"):
            self.sessions += 1
            return ok({"session_token": f"tok{self.sessions}", "expires_at": "2030-01-01T00:00:00Z",
                       "capabilities": []}, 201)
        if key not in self.script:
            return httpx.Response(404, json={"ok": False, "error": f"no {key}"})
        queue = self.script[key]
        return queue.pop(0) if len(queue) > 1 else queue[0]


def ok(data, status=200, **headers):
    return httpx.Response(status, json={"ok": True, "data": data}, headers=headers)


def err(status, message, **headers):
    return httpx.Response(status, json={"ok": False, "error": message}, headers=headers)


def client_for(site: Site, **kw) -> tuple[AgentsClient, list[float]]:
    slept: list[float] = []
    c = AgentsClient("https://shop.example", http=httpx.Client(transport=httpx.MockTransport(site)),
                     sleep=slept.append, **kw)
    return c, slept


def with_json(script):
    return {("GET", "/.well-known/agents.json"): [httpx.Response(200, json=AGENTS_JSON)], **script}


def test_discovery_resolves_relative_endpoints():
    c, _ = client_for(Site(with_json({})))
    site = c.site
    assert site.capabilities["search"].endpoint == "https://shop.example/api/search"
    assert site.capabilities["detail"].endpoint == "https://shop.example/.well-known/api/detail/:id"
    assert site.session_create == "https://shop.example/api/session" and site.requests_per_minute == 30


def test_agents_txt_fallback():
    txt = ("Site: Shop\nURL: https://shop.example/\nAllow: search\nAllow: cart.add\nRate-Limit: 60/minute\n"
           "Session-TTL: 900s\n")
    c, _ = client_for(Site({("GET", "/.well-known/agents.txt"): [httpx.Response(200, text=txt)]}))
    site = c.site
    assert site.source.endswith("/.well-known/agents.txt")
    assert site.capabilities["cart.add"].endpoint == "https://shop.example/.well-known/agents/api/cart/add"
    assert site.capabilities["cart.add"].requires_session and site.requests_per_minute == 60
    assert parse_agents_txt(txt)["session_ttl"] == 900


def test_no_discovery_document_is_an_error():
    c, _ = client_for(Site({}))
    with pytest.raises(DiscoveryError):
        c.discover()


def test_429_waits_retry_after_then_succeeds():
    site = Site(with_json({("GET", "/api/search"): [err(429, "Rate limit exceeded", **{"Retry-After": "7"}),
                                                    ok([{"id": "a"}])]}))
    c, slept = client_for(site)
    assert c.search("mug") == [{"id": "a"}]
    assert slept == [7.0]


def test_429_without_retry_after_backs_off_and_gives_up():
    site = Site(with_json({("GET", "/api/search"): [err(429, "Rate limit exceeded")]}))
    c, slept = client_for(site)
    with pytest.raises(AgentsApiError) as exc:
        c.search("mug")
    assert exc.value.status == 429 and slept == [1, 2, 4]


def test_5xx_retries_three_times_with_backoff():
    site = Site(with_json({("GET", "/api/search"): [err(500, "boom")]}))
    c, slept = client_for(site, backoff_s=0.5)
    with pytest.raises(AgentsApiError) as exc:
        c.search("mug")
    assert exc.value.status == 500 and slept == [0.5, 1.0, 2.0]
    assert sum(r.url.path == "/api/search" for r in site.requests) == 4


def test_no_retry_on_400_and_404():
    for status in (400, 404):
        site = Site(with_json({("GET", "/.well-known/api/detail/x/y"): [err(status, "nope")]}))
        c, slept = client_for(site)
        with pytest.raises(AgentsApiError) as exc:
            c.detail("x/y")
        assert exc.value.status == status and exc.value.message == "nope" and slept == []
        assert site.requests[-1].url.raw_path == b"/.well-known/api/detail/x%2Fy"  # the id is quoted
        assert len(site.requests) == 2  # agents.json, then one call


def test_session_renewed_once_on_401():
    site = Site(with_json({("POST", "/api/cart/add"): [err(401, "expired"), ok({"item_id": "a", "quantity": 1,
                                                                                "cart_size": 1}, 201)]}))
    c, _ = client_for(site)
    assert c.add_to_cart("a")["quantity"] == 1
    assert site.sessions == 2 and c.token == "tok2"
    auths = [r.headers.get("authorization") for r in site.requests if r.url.path == "/api/cart/add"]
    assert auths == ["Bearer tok1", "Bearer tok2"]
    keys = [r.headers.get("idempotency-key") for r in site.requests if r.url.path == "/api/cart/add"]
    assert all(keys) and keys[0] != keys[1]


def test_session_not_renewed_twice():
    site = Site(with_json({("POST", "/api/cart/add"): [err(401, "expired")]}))
    c, _ = client_for(site)
    with pytest.raises(AgentsApiError) as exc:
        c.add_to_cart("a")
    assert exc.value.status == 401 and site.sessions == 2


def test_post_retries_keep_one_idempotency_key():
    site = Site(with_json({("POST", "/api/cart/add"): [err(503, "busy"), ok({"item_id": "a", "quantity": 1,
                                                                            "cart_size": 1}, 201)]}))
    c, _ = client_for(site)
    c.add_to_cart("a")
    keys = [r.headers["idempotency-key"] for r in site.requests if r.url.path == "/api/cart/add"]
    assert len(keys) == 2 and keys[0] == keys[1]


def test_409_still_processing_is_retried_once_with_the_same_key():
    busy = err(409, "a request with this Idempotency-Key is still being processed; retry shortly",
               **{"Retry-After": "1"})
    site = Site(with_json({("POST", "/api/cart/add"): [busy, ok({"item_id": "a", "quantity": 1, "cart_size": 1},
                                                                201)]}))
    c, slept = client_for(site)
    assert c.add_to_cart("a")["quantity"] == 1 and slept == [1.0]
    keys = [r.headers["idempotency-key"] for r in site.requests if r.url.path == "/api/cart/add"]
    assert len(keys) == 2 and keys[0] == keys[1]
    # only once: a second 409 is the caller's to handle
    site = Site(with_json({("POST", "/api/cart/add"): [err(409, "still being processed")]}))
    c, slept = client_for(site)
    with pytest.raises(AgentsApiError) as exc:
        c.add_to_cart("a")
    assert exc.value.status == 409 and slept == [1.0]
    assert sum(r.url.path == "/api/cart/add" for r in site.requests) == 2


class FakeClock:
    """Monotonic time that moves only when the client sleeps (or the test says so)."""

    def __init__(self):
        self.t = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.slept.append(round(s, 3))
        self.t += s


def test_requests_are_paced_to_the_declared_requests_per_minute():
    site = Site(with_json({("GET", "/api/search"): [ok([])]}))  # agents.json declares 30 per minute
    clock = FakeClock()
    c = AgentsClient("https://shop.example", http=httpx.Client(transport=httpx.MockTransport(site)),
                     sleep=clock.sleep, clock=clock)
    for _ in range(29):  # with agents.json, 30 requests in the first second: no wait
        c.search("mug")
        clock.t += 0.01
    assert clock.slept == []
    clock.t += 10
    c.search("mug")  # the 31st within a minute waits for the first to leave the window
    assert clock.slept == [pytest.approx(60 - 10 - 0.29, abs=0.01)]
    assert len(site.requests) == 31
    # with pacing off, nothing waits (the site's 429 then decides)
    site = Site(with_json({("GET", "/api/search"): [ok([])]}))
    clock = FakeClock()
    c = AgentsClient("https://shop.example", http=httpx.Client(transport=httpx.MockTransport(site)),
                     sleep=clock.sleep, clock=clock, pace=False)
    for _ in range(40):
        c.search("mug")
    assert clock.slept == [] and len(site.requests) == 41


def test_delete_sends_json_body_and_checkout_is_not_followed():
    url = "https://shop.example/checkout/abc?sig=1"
    site = Site(with_json({("DELETE", "/api/cart/remove"): [ok({"item_id": "a", "removed": True})],
                           ("POST", "/api/checkout"): [ok({"checkout_url": url, "human_handoff": True})]}))
    c, _ = client_for(site)
    assert c.remove_from_cart("a")["removed"] is True
    delete = next(r for r in site.requests if r.method == "DELETE")
    assert json.loads(delete.content) == {"item_id": "a"}
    assert c.checkout().url == url
    assert not any(r.url.path.startswith("/checkout") for r in site.requests)


def test_unknown_capability():
    c, _ = client_for(Site(with_json({})))
    with pytest.raises(AgentsApiError, match="does not offer 'contact'"):
        c.contact("a", "b@c.d", "hi")


def test_default_client_refuses_loopback(monkeypatch):
    monkeypatch.setenv("AGENTHOST_NETGUARD_ALLOW_PRIVATE", "false")
    c = AgentsClient("http://127.0.0.1:9", sleep=lambda s: None, max_retries=0)
    with pytest.raises(Exception, match="loopback|private|Blocked|127.0.0.1"):
        c.discover()


def test_cli_names_the_setting_when_the_guard_refuses_a_loopback_site(monkeypatch, capsys):
    """The README's own example from a plain shell (private addresses not allowed): one line, exit 2."""
    monkeypatch.setenv("AGENTHOST_NETGUARD_ALLOW_PRIVATE", "false")
    code = main(["http://127.0.0.1:9", "search", "blue mug"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: http://127.0.0.1:9")
    assert "loopback" in err and "AGENTHOST_NETGUARD_ALLOW_PRIVATE=true" in err and "Traceback" not in err


def test_cli_search(capsys):
    site = Site(with_json({("GET", "/api/search"): [ok([{"id": "a", "name": "Mug"}])]}))
    code = main(["https://shop.example", "search", "mug"], http=httpx.Client(transport=httpx.MockTransport(site)))
    assert code == 0 and json.loads(capsys.readouterr().out) == [{"id": "a", "name": "Mug"}]
