"""The browser's egress proxy (functions/browser/egress.py) driven by httpx and raw sockets: every request
and tunnel is checked, the connection goes to the checked address, refusals say why."""

from __future__ import annotations

import socket

import httpx
import pytest
from browser.egress import EgressProxy

from agenthost import netguard
from tests.support.brain_pages import PageServer
from tests.support.timing import waited


@pytest.fixture(scope="module")
def servers():
    good, canary = PageServer().start(), PageServer("127.0.0.2").start()
    yield good, canary
    good.stop()
    canary.stop()


def _proxy(names=None):
    names = names or {}

    def check(host, port):
        return netguard.check_host(host, port, allow=["127.0.0.1"], allow_private=False,
                                   resolver=lambda h, p: names.get(h) or [socket.gethostbyname(h)])
    return EgressProxy(check=check).start()


def test_plain_http_is_forwarded_and_blocked_hosts_are_refused_with_the_reason(servers):
    good, canary = servers
    proxy = _proxy()
    try:
        with httpx.Client(proxy=proxy.url, timeout=waited(5)) as client:
            r = client.get(f"{good.url}/ping")
            assert (r.status_code, r.text) == (200, "pong")
            r = client.get(f"{good.url}/redirect?to={canary.url}/ping")  # httpx does not follow: one hop
            assert r.status_code == 302
            r = client.get(f"{canary.url}/ping")
            assert r.status_code == 403 and r.headers["x-agenthost-blocked"] == "address 127.0.0.2 is loopback"
            r = client.post(f"{canary.url}/ping", content=b"x=1")
            assert r.status_code == 403
        assert canary.hits == 0 and canary.paths == []
        assert [t for t, _ in proxy.blocked_since(0)] == [canary.url.removeprefix("http://")] * 2
    finally:
        proxy.stop()


def test_a_name_is_resolved_once_by_the_guard_and_the_connection_goes_there(servers):
    good, canary = servers
    proxy = _proxy({"site.rebind.test": ["127.0.0.1"], "evil.rebind.test": ["127.0.0.2"]})
    port = good.url.rsplit(":", 1)[1]
    try:
        with httpx.Client(proxy=proxy.url, timeout=waited(5)) as client:
            # the system resolver does not know this name: only the checked answer was used
            r = client.get(f"http://site.rebind.test:{port}/whoami")
            assert r.status_code == 200 and "anonymous" in r.text
            r = client.get(f"http://evil.rebind.test:{canary.url.rsplit(':', 1)[1]}/ping")
            assert r.status_code == 403
        assert canary.hits == 0
    finally:
        proxy.stop()


def _connect(proxy, target):
    sock = socket.create_connection(("127.0.0.1", proxy.port), timeout=5)
    sock.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
    return sock, sock.recv(65536).decode("latin-1")


def test_connect_tunnels_are_checked_too(servers):
    good, canary = servers
    proxy = _proxy()
    try:
        sock, head = _connect(proxy, good.url.removeprefix("http://"))
        assert head.startswith("HTTP/1.1 200")
        sock.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        body = b""
        while chunk := sock.recv(65536):
            body += chunk
        assert body.endswith(b"pong")
        sock.close()
        sock, head = _connect(proxy, canary.url.removeprefix("http://"))
        assert head.startswith("HTTP/1.1 403") and "X-Agenthost-Blocked: address 127.0.0.2 is loopback" in head
        sock.close()
        sock, head = _connect(proxy, "169.254.169.254:80")
        assert "cloud metadata endpoint" in head
        sock.close()
        assert canary.hits == 0
    finally:
        proxy.stop()


def test_unresolvable_names_are_a_gateway_error_not_a_refusal():
    proxy = EgressProxy().start()
    try:
        with httpx.Client(proxy=proxy.url, timeout=waited(5)) as client:
            r = client.get("http://no-such-host.invalid/")
        assert r.status_code == 502 and "cannot resolve" in r.headers["x-agenthost-error"]
        assert proxy.blocked_since(0) == []
    finally:
        proxy.stop()
