"""Catalog capabilities: search, browse and detail (no session needed)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from agenthost.store import Store
from agenthost.webapp import ApiError
from agents_api.deps import SiteDep, StoreDep
from agents_api.site import SiteConfig
from agents_api.wire import filters, integer, ok, product_out, query

router = APIRouter()


@router.get("/search", summary="search")
async def search(request: Request, site: SiteDep, store: StoreDep) -> Response:
    q = query(request, "q") or query(request, "query")
    if not q:
        raise ApiError(400, "missing required parameter: q")
    if len(q) > 200:
        raise ApiError(400, "q must be at most 200 characters")
    limit = integer(query(request, "limit"), "limit", 10, 1, site.limits.search_limit_max)
    found = site.catalog(store).search(q, limit, filters(request))
    return ok([product_out(p) for p in found])


@router.get("/browse", summary="browse")
async def browse(request: Request, site: SiteDep, store: StoreDep) -> Response:
    page = integer(query(request, "page"), "page", 1, 1, 100_000)
    limit = integer(query(request, "limit"), "limit", 20, 1, site.limits.browse_limit_max)
    items, total = site.catalog(store).browse(page, limit, filters(request))
    return ok({"items": [product_out(p) for p in items], "total": total, "page": page, "limit": limit})


def _detail(site: SiteConfig, store: Store, item_id: str | None) -> Response:
    if not item_id:
        raise ApiError(400, "missing required parameter: id")
    catalog = site.catalog(store)
    get = getattr(catalog, "get_cached", None)  # a warm catalog snapshot answers without a read
    found = get(item_id) if callable(get) else catalog.get(item_id)
    if found is None:
        raise ApiError(404, f"item not found: {item_id[:100]}")
    return ok(product_out(found))


@router.get("/detail", summary="detail (older dialect: ?id=)")
async def detail_query(request: Request, site: SiteDep, store: StoreDep) -> Response:
    return _detail(site, store, query(request, "id") or query(request, "item_id"))


@router.get("/detail/{item_id}", summary="detail")
async def detail(item_id: str, request: Request, site: SiteDep, store: StoreDep) -> Response:
    if item_id in ("{id}", ":id"):  # a client that did not fill in the template
        item_id = query(request, "id") or ""
    return _detail(site, store, item_id)
