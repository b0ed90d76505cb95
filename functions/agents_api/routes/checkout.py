"""Checkout: the ``checkout`` capability hands the priced cart to the human as a URL, and (with
:class:`~agents_api.checkout.SignedCheckout`) ``pages`` serves that URL: the review page and its confirm
form, under the handler's own path."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from agenthost.webapp import ApiError
from agents_api import models
from agents_api.checkout import SignedCheckout
from agents_api.deps import LiveSession, SiteDep, StoreDep
from agents_api.routes.cart import cart_of
from agents_api.wire import body, iso, ok, query

router = APIRouter()
pages = APIRouter()


@router.post("/checkout", summary="checkout")
async def checkout(request: Request, _body: Annotated[dict[str, Any], Depends(body)], site: SiteDep,
                   store: StoreDep, session: LiveSession) -> Response:
    cart = cart_of(site, store, session, fresh=True)  # prices and stock read again, not from the snapshot
    if not cart.items:
        raise ApiError(400, "the cart is empty: add items with cart.add before checkout")
    if not all(line.available for line in cart.items):
        gone = ", ".join(line.item_id for line in cart.items if not line.available)
        raise ApiError(400, f"some cart items are no longer available: {gone}")
    url, exp = site.checkout.start(store, site.base_url(request), session.hash, cart.model_dump(mode="json"))
    return ok(models.CheckoutHandoff(checkout_url=url, expires_at=iso(exp)))


def _handoff(site: SiteDep) -> SignedCheckout:
    assert isinstance(site.checkout, SignedCheckout)  # pages are only installed for a SignedCheckout
    return site.checkout


Handoff = Annotated[SignedCheckout, Depends(_handoff)]


@pages.get("/{checkout_id}", include_in_schema=False)
async def checkout_page(checkout_id: str, request: Request, handoff: Handoff, store: StoreDep) -> Response:
    status, page = handoff.page(store, checkout_id, query(request, "exp"), query(request, "sig"))
    return HTMLResponse(page, status_code=status, headers={"Cache-Control": "no-store",
                                                           "Referrer-Policy": "no-referrer"})


@pages.post("/{checkout_id}/confirm", include_in_schema=False)
async def checkout_confirm(checkout_id: str, request: Request, handoff: Handoff, store: StoreDep) -> Response:
    raw = (await request.body()).decode("utf-8", "replace")
    form = {k: v[0] for k, v in parse_qs(raw).items()}
    exp = form.get("exp") or query(request, "exp")
    sig = form.get("sig") or query(request, "sig")
    status, page = handoff.confirm(store, checkout_id, exp, sig)
    return HTMLResponse(page, status_code=status, headers={"Cache-Control": "no-store"})
