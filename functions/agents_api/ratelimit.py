"""Fixed-window rate limit per client as one atomic conditional write per request.

The counter ``RATE#<client>#<window>`` is incremented with ``ADD`` under the condition that it is below
the limit, so concurrent requests can never be admitted beyond the limit: DynamoDB serializes writes
to one item. A refused write means 429. The item expires (TTL) shortly after its window.
"""

from __future__ import annotations

from dataclasses import dataclass

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

    def hit(self, store: Store, client: str) -> Verdict:
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
