"""Seed catalog of the agents.json reference store: a few hundred ceramics, deterministic.

Prices are integer minor units (cents) in USD; stock varies and some items are sold out.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

CATEGORIES: dict[str, list[str]] = {
    "mugs": ["Mug", "Travel Mug", "Espresso Mug", "Latte Mug"],
    "bowls": ["Bowl", "Ramen Bowl", "Cereal Bowl", "Salad Bowl"],
    "plates": ["Dinner Plate", "Side Plate", "Platter", "Dessert Plate"],
    "vases": ["Vase", "Bud Vase", "Tall Vase"],
    "teapots": ["Teapot", "Tea Set", "Kyusu"],
    "planters": ["Planter", "Hanging Planter", "Succulent Pot"],
    "cups": ["Tumbler", "Tea Cup", "Sake Cup"],
    "serving": ["Serving Dish", "Butter Dish", "Pitcher", "Gravy Boat"],
}
COLORS = ["Ocean Blue", "Sage Green", "Speckled White", "Charcoal", "Terracotta", "Sand", "Cobalt",
          "Blush Pink", "Mustard", "Midnight"]
FINISHES = ["Glazed", "Matte", "Hand-thrown", "Crackle", "Stoneware", "Porcelain"]
PRICE_RANGE = {"mugs": (1800, 4200), "bowls": (1600, 5200), "plates": (1400, 6800), "vases": (2800, 14000),
               "teapots": (3800, 16000), "planters": (1900, 9000), "cups": (900, 3200), "serving": (2400, 11000)}
COUNT = 320
CATALOG = "default"


def products(count: int = COUNT) -> list[dict[str, Any]]:
    rng = random.Random(20261122)
    out: list[dict[str, Any]] = []
    cats = list(CATEGORIES)
    for n in range(count):
        category = cats[n % len(cats)]
        noun = rng.choice(CATEGORIES[category])
        color = rng.choice(COLORS)
        finish = rng.choice(FINISHES)
        lo, hi = PRICE_RANGE[category]
        price = rng.randrange(lo, hi, 100) - rng.choice([0, 0, 1, 5])  # some end in .99/.95
        stock = rng.choice([0, 3, 5, 8, 12, 20, 35, 50, 80, 120])
        pid = "prod_" + hashlib.sha256(f"agents-seed-{n}".encode()).hexdigest()[:8]
        out.append({
            "id": pid,
            "name": f"{color} {finish} {noun}",
            "category": category,
            "color": color,
            "description": f"A {finish.lower()} {noun.lower()} in {color.lower()}, made by hand in small batches.",
            "price_minor": price,
            "currency": "USD",
            "stock": stock,
            "tags": [category, color.lower(), finish.lower()],
        })
    return out


def seed(store: Any) -> int:
    from agents_api.catalog import DynamoCatalog

    return DynamoCatalog(store, CATALOG).load(products())
