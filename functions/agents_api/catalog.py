"""Catalog backends for the site SDK.

A catalog answers four questions: search, browse (filtered, paged), one item, and many items by id.
Products are plain dicts with at least ``id``, ``name``, ``price_minor`` (integer minor units),
``currency`` and ``stock``; everything else (``category``, ``description``, ``tags``...) is shown as is.

:class:`DynamoCatalog` keeps a catalog in the single table as one partition, ``CATALOG#<name>`` with
sort keys ``PRODUCT#<id>``: search and browse are one Query, a detail one GetItem, a cart's products one
BatchGetItem. :class:`MemoryCatalog` holds a list (tests, small sites).
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from agenthost.store import Store

Product = dict[str, Any]

_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Filters:
    """Browse/search filters; prices in minor units."""

    category: str | None = None
    min_price_minor: int | None = None
    max_price_minor: int | None = None
    in_stock: bool | None = None
    sort: str | None = None  # relevance | price_asc | price_desc | name


class Catalog(Protocol):
    def search(self, q: str, limit: int, filters: Filters) -> list[Product]: ...

    def browse(self, page: int, limit: int, filters: Filters) -> tuple[list[Product], int]: ...

    def get(self, item_id: str) -> Product | None: ...

    def get_many(self, item_ids: Iterable[str]) -> dict[str, Product]: ...

    def categories(self) -> list[str]: ...


def catalog_key(catalog: str, item_id: str) -> dict[str, str]:
    return {"pk": f"CATALOG#{catalog}", "sk": f"PRODUCT#{item_id}"}


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _matches(product: Product, f: Filters) -> bool:
    if f.category and str(product.get("category", "")).lower() != f.category.lower():
        return False
    price = int(product.get("price_minor", 0))
    if f.min_price_minor is not None and price < f.min_price_minor:
        return False
    if f.max_price_minor is not None and price > f.max_price_minor:
        return False
    return not (f.in_stock and int(product.get("stock", 0)) <= 0)


def _score(product: Product, terms: Sequence[str]) -> int:
    """0 when some term is missing; otherwise more for terms in the name."""
    name = set(_words(str(product.get("name", ""))))
    rest = set(_words(" ".join([str(product.get("description", "")), str(product.get("category", "")),
                                " ".join(map(str, product.get("tags", []) or [])), str(product.get("color", ""))])))
    score = 0
    for term in terms:
        stem = term[:-1] if len(term) > 3 and term.endswith("s") else term
        hit_name = any(w == term or w.startswith(stem) for w in name)
        hit_rest = any(w == term or w.startswith(stem) for w in rest)
        if not (hit_name or hit_rest):
            return 0
        score += 3 if hit_name else 1
    return score


def _sorted(products: list[Product], sort: str | None) -> list[Product]:
    if sort == "price_asc":
        return sorted(products, key=lambda p: (int(p.get("price_minor", 0)), str(p.get("id"))))
    if sort == "price_desc":
        return sorted(products, key=lambda p: (-int(p.get("price_minor", 0)), str(p.get("id"))))
    if sort == "name":
        return sorted(products, key=lambda p: (str(p.get("name", "")).lower(), str(p.get("id"))))
    return products


class _ListOps(ABC):
    """Search and browse over a full product list (both backends use it)."""

    @abstractmethod
    def _all(self) -> list[Product]:
        """Every product of the catalog."""

    def search(self, q: str, limit: int, filters: Filters) -> list[Product]:
        terms = _words(q)
        scored = []
        for p in self._all():
            if not _matches(p, filters):
                continue
            s = _score(p, terms) if terms else 1
            if s:
                scored.append((s, p))
        scored.sort(key=lambda sp: (-sp[0], str(sp[1].get("name", "")), str(sp[1].get("id"))))
        found = [p for _, p in scored]
        if filters.sort and filters.sort != "relevance":
            found = _sorted(found, filters.sort)
        return found[:limit]

    def browse(self, page: int, limit: int, filters: Filters) -> tuple[list[Product], int]:
        found = _sorted([p for p in self._all() if _matches(p, filters)], filters.sort or "name")
        start = (page - 1) * limit
        return found[start:start + limit], len(found)

    def categories(self) -> list[str]:
        return sorted({str(p["category"]) for p in self._all() if p.get("category")})


class MemoryCatalog(_ListOps):
    def __init__(self, products: Iterable[Mapping[str, Any]]):
        self.products = {str(p["id"]): dict(p) for p in products}

    def _all(self) -> list[Product]:
        return list(self.products.values())

    def get(self, item_id: str) -> Product | None:
        found = self.products.get(item_id)
        return dict(found) if found else None

    def get_many(self, item_ids: Iterable[str]) -> dict[str, Product]:
        return {i: dict(self.products[i]) for i in item_ids if i in self.products}


_INTERNAL = ("pk", "sk", "expires_at", "version")
_cache: dict[tuple[str, str], tuple[float, list[Product], dict[str, Product]]] = {}


def _clean(item: Mapping[str, Any]) -> Product:
    return {k: v for k, v in item.items() if k not in _INTERNAL}


class DynamoCatalog(_ListOps):
    """The catalog ``name`` in the single table (see the module docstring for the layout)."""

    def __init__(self, store: Store, name: str = "default", cache_s: float = 0):
        self.store = store
        self.name = name
        self.cache_s = cache_s

    @property
    def pk(self) -> str:
        return f"CATALOG#{self.name}"


    def _all(self) -> list[Product]:
        """The whole catalog (one eventually consistent Query). With ``cache_s`` a warm container reuses
        it for that long: search and browse then cost no read; a cart still reads its product directly."""
        key = (self.store.table_name, self.name)
        if self.cache_s > 0:
            hit = _cache.get(key)
            if hit is not None and time.monotonic() - hit[0] < self.cache_s:
                return hit[1]
        products = [_clean(i) for i in self.store.query(self.pk, "PRODUCT#", consistent=False)]
        if self.cache_s > 0:
            _cache[key] = (time.monotonic(), products, {str(p["id"]): p for p in products})
        return products

    def get_cached(self, item_id: str) -> Product | None:
        """Like :meth:`get`, but answered from a fresh catalog snapshot when this container has one
        (stock may then be up to ``cache_s`` old; checkout re-reads every product)."""
        hit = _cache.get((self.store.table_name, self.name)) if self.cache_s > 0 else None
        if hit is not None and time.monotonic() - hit[0] < self.cache_s and item_id in hit[2]:
            return dict(hit[2][item_id])
        return self.get(item_id)

    def get_many_cached(self, item_ids: Iterable[str]) -> dict[str, Product]:
        """Like :meth:`get_many`, but from a fresh catalog snapshot when it holds every one of them."""
        ids = [i for i in dict.fromkeys(item_ids) if i]
        hit = _cache.get((self.store.table_name, self.name)) if self.cache_s > 0 else None
        if hit is not None and time.monotonic() - hit[0] < self.cache_s and all(i in hit[2] for i in ids):
            return {i: dict(hit[2][i]) for i in ids}
        return self.get_many(ids)

    def get(self, item_id: str) -> Product | None:
        if not item_id or len(item_id) > 200:
            return None
        found = self.store.get(**catalog_key(self.name, item_id), consistent=False)
        return _clean(found) if found else None

    def get_many(self, item_ids: Iterable[str]) -> dict[str, Product]:
        ids = [i for i in dict.fromkeys(item_ids) if i]
        found = self.store.batch_get([catalog_key(self.name, i) for i in ids], consistent=False)
        return {str(p["id"]): p for p in (_clean(item) for item in found)}

    def load(self, products: Iterable[Mapping[str, Any]]) -> int:
        """Write products (seed data); returns how many."""
        items = [{**catalog_key(self.name, str(p["id"])), **dict(p)} for p in products]
        self.store.batch_put(items)
        return len(items)
