"""Outbound URL safety: refuse private, loopback, link-local and cloud metadata addresses.

The check happens after DNS resolution (a public name pointing at 10.0.0.1 is refused), and the
connection then goes to the address that was checked, never to a second lookup (DNS rebinding: a name
that answers 93.184.216.34 to the check and 127.0.0.1 to the connect). :func:`connect` is that
check-then-connect step; :func:`guarded_client` is an httpx client whose every new connection, redirects
included, goes through it (Host header and TLS SNI stay the URL's host name), built on httpx's and
httpcore's public transport interfaces only (:func:`_pinned_transport` says why). The browser function sends
all of Chromium's traffic through a local proxy that uses :func:`connect` for every request, redirect hop,
subrequest and WebSocket.

Private and loopback addresses are allowed when ``AGENTHOST_NETGUARD_ALLOW_PRIVATE`` is true (the
local stack sets it) or when the host is listed in ``AGENTHOST_NETGUARD_ALLOW`` (hostnames or CIDRs).
Metadata endpoints are refused unless explicitly listed.

Example::

    >>> from agenthost.netguard import check_url, Blocked
    >>> try:
    ...     check_url("http://169.254.169.254/latest/meta-data/")
    ... except Blocked as exc:
    ...     print(exc.reason)
    address 169.254.169.254 is a cloud metadata endpoint
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from typing import Any, NoReturn
from urllib.parse import urlsplit

from agenthost.config import settings
from agenthost.errors import Forbidden

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

METADATA = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("169.254.170.2"),  # ECS task metadata
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("100.100.100.200"),
}
SCHEMES = {"http", "https", "ws", "wss"}

Resolver = Callable[[str, int], Iterable[str]]


class Blocked(Forbidden):
    """The URL may not be fetched. ``reason`` says why."""

    def __init__(self, url: str, reason: str):
        super().__init__(f"blocked {url}: {reason}")
        self.url = url
        self.reason = reason


def _system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def _allowed_by_list(host: str, ip: IPAddress, allow: Iterable[str]) -> bool:
    for entry in allow:
        entry = entry.strip().lower()
        if not entry:
            continue
        if entry == host.lower():
            return True
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def classify(ip: IPAddress) -> str | None:
    """Why ``ip`` is not a public address (None when it is)."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if ip in METADATA:
        return "a cloud metadata endpoint"
    if ip.is_loopback:
        return "loopback"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip.is_private:
        return "private"
    if ip.is_reserved or not ip.is_global:
        return "reserved"
    return None


def check_url(
    url: str,
    *,
    allow_private: bool | None = None,
    allow: Iterable[str] | None = None,
    resolver: Resolver | None = None,
) -> list[str]:
    """Return the addresses ``url`` resolves to, or raise :class:`Blocked`."""
    cfg = settings()
    allow_private = cfg.netguard_allow_private if allow_private is None else allow_private
    allow = tuple(cfg.netguard_allow if allow is None else allow)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise Blocked(url, f"malformed URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise Blocked(url, f"scheme {scheme or '(none)'!r} is not allowed")
    host = (parts.hostname or "").strip()
    if not host:
        raise Blocked(url, "no host")
    port = port or (443 if scheme in ("https", "wss") else 80)
    try:
        addresses = list((resolver or _system_resolver)(host, port))
    except (OSError, UnicodeError) as exc:
        raise Blocked(url, f"cannot resolve {host} ({exc.__class__.__name__})") from None
    if not addresses:
        raise Blocked(url, f"cannot resolve {host}")
    for raw in addresses:
        ip = ipaddress.ip_address(raw.split("%", 1)[0])
        why = classify(ip)
        if why is None or _allowed_by_list(host, ip, allow):
            continue
        if allow_private and why != "a cloud metadata endpoint":
            continue
        raise Blocked(url, f"address {ip} is {why}")
    return addresses


def check_host(
    host: str,
    port: int,
    *,
    allow_private: bool | None = None,
    allow: Iterable[str] | None = None,
    resolver: Resolver | None = None,
) -> list[str]:
    """The checked addresses of ``host`` (connect to these and nothing else), or raise :class:`Blocked`."""
    host = host.strip("[]")
    netloc = f"[{host}]" if ":" in host else host
    return check_url(f"http://{netloc}:{int(port)}/", allow_private=allow_private, allow=allow, resolver=resolver)


def connect(
    host: str,
    port: int,
    timeout: float | None = None,
    *,
    allow_private: bool | None = None,
    allow: Iterable[str] | None = None,
    resolver: Resolver | None = None,
    addresses: list[str] | None = None,
) -> socket.socket:
    """A TCP socket to ``host:port`` connected to one of the addresses the check approved.

    ``addresses`` skips the check when the caller already made it (a cached :func:`check_host` answer).
    Raises :class:`Blocked` (refused) or :class:`OSError` (no approved address answered).
    """
    ips = addresses if addresses is not None else check_host(
        host, port, allow_private=allow_private, allow=allow, resolver=resolver)
    last: OSError | None = None
    for raw in ips:
        ip = raw.split("%", 1)[0]
        family = socket.AF_INET6 if ":" in ip else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect((ip, int(port)))
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    raise last or OSError(f"cannot connect to {host}")


def guarded_client(**kwargs: Any) -> Any:
    """An ``httpx.Client`` whose every request passes :func:`check_url` and whose every new connection
    (redirects included) goes to an address the check approved (:func:`connect`; Host and SNI unchanged).

    Takes ``httpx.Client`` arguments plus ``allow_private``, ``allow`` and ``resolver`` for the check;
    ``verify``, ``http2`` and ``limits`` configure the pinned transport.
    """
    import httpx

    guard_kwargs: dict[str, Any] = {k: kwargs.pop(k) for k in ("allow_private", "allow", "resolver") if k in kwargs}
    if "transport" in kwargs:
        raise TypeError("guarded_client makes its own transport")
    transport = _pinned_transport(guard_kwargs, verify=kwargs.pop("verify", True),
                                  http2=kwargs.pop("http2", False), limits=kwargs.pop("limits", None))

    def _check(request: httpx.Request) -> None:
        check_url(str(request.url), **guard_kwargs)  # scheme and address, with a clear reason

    hooks = kwargs.pop("event_hooks", {}) or {}
    hooks = {**hooks, "request": [_check, *hooks.get("request", [])]}
    return httpx.Client(event_hooks=hooks, transport=transport, **kwargs)


def _pinned_transport(guard_kwargs: dict[str, Any], *, verify: Any, http2: bool, limits: Any) -> Any:
    """The guarded client's transport: httpx's public transport interface (``httpx.BaseTransport``) over an
    httpcore connection pool whose network backend (httpcore's public ``NetworkBackend`` interface) checks
    every new TCP connection and makes it to a checked address.

    Written here because ``httpx.HTTPTransport`` takes no network backend: reaching into its private pool
    would let an httpx upgrade route connections around the check without a word. Only public interfaces of
    both libraries are used, so an upgrade that changes them fails loudly instead."""
    import httpcore
    import httpx

    class PinnedBackend(httpcore.SyncBackend):
        """Every TCP connection httpcore opens is checked and made to a checked address (TLS, made
        afterwards by httpcore, still names the URL's host)."""

        def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                        local_address: str | None = None, socket_options: Any = None) -> Any:
            last: Exception | None = None
            for ip in check_host(host, port, **guard_kwargs):
                try:
                    return super().connect_tcp(ip.split("%", 1)[0], port, timeout, local_address, socket_options)
                except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                    last = exc
            raise last or httpcore.ConnectError(f"cannot connect to {host}")

    # httpcore's errors as the httpx errors callers catch, most specific first
    errors: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
        (httpcore.PoolTimeout, httpx.PoolTimeout), (httpcore.ConnectTimeout, httpx.ConnectTimeout),
        (httpcore.ReadTimeout, httpx.ReadTimeout), (httpcore.WriteTimeout, httpx.WriteTimeout),
        (httpcore.TimeoutException, httpx.TimeoutException), (httpcore.ConnectError, httpx.ConnectError),
        (httpcore.ReadError, httpx.ReadError), (httpcore.WriteError, httpx.WriteError),
        (httpcore.NetworkError, httpx.NetworkError), (httpcore.ProxyError, httpx.ProxyError),
        (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
        (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
        (httpcore.LocalProtocolError, httpx.LocalProtocolError), (httpcore.ProtocolError, httpx.ProtocolError),
    )

    core_errors = tuple(core for core, _ in errors)

    def reraise(exc: Exception, request: httpx.Request) -> NoReturn:
        mapped = next(ours for core, ours in errors if isinstance(exc, core))
        raise mapped(str(exc), request=request) from exc

    class Stream(httpx.SyncByteStream):
        def __init__(self, stream: Any, request: httpx.Request) -> None:
            self._stream, self._request = stream, request

        def __iter__(self) -> Any:
            try:
                yield from self._stream
            except core_errors as exc:
                reraise(exc, self._request)

        def close(self) -> None:
            close = getattr(self._stream, "close", None)
            if close is not None:
                close()

    class PinnedTransport(httpx.BaseTransport):
        def __init__(self) -> None:
            lim = limits or httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
            self.pool = httpcore.ConnectionPool(
                ssl_context=httpx.create_ssl_context(verify=verify, trust_env=False),
                max_connections=lim.max_connections, max_keepalive_connections=lim.max_keepalive_connections,
                keepalive_expiry=lim.keepalive_expiry, http1=True, http2=http2, network_backend=PinnedBackend())

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            url = request.url
            core = httpcore.Request(
                method=request.method,
                url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
                headers=request.headers.raw, content=request.stream, extensions=request.extensions)
            try:
                answer = self.pool.handle_request(core)
            except core_errors as exc:  # Blocked and anything else go on as they came
                reraise(exc, request)
            return httpx.Response(status_code=answer.status, headers=answer.headers,
                                  stream=Stream(answer.stream, request), extensions=answer.extensions)

        def close(self) -> None:
            self.pool.close()

    return PinnedTransport()
