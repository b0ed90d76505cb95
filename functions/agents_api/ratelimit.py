"""Fixed-window rate limit per client as one atomic conditional write per request.

Two kinds of client:

* **a live session**: the counter ``rl#<window>`` lives on the session's own item
  (``SESSION#<hash>``/``META``). One ``UpdateItem`` adds 1 under the condition that the session exists, is
  unexpired and is below the limit, and returns the item, so the same write proves the session and hands
  the route its cart (no separate session read). The previous window's counter is removed in passing.
* **anyone else** (no token, or a token that is not a live session): ``RATE#ip:<source ip>#<window>``.
  A made-up token therefore never gets a bucket of its own: when the session write is refused because
  there is no live session, the request counts against its source IP (a second write only for that
  refused, invalid request).

The counter is incremented with ``ADD`` under the condition that it is below the limit, so concurrent
requests can never be admitted beyond it: DynamoDB serializes writes to one item. A refused write means
429. Window counters expire (TTL) shortly after their window, or with the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agenthost.store import ConditionFailed, Store, keys


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    limit: int
    remaining: int
    reset_at: int  # epoch seconds when the window ends

    def retry_after(self, now: int) -> int:
        return max(1, self.reset_at - now)


class RateLimiter:
    def __init__(self, limit: int, window_s: int = 60):
        if limit < 1 or window_s < 1:
            raise ValueError("rate limit and window must be positive")
        self.limit = limit
        self.window_s = window_s

    @property
    def per_minute(self) -> int:
        return max(1, round(self.limit * 60 / self.window_s))

    def reset_at(self, now: int) -> int:
        """When the window containing ``now`` ends (windows are aligned to the epoch)."""
        return (now // self.window_s + 1) * self.window_s

    def hit(self, store: Store, client: str) -> Verdict:
        """Count one request of ``client`` (e.g. ``ip:203.0.113.9``) in its own counter item."""
        now = store.now()
        window = now // self.window_s
        reset_at = (window + 1) * self.window_s
        key = keys.rate(client, window)
        try:
            item = store.update(
                key["pk"], key["sk"],
                add={"count": 1},
                set_={"expires_at": reset_at + self.window_s},
                condition="attribute_not_exists(#a0) OR #a0 < :limit",
                values={":limit": self.limit},
            )
        except ConditionFailed:
            return Verdict(False, self.limit, 0, reset_at)
        used = int(item.get("count", self.limit))
        return Verdict(True, self.limit, max(0, self.limit - used), reset_at)

    def hit_session(self, store: Store, session_hash: str) -> tuple[Verdict, dict[str, Any]] | None:
        """Count one request on the session's own item. Returns the verdict and the session item (as
        after the write, or as stored when refused with 429), or ``None`` when there is no live session
        with that hash (the caller then counts the request against the source IP)."""
        now = store.now()
        window = now // self.window_s
        reset_at = (window + 1) * self.window_s
        try:
            item = store.update(
                **keys.session(session_hash),
                expression="ADD #w :one REMOVE #prev",
                condition="attribute_exists(pk) AND expires_at > :now AND (attribute_not_exists(#w) OR #w < :limit)",
                names={"#w": f"rl#{window}", "#prev": f"rl#{window - 1}"},
                values={":one": 1, ":now": now, ":limit": self.limit},
            )
        except ConditionFailed as refused:
            if refused.item is None:
                return None
            return Verdict(False, self.limit, 0, reset_at), refused.item
        used = int(item.get(f"rl#{window}", self.limit))
        return Verdict(True, self.limit, max(0, self.limit - used), reset_at), item
