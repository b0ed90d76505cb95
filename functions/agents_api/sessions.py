"""Agent sessions and their carts in the single table: one item per session.

``SESSION#<sha256(token)>`` / ``META`` holds ``expires_at`` (hard expiry, also the TTL), the cart as a map
``cart`` (item id -> quantity) and the session's rate-limit counters (``rl#<window>``, see
:mod:`agents_api.ratelimit`). The request's rate-limit write returns this item, so a route learns that
the session is live and what its cart holds without another read; each cart change is one conditional
write on the same item (DynamoDB serializes writes to one item, so concurrent adds are exact). The token
itself is never stored. Expired sessions are refused even before DynamoDB's lazy TTL deletion removes
them: every write's condition requires ``expires_at > now``.

An add is not naturally idempotent (it increments), and the SDK resends a write whose answer was lost (a
timeout, a throttle, a 5xx) although DynamoDB may have applied it. So each add carries a random request id
(:class:`agenthost.store.Once`, kept in per-minute sets ``addreq#<minute>``): a resent add is refused, and the
store recognises the refusal (which brings back the stored item) as our own add applied. A request sent
with an ``Idempotency-Key`` takes its id from that key instead: when its write applied but its answer was
lost, the request answers 503 and its key is free again (answers of 5xx are not kept), and the client's
retry with the same key is then recognised as the add already made (in this minute's set or the one
before), not added a second time.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agenthost import aws
from agenthost.errors import BadInput, NotFound
from agenthost.items import keys
from agenthost.store import ConditionFailed, Once, Store

LIVE = "attribute_exists(pk) AND expires_at > :now"
ADD_ID_WINDOW_S = 60  # add request ids are kept per minute (see the module docstring)


def add_id(idempotency_key: str) -> str | None:
    """The request id of an add sent with ``idempotency_key`` (None without one): the same for every retry
    of that request, so an add already applied is recognised (see the module docstring)."""
    key = idempotency_key.strip()
    return hashlib.sha256(f"POST /cart/add {key}".encode()).hexdigest()[:16] if key else None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return "tok_" + secrets.token_urlsafe(32)


@dataclass
class Session:
    hash: str
    expires_at: int
    lines: dict[str, int] = field(default_factory=dict)  # item_id -> quantity

    @classmethod
    def from_item(cls, session_hash: str, item: Mapping[str, Any]) -> Session:
        cart = item.get("cart") or {}
        lines = {str(k): int(v) for k, v in cart.items() if int(v) > 0} if isinstance(cart, Mapping) else {}
        return cls(session_hash, int(item["expires_at"]), lines)


class QuantityRefused(BadInput):
    """The cart line would exceed its bound."""


class CartFull(BadInput):
    """A new line would exceed the number of lines a cart may hold."""


class NotInCart(NotFound):
    pass


class SessionGone(NotFound):
    """The session ended or expired while the request ran."""


class Sessions:
    def __init__(self, store: Store, ttl_s: int):
        self.store = store
        self.ttl_s = ttl_s

    def create(self, meta: dict[str, Any] | None = None) -> tuple[str, int]:
        """A new session. Returns ``(token, expires_at)``."""
        token = new_token()
        item = {**keys.session(token_hash(token)), "created_at": self.store.now(), "cart": {}, **(meta or {})}
        written = self.store.put(item, ttl_s=self.ttl_s, if_absent=True)
        return token, int(written["expires_at"])

    def load(self, token: str) -> Session | None:
        """The live session with its cart (one GetItem), or None when unknown, ended or expired. Routes
        normally get the session from the request's rate-limit write instead (no read)."""
        h = token_hash(token)
        item = self.store.get(**keys.session(h))
        return Session.from_item(h, item) if item else None

    def _gone_or(self, refused: ConditionFailed, other: Exception) -> Exception:
        return SessionGone() if refused.item is None else other

    def end(self, session: Session) -> None:
        # the cart lives in the session item and goes with it
        self.store.delete(**keys.session(session.hash))

    def add(self, session: Session, item_id: str, quantity: int, cap: int, max_lines: int,
            request_id: str | None = None) -> dict[str, int]:
        """Atomically add ``quantity`` to the line; the line may not exceed ``cap`` and a new line needs room
        (fewer than ``max_lines``). Returns the cart after the write. ``request_id``: the add's own id when a
        retry of the same request may come (from its ``Idempotency-Key``, :func:`add_id`), else a random one."""
        if quantity > cap:
            raise QuantityRefused
        now = self.store.now()
        once = Once.at("addreq#", now, ADD_ID_WINDOW_S, request_id)

        def write() -> dict[str, Any]:
            return self.store.update(
                **keys.session(session.hash),
                expression="SET #c.#i = if_not_exists(#c.#i, :zero) + :q",
                condition=f"{LIVE} AND ((attribute_not_exists(#c.#i) AND "
                          "(attribute_not_exists(#c) OR size(#c) < :lines)) OR #c.#i <= :room)",
                names={"#c": "cart", "#i": item_id},
                values={":zero": 0, ":q": quantity, ":now": now, ":lines": max_lines, ":room": cap - quantity},
                once=once)

        try:
            try:
                item = write()
            except Exception as exc:
                if aws.error_code(exc) != "ValidationException":
                    raise
                # a session item without a cart map (written before carts moved into it): give it one
                self._ensure_cart(session)
                item = write()
        except ConditionFailed as refused:
            old = refused.item
            if old is None:
                raise SessionGone from None
            if item_id not in (old.get("cart") or {}):
                raise CartFull from None
            raise QuantityRefused from None
        return Session.from_item(session.hash, item).lines

    def _ensure_cart(self, session: Session) -> None:
        try:
            self.store.update(**keys.session(session.hash), expression="SET #c = if_not_exists(#c, :empty)",
                              condition=LIVE, names={"#c": "cart"},
                              values={":empty": {}, ":now": self.store.now()})
        except ConditionFailed:
            raise SessionGone from None

    def set_quantity(self, session: Session, item_id: str, quantity: int) -> None:
        try:
            self.store.update(**keys.session(session.hash), expression="SET #c.#i = :q",
                              condition=f"{LIVE} AND attribute_exists(#c.#i)",
                              names={"#c": "cart", "#i": item_id},
                              values={":q": quantity, ":now": self.store.now()})
        except ConditionFailed as refused:
            raise self._gone_or(refused, NotInCart()) from None

    def remove(self, session: Session, item_id: str) -> None:
        try:
            self.store.update(**keys.session(session.hash), expression="REMOVE #c.#i",
                              condition=f"{LIVE} AND attribute_exists(#c.#i)",
                              names={"#c": "cart", "#i": item_id},
                              values={":now": self.store.now()})
        except ConditionFailed as refused:
            raise self._gone_or(refused, NotInCart()) from None
