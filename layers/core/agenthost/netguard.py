"""Outbound URL safety: refuse private, loopback, link-local and cloud metadata addresses.

The check happens after DNS resolution (a public name pointing at 10.0.0.1 is refused) and is applied
to every request an httpx client sends, redirects included, through :func:`guarded_client`.
The browser function applies :func:`check_url` to every navigation and subrequest.

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
from typing import Any
from urllib.parse import urlsplit

from agenthost.config import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

METADATA = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("169.254.170.2"),  # ECS task metadata
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("100.100.100.200"),
}
SCHEMES = {"http", "https", "ws", "wss"}

Resolver = Callable[[str, int], Iterable[str]]


class Blocked(Exception):
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


def guarded_client(**kwargs: Any) -> Any:
    """An ``httpx.Client`` whose every request (redirects included) passes :func:`check_url` first."""
    import httpx

    guard_kwargs = {k: kwargs.pop(k) for k in ("allow_private", "allow", "resolver") if k in kwargs}

    def _check(request: httpx.Request) -> None:
        check_url(str(request.url), **guard_kwargs)

    hooks = kwargs.pop("event_hooks", {}) or {}
    hooks = {**hooks, "request": [_check, *hooks.get("request", [])]}
    return httpx.Client(event_hooks=hooks, **kwargs)
