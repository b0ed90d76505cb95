"""A turn's usage riding on the item the turn writes anyway.

Every ``Put``/``Update`` a turn sends through :class:`agenthost.store.Store` carries, in the attribute
:data:`~agenthost.metering.usage.USAGE_ATTR`, what the turn recorded since its previous such write (counting
this write itself: one call, at least one WRU). The table's stream hands the item to the usage rollup
(``functions/usage/rollup.py``), which adds it to the agent's daily counters: the turn makes no write of
its own for metering.

What a turn records after its last write waits here, merged per (day, agent, protocol), for the
container's next write (:func:`hold`, :func:`take`): its cost counters (the time after the write, a read
after it), or the whole turn when it wrote nothing and too little of its deadline was left to write the
counters itself. What waits is lost only when the container is retired first (the cost tail of its last
turn, typically well under a millisecond of handler time).

Hand-written because it is the bookkeeping of our own counters; the write itself is the protocol's.
"""

from __future__ import annotations

import contextvars
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from agenthost.metering.usage import USAGE_ATTR

Entry = dict[str, Any]  # {"day", "agent", "protocol", "arch", "memory_mb", "model"?, "counters": {...}}

_lock = threading.Lock()
_waiting: dict[tuple[str, str, str], Entry] = {}
_quiet: contextvars.ContextVar[bool] = contextvars.ContextVar("agenthost_usage_quiet", default=False)


def entry(attrs: Mapping[str, Any], counters: Mapping[str, float]) -> Entry:
    """One agent's, protocol's and day's counters (only the non-zero ones) as a usage entry."""
    return {**attrs, "counters": {k: round(v, 3) if isinstance(v, float) else v for k, v in counters.items() if v}}


def _key(e: Entry) -> tuple[str, str, str]:
    return str(e["day"]), str(e["agent"]), str(e["protocol"])


def hold(e: Entry) -> None:
    """Keep ``e`` for the container's next write (merged with what waits for the same day, agent and
    protocol)."""
    if not e.get("counters"):
        return
    with _lock:
        found = _waiting.get(_key(e))
        if found is None:
            _waiting[_key(e)] = {**e, "counters": dict(e["counters"])}
            return
        merged = dict(found["counters"])
        for k, v in e["counters"].items():
            merged[k] = merged.get(k, 0) + v
        _waiting[_key(e)] = {**found, **{k: v for k, v in e.items() if k != "counters"}, "counters": merged}


def take() -> list[Entry]:
    """Everything waiting (removed: give it back with :func:`hold` if the write carrying it fails)."""
    with _lock:
        out = list(_waiting.values())
        _waiting.clear()
    return out


def waiting() -> list[Entry]:
    """What waits for the next write (tests, and the bench's accounting)."""
    with _lock:
        return [dict(e) for e in _waiting.values()]


def reset() -> None:
    with _lock:
        _waiting.clear()


@contextmanager
def quiet() -> Iterator[None]:
    """Writes in this block carry nothing (metering's own counter write)."""
    token = _quiet.set(True)
    try:
        yield
    finally:
        _quiet.reset(token)


def silenced() -> bool:
    return _quiet.get()


class Carrier:
    """What rides on one write (an :class:`agenthost.store.Rider`): a unique id, when (``at``, epoch seconds:
    the rollup keeps the newest it added as ``rolled_at``) and the entries. On
    ``settled(True)`` ``on_applied`` runs; otherwise the waiting entries it took are held again and
    ``on_refused`` runs."""

    name = USAGE_ATTR

    def __init__(self, entries: list[Entry], taken: list[Entry], at: float,
                 on_applied: Callable[[], None] | None = None, on_refused: Callable[[], None] | None = None):
        self.at = round(at, 3)
        self.value = {"id": uuid.uuid4().hex, "at": self.at, "entries": entries + taken}
        self._taken = taken
        self._on_applied = on_applied
        self._on_refused = on_refused

    def settled(self, applied: bool) -> None:
        if applied:
            if self._on_applied is not None:
                self._on_applied()
            return
        for e in self._taken:
            hold(e)
        if self._on_refused is not None:
            self._on_refused()
