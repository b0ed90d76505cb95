"""Egress proxy for Chromium: every connection the browser opens is checked by netguard first.

Chromium is launched with ``--proxy-server`` pointing here (loopback included, ``<-loopback>``), so the
browser never resolves or connects to a site itself. For each request the proxy:

* takes the host and port from the request (absolute-form ``GET http://host/...`` for plain HTTP,
  ``CONNECT host:port`` for HTTPS and for WebSockets, ``ws://`` and ``wss://`` alike);
* resolves it and checks every address (:func:`agenthost.netguard.check_host`), then connects to the
  address it checked (no second lookup: a DNS-rebinding name cannot swap in 127.0.0.1 or the metadata
  endpoint between check and connect);
* refuses with ``403`` and an ``X-Agenthost-Blocked: <reason>`` header when the address is not allowed.

Redirect hops, ``fetch``/XHR, images, POST navigations, iframes and WebSockets are all separate requests
to the proxy, so each of them is checked. Plain HTTP is forwarded one request per connection
(``Connection: close`` both ways); HTTPS and WebSockets are tunnelled byte for byte (TLS is end to end
between Chromium and the site, so certificates and SNI are the site's own).

Example::

    proxy = EgressProxy().start()
    proxy.url            # http://127.0.0.1:<port>, for --proxy-server
    proxy.blocked_since(t0)   # [(host:port, reason), ...] refused since t0 (for error messages)
"""

from __future__ import annotations

import logging
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from agenthost import netguard

log = logging.getLogger("agenthost.browser.egress")

MAX_HEAD = 64 * 1024
CACHE_TTL_S = 30.0
_HOP_HEADERS = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te",
                "trailer", "upgrade"}

Checker = Callable[[str, int], list[str]]


class EgressProxy:
    """A small forward proxy on loopback; one thread per connection (Chromium opens a handful)."""

    def __init__(self, *, check: Checker | None = None, connect_timeout: float = 10.0,
                 idle_timeout: float = 120.0) -> None:
        self._check = check or netguard.check_host
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._cache: dict[tuple[str, int], tuple[float, list[str] | None, str]] = {}
        self._lock = threading.Lock()
        self._blocked: deque[tuple[float, str, str]] = deque(maxlen=100)
        self.requests = 0

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> EgressProxy:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        self._sock = sock
        self._thread = threading.Thread(target=self._accept_loop, daemon=True, name="browser-egress")
        self._thread.start()
        return self

    @property
    def port(self) -> int:
        assert self._sock is not None
        return int(self._sock.getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self._sock is not None and self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    def blocked_since(self, since: float) -> list[tuple[str, str]]:
        """``(host:port, reason)`` of the connections refused since ``since`` (``time.monotonic()``)."""
        with self._lock:
            return [(target, reason) for t, target, reason in self._blocked if t >= since]

    # ------------------------------------------------------------------ checks
    def addresses(self, host: str, port: int) -> list[str]:
        """The checked addresses for ``host:port`` (cached briefly: the connection still goes to exactly
        these addresses, so the cache cannot be rebound); raises :class:`netguard.Blocked`."""
        key, now = (host.lower(), port), time.monotonic()
        with self._lock:
            hit = self._cache.get(key)
        if hit is not None and now - hit[0] < CACHE_TTL_S:
            if hit[1] is None:
                raise netguard.Blocked(f"{host}:{port}", hit[2])
            return hit[1]
        try:
            found: list[str] | None = list(self._check(host, port))
            reason = ""
        except netguard.Blocked as exc:
            found, reason = None, exc.reason
        with self._lock:
            if len(self._cache) > 500:
                self._cache.clear()
            if found is not None or not reason.startswith("cannot resolve"):
                self._cache[key] = (now, found, reason)
        if found is None:
            raise netguard.Blocked(f"{host}:{port}", reason)
        return found

    # ------------------------------------------------------------------ serving
    def _accept_loop(self) -> None:
        while self._sock is not None:
            try:
                client, _ = self._sock.accept()
            except OSError:
                break
            threading.Thread(target=self._serve, args=(client,), daemon=True, name="browser-egress-conn").start()

    def _serve(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            client.settimeout(self.idle_timeout)
            head, rest = _read_head(client)
            if head is None:
                return
            self.requests += 1
            lines = head.decode("latin-1").split("\r\n")
            try:
                method, target, version = lines[0].split(" ", 2)
            except ValueError:
                _reply(client, 400, "malformed request line")
                return
            if method.upper() == "CONNECT":
                host, port = _split_hostport(target, 443)
                upstream = self._open(client, host, port)
                if upstream is None:
                    return
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if rest:
                    upstream.sendall(rest)
                _splice(client, upstream, self.idle_timeout)
                return
            parts = urlsplit(target)
            if parts.scheme.lower() != "http" or not parts.hostname:
                _reply(client, 400, "the proxy takes absolute http:// URLs and CONNECT")
                return
            try:
                port = parts.port or 80
            except ValueError:
                _reply(client, 400, "bad port")
                return
            upstream = self._open(client, parts.hostname, port)
            if upstream is None:
                return
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            upstream.sendall(f"{method} {path} {version}\r\n".encode("latin-1") + _close_headers(lines[1:]) + rest)
            _splice(client, upstream, self.idle_timeout, rewrite_response=True)
        except OSError as exc:
            log.debug("egress connection ended: %s", type(exc).__name__)
        finally:
            for s in (client, upstream):
                if s is not None:
                    try:
                        s.close()
                    except OSError:
                        pass

    def _open(self, client: socket.socket, host: str, port: int) -> socket.socket | None:
        host = host.strip("[]")
        try:
            ips = self.addresses(host, port)
        except netguard.Blocked as exc:
            if exc.reason.startswith("cannot resolve"):
                _reply(client, 502, exc.reason, {"X-Agenthost-Error": exc.reason})
                return None
            with self._lock:
                self._blocked.append((time.monotonic(), f"{host}:{port}", exc.reason))
            _reply(client, 403, f"blocked by netguard: {exc.reason}", {"X-Agenthost-Blocked": exc.reason})
            return None
        try:
            upstream = netguard.connect(host, port, self.connect_timeout, addresses=ips)
        except OSError as exc:
            reason = f"cannot connect to {host}:{port} ({type(exc).__name__})"
            _reply(client, 502, reason, {"X-Agenthost-Error": reason})
            return None
        upstream.settimeout(self.idle_timeout)
        upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return upstream


def _read_head(sock: socket.socket) -> tuple[bytes | None, bytes]:
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        buf += chunk
        if len(buf) > MAX_HEAD:
            _reply(sock, 431, "request head too large")
            return None, b""
    head, _, rest = buf.partition(b"\r\n\r\n")
    return head, rest


def _split_hostport(target: str, default: int) -> tuple[str, int]:
    if target.startswith("["):
        host, _, tail = target[1:].partition("]")
        port = tail.lstrip(":")
    else:
        host, _, port = target.rpartition(":") if ":" in target else (target, "", "")
    try:
        return host, int(port) if port else default
    except ValueError:
        return host, default


def _close_headers(lines: list[str]) -> bytes:
    """Request headers for the site: hop-by-hop ones dropped, ``Connection: close`` added."""
    named = {h.strip().lower() for line in lines if line.lower().startswith("connection:")
             for h in line.split(":", 1)[1].split(",")}
    kept = [line for line in lines if line and line.split(":", 1)[0].strip().lower() not in _HOP_HEADERS | named]
    return ("\r\n".join([*kept, "Connection: close"]) + "\r\n\r\n").encode("latin-1")


def _rewrite_response_head(head: bytes) -> bytes:
    lines = head.decode("latin-1").split("\r\n")
    kept = [lines[0]] + [line for line in lines[1:] if line.split(":", 1)[0].strip().lower()
                         not in ("connection", "keep-alive", "proxy-connection")]
    return ("\r\n".join([*kept, "Connection: close", "Proxy-Connection: close"]) + "\r\n\r\n").encode("latin-1")


def _reply(sock: socket.socket, status: int, text: str, headers: dict[str, str] | None = None) -> None:
    reasons = {400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large", 502: "Bad Gateway"}
    body = text.encode()
    extra = "".join(f"{k}: {_header_safe(v)}\r\n" for k, v in (headers or {}).items())
    head = (f"HTTP/1.1 {status} {reasons.get(status, 'Error')}\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\n{extra}Cache-Control: no-store\r\nConnection: close\r\n"
            "Proxy-Connection: close\r\n\r\n")
    try:
        sock.sendall(head.encode("latin-1", "replace") + body)
    except OSError:
        pass


def _header_safe(value: str) -> str:
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in value)[:300]


def _splice(client: socket.socket, upstream: socket.socket, idle: float, *, rewrite_response: bool = False) -> None:
    """Copy bytes both ways until both sides are done (or nothing moves for ``idle`` seconds)."""
    sel = selectors.DefaultSelector()
    sel.register(client, selectors.EVENT_READ, upstream)
    sel.register(upstream, selectors.EVENT_READ, client)
    pending_head: bytes | None = b"" if rewrite_response else None
    open_reads = 2
    try:
        while open_reads:
            events = sel.select(timeout=idle)
            if not events:
                return
            for key, _ in events:
                src: Any = key.fileobj
                dst: socket.socket = key.data
                try:
                    data = src.recv(65536)
                except (ConnectionResetError, TimeoutError):
                    data = b""
                if src is upstream and pending_head is not None:
                    if data:
                        pending_head += data
                        if b"\r\n\r\n" not in pending_head and len(pending_head) < MAX_HEAD:
                            continue
                        head, sep, body = pending_head.partition(b"\r\n\r\n")
                        dst.sendall(_rewrite_response_head(head) + body if sep else pending_head)
                        pending_head = None
                        continue
                    if pending_head:  # the site closed before a whole head: pass on what came
                        dst.sendall(pending_head)
                    pending_head = None
                if not data:
                    sel.unregister(src)
                    open_reads -= 1
                    try:
                        dst.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    if src is upstream:
                        return  # the site is done: nothing more will reach the browser
                    continue
                dst.sendall(data)
    finally:
        sel.close()
