"""Discovery: the site's ``/.well-known/agents.json``, ``/.well-known/agents.txt`` and ``/llms.txt``,
all three built from one list of capabilities (:func:`capabilities`)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from agents_api import models
from agents_api.deps import SiteDep
from agents_api.site import Limits, SiteConfig
from agents_api.wire import SORTS

SCHEMA_VERSION = "1.0"
P = models.Param


def _filter_params() -> dict[str, models.Param]:
    return {
        "category": P(type="string", description="Only this category", enum=None),
        "min_price": P(type="number", description="Lowest price, major units"),
        "max_price": P(type="number", description="Highest price, major units"),
        "in_stock": P(type="boolean", description="Only items in stock"),
    }


def _catalog(b: str, lim: Limits) -> list[models.Capability]:
    return [
        models.Capability(name="search", description="Search products by keywords", method="GET",
                          endpoint=f"{b}/search", params={
                              "q": P(type="string", required=True, description="Search words"),
                              "limit": P(type="integer", description=f"Max results (1-{lim.search_limit_max})",
                                         default=10),
                              **_filter_params(),
                              "sort": P(type="string", description="Result order", enum=list(SORTS))}),
        models.Capability(name="browse", description="Browse the catalog page by page", method="GET",
                          endpoint=f"{b}/browse", params={
                              "page": P(type="integer", description="Page number from 1", default=1),
                              "limit": P(type="integer", description=f"Items per page (1-{lim.browse_limit_max})",
                                         default=20),
                              **_filter_params(),
                              "sort": P(type="string", description="Order", enum=list(SORTS), default="name")}),
        models.Capability(name="detail", description="One product by id", method="GET",
                          endpoint=f"{b}/detail/:id", params={
                              "id": P(type="string", required=True, description="Product id (path)")}),
    ]


def _cart(b: str, lim: Limits) -> list[models.Capability]:
    item_id = P(type="string", required=True, description="Product id")
    return [
        models.Capability(name="cart.add", description="Add a product to the cart (prices come from the "
                          "catalog)", method="POST", endpoint=f"{b}/cart/add", requires_session=True, params={
                              "item_id": item_id,
                              "quantity": P(type="integer", description=f"1-{lim.max_quantity}", default=1)}),
        models.Capability(name="cart.view", description="The cart with catalog prices and subtotal",
                          method="GET", endpoint=f"{b}/cart/view", requires_session=True),
        models.Capability(name="cart.update", description="Set a cart line's quantity (0 removes it)",
                          method="PUT", endpoint=f"{b}/cart/update", requires_session=True, params={
                              "item_id": item_id,
                              "quantity": P(type="integer", required=True, description=f"0-{lim.max_quantity}")}),
        models.Capability(name="cart.remove", description="Remove a product from the cart", method="DELETE",
                          endpoint=f"{b}/cart/remove", requires_session=True, params={"item_id": item_id}),
    ]


def capabilities(site: SiteConfig, base: str) -> list[models.Capability]:
    b = base + site.base_path
    return [
        *_catalog(b, site.limits),
        *_cart(b, site.limits),
        models.Capability(name="checkout", description="Hand the cart to the human to confirm and pay",
                          method="POST", endpoint=f"{b}/checkout", requires_session=True, human_handoff=True),
        models.Capability(name="contact", description="Send a message to the shop", method="POST",
                          endpoint=f"{b}/contact", params={
                              "name": P(type="string", required=True, description="Your name"),
                              "email": P(type="string", required=True, description="Reply address"),
                              "message": P(type="string", required=True, description="The message"),
                              "subject": P(type="string", description="Subject")}),
    ]


def agents_json(site: SiteConfig, base: str) -> models.AgentsJson:
    info = site.info
    return models.AgentsJson(
        schema_version=SCHEMA_VERSION,
        site=models.Site(name=info.name, url=base + "/", description=info.description or None, contact=info.contact),
        capabilities=capabilities(site, base),
        session=models.SessionInfo(create=f"{base}{site.base_path}/session", delete=f"{base}{site.base_path}/session",
                                   ttl_seconds=site.limits.session_ttl_s),
        flows=[
            models.Flow(name="purchase", description="Find a product, put it in the cart, hand off checkout",
                        steps=["search", "detail", "cart.add", "cart.view", "checkout"]),
            models.Flow(name="browse_catalog", description="Page through a category and open a product",
                        steps=["browse", "detail"]),
        ],
        rate_limit=models.RateLimit(requests_per_minute=site.rate.per_minute),
    )


def agents_txt(site: SiteConfig, base: str) -> str:
    lines = ["# agents.txt: how AI agents may use this site", f"Site: {site.info.name}", f"URL: {base}/",
             f"Agents-JSON: {base}/.well-known/agents.json"]
    lines += [f"Allow: {c.name}" for c in capabilities(site, base)]
    lines += [f"Rate-Limit: {site.rate.per_minute}/minute", f"Session-TTL: {site.limits.session_ttl_s}s"]
    return "\n".join(lines) + "\n"


def llms_txt(site: SiteConfig, base: str) -> str:
    caps = "\n".join(f"- `{c.method} {c.endpoint}` ({c.name}): {c.description}"
                     + (" (needs a session)" if c.requires_session else "")
                     + (" (human handoff)" if c.human_handoff else "") for c in capabilities(site, base))
    api = base + site.base_path
    return (f"# {site.info.name}\n\n> {site.info.description or 'An agent-friendly site.'}\n\n"
            f"## For AI agents\n\n- [agents.json]({base}/.well-known/agents.json): capabilities, session, "
            f"flows and rate limit\n- [OpenAPI]({api}/openapi.json)\n\n"
            f"Every response is `{{\"ok\": true, \"data\": ...}}` or `{{\"ok\": false, \"error\": \"...\"}}`. "
            f"Create a session with `POST {api}/session` and send "
            f"`Authorization: Bearer <session_token>`. Checkout returns a URL for the human; "
            f"never follow it yourself.\n\n## Capabilities\n\n{caps}\n")


router = APIRouter()


@router.get("/.well-known/agents.json", include_in_schema=False)
async def agents_json_doc(request: Request, site: SiteDep) -> Response:
    return JSONResponse(agents_json(site, site.base_url(request)).model_dump(mode="json", exclude_none=True))


@router.get("/.well-known/agents.txt", include_in_schema=False)
async def agents_txt_doc(request: Request, site: SiteDep) -> Response:
    return PlainTextResponse(agents_txt(site, site.base_url(request)))


@router.get("/llms.txt", include_in_schema=False)
async def llms_txt_doc(request: Request, site: SiteDep) -> Response:
    return PlainTextResponse(llms_txt(site, site.base_url(request)), media_type="text/markdown")

