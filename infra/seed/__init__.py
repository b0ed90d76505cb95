"""Seed data for the single table, and a general hook that loads all of it.

Every module in this package that defines ``seed(store) -> int`` is a seeder. ``run_all`` calls each one
(the local stack does at start, ``make seed`` does against whatever table the environment names).
Seeders are idempotent: they write fixed keys, so running them twice changes nothing a user stored.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any


def seeders() -> list[tuple[str, Callable[[Any], int]]]:
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        fn = getattr(module, "seed", None)
        if callable(fn):
            found.append((info.name, fn))
    return found


def run_all(store: Any, log: Callable[[str], None] = print) -> dict[str, int]:
    """Run every seeder against ``store``; returns items written per seeder."""
    written = {}
    for name, fn in seeders():
        written[name] = int(fn(store))
        log(f"  seeded {name}: {written[name]} items")
    return written
