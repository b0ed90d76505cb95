"""``Idempotency-Key`` on POSTs: the first request with a key runs and its response is stored; a retry
with the same key and the same body gets the stored response (``Idempotent-Replayed: true``) without
running again. The same key with a different body is refused (400); a retry while the first is still
running gets 409 with ``Retry-After``. Responses with status >= 500 are not stored, so the retry runs again.

A claim records when it was made (``claimed_at``). A claim left pending by a crashed or timed-out
invocation is taken over by the next request with that key once ``reclaim_after_s`` has passed (by
default a little more than the function's timeout, so the first run can no longer be alive): one
conditional write, so only one retry wins it.

Stored bodies never hold a secret: the site decides per route what is kept (``AgentsSite.seal_replay``):
session creation is not stored at all (its answer is the token; see the README), checkout URLs are kept
without their signature and signed again on replay.

Records are ``IDEMP#<client>#<sha256(method path key)>`` with a 24 h TTL.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agenthost.store import ConditionFailed, Store, keys

TTL_S = 24 * 3600
MAX_KEY = 255
RECLAIM_AFTER_S = 35  # the function's timeout (29 s) plus a margin


@dataclass
class Stored:
    status: int
    body: bytes
    content_type: str


class Conflict(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def fingerprint(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


class Idempotency:
    def __init__(self, store: Store, client: str, method: str, path: str, key: str,
                 reclaim_after_s: int = RECLAIM_AFTER_S):
        self.store = store
        digest = hashlib.sha256(f"{method} {path} {key}".encode()).hexdigest()[:40]
        self.key = keys.idempotency(client, digest)
        self.reclaim_after_s = reclaim_after_s
        self.claimed_at: int | None = None

    def begin(self, fp: str, _again: bool = True) -> Stored | None:
        """Claim the key; returns the stored response when this is a replay. Raises :class:`Conflict`."""
        now = self.store.now()
        try:
            self.store.put({**self.key, "state": "pending", "fp": fp, "claimed_at": now}, ttl_s=TTL_S,
                           if_absent=True)
            self.claimed_at = now
            return None
        except ConditionFailed:
            pass
        found: dict[str, Any] | None = self.store.get(**self.key)
        if found is None:  # expired or released in between: claim again (once)
            if _again:
                return self.begin(fp, _again=False)
            raise Conflict(409, "a request with this Idempotency-Key is still being processed; retry shortly")
        if found.get("fp") != fp:
            raise Conflict(400, "Idempotency-Key was already used with a different request body")
        if found.get("state") == "done":
            body = found.get("body", b"")
            return Stored(int(found["status"]), bytes(body) if body is not None else b"",
                          str(found.get("content_type", "application/json")))
        claimed = found.get("claimed_at")
        if claimed is None or now - int(claimed) >= self.reclaim_after_s:
            return self._reclaim(claimed, now)
        raise Conflict(409, "a request with this Idempotency-Key is still being processed; retry shortly")

    def _reclaim(self, claimed: Any, now: int) -> None:
        """Take over a claim its first request abandoned (it can no longer be running)."""
        try:
            if claimed is None:
                cond, values = "#st = :pending AND attribute_not_exists(claimed_at)", {":pending": "pending"}
            else:
                cond, values = "#st = :pending AND claimed_at = :old", {":pending": "pending", ":old": claimed}
            self.store.update(self.key["pk"], self.key["sk"], set_={"claimed_at": now}, condition=cond,
                              values=values, names={"#st": "state"})
        except ConditionFailed:  # another retry took it over first, or the first run just finished
            raise Conflict(409, "a request with this Idempotency-Key is still being processed; "
                                "retry shortly") from None
        self.claimed_at = now
        return None

    def _mine(self) -> tuple[str, dict[str, Any]]:
        return "#s = :pending AND claimed_at = :mine", {":pending": "pending", ":mine": self.claimed_at}

    def finish(self, status: int, body: bytes | None, content_type: str,
               fold: Mapping[str, Any] | None = None) -> None:
        """Store the response (``body=None``: keep nothing, a retry runs again). Only the request that
        holds the claim writes; one that was taken over after it ran too long leaves the record alone."""
        cond, vals = self._mine()
        try:
            if status >= 500 or body is None:
                self.store.delete(**self.key, condition=cond, names={"#s": "state"}, values=vals, also=[fold])
                return
            self.store.update(
                **self.key,
                expression="SET #s = :done, #st = :status, #b = :body, #ct = :ct",
                condition=cond,
                names={"#s": "state", "#st": "status", "#b": "body", "#ct": "content_type"},
                values={**vals, ":done": "done", ":status": status, ":body": body, ":ct": content_type},
                also=[fold],
            )
        except ConditionFailed:
            pass  # the claim was taken over (this request outran reclaim_after_s): the newer run answers
