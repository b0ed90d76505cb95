"""The small JSON API behind the suite's API task pages (served by :class:`infra.arena.site.Site`).

``GET /api/orders?seed=N`` lists a shop's orders; ``GET /api/orders/<id>?seed=N`` one order;
``GET /api/customers?seed=N`` the customers. Data is generated from the seed (default 1), so a page and an
agent asking with the same seed see the same data and the page can check an answer against it.
"""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import parse_qs

PREFIX = "/api/"

_CUSTOMERS = ["Amara Osei", "Bruno Costa", "Chen Jing", "Dana Novak", "Elif Kaya", "Farid Haddad",
              "Greta Lind", "Hugo Martin", "Ines Duarte", "Jonas Berg"]
_STATUSES = ["shipped", "pending", "cancelled", "delivered"]
_CITIES = ["Lisbon", "Oslo", "Krakow", "Lyon", "Leeds", "Graz", "Turin", "Ghent"]


def _seed(query: str) -> int:
    raw = (parse_qs(query).get("seed") or ["1"])[0]
    try:
        return max(0, int(raw))
    except ValueError:
        return 1


def customers(seed: int) -> list[dict[str, Any]]:
    rnd = random.Random(f"customers-{seed}")
    return [{"id": f"C{100 + i}", "name": name, "city": rnd.choice(_CITIES)} for i, name in enumerate(_CUSTOMERS)]


def orders(seed: int) -> list[dict[str, Any]]:
    rnd = random.Random(f"orders-{seed}")
    people = customers(seed)
    out = []
    for i in range(14):
        c = rnd.choice(people)
        out.append({"id": f"ORD-{2401 + i}", "customerId": c["id"], "status": rnd.choice(_STATUSES),
                    "items": rnd.randint(1, 6), "total": round(rnd.randint(1500, 25000) / 100, 2)})
    return out


def answer(path: str, query: str) -> tuple[int, Any]:
    seed = _seed(query)
    parts = [p for p in path[len(PREFIX):].split("/") if p]
    if parts == ["orders"]:
        return 200, {"orders": orders(seed), "count": len(orders(seed))}
    if parts == ["customers"]:
        return 200, {"customers": customers(seed)}
    if len(parts) == 2 and parts[0] == "orders":
        found = [o for o in orders(seed) if o["id"] == parts[1]]
        return (200, found[0]) if found else (404, {"error": f"no order {parts[1]}"})
    return 404, {"error": "unknown endpoint; try /api/orders or /api/customers"}
