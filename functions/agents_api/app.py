"""The agents.json reference store: the site SDK over the DynamoDB catalog (seeded by ``make seed`` and
automatically in the local stack).

Handler: ``agents_api.app.handler``. Routes in ``template.yaml``: ``/.well-known/agents.json``,
``/.well-known/agents.txt``, ``/llms.txt``, ``/.well-known/agents/api/{proxy+}``,
``/.well-known/agents/checkout/{proxy+}`` and ``$default`` (every other path: the site's 404, with ``Link``).

Settings (environment): ``AGENTHOST_AGENTS_SITE_NAME``, ``AGENTHOST_AGENTS_SITE_URL`` (public base URL;
default: from each request), ``AGENTHOST_AGENTS_CATALOG`` (catalog name, default ``default``),
``AGENTHOST_AGENTS_RATE_LIMIT`` (requests per window per client, default 120),
``AGENTHOST_AGENTS_RATE_WINDOW_S`` (default 60), ``AGENTHOST_AGENTS_SESSION_TTL_S`` (default 1800),
``AGENTHOST_AGENTS_CHECKOUT_TTL_S`` (default 900), ``AGENTHOST_AGENTS_CATALOG_CACHE_S`` (seconds a warm
container reuses the catalog for search/browse, default 30; 0 reads it every time),
``AGENTHOST_AGENTS_CHECKOUT_SECRET`` (or ``_PARAM``).
"""

from __future__ import annotations

from agenthost import metering
from agenthost.config import settings
from agenthost.store import Store
from agenthost.webapp import bounded, create_app, make_handler
from agents_api.catalog import DynamoCatalog
from agents_api.checkout import SignedCheckout
from agents_api.sdk import BASE_PATH, AgentsSite, Limits, SiteInfo, error_body


def build_site() -> AgentsSite:
    cfg = settings()
    catalog_name = cfg.agents_catalog.strip() or "default"
    cache_s = cfg.agents_catalog_cache_s
    return AgentsSite(
        SiteInfo(
            name=cfg.agents_site_name.strip() or "Acme Ceramics",
            description="Hand-made mugs, bowls, plates, vases and teapots. Agents may search, browse, fill a "
                        "cart and hand checkout to their human.",
            contact=cfg.agents_site_contact.strip() or None,
            url=cfg.agents_site_url.strip() or None,
        ),
        catalog=lambda store: DynamoCatalog(store, catalog_name, cache_s=cache_s),
        checkout=SignedCheckout(ttl_s=cfg.agents_checkout_ttl_s),
        limits=Limits(
            session_ttl_s=cfg.agents_session_ttl_s,
            rate_limit=cfg.agents_rate_limit,
            rate_window_s=cfg.agents_rate_window_s,
        ),
        store=Store,
    )


app = create_app("agents_api", error_body=error_body, openapi_url=f"{BASE_PATH}/openapi.json",
                 title="Acme Ceramics agents.json Interaction API")
site = build_site()
site.install(app)

# the deadline is bound outside the metering wrapper too, so its counter write fits in the request's budget
handler = bounded(metering.wrap_handler(
    make_handler(app), "agents_api", agent=settings().agents_site_id or "store",
    is_turn=lambda e: str(e.get("rawPath", "")).startswith(("/.well-known/agents/api/",
                                                             "/.well-known/agents/checkout/"))))
