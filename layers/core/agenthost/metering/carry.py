"""A turn's usage riding on the item the turn writes anyway.

Every ``Put``/``Update`` a turn sends through :class:`agenthost.store.Store` carries, in the attribute
:data:`~agenthost.metering.usage.USAGE_ATTR`, what the turn recorded since its previous such write (counting
this write itself: one call, at least one WRU). The table's stream hands the item to the usage rollup
(``functions/usage/rollup.py``), which adds it to the agent's daily counters: the turn makes no write of
its own for metering.

What a turn records after its last write waits here, merged per (day, agent, protocol), for the
container's next write (:func:`hold`, :func:`take`): its cost counters (the time after the write, a read
after it), or the whole turn when it wrote nothing and too little of its deadline was left to write its
own usage item. What waits is lost only when the container is retired first (the cost tail of its last
turn, typically well under a millisecond of handler time).

Hand-written because it is the bookkeeping of our own counters; the write itself is the protocol's.
"""

from __future__ import annotations

import contextvars
import re
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, unquote

from agenthost.metering.usage import COUNTERS, USAGE_ATTR, day_of

#: one agent's, protocol's and day's usage: {"day", "agent", "protocol", "arch", "mb", "model"?, "why"?, "c": [...],
#: "t"?: [...]} (``c``: the counters in :data:`~agenthost.metering.usage.COUNTERS` order, trailing zeros left out;
#: ``t``: likewise, what an earlier turn left waiting for this write (:func:`folded`), counted but not this turn's
#: own values for the metrics; ``why``: why the deterministic policy answered, for the metrics)
Entry = dict[str, Any]

_lock = threading.Lock()
_waiting: dict[tuple[str, str, str], Entry] = {}
_riding: contextvars.ContextVar[Carrier | None] = contextvars.ContextVar("agenthost_usage_riding", default=None)


def entry(attrs: Mapping[str, Any], counters: Mapping[str, float], why: str | None = None) -> Entry:
    """One agent's, protocol's and day's counters as a usage entry (see :data:`Entry`)."""
    get = counters.get
    values = [round(v, 3) if type(v) is float else v for v in [get(k, 0) for k in COUNTERS]]
    while values and not values[-1]:
        values.pop()
    out = {**attrs, "c": values}
    if why:
        out["why"] = why
    return out


def counters(e: Mapping[str, Any], part: str = "c") -> dict[str, float]:
    """The counters of entry ``e`` by name (the non-zero ones): its own (``c``) or the tail folded in (``t``)."""
    return {k: v for k, v in zip(COUNTERS, e.get(part) or (), strict=False) if isinstance(v, (int, float)) and v}


def folded(entries: list[Entry], taken: list[Entry]) -> list[Entry]:
    """``entries`` with what was ``taken`` from the waiting list: a cost tail (no turn of its own, no reason) with
    the same attributes as one of ``entries`` rides inside it as ``t``, its counters only (the attributes are not
    written twice: the usage attribute rides on the turn's own item, which costs one write unit per KB); anything
    else as an entry of its own."""
    out = [dict(e) for e in entries]

    def attrs(e: Entry) -> dict[str, Any]:
        return {k: v for k, v in e.items() if k not in ("c", "t", "why")}

    for e in taken:
        host = next((h for h in out if "t" not in h and attrs(h) == attrs(e)), None)
        if host is None or e.get("why") or counters(e).get("invocations") or not e.get("c"):
            out.append(e)
        else:
            host["t"] = list(e["c"])
    return out


# --- the usage attribute as one compact string ---------------------------------------------------------------
# It rides on the turn's own item, which DynamoDB bills by the KB: a map of named attributes and numbers cost
# ~210 bytes a turn, this string ~110 (``<id>|<at>|<entry>|...``, each entry ``day,agent,protocol,arch,mb,model,
# why,c,t`` with its text fields percent-encoded, the day left empty when it is ``at``'s, the counters joined
# by ``:`` with zeros left empty). Hand-written: a dozen lines of our own format, read back by :func:`decode`.

_FIELDS = ("day", "agent", "protocol", "arch", "mb", "model", "why")


def _number(v: Any) -> str:
    if not v:
        return ""
    if type(v) is int:
        return str(v)
    v = float(v)
    if v.is_integer():
        return str(int(v))
    text = f"{v:.3f}".rstrip("0")
    return text[1:] if text.startswith("0.") else ("-" + text[2:] if text.startswith("-0.") else text)


def _numbers(values: Any) -> str:
    return ":".join([_number(v) for v in values]).rstrip(":") if values else ""


_plain_text = re.compile(r"[A-Za-z0-9_.~-]*").fullmatch


def _field(value: Any) -> str:
    text = value if type(value) is str else str(value or "")
    return text if _plain_text(text) else quote(text, safe="")


def _parsed(text: str) -> list[float | int]:
    out: list[float | int] = []
    for part in text.split(":") if text else ():
        if not part:
            out.append(0)
        elif "." in part or "e" in part:
            out.append(float(part))
        else:
            out.append(int(part))
    return out


def encode(usage_id: str, at: float, entries: list[Entry]) -> str:
    """The usage attribute's value for ``entries`` written at ``at`` (see :func:`decode`)."""
    today = day_of(at)
    parts = [usage_id, f"{at:.3f}".rstrip("0").rstrip(".")]
    for e in entries:
        fields = ["" if k == "day" and e.get(k) == today else _field(e.get(k)) for k in _FIELDS]
        parts.append(",".join([*fields, _numbers(e.get("c")), _numbers(e.get("t"))]).rstrip(","))
    return "|".join(parts)


def decode(value: Any) -> dict[str, Any] | None:
    """``{"id", "at", "e": [entry...]}`` from a usage attribute: the string :func:`encode` writes, or the map
    written before it (returned as it is); None when it cannot be read."""
    if isinstance(value, dict):
        return value if value.get("id") else None
    if not isinstance(value, str) or not value:
        return None
    try:
        usage_id, at_text, *raw = value.split("|")
        at = float(at_text)
        entries = []
        for text in raw:
            cells = text.split(",")
            cells += [""] * (len(_FIELDS) + 2 - len(cells))
            e: Entry = {k: unquote(v) for k, v in zip(_FIELDS, cells, strict=False) if v}
            e["day"] = e.get("day") or day_of(at)
            e["mb"] = int(e.get("mb") or 0)
            e["c"] = _parsed(cells[len(_FIELDS)])
            if cells[len(_FIELDS) + 1]:
                e["t"] = _parsed(cells[len(_FIELDS) + 1])
            entries.append(e)
    except ValueError:
        return None
    return {"id": usage_id, "at": at, "e": entries} if usage_id else None


def _key(e: Entry) -> tuple[str, str, str]:
    return str(e["day"]), str(e["agent"]), str(e["protocol"])


def hold(e: Entry) -> None:
    """Keep ``e`` for the container's next write (merged with what waits for the same day, agent and
    protocol)."""
    if not e.get("c"):
        return
    with _lock:
        found = _waiting.get(_key(e))
        if found is None:
            _waiting[_key(e)] = dict(e)
            return
        merged = counters(found)
        for k, v in counters(e).items():
            merged[k] = merged.get(k, 0) + v
        attrs = {k: v for k, v in {**found, **e}.items() if k not in ("c", "why")}
        _waiting[_key(e)] = entry(attrs, merged, e.get("why") or found.get("why"))


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
def riding(carrier: Carrier) -> Iterator[None]:
    """Writes in this block carry ``carrier`` (metering's own write for a turn that wrote nothing)."""
    token = _riding.set(carrier)
    try:
        yield
    finally:
        _riding.reset(token)


def forced() -> Carrier | None:
    return _riding.get()


class Carrier:
    """What rides on one write (an :class:`agenthost.store.Rider`): a unique id, when (``at``, epoch seconds:
    the rollup keeps the newest it added as ``rolled_at``) and the entries, as one string (:func:`encode`;
    ``usage``: the same as :func:`decode` reads it). On
    ``settled(True)`` ``on_applied`` runs; otherwise the waiting entries it took are held again and
    ``on_refused`` runs."""

    name = USAGE_ATTR

    def __init__(self, entries: list[Entry], taken: list[Entry], at: float,
                 on_applied: Callable[[], None] | None = None, on_refused: Callable[[], None] | None = None):
        self.at = round(at, 3)
        self.id = secrets.token_urlsafe(8)  # 11 characters, 64 bits
        self.entries = folded(entries, taken)
        self.value = encode(self.id, self.at, self.entries)
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
