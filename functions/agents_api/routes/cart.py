"""Cart capabilities: add, view, update (PUT, and PATCH of the older dialect) and remove.

The session and its cart are the ones the edge's rate-limit write returned; a request's body is parsed
and bounded before the session is looked at (a dependency declared ahead of the session's), so a bad
body is a 400 whether or not the session is live. Prices always come from the catalog.
"""

from __future__ import annotations

from typing import Annotated, NoReturn

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from agenthost.store import Store
from agenthost.webapp import ApiError
from agents_api import models
from agents_api.catalog import Catalog, Product
from agents_api.deps import LiveSession, SessionsDep, SiteDep, StoreDep, session_gone
from agents_api.sessions import CartFull, NotInCart, QuantityRefused, Session, SessionGone, add_id
from agents_api.site import SiteConfig
from agents_api.wire import body, major, ok, query, validate

router = APIRouter()


def cart_of(site: SiteConfig, store: Store, session: Session, *, fresh: bool = False) -> models.CartView:
    """The session's cart priced from the catalog: from a warm catalog snapshot when it holds every product
    (no read), else one batch read of its products; ``fresh`` (checkout) always reads."""
    catalog = site.catalog(store)
    many = getattr(catalog, "get_many_cached", None)
    if not session.lines:
        products = {}
    elif not fresh and callable(many):
        products = many(session.lines)
    else:
        products = catalog.get_many(session.lines)
    lines, total, count = [], 0, 0
    currency = site.info.currency
    for item_id, qty in sorted(session.lines.items()):
        p = products.get(item_id)
        price = int(p.get("price_minor", 0)) if p else 0
        available = p is not None and int(p.get("stock", 0)) >= qty
        lines.append(models.CartLine(
            item_id=item_id, itemId=item_id, name=str(p.get("name", item_id)) if p else item_id, quantity=qty,
            price=major(price), price_minor=price, line_total=major(price * qty), line_total_minor=price * qty,
            currency=str(p.get("currency", currency)) if p else currency, available=available))
        if p is not None:
            total += price * qty
            count += qty
    return models.CartView(items=lines, subtotal=major(total), subtotal_minor=total, currency=currency,
                           item_count=count)


def _get_cached(catalog: Catalog, item_id: str) -> Product | None:
    get = getattr(catalog, "get_cached", None)
    return get(item_id) if callable(get) else catalog.get(item_id)


def _refuse_add(session: Session, item_id: str, cap: int, found: Product | None) -> NoReturn:
    """Raise the precise 404/400 for a refused cart add of ``found`` (the product as the add saw it)."""
    if not found:
        raise ApiError(404, f"item not found: {item_id[:100]}")
    stock = int(found.get("stock", 0))
    if stock <= 0:
        raise ApiError(400, f"item {item_id} is out of stock")
    have = session.lines.get(item_id, 0)
    line_cap = min(cap, stock)
    raise ApiError(400, f"quantity: the cart may hold at most {line_cap} of {item_id} ({stock} in stock, "
                        f"limit {cap} per item); it holds {have}")


def _not_in_cart(item_id: str) -> ApiError:
    return ApiError(404, f"item not in cart: {item_id[:100]}")


async def _add_request(request: Request, site: SiteDep) -> models.CartAdd:
    add: models.CartAdd = validate(models.CartAdd, await body(request))
    cap = site.limits.max_quantity
    if not 1 <= add.quantity <= cap:
        raise ApiError(400, f"quantity must be an integer between 1 and {cap}")
    return add


async def _update_request(request: Request, site: SiteDep) -> models.CartUpdate:
    update: models.CartUpdate = validate(models.CartUpdate, await body(request))
    cap = site.limits.max_quantity
    if not 0 <= update.quantity <= cap:
        raise ApiError(400, f"quantity must be an integer between 0 and {cap}")
    return update


async def _remove_request(request: Request) -> models.CartRemove:
    data = await body(request)
    if "item_id" not in data and query(request, "item_id"):
        data["item_id"] = query(request, "item_id")
    remove: models.CartRemove = validate(models.CartRemove, data)
    return remove


@router.post("/cart/add", summary="cart.add", status_code=201)
async def cart_add(add: Annotated[models.CartAdd, Depends(_add_request)], request: Request, site: SiteDep,
                   store: StoreDep, sessions: SessionsDep, session: LiveSession) -> Response:
    cap = site.limits.max_quantity
    catalog = site.catalog(store)
    # a warm catalog snapshot answers existence and stock without a read (DynamoCatalog.get_cached)
    product = _get_cached(catalog, add.item_id)
    line_cap = min(cap, int(product.get("stock", 0))) if product else 0
    if product is None or line_cap <= 0:
        _refuse_add(session, add.item_id, cap, product)
    try:
        lines = sessions.add(session, add.item_id, add.quantity, line_cap, site.limits.max_lines,
                             add_id(request.headers.get("idempotency-key", "")))
    except QuantityRefused:
        _refuse_add(session, add.item_id, cap, product)
    except CartFull:
        raise ApiError(400, f"the cart already holds {site.limits.max_lines} different items (the most "
                            "it may hold): remove one first") from None
    except SessionGone:
        raise session_gone() from None
    quantity = lines.get(add.item_id, add.quantity)
    return ok(models.CartAdded(item_id=add.item_id, quantity=quantity, cart_size=len(lines)), 201)


@router.get("/cart/view", summary="cart.view")
async def cart_view(site: SiteDep, store: StoreDep, session: LiveSession) -> Response:
    return ok(cart_of(site, store, session))


async def _update(update: Annotated[models.CartUpdate, Depends(_update_request)], site: SiteDep,
                  store: StoreDep, sessions: SessionsDep, session: LiveSession) -> Response:
    if update.item_id not in session.lines:  # the cart as of this request's rate-limit write
        raise _not_in_cart(update.item_id)
    try:
        if update.quantity == 0:
            sessions.remove(session, update.item_id)
        else:
            product = _get_cached(site.catalog(store), update.item_id)
            stock = int(product.get("stock", 0)) if product else 0
            if update.quantity > stock:
                raise ApiError(400, f"quantity: only {stock} of {update.item_id} in stock")
            sessions.set_quantity(session, update.item_id, update.quantity)
    except NotInCart:
        raise _not_in_cart(update.item_id) from None
    except SessionGone:
        raise session_gone() from None
    return ok(models.CartUpdated(item_id=update.item_id, quantity=update.quantity))


router.add_api_route("/cart/update", _update, methods=["PUT"], summary="cart.update")
router.add_api_route("/cart/update", _update, methods=["PATCH"], summary="cart.update (older dialect)",
                     include_in_schema=False)


@router.delete("/cart/remove", summary="cart.remove")
async def cart_remove(remove: Annotated[models.CartRemove, Depends(_remove_request)], sessions: SessionsDep,
                      session: LiveSession) -> Response:
    try:
        if remove.item_id not in session.lines:  # the cart as of this request's rate-limit write
            raise NotInCart
        sessions.remove(session, remove.item_id)
    except NotInCart:
        raise _not_in_cart(remove.item_id) from None
    except SessionGone:
        raise session_gone() from None
    return ok(models.CartRemoved(item_id=remove.item_id))
