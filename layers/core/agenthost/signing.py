"""Webhook signatures: HMAC-SHA256 over the exact raw body bytes, constant-time compare, replay window.

Signatures look like ``sha256=<hex>``. Never re-serialize JSON before verifying: verify the bytes
that arrived (base64-decoded first when API Gateway set ``isBase64Encoded``).

Example::

    >>> from agenthost import signing
    >>> sig = signing.sign("whs_key", b'{"a":1}')
    >>> signing.verify("whs_key", b'{"a":1}', sig)
    True
"""

from __future__ import annotations

import hashlib
import hmac
import time

from agenthost.errors import Unauthorized

PREFIX = "sha256="


class SignatureError(Unauthorized):
    """A request failed authentication. ``reason`` is safe to return to the caller (no secret)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _as_bytes(value: str | bytes) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else value


def sign(secret: str | bytes, body: str | bytes) -> str:
    """Return ``sha256=<hex HMAC-SHA256(secret, body)>``."""
    digest = hmac.new(_as_bytes(secret), _as_bytes(body), hashlib.sha256).hexdigest()
    return PREFIX + digest


def verify(secret: str | bytes, body: str | bytes, signature: str | None) -> bool:
    """True when ``signature`` is the HMAC of ``body`` under ``secret`` (prefix optional, hex any case)."""
    if not secret or not signature:
        return False
    sig = signature.strip()
    if sig.lower().startswith(PREFIX):
        sig = sig[len(PREFIX):]
    expected = sign(secret, body)[len(PREFIX):]
    return hmac.compare_digest(expected.encode(), sig.lower().encode())


def to_epoch_seconds(timestamp: str | int | float | None) -> float | None:
    """Parse a timestamp given in seconds or milliseconds (number or numeric string); None if absent/bad."""
    if timestamp is None or isinstance(timestamp, bool):
        return None
    try:
        value = float(timestamp)
    except (TypeError, ValueError):
        return None
    if value != value or value <= 0:  # NaN or non-positive
        return None
    # Anything past the year 5138 in seconds is certainly milliseconds.
    return value / 1000.0 if value > 1e11 else value


def check_fresh(timestamp: str | int | float | None, window_s: float = 300, now: float | None = None) -> None:
    """Raise :class:`SignatureError` unless ``timestamp`` lies within ``window_s`` of ``now`` (either side)."""
    ts = to_epoch_seconds(timestamp)
    if ts is None:
        raise SignatureError("missing or invalid timestamp")
    current = time.time() if now is None else now
    if abs(current - ts) > window_s:
        raise SignatureError("timestamp outside the replay window")


def verify_request(
    secret: str | bytes,
    body: bytes,
    signature: str | None,
    timestamp: str | int | float | None = None,
    *,
    window_s: float | None = 300,
    now: float | None = None,
) -> None:
    """Verify signature (and freshness when ``window_s`` is set); raise :class:`SignatureError` otherwise."""
    if not signature:
        raise SignatureError("missing signature")
    if not verify(secret, body, signature):
        raise SignatureError("invalid signature")
    if window_s is not None:
        check_fresh(timestamp, window_s, now)
