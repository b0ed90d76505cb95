"""Agent sessions and carts in the single table.

A session is ``SESSION#<sha256(token)>`` / ``META`` with a hard expiry (``expires_at``, also the TTL);
its cart lines are ``CART#<item_id>`` in the same partition with the same expiry, so one Query loads a
session with its whole cart. The token itself is never stored. Expired sessions are refused even
before DynamoDB's lazy TTL deletion removes them (``Store`` treats expired items as absent).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from agenthost.store import ConditionFailed, Store, keys


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return "tok_" + secrets.token_urlsafe(32)


@dataclass
class Session:
    hash: str
    expires_at: int
    lines: dict[str, int] = field(default_factory=dict)  # item_id -> quantity


class QuantityRefused(Exception):
    """The cart would exceed the per-line bound."""


class NotInCart(Exception):
    pass


class Sessions:
    def __init__(self, store: Store, ttl_s: int):
        self.store = store
        self.ttl_s = ttl_s

    def create(self, meta: dict[str, Any] | None = None) -> tuple[str, int]:
        token = new_token()
        item = {**keys.session(token_hash(token)), "created_at": self.store.now(), **(meta or {})}
        written = self.store.put(item, ttl_s=self.ttl_s, if_absent=True)
        return token, int(written["expires_at"])

    def load(self, token: str) -> Session | None:
        """The live session with its cart (one Query), or None when unknown, ended or expired."""
        h = token_hash(token)
        meta = None
        lines: dict[str, int] = {}
        for item in self.store.query(f"SESSION#{h}"):
            if item["sk"] == "META":
                meta = item
            elif item["sk"].startswith("CART#") and int(item.get("quantity", 0)) > 0:
                lines[item["sk"][5:]] = int(item["quantity"])
        if meta is None:
            return None
        return Session(h, int(meta["expires_at"]), lines)

    def end(self, session: Session) -> None:
        # The cart lines become unreachable with the session and expire with it.
        self.store.delete(**keys.session(session.hash))

    def add(self, session: Session, item_id: str, quantity: int, cap: int) -> int:
        """Atomically add ``quantity``; the line may not exceed ``cap``. Returns the new quantity."""
        if quantity > cap:
            raise QuantityRefused
        key = keys.cart_item(session.hash, item_id)
        try:
            item = self.store.update(
                key["pk"], key["sk"],
                add={"quantity": quantity},
                set_={"item_id": item_id, "expires_at": session.expires_at},
                condition="attribute_not_exists(#a0) OR #a0 <= :room",
                values={":room": cap - quantity},
            )
        except ConditionFailed:
            raise QuantityRefused from None
        return int(item["quantity"])

    def set_quantity(self, session: Session, item_id: str, quantity: int) -> None:
        key = keys.cart_item(session.hash, item_id)
        try:
            self.store.update(key["pk"], key["sk"], set_={"quantity": quantity},
                              condition="attribute_exists(pk)")
        except ConditionFailed:
            raise NotInCart from None

    def remove(self, session: Session, item_id: str) -> None:
        try:
            self.store.delete(**keys.cart_item(session.hash, item_id), condition="attribute_exists(pk)")
        except ConditionFailed:
            raise NotInCart from None
