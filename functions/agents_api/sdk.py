"""The site SDK: a reusable FastAPI router that makes any catalog an agents.json site.

Configure it with site info, a catalog backend and a checkout handler, then install it on an app made
by :func:`agenthost.http.create_app` with :data:`error_body` (the ``{ok, data|error}`` envelope)::

    from agenthost.http import create_app, make_handler
    from agents_api.sdk import AgentsSite, SiteInfo, error_body
    from agents_api.catalog import MemoryCatalog
    from agents_api.checkout import SignedCheckout

    app = create_app("shop", error_body=error_body)
    site = AgentsSite(SiteInfo(name="Shop"), catalog=lambda store: MemoryCatalog(PRODUCTS),
                      checkout=SignedCheckout())
    site.install(app)
    handler = make_handler(app)

What ``install`` adds:

* discovery: ``/.well-known/agents.json``, ``/.well-known/agents.txt``, ``/llms.txt`` and the OpenAPI
  document at ``<base>/openapi.json``;
* the capabilities under ``/.well-known/agents/api`` (search, browse, detail, session, cart add/view/
  update/remove, checkout, contact) and the human checkout page;
* at the edge of every response (errors included): the envelope, ``Link: </.well-known/agents.json>;
  rel="agents"``, CORS with exposed headers, OPTIONS 204, the per-client rate limit (one atomic
  conditional write per request, on the session's own item for a live session, else on the source IP's
  counter; 429 with ``Retry-After``) with ``RateLimit-*``/``X-RateLimit-*`` headers, and
  ``Idempotency-Key`` on POSTs.

State lives in DynamoDB: one item per session, keyed by a hash of the token, with a hard expiry, the
cart and the session's rate counters (see :mod:`agents_api.sessions`). The rate-limit write returns that
item, so routes get the session and its cart without a read. Prices and totals always come from the
catalog, never from the agent. When ``metering`` folding is on, a route's own write carries the turn's
usage counters (``metering.current().fold()``).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn
from urllib.parse import parse_qs

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, ValidationError

from agenthost import metering
from agenthost.config import settings
from agenthost.http import RETRY_AFTER_S, UNAVAILABLE_MESSAGE, ApiError, logger, unavailable
from agenthost.store import Store
from agents_api import models
from agents_api.catalog import Catalog, Filters, Product
from agents_api.checkout import CheckoutHandler, SignedCheckout
from agents_api.idempotency import MAX_KEY, Conflict, Idempotency, fingerprint
from agents_api.ratelimit import RateLimiter, Verdict
from agents_api.sessions import (
    CartFull,
    NotInCart,
    QuantityRefused,
    Session,
    SessionGone,
    Sessions,
    token_hash,
)

BASE_PATH = "/.well-known/agents/api"
CHECKOUT_PATH = "/.well-known/agents/checkout"
SCHEMA_VERSION = "1.0"
JSON_TYPE = "application/json; charset=utf-8"
ALLOW_HEADERS = "Content-Type, Authorization, X-Session-Token, X-Agent-Session, Idempotency-Key, Accept"
EXPOSE_HEADERS = ("Link, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, "
                  "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, X-Request-Id, "
                  "Idempotent-Replayed")
LINK = '</.well-known/agents.json>; rel="agents"'
MAX_TOKEN = 512
#: what the edge learned about the request's session (scope key): a Session, MISSING, INVALID, or absent
#: when the rate limiter failed (routes then read the session themselves)
SESSION_SCOPE = "agents.session"
MISSING, INVALID = "missing", "invalid"


def error_body(status: int, code: str, message: str) -> dict[str, Any]:
    """The spec's error envelope, for :func:`agenthost.http.create_app`."""
    return {"ok": False, "error": message}


def ok(data: Any, status: int = 200) -> JSONResponse:
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", exclude_none=True)
    return JSONResponse({"ok": True, "data": data}, status_code=status, media_type="application/json")


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


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _major(minor: int) -> float:
    return round(int(minor) / 100, 2)


def _product_out(p: Product) -> dict[str, Any]:
    out = {k: v for k, v in p.items() if k not in ("price_minor",)}
    out["price"] = _major(p.get("price_minor", 0))
    out["price_minor"] = int(p.get("price_minor", 0))
    out["in_stock"] = int(p.get("stock", 0)) > 0
    return out


# ---- request parsing --------------------------------------------------------------------------

def _query(request: Request, name: str) -> str | None:
    value = request.query_params.get(name)
    return value.strip() if value is not None else None


def _int(raw: Any, name: str, default: int, lo: int, hi: int) -> int:
    if raw is None or raw == "":
        return default
    if isinstance(raw, bool):
        raise ApiError(400, f"{name} must be an integer between {lo} and {hi}")
    try:
        value = int(raw) if not isinstance(raw, float) or raw.is_integer() else None
    except (TypeError, ValueError):
        value = None
    if value is None or not lo <= value <= hi:
        raise ApiError(400, f"{name} must be an integer between {lo} and {hi}, got {str(raw)[:40]!r}")
    return value


def _price(raw: str | None, name: str) -> int | None:
    if raw is None or raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value == value or value < 0 or value > 1e9:
        raise ApiError(400, f"{name} must be a non-negative price in {'major'} units, got {raw[:40]!r}")
    return round(value * 100)


def _bool(raw: str | None, name: str) -> bool | None:
    if raw is None or raw == "":
        return None
    if raw.lower() in ("1", "true", "yes"):
        return True
    if raw.lower() in ("0", "false", "no"):
        return False
    raise ApiError(400, f"{name} must be true or false, got {raw[:40]!r}")


SORTS = ("relevance", "price_asc", "price_desc", "name")


def _filters(request: Request) -> Filters:
    sort = _query(request, "sort") or None
    if sort is not None and sort not in SORTS:
        raise ApiError(400, f"sort must be one of {', '.join(SORTS)}, got {sort[:40]!r}")
    lo = _price(_query(request, "min_price"), "min_price")
    hi = _price(_query(request, "max_price"), "max_price")
    if lo is not None and hi is not None and lo > hi:
        raise ApiError(400, "min_price must not exceed max_price")
    return Filters(category=_query(request, "category") or None, min_price_minor=lo, max_price_minor=hi,
                   in_stock=_bool(_query(request, "in_stock"), "in_stock"), sort=sort)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"Malformed JSON body: {str(exc)[:120]}") from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ApiError(400, "the request body must be a JSON object")
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        raise ApiError(400, "the request body contains invalid unicode (lone surrogate escapes)") from None
    return doc


def _validate(model: type[BaseModel], data: dict[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err.get("loc", ())) or "body"
            if err.get("type") == "missing":
                problems.append(f"missing required parameter: {field}")
            else:
                problems.append(f"invalid parameter {field}: {err.get('msg', 'invalid')}")
        raise ApiError(400, "; ".join(problems)) from None


def _token_of(headers: Any) -> str | None:
    """The session token from ``Authorization: Bearer``, ``X-Session-Token`` or ``X-Agent-Session``."""
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer " and auth[7:].strip():
        return str(auth[7:].strip())
    for name in ("x-session-token", "x-agent-session"):
        value = headers.get(name, "").strip()
        if value:
            return str(value)
    return None


def _token(request: Request) -> str | None:
    return _token_of(request.headers)


def _fold() -> dict[str, Any] | None:
    """The current turn's usage counters as a transaction entry, or None (folding off, or no turn)."""
    return metering.current().fold()


# ---- the SDK ----------------------------------------------------------------------------------

class AgentsSite:
    """An agents.json site. ``catalog`` is a Catalog or a factory ``store -> Catalog``."""

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

    # -- dependencies per request
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

    # -- discovery
    def capabilities(self, base: str) -> list[models.Capability]:
        b = base + self.base_path
        p = models.Param
        filt = {
            "category": p(type="string", description="Only this category", enum=None),
            "min_price": p(type="number", description="Lowest price, major units"),
            "max_price": p(type="number", description="Highest price, major units"),
            "in_stock": p(type="boolean", description="Only items in stock"),
        }
        lim = self.limits
        return [
            models.Capability(name="search", description="Search products by keywords", method="GET",
                              endpoint=f"{b}/search", params={
                                  "q": p(type="string", required=True, description="Search words"),
                                  "limit": p(type="integer", description=f"Max results (1-{lim.search_limit_max})",
                                             default=10),
                                  **filt,
                                  "sort": p(type="string", description="Result order", enum=list(SORTS))}),
            models.Capability(name="browse", description="Browse the catalog page by page", method="GET",
                              endpoint=f"{b}/browse", params={
                                  "page": p(type="integer", description="Page number from 1", default=1),
                                  "limit": p(type="integer", description=f"Items per page (1-{lim.browse_limit_max})",
                                             default=20),
                                  **filt,
                                  "sort": p(type="string", description="Order", enum=list(SORTS), default="name")}),
            models.Capability(name="detail", description="One product by id", method="GET",
                              endpoint=f"{b}/detail/:id", params={
                                  "id": p(type="string", required=True, description="Product id (path)")}),
            models.Capability(name="cart.add", description="Add a product to the cart (prices come from the "
                              "catalog)", method="POST", endpoint=f"{b}/cart/add", requires_session=True, params={
                                  "item_id": p(type="string", required=True, description="Product id"),
                                  "quantity": p(type="integer", description=f"1-{lim.max_quantity}", default=1)}),
            models.Capability(name="cart.view", description="The cart with catalog prices and subtotal",
                              method="GET", endpoint=f"{b}/cart/view", requires_session=True),
            models.Capability(name="cart.update", description="Set a cart line's quantity (0 removes it)",
                              method="PUT", endpoint=f"{b}/cart/update", requires_session=True, params={
                                  "item_id": p(type="string", required=True, description="Product id"),
                                  "quantity": p(type="integer", required=True,
                                                description=f"0-{lim.max_quantity}")}),
            models.Capability(name="cart.remove", description="Remove a product from the cart", method="DELETE",
                              endpoint=f"{b}/cart/remove", requires_session=True, params={
                                  "item_id": p(type="string", required=True, description="Product id")}),
            models.Capability(name="checkout", description="Hand the cart to the human to confirm and pay",
                              method="POST", endpoint=f"{b}/checkout", requires_session=True,
                              human_handoff=True),
            models.Capability(name="contact", description="Send a message to the shop", method="POST",
                              endpoint=f"{b}/contact", params={
                                  "name": p(type="string", required=True, description="Your name"),
                                  "email": p(type="string", required=True, description="Reply address"),
                                  "message": p(type="string", required=True, description="The message"),
                                  "subject": p(type="string", description="Subject")}),
        ]

    def agents_json(self, base: str) -> models.AgentsJson:
        return models.AgentsJson(
            schema_version=SCHEMA_VERSION,
            site=models.Site(name=self.info.name, url=base + "/", description=self.info.description or None,
                             contact=self.info.contact),
            capabilities=self.capabilities(base),
            session=models.SessionInfo(create=f"{base}{self.base_path}/session",
                                       delete=f"{base}{self.base_path}/session",
                                       ttl_seconds=self.limits.session_ttl_s),
            flows=[
                models.Flow(name="purchase", description="Find a product, put it in the cart, hand off checkout",
                            steps=["search", "detail", "cart.add", "cart.view", "checkout"]),
                models.Flow(name="browse_catalog", description="Page through a category and open a product",
                            steps=["browse", "detail"]),
            ],
            rate_limit=models.RateLimit(requests_per_minute=self.rate.per_minute),
        )

    def agents_txt(self, base: str) -> str:
        lines = ["# agents.txt: how AI agents may use this site", f"Site: {self.info.name}", f"URL: {base}/",
                 f"Agents-JSON: {base}/.well-known/agents.json"]
        lines += [f"Allow: {c.name}" for c in self.capabilities(base)]
        lines += [f"Rate-Limit: {self.rate.per_minute}/minute", f"Session-TTL: {self.limits.session_ttl_s}s"]
        return "\n".join(lines) + "\n"

    def llms_txt(self, base: str) -> str:
        caps = "\n".join(f"- `{c.method} {c.endpoint}` ({c.name}): {c.description}"
                         + (" (needs a session)" if c.requires_session else "")
                         + (" (human handoff)" if c.human_handoff else "") for c in self.capabilities(base))
        return (f"# {self.info.name}\n\n> {self.info.description or 'An agent-friendly site.'}\n\n"
                f"## For AI agents\n\n- [agents.json]({base}/.well-known/agents.json): capabilities, session, "
                f"flows and rate limit\n- [OpenAPI]({base}{self.base_path}/openapi.json)\n\n"
                f"Every response is `{{\"ok\": true, \"data\": ...}}` or `{{\"ok\": false, \"error\": \"...\"}}`. "
                f"Create a session with `POST {base}{self.base_path}/session` and send "
                f"`Authorization: Bearer <session_token>`. Checkout returns a URL for the human; "
                f"never follow it yourself.\n\n## Capabilities\n\n{caps}\n")

    # -- install
    def install(self, app: FastAPI) -> FastAPI:
        app.include_router(self.router())
        app.add_middleware(AgentsEdge, site=self)
        return app

    def router(self) -> APIRouter:  # noqa: C901 - one place that lists every route
        r = APIRouter()
        b = self.base_path
        site = self

        @r.get("/.well-known/agents.json", include_in_schema=False)
        async def agents_json(request: Request) -> Response:
            doc = site.agents_json(site.base_url(request)).model_dump(mode="json", exclude_none=True)
            return JSONResponse(doc)

        @r.get("/.well-known/agents.txt", include_in_schema=False)
        async def agents_txt(request: Request) -> Response:
            return PlainTextResponse(site.agents_txt(site.base_url(request)))

        @r.get("/llms.txt", include_in_schema=False)
        async def llms_txt(request: Request) -> Response:
            return PlainTextResponse(site.llms_txt(site.base_url(request)), media_type="text/markdown")

        @r.get(f"{b}/search", summary="search")
        async def search(request: Request) -> Response:
            q = _query(request, "q") or _query(request, "query")
            if not q:
                raise ApiError(400, "missing required parameter: q")
            if len(q) > 200:
                raise ApiError(400, "q must be at most 200 characters")
            limit = _int(_query(request, "limit"), "limit", 10, 1, site.limits.search_limit_max)
            found = site.catalog(site.store()).search(q, limit, _filters(request))
            return ok([_product_out(p) for p in found])

        @r.get(f"{b}/browse", summary="browse")
        async def browse(request: Request) -> Response:
            page = _int(_query(request, "page"), "page", 1, 1, 100_000)
            limit = _int(_query(request, "limit"), "limit", 20, 1, site.limits.browse_limit_max)
            items, total = site.catalog(site.store()).browse(page, limit, _filters(request))
            return ok({"items": [_product_out(p) for p in items], "total": total, "page": page, "limit": limit})

        async def _detail(item_id: str | None) -> Response:
            if not item_id:
                raise ApiError(400, "missing required parameter: id")
            found = site.catalog(site.store()).get(item_id)
            if found is None:
                raise ApiError(404, f"item not found: {item_id[:100]}")
            return ok(_product_out(found))

        @r.get(f"{b}/detail", summary="detail (older dialect: ?id=)")
        async def detail_query(request: Request) -> Response:
            return await _detail(_query(request, "id") or _query(request, "item_id"))

        @r.get(f"{b}/detail/{{item_id}}", summary="detail")
        async def detail(item_id: str, request: Request) -> Response:
            if item_id in ("{id}", ":id"):  # a client that did not fill in the template
                item_id = _query(request, "id") or ""
            return await _detail(item_id)

        @r.post(f"{b}/session", summary="session create", status_code=201)
        async def session_create(request: Request) -> Response:
            await _body(request)  # an empty or JSON object body is fine; anything else is a 400
            store = site.store()
            token, exp = Sessions(store, site.limits.session_ttl_s).create(
                {"user_agent": request.headers.get("user-agent", "")[:200]}, also=[_fold()])
            caps = [c.name for c in site.capabilities("")]
            return ok(models.SessionCreated(session_token=token, expires_at=_iso(exp), capabilities=caps), 201)

        @r.delete(f"{b}/session", summary="session delete")
        async def session_delete(request: Request) -> Response:
            store = site.store()
            sessions = Sessions(store, site.limits.session_ttl_s)
            sessions.end(site.session(request, sessions), fold=_fold())
            return ok(models.SessionEnded())

        @r.post(f"{b}/cart/add", summary="cart.add", status_code=201)
        async def cart_add(request: Request) -> Response:
            body = _validate(models.CartAdd, await _body(request))
            cap = site.limits.max_quantity
            if not 1 <= body.quantity <= cap:
                raise ApiError(400, f"quantity must be an integer between 1 and {cap}")
            store = site.store()
            sessions = Sessions(store, site.limits.session_ttl_s)
            session = site.session(request, sessions)
            catalog = site.catalog(store)
            # a warm catalog snapshot answers existence and stock without a read (DynamoCatalog.get_cached)
            product = _get_cached(catalog, body.item_id)
            line_cap = min(cap, int(product.get("stock", 0))) if product else 0
            if product is None or line_cap <= 0:
                site.refuse_add(catalog, session, body.item_id, body.quantity, cap, product)
            try:
                lines = sessions.add(session, body.item_id, body.quantity, line_cap, site.limits.max_lines)
            except QuantityRefused:
                site.refuse_add(catalog, session, body.item_id, body.quantity, cap, product)
            except CartFull:
                raise ApiError(400, f"the cart already holds {site.limits.max_lines} different items (the most "
                                    "it may hold): remove one first") from None
            except SessionGone:
                raise site.session_gone() from None
            quantity = lines.get(body.item_id, body.quantity)
            return ok(models.CartAdded(item_id=body.item_id, quantity=quantity, cart_size=len(lines)), 201)

        @r.get(f"{b}/cart/view", summary="cart.view")
        async def cart_view(request: Request) -> Response:
            store = site.store()
            session = site.session(request, Sessions(store, site.limits.session_ttl_s))
            return ok(site.cart(store, session))

        async def _update(request: Request) -> Response:
            body = _validate(models.CartUpdate, await _body(request))
            cap = site.limits.max_quantity
            if not 0 <= body.quantity <= cap:
                raise ApiError(400, f"quantity must be an integer between 0 and {cap}")
            store = site.store()
            sessions = Sessions(store, site.limits.session_ttl_s)
            session = site.session(request, sessions)
            if body.item_id not in session.lines:  # the cart as of this request's rate-limit write
                raise ApiError(404, f"item not in cart: {body.item_id[:100]}")
            try:
                if body.quantity == 0:
                    sessions.remove(session, body.item_id, fold=_fold())
                else:
                    product = _get_cached(site.catalog(store), body.item_id)
                    stock = int(product.get("stock", 0)) if product else 0
                    if body.quantity > stock:
                        raise ApiError(400, f"quantity: only {stock} of {body.item_id} in stock")
                    sessions.set_quantity(session, body.item_id, body.quantity, fold=_fold())
            except NotInCart:
                raise ApiError(404, f"item not in cart: {body.item_id[:100]}") from None
            except SessionGone:
                raise site.session_gone() from None
            return ok(models.CartUpdated(item_id=body.item_id, quantity=body.quantity))

        r.add_api_route(f"{b}/cart/update", _update, methods=["PUT"], summary="cart.update")
        r.add_api_route(f"{b}/cart/update", _update, methods=["PATCH"], summary="cart.update (older dialect)",
                        include_in_schema=False)

        @r.delete(f"{b}/cart/remove", summary="cart.remove")
        async def cart_remove(request: Request) -> Response:
            data = await _body(request)
            if "item_id" not in data and _query(request, "item_id"):
                data["item_id"] = _query(request, "item_id")
            body = _validate(models.CartRemove, data)
            store = site.store()
            sessions = Sessions(store, site.limits.session_ttl_s)
            session = site.session(request, sessions)
            try:
                if body.item_id not in session.lines:  # the cart as of this request's rate-limit write
                    raise NotInCart
                sessions.remove(session, body.item_id, fold=_fold())
            except NotInCart:
                raise ApiError(404, f"item not in cart: {body.item_id[:100]}") from None
            except SessionGone:
                raise site.session_gone() from None
            return ok(models.CartRemoved(item_id=body.item_id))

        @r.post(f"{b}/checkout", summary="checkout")
        async def checkout(request: Request) -> Response:
            await _body(request)
            store = site.store()
            session = site.session(request, Sessions(store, site.limits.session_ttl_s))
            cart = site.cart(store, session)
            if not cart.items:
                raise ApiError(400, "the cart is empty: add items with cart.add before checkout")
            if not all(line.available for line in cart.items):
                gone = ", ".join(line.item_id for line in cart.items if not line.available)
                raise ApiError(400, f"some cart items are no longer available: {gone}")
            snapshot = cart.model_dump(mode="json")
            if isinstance(site.checkout, SignedCheckout):  # its snapshot write carries the usage counters
                url, exp = site.checkout.start(store, site.base_url(request), session.hash, snapshot,
                                               also=[_fold()])
            else:
                url, exp = site.checkout.start(store, site.base_url(request), session.hash, snapshot)
            return ok(models.CheckoutHandoff(checkout_url=url, expires_at=_iso(exp)))

        @r.post(f"{b}/contact", summary="contact")
        async def contact(request: Request) -> Response:
            body = _validate(models.Contact, await _body(request))
            store = site.store()
            digest = hashlib.sha256(f"{time.time_ns()}{body.email}{id(request)}".encode()).hexdigest()[:24]
            store.put({"pk": f"CONTACT#{digest}", "sk": "META", **body.model_dump(exclude_none=True),
                       "received_at": store.now(), "site": site.info.name}, if_absent=True, also=[_fold()])
            return ok(models.ContactSent())

        if isinstance(self.checkout, SignedCheckout):
            handoff = self.checkout

            @r.get(f"{handoff.path}/{{checkout_id}}", include_in_schema=False)
            async def checkout_page(checkout_id: str, request: Request) -> Response:
                status, page = handoff.page(site.store(), checkout_id, _query(request, "exp"), _query(request, "sig"))
                return HTMLResponse(page, status_code=status, headers={"Cache-Control": "no-store",
                                                                       "Referrer-Policy": "no-referrer"})

            @r.post(f"{handoff.path}/{{checkout_id}}/confirm", include_in_schema=False)
            async def checkout_confirm(checkout_id: str, request: Request) -> Response:
                raw = (await request.body()).decode("utf-8", "replace")
                form = {k: v[0] for k, v in parse_qs(raw).items()}
                exp = form.get("exp") or _query(request, "exp")
                sig = form.get("sig") or _query(request, "sig")
                status, page = handoff.confirm(site.store(), checkout_id, exp, sig)
                return HTMLResponse(page, status_code=status, headers={"Cache-Control": "no-store"})

        return r

    # -- helpers used by routes
    def session(self, request: Request, sessions: Sessions) -> Session:
        """The request's live session: normally what the edge's rate-limit write returned (no read); a
        GetItem only when the limiter could not run."""
        known = request.scope.get(SESSION_SCOPE)
        if isinstance(known, Session):
            return known
        token = _token(request)
        if not token or known == MISSING:
            raise ApiError(401, "missing session token: create one with POST "
                                f"{self.base_path}/session and send Authorization: Bearer <session_token>",
                           headers={"WWW-Authenticate": 'Bearer realm="agents"'})
        found = sessions.load(token) if known != INVALID and len(token) <= MAX_TOKEN else None
        if found is None:
            raise self.session_gone()
        return found

    def session_gone(self) -> ApiError:
        return ApiError(401, "invalid or expired session token: create a new session",
                        headers={"WWW-Authenticate": 'Bearer realm="agents"'})

    # -- the edge's per-request decisions
    def rate_headers(self, verdict: Verdict | None, now: int) -> dict[str, str]:
        """``RateLimit-*``/``X-RateLimit-*`` for a response. ``RateLimit-Remaining`` needs this request's
        counter write: without a verdict (OPTIONS, which is not counted, or a limiter that failed open)
        only the limit, the window's reset and the policy are sent."""
        rate = self.rate
        reset_at = verdict.reset_at if verdict is not None else rate.reset_at(now)
        out = {"ratelimit-limit": str(rate.limit), "ratelimit-reset": str(max(0, reset_at - now)),
               "ratelimit-policy": f"{rate.limit};w={rate.window_s}",
               "x-ratelimit-limit": str(rate.limit), "x-ratelimit-reset": str(reset_at)}
        if verdict is not None:
            out["ratelimit-remaining"] = out["x-ratelimit-remaining"] = str(verdict.remaining)
        return out

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
        return _compact(doc)

    def unseal_replay(self, store: Store, path: str, body: bytes) -> bytes:
        if path != f"{self.base_path}/checkout" or not isinstance(self.checkout, SignedCheckout):
            return body
        try:
            doc = json.loads(body)
            url = doc["data"]["checkout_url"]
        except (ValueError, KeyError, TypeError):
            return body
        doc["data"]["checkout_url"] = self.checkout.resigned(store, str(url))
        return _compact(doc)

    def refuse_add(self, catalog: Catalog, session: Session, item_id: str, quantity: int, cap: int,
                   product: Product | None | bool = False) -> NoReturn:
        """Raise the precise 404/400 for a refused cart add (reads the product only on this error path)."""
        found = catalog.get(item_id) if product is False else product
        if not found:
            raise ApiError(404, f"item not found: {item_id[:100]}")
        stock = int(found.get("stock", 0))
        if stock <= 0:
            raise ApiError(400, f"item {item_id} is out of stock")
        have = session.lines.get(item_id, 0)
        line_cap = min(cap, stock)
        raise ApiError(400, f"quantity: the cart may hold at most {line_cap} of {item_id} ({stock} in stock, "
                            f"limit {cap} per item); it holds {have}")

    def cart(self, store: Store, session: Session) -> models.CartView:
        products = self.catalog(store).get_many(session.lines) if session.lines else {}
        lines, total, count = [], 0, 0
        for item_id, qty in sorted(session.lines.items()):
            p = products.get(item_id)
            price = int(p.get("price_minor", 0)) if p else 0
            available = p is not None and int(p.get("stock", 0)) >= qty
            lines.append(models.CartLine(
                item_id=item_id, itemId=item_id, name=str(p.get("name", item_id)) if p else item_id, quantity=qty,
                price=_major(price), price_minor=price, line_total=_major(price * qty), line_total_minor=price * qty,
                currency=str(p.get("currency", self.info.currency)) if p else self.info.currency,
                available=available))
            if p is not None:
                total += price * qty
                count += qty
        return models.CartView(items=lines, subtotal=_major(total), subtotal_minor=total,
                               currency=self.info.currency, item_count=count)


def _compact(doc: Any) -> bytes:
    """JSON as the routes' responses write it (byte-identical replays)."""
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def _get_cached(catalog: Catalog, item_id: str) -> Product | None:
    get = getattr(catalog, "get_cached", None)
    return get(item_id) if callable(get) else catalog.get(item_id)


# ---- the edge: CORS, Link, rate limit, idempotency, content type -------------------------------

def _ip_key(scope: dict) -> str:
    client = scope.get("client") or ("unknown", 0)
    return "ip:" + str(client[0])


_PATHS = re.compile(r"^/(\.well-known/agents|llms\.txt)")


class AgentsEdge:
    """Pure ASGI middleware around the site's routes (see the module docstring)."""

    def __init__(self, app: Any, site: AgentsSite):
        self.app = app
        self.site = site

    def _common(self, extra: dict[str, str] | None = None) -> list[tuple[bytes, bytes]]:
        h = {"link": LINK, "access-control-allow-origin": "*",
             "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
             "access-control-allow-headers": ALLOW_HEADERS, "access-control-expose-headers": EXPOSE_HEADERS,
             "vary": "Authorization, X-Session-Token"}
        h.update(extra or {})
        return [(k.encode("latin-1"), v.encode("latin-1")) for k, v in h.items()]

    async def _send_json(self, send: Any, status: int, body: dict[str, Any], extra: dict[str, str]) -> None:
        raw = json.dumps(body).encode()
        headers = self._common(extra) + [(b"content-type", JSON_TYPE.encode()),
                                         (b"content-length", str(len(raw)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": raw})

    def _rate_limit(self, store: Store, headers: dict[str, str], scope: dict) -> tuple[str, Verdict | None]:
        """Count this request (one conditional write; two only for a token that is not a live session)
        and record what it proved about the session in ``scope[SESSION_SCOPE]``. Returns the client key
        (idempotency records are scoped by it) and the verdict (None: the limiter failed open)."""
        token = _token_of(headers)
        usable = token is not None and len(token) <= MAX_TOKEN
        try:
            if usable:
                h = token_hash(token or "")
                found = self.site.rate.hit_session(store, h)
                if found is not None:
                    verdict, item = found
                    scope[SESSION_SCOPE] = Session.from_item(h, item)
                    return "s:" + h[:32], verdict
            # no token, or one that is not a live session: it counts against the source IP
            scope[SESSION_SCOPE] = INVALID if token else MISSING
            return _ip_key(scope), self.site.rate.hit(store, _ip_key(scope))
        except Exception:  # noqa: BLE001 - fail open: the rate limit must not take the site down
            logger.exception("rate limit check failed")
            scope.pop(SESSION_SCOPE, None)  # unknown: routes read the session themselves
            return ("s:" + token_hash(token or "")[:32]) if usable else _ip_key(scope), None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not _PATHS.match(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        site = self.site
        store = site.store()
        if scope["method"] == "OPTIONS":  # a preflight is not counted (see AgentsSite.rate_headers)
            extra = {"access-control-max-age": "600", **site.rate_headers(None, store.now())}
            await send({"type": "http.response.start", "status": 204, "headers": self._common(extra)})
            await send({"type": "http.response.body", "body": b""})
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        client, verdict = self._rate_limit(store, headers, scope)
        rate = site.rate_headers(verdict, store.now())
        if verdict is not None and not verdict.allowed:
            rate["retry-after"] = str(verdict.retry_after(store.now()))
            await self._send_json(send, 429, error_body(429, "rate_limited", "Rate limit exceeded"), rate)
            return

        idem_key = headers.get("idempotency-key", "").strip()
        idem: Idempotency | None = None
        if idem_key and site.idempotent(scope["method"], scope["path"]):
            if len(idem_key) > MAX_KEY:
                await self._send_json(send, 400, error_body(400, "bad_request",
                                      f"Idempotency-Key must be at most {MAX_KEY} characters"), rate)
                return
            chunks = []
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    break
                chunks.append(message.get("body", b""))
                if not message.get("more_body") or sum(map(len, chunks)) > settings().max_body_bytes:
                    break
            raw_body = b"".join(chunks)
            if len(raw_body) > settings().max_body_bytes:
                await self._send_json(send, 413, error_body(413, "payload_too_large",
                                      f"request body exceeds {settings().max_body_bytes} bytes"), rate)
                return
            replayed = False

            async def replay_receive() -> dict:
                nonlocal replayed
                if replayed:
                    return {"type": "http.disconnect"}
                replayed = True
                return {"type": "http.request", "body": raw_body, "more_body": False}

            receive = replay_receive
            idem = Idempotency(store, client, scope["method"], scope["path"], idem_key,
                               reclaim_after_s=site.limits.idempotency_reclaim_s)
            try:
                stored = idem.begin(fingerprint(raw_body))
            except Conflict as exc:
                extra = {**rate, "retry-after": "1"} if exc.status == 409 else rate
                await self._send_json(send, exc.status, error_body(exc.status, "conflict", exc.message), extra)
                return
            except Exception as exc:
                if not unavailable(exc):
                    raise
                await self._send_json(send, 503, error_body(503, "unavailable", UNAVAILABLE_MESSAGE),
                                      {**rate, "retry-after": str(RETRY_AFTER_S)})
                return
            if stored is not None:
                body = site.unseal_replay(store, scope["path"], stored.body)
                extra = {**rate, "idempotent-replayed": "true"}
                out = self._common(extra) + [(b"content-type", stored.content_type.encode("latin-1")),
                                             (b"content-length", str(len(body)).encode())]
                await send({"type": "http.response.start", "status": stored.status, "headers": out})
                await send({"type": "http.response.body", "body": body})
                return

        captured: dict[str, Any] = {"status": 500, "type": "application/json", "body": []}
        started = {"yes": False}

        async def send_wrapper(message: dict) -> None:
            if message["type"] == "http.response.start":
                started["yes"] = True
                kept = []
                for k, v in message.get("headers", []):
                    if k.lower() == b"content-type" and v.split(b";")[0].strip() == b"application/json":
                        v = JSON_TYPE.encode()
                    if k.lower() == b"content-type":
                        captured["type"] = v.decode("latin-1")
                    kept.append((k, v))
                message["headers"] = kept + self._common(rate)
                captured["status"] = message["status"]
            elif message["type"] == "http.response.body" and idem is not None:
                captured["body"].append(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception as exc:  # noqa: BLE001 - answer in the envelope, with the site's headers
            if unavailable(exc):  # the database: 503 and when to retry
                captured["status"] = 503
                if not started["yes"]:
                    await self._send_json(send, 503, error_body(503, "unavailable", UNAVAILABLE_MESSAGE),
                                          {**rate, "retry-after": str(RETRY_AFTER_S)})
            else:
                logger.exception("unhandled error")
                captured["status"] = 500
                if not started["yes"]:
                    await self._send_json(send, 500, error_body(500, "internal_error", "internal error"), rate)
        finally:
            if idem is not None:
                try:
                    status = captured["status"]
                    kept = site.seal_replay(scope["path"], status, b"".join(captured["body"]))
                    idem.finish(status, kept, captured["type"])
                except Exception:  # noqa: BLE001 - the response is already sent
                    logger.exception("idempotency record could not be finished")
