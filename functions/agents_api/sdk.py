"""The site SDK: a reusable FastAPI router that makes any catalog an agents.json site.

Configure it with site info, a catalog backend and a checkout handler, then install it on an app made
by :func:`agenthost.webapp.create_app` with :data:`error_body` (the ``{ok, data|error}`` envelope)::

    from agenthost.webapp import create_app, make_handler
    from agents_api.sdk import AgentsSite, SiteInfo, error_body
    from agents_api.catalog import MemoryCatalog
    from agents_api.checkout import SignedCheckout

    app = create_app("shop", error_body=error_body)
    site = AgentsSite(SiteInfo(name="Shop"), catalog=lambda store: MemoryCatalog(PRODUCTS),
                      checkout=SignedCheckout())
    site.install(app)
    handler = make_handler(app)

What ``install`` adds:

* discovery (:mod:`agents_api.discovery`): ``/.well-known/agents.json``, ``/.well-known/agents.txt``,
  ``/llms.txt`` and the OpenAPI document at ``<base>/openapi.json``;
* the capabilities under ``/.well-known/agents/api`` (:mod:`agents_api.routes`: search, browse, detail,
  session, cart add/view/update/remove, checkout, contact) and the human checkout page;
* at the edge of every response, errors included (:mod:`agents_api.edge`): the envelope, ``Link:
  </.well-known/agents.json>; rel="agents"``, CORS with exposed headers, OPTIONS 204, the per-client rate
  limit (one atomic conditional write per request, on the session's own item for a live session, else on
  the source IP's counter; 429 with ``Retry-After``) with ``RateLimit-*``/``X-RateLimit-*`` headers, and
  ``Idempotency-Key`` on POSTs.

State lives in DynamoDB: one item per session, keyed by a hash of the token, with a hard expiry, the
cart and the session's rate counters (see :mod:`agents_api.sessions`). The rate-limit write returns that
item, so routes get the session and its cart without a read (:func:`agents_api.deps.live_session`).
Prices and totals always come from the catalog, never from the agent. A route's own writes carry the turn's
usage (``agenthost.metering``).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, FastAPI

from agents_api import discovery
from agents_api.checkout import SignedCheckout
from agents_api.deps import bind_site
from agents_api.edge import AgentsEdge
from agents_api.routes import cart, catalog, checkout, contact, session
from agents_api.site import BASE_PATH, Limits, SiteConfig, SiteInfo
from agents_api.wire import error_body

__all__ = ["BASE_PATH", "AgentsSite", "Limits", "SiteInfo", "error_body"]


class AgentsSite(SiteConfig):
    """An agents.json site. ``catalog`` is a Catalog or a factory ``store -> Catalog``; ``checkout``
    defaults to :class:`~agents_api.checkout.SignedCheckout`, ``limits`` to :class:`Limits`, ``store`` to
    :class:`agenthost.store.Store`, ``base_path`` to :data:`BASE_PATH`."""

    def install(self, app: FastAPI) -> FastAPI:
        """Add the site's routes and its edge middleware to ``app``."""
        app.include_router(self.router())
        app.add_middleware(AgentsEdge, site=self)
        return app

    def router(self) -> APIRouter:
        """Every route of the site, each bound to this site (:func:`agents_api.deps.bind_site`)."""
        bound = [Depends(bind_site(self))]
        r = APIRouter()
        r.include_router(discovery.router, dependencies=bound)
        for group in (catalog, session, cart, checkout, contact):
            r.include_router(group.router, prefix=self.base_path, dependencies=bound)
        if isinstance(self.checkout, SignedCheckout):
            r.include_router(checkout.pages, prefix=self.checkout.path, dependencies=bound)
        return r
