"""What an agents.json site is made of: its info, limits, catalog, checkout handler and store, the
per-request factories built from them, and which answers an ``Idempotency-Key`` record may keep.

:class:`agents_api.sdk.AgentsSite` adds the routes and the edge middleware on top; the routes and the
edge see a site only through this class, so they do not import the SDK module that installs them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request

from agenthost.store import Store
from agents_api.catalog import Catalog
from agents_api.checkout import CheckoutHandler, SignedCheckout
from agents_api.ratelimit import RateLimiter
from agents_api.wire import compact

BASE_PATH = "/.well-known/agents/api"


@dataclass(frozen=True)
class SiteInfo:
    name: str
    description: str = ""
    contact: str | None = None
    url: str | None = None  # public base URL; by default taken from each request
    currency: str = "USD"


@dataclass(frozen=True)
class Limits:
    session_ttl_s: int = 1800
    rate_limit: int = 120  # requests per window per client
    rate_window_s: int = 60
    max_quantity: int = 99  # per cart line
    max_lines: int = 100  # different items per cart
    idempotency_reclaim_s: int = 35  # a pending Idempotency-Key claim older than this is abandoned
    search_limit_max: int = 50
    browse_limit_max: int = 100


class SiteConfig:
    """A site's parts. ``catalog`` is a Catalog or a factory ``store -> Catalog``."""

    def __init__(
        self,
        info: SiteInfo,
        *,
        catalog: Catalog | Callable[[Store], Catalog],
        checkout: CheckoutHandler | None = None,
        limits: Limits | None = None,
        store: Callable[[], Store] | None = None,
        base_path: str = BASE_PATH,
    ):
        self.info = info
        self._catalog = catalog
        self.checkout = checkout or SignedCheckout()
        self.limits = limits or Limits()
        self.store_factory = store or Store
        self.base_path = base_path.rstrip("/")
        self.rate = RateLimiter(self.limits.rate_limit, self.limits.rate_window_s)

    # -- per request
    def store(self) -> Store:
        return self.store_factory()

    def catalog(self, store: Store) -> Catalog:
        c = self._catalog
        return c(store) if callable(c) and not hasattr(c, "search") else c  # type: ignore[return-value]

    def base_url(self, request: Request) -> str:
        if self.info.url:
            return self.info.url.rstrip("/")
        # API Gateway always sets X-Forwarded-Proto (https); a local gateway without it speaks http.
        scheme = request.headers.get("x-forwarded-proto", "").split(",")[0].strip() or "http"
        host = request.headers.get("host", "").strip() or request.url.netloc
        return f"{scheme}://{host}"

    # -- what Idempotency-Key records keep
    def idempotent(self, method: str, path: str) -> bool:
        """Whether ``Idempotency-Key`` applies: every POST but session creation, whose answer is the session
        token (never stored; a retried create simply gets a new session, the lost one expires unused)."""
        return method == "POST" and path != f"{self.base_path}/session"

    def seal_replay(self, path: str, status: int, body: bytes) -> bytes | None:
        """What an idempotency record keeps of a response (``None``: nothing, a retry runs again). A checkout
        URL is kept without its signature (:meth:`unseal_replay` signs it again)."""
        if path != f"{self.base_path}/checkout" or status >= 300:
            return body
        if not isinstance(self.checkout, SignedCheckout):
            return None  # another handler's URL may hold secrets we cannot restore
        try:
            doc = json.loads(body)
            doc["data"]["checkout_url"] = self.checkout.unsigned(str(doc["data"]["checkout_url"]))
        except (ValueError, KeyError, TypeError):
            return None
        return compact(doc)

    def unseal_replay(self, store: Store, path: str, body: bytes) -> bytes:
        if path != f"{self.base_path}/checkout" or not isinstance(self.checkout, SignedCheckout):
            return body
        try:
            doc = json.loads(body)
            url = doc["data"]["checkout_url"]
        except (ValueError, KeyError, TypeError):
            return body
        doc["data"]["checkout_url"] = self.checkout.resigned(store, str(url))
        return compact(doc)
