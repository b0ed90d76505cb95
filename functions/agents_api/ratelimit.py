"""Fixed-window rate limit per client as one atomic conditional write per request.

Two kinds of client:

* **a live session**: the counter ``rl#<window>`` lives on the session's own item
  (``SESSION#<hash>``/``META``). One ``UpdateItem`` adds 1 under the condition that the session exists, is
  unexpired and is below the limit, and returns the item, so the same write proves the session and hands
  the route its cart (no separate session read). The previous window's counter is removed in passing, and
  a POST with an ``Idempotency-Key`` claims its key in the same write (``agents_api.idempotency``).
* **anyone else** (no token, or a token that is not a live session): ``RATE#ip:<source ip>#<window>``.
  A made-up token therefore never gets a bucket of its own: when the session write is refused because
  there is no live session, the request counts against its source IP (a second write only for that
  refused, invalid request).

The counter is incremented with ``ADD`` under the condition that it is below the limit, so concurrent
requests can never be admitted beyond it: DynamoDB serializes writes to one item. A refused write means
429. Window counters expire (TTL) shortly after their window, or with the session.

Each hit counts once although the store may send its write again (a lost answer; the first attempt may
already be applied): it carries a request id (:class:`agenthost.store.Once`, 30-second slots of ids), so a
resend is refused and recognised as the hit already counted (counted twice, lost answers would admit fewer
than the limit). The ids are 8 characters, a slot's set holds a few hundred bytes at the default limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agenthost.items import keys
from agenthost.store import ConditionFailed, Once, Store

#: the session's rate-limit write applies to a live session below the limit
RATE_CONDITION = "attribute_exists(pk) AND expires_at > :now AND (attribute_not_exists(#w) OR #w < :limit)"
#: hits' request ids are kept per slot of this many seconds (longer than one write call may last)
ID_SLOT_S = 30


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
                expression="ADD #c :one SET expires_at = :exp",
                condition="attribute_not_exists(#c) OR #c < :limit",
                names={"#c": "count"},
                values={":one": 1, ":exp": reset_at + self.window_s, ":limit": self.limit},
                once=Once.at("ids#", now, ID_SLOT_S),
            )
        except ConditionFailed:
            return Verdict(False, self.limit, 0, reset_at)
        used = int(item.get("count", self.limit))
        return Verdict(True, self.limit, max(0, self.limit - used), reset_at)

    def hit_session(self, store: Store, session_hash: str, claim: str | None = None
                    ) -> tuple[Verdict, dict[str, Any], bool] | None:
        """Count one request on the session's own item, and with ``claim`` (an attribute name) claim the
        request's ``Idempotency-Key`` in the same write (the attribute set to now, only if absent). Returns
        the verdict, the session item (as after the write, or as stored when refused) and whether the claim
        was made (a refused claim counts nothing: the request is a retry of one this session made), or
        ``None`` when there is no live session with that hash (the caller then counts the request against
        the source IP)."""
        now = store.now()
        window = now // self.window_s
        reset_at = (window + 1) * self.window_s
        names = {"#w": f"rl#{window}", "#prev": f"rl#{window - 1}"}
        values: dict[str, Any] = {":one": 1, ":now": now, ":limit": self.limit}
        expression, condition = "ADD #w :one REMOVE #prev", RATE_CONDITION
        if claim is not None:
            names["#claim"] = claim
            expression = "SET #claim = :now " + expression
            condition += " AND attribute_not_exists(#claim)"
        try:
            item = store.update(**keys.session(session_hash), expression=expression, condition=condition,
                                names=names, values=values, once=Once.at("rlid#", now, ID_SLOT_S))
        except ConditionFailed as refused:
            if refused.item is None:
                return None
            used = int(refused.item.get(f"rl#{window}", 0))
            if claim is not None and claim in refused.item and used < self.limit:
                return Verdict(True, self.limit, max(0, self.limit - used), reset_at), refused.item, False
            return Verdict(False, self.limit, 0, reset_at), refused.item, False
        used = int(item.get(f"rl#{window}", self.limit))
        return Verdict(True, self.limit, max(0, self.limit - used), reset_at), item, claim is not None
