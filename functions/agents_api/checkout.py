"""Human handoff for checkout: a signed, expiring, one-time checkout URL served as an HTML page.

``SignedCheckout.start`` snapshots the cart (names, prices and totals from the catalog) into
``CHECKOUT#<id>`` / ``META`` and returns ``<site>/.well-known/agents/checkout/<id>?exp=..&sig=..``
where ``sig`` is HMAC-SHA256 over ``<id>.<exp>``. The page shows the cart and total; the person
confirms with a POST, which succeeds once (a conditional write) while the link is valid. Payment
itself is out of scope. The signing key is ``AGENTHOST_AGENTS_CHECKOUT_SECRET`` (or its ``_PARAM``, set by
the template parameter ``AgentsCheckoutSecretParam``); without one, a random key is generated once and kept
in the table (``SECRET#agents-checkout``), a fallback readable by anyone who can read the table.
"""

from __future__ import annotations

import hmac
import html
import secrets
import threading
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from agenthost import signing
from agenthost.items import Key
from agenthost.secrets import secret
from agenthost.store import ConditionFailed, Store

SECRET_NAME = "AGENTHOST_AGENTS_CHECKOUT_SECRET"  # noqa: S105 - the variable name, not a secret


class CheckoutHandler(Protocol):
    def start(self, store: Store, base_url: str, session_hash: str, cart: dict[str, Any]) -> tuple[str, int]:
        """Return ``(checkout_url, expires_at)`` for this cart snapshot."""
        ...


def checkout_key(checkout_id: str) -> Key:
    return {"pk": f"CHECKOUT#{checkout_id}", "sk": "META"}


_key_lock = threading.Lock()
_key_cache: dict[str, str] = {}


def signing_key(store: Store) -> str:
    literal = secret(SECRET_NAME)
    if literal:
        return literal
    cached = _key_cache.get(store.table_name)
    if cached:
        return cached
    with _key_lock:
        key = {"pk": "SECRET#agents-checkout", "sk": "META"}
        value = secrets.token_hex(32)
        try:  # one write: ours is stored, or the refusal carries the key another container stored first
            store.put({**key, "value": value}, if_absent=True)
        except ConditionFailed as refused:
            if refused.item is None:
                raise RuntimeError("checkout signing key could not be stored") from None
            value = str(refused.item["value"])
        _key_cache[store.table_name] = value
        return value


class SignedCheckout:
    def __init__(self, ttl_s: int = 900, path: str = "/.well-known/agents/checkout",
                 key: Callable[[Store], str] = signing_key):
        self.ttl_s = ttl_s
        self.path = path.rstrip("/")
        self.key = key

    def sign(self, store: Store, checkout_id: str, exp: int) -> str:
        return signing.sign(self.key(store), f"{checkout_id}.{exp}")[len(signing.PREFIX):]

    def start(self, store: Store, base_url: str, session_hash: str, cart: dict[str, Any]) -> tuple[str, int]:
        """Snapshot the cart and return the signed URL."""
        checkout_id = "chk_" + secrets.token_urlsafe(18)
        written = store.put({**checkout_key(checkout_id), "session": session_hash, "cart": cart,
                             "status": "pending", "created_at": store.now()}, ttl_s=self.ttl_s, if_absent=True)
        exp = int(written["expires_at"])
        url = f"{base_url.rstrip('/')}{self.path}/{checkout_id}?exp={exp}&sig={self.sign(store, checkout_id, exp)}"
        return url, exp

    @staticmethod
    def unsigned(url: str) -> str:
        """``url`` without its ``sig`` (what an idempotency record may keep)."""
        parts = urlsplit(url)
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "sig"]
        return urlunsplit(parts._replace(query=urlencode(query)))

    def resigned(self, store: Store, url: str) -> str:
        """An :meth:`unsigned` URL signed again (the same signature :meth:`start` gave it)."""
        parts = urlsplit(url)
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "sig"]
        checkout_id = parts.path.rstrip("/").rsplit("/", 1)[-1]
        exp = dict(query).get("exp", "")
        if not exp.isdigit():
            return url
        query.append(("sig", self.sign(store, checkout_id, int(exp))))
        return urlunsplit(parts._replace(query=urlencode(query)))

    # ---- the human's page ----------------------------------------------------------------
    def verify(self, store: Store, checkout_id: str, exp: str | None, sig: str | None) -> tuple[int, str] | None:
        """None when the link is authentic and unexpired; else ``(status, message)``."""
        if not exp or not sig or not exp.isdigit() or len(checkout_id) > 100:
            return 403, "This checkout link is incomplete or has been altered."
        if not hmac.compare_digest(self.sign(store, checkout_id, int(exp)).encode(), sig.encode()):
            return 403, "This checkout link is incomplete or has been altered."
        if int(exp) <= store.now():
            return 410, "This checkout link has expired. Ask your agent for a new one."
        return None

    def page(self, store: Store, checkout_id: str, exp: str | None, sig: str | None) -> tuple[int, str]:
        bad = self.verify(store, checkout_id, exp, sig)
        if bad:
            return bad[0], render_message("Checkout unavailable", bad[1])
        record = store.get(**checkout_key(checkout_id))
        if record is None:
            return 410, render_message("Checkout unavailable", "This checkout link has expired.")
        if record.get("status") != "pending":
            return 410, render_message("Already completed", "This checkout was already confirmed; the link "
                                       "can only be used once.")
        return 200, render_cart(record["cart"], f"{self.path}/{checkout_id}/confirm", str(exp), str(sig))

    def confirm(self, store: Store, checkout_id: str, exp: str | None, sig: str | None) -> tuple[int, str]:
        bad = self.verify(store, checkout_id, exp, sig)
        if bad:
            return bad[0], render_message("Checkout unavailable", bad[1])
        key = checkout_key(checkout_id)
        try:
            record = store.update(key["pk"], key["sk"], set_={"status": "confirmed",
                                                              "confirmed_at": store.now()},
                                  condition="#s0 = :pending AND expires_at > :now",
                                  values={":pending": "pending", ":now": store.now()})
        except ConditionFailed:
            return 410, render_message("Already completed", "This checkout was already confirmed or has "
                                       "expired; the link can only be used once.")
        cart = record["cart"]
        return 200, render_message("Order confirmed",
                                   f"Thank you. Your order of {cart['item_count']} item(s) totalling "
                                   f"{_money(cart['subtotal_minor'], cart['currency'])} is confirmed.")


def _money(minor: int, currency: str) -> str:
    return f"{int(minor) / 100:,.2f} {currency}"


_STYLE = ("body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}"
          "table{width:100%;border-collapse:collapse}td,th{padding:.4rem;border-bottom:1px solid #ddd;"
          "text-align:left}td.n,th.n{text-align:right}button{font-size:1.1rem;padding:.6rem 1.4rem}")


def _doc(title: str, body: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f'<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" '
            f'content="noindex"><style>{_STYLE}</style></head><body>{body}</body></html>')


def render_message(title: str, message: str) -> str:
    return _doc(title, f"<h1>{html.escape(title)}</h1><p>{html.escape(message)}</p>")


def render_cart(cart: dict[str, Any], action: str, exp: str, sig: str) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(str(line['name']))}</td><td class=n>{int(line['quantity'])}</td>"
        f"<td class=n>{html.escape(_money(line['price_minor'], line['currency']))}</td>"
        f"<td class=n>{html.escape(_money(line['line_total_minor'], line['currency']))}</td></tr>"
        for line in cart["items"])
    total = html.escape(_money(cart["subtotal_minor"], cart["currency"]))
    return _doc("Review your order", (
        "<h1>Review your order</h1><p>Your agent prepared this cart. Nothing is ordered until you confirm.</p>"
        "<table><thead><tr><th>Item</th><th class=n>Qty</th><th class=n>Price</th><th class=n>Total</th>"
        f"</tr></thead><tbody>{rows}</tbody><tfoot><tr><th colspan=3>Total</th>"
        f'<th class=n id="total">{total}</th></tr></tfoot></table>'
        f'<form method="post" action="{html.escape(action)}"><input type="hidden" name="exp" '
        f'value="{html.escape(exp)}"><input type="hidden" name="sig" value="{html.escape(sig)}">'
        '<p><button type="submit">Confirm order</button></p></form>'))
