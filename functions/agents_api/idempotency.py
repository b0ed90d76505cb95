"""``Idempotency-Key`` on POSTs: the first request with a key runs and its response is stored; a retry
with the same key and the same body gets the stored response (``Idempotent-Replayed: true``) without
running again. The same key with a different body is refused (400); a retry while the first is still
running gets 409 with ``Retry-After``. Responses with status >= 500 are not stored, so the retry runs again.

A claim records when it was made (``claimed_at``). A claim left pending by a crashed or timed-out
invocation is taken over by the next request with that key once ``reclaim_after_s`` has passed (by
default a little more than the function's timeout, so the first run can no longer be alive); the takeover
starts the record's 24 h anew.

Claiming is ONE conditional write whatever the case (first request, replay, another body, a request still
running, a takeover): the write claims the key when there is no live record or when the record is an
abandoned claim of the same request, and a refused write brings back the stored record
(:attr:`agenthost.store.ConditionFailed.item`), which says which answer to give. The first writer wins
(DynamoDB serializes writes to one item).

Stored bodies never hold a secret: the site decides per route what is kept (``AgentsSite.seal_replay``):
session creation is not stored at all (its answer is the token; see the README), checkout URLs are kept
without their signature and signed again on replay.

Records are ``IDEMP#<client>#<sha256(method path key)>`` with a 24 h TTL.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from agenthost import errors
from agenthost.store import ConditionFailed, Store, keys

TTL_S = 24 * 3600
MAX_KEY = 255
RECLAIM_AFTER_S = 35  # the function's timeout (29 s) plus a margin

#: when a claim may be written: no live record, or an abandoned claim of the same request
CLAIMABLE = ("attribute_not_exists(pk) OR expires_at <= :now OR (#st = :pending AND fp = :fp "
             "AND (attribute_not_exists(claimed_at) OR claimed_at <= :stale))")


@dataclass
class Stored:
    status: int
    body: bytes
    content_type: str


class Conflict(errors.Conflict):
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
        """Claim the key; returns the stored response when this is a replay. Raises :class:`Conflict`.

        One conditional write decides everything: it claims the key when there is no live record, or when
        the record is a claim of the same request abandoned ``reclaim_after_s`` ago (or that never recorded
        when it was made); refused, it brings back the stored record, which says whether this is a replay
        (done), another body (400) or a request still running (409)."""
        now = self.store.now()
        try:
            self.store.put({**self.key, "state": "pending", "fp": fp, "claimed_at": now}, ttl_s=TTL_S,
                           condition=CLAIMABLE, names={"#st": "state"},
                           values={":now": now, ":pending": "pending", ":fp": fp,
                                   ":stale": now - self.reclaim_after_s})
        except ConditionFailed as refused:
            if refused.item is None and _again:  # it expired between the write and its answer: claim again
                return self.begin(fp, _again=False)
            return self._refused(refused.item, fp)
        self.claimed_at = now
        return None

    @staticmethod
    def _refused(found: dict[str, Any] | None, fp: str) -> Stored:
        if found is not None and found.get("fp") != fp:
            raise Conflict(400, "Idempotency-Key was already used with a different request body")
        if found is not None and found.get("state") == "done":
            body = found.get("body", b"")
            return Stored(int(found["status"]), bytes(body) if body is not None else b"",
                          str(found.get("content_type", "application/json")))
        # a claim of this request that is still running (or one that ended between the write and its answer)
        raise Conflict(409, "a request with this Idempotency-Key is still being processed; retry shortly")

    def _mine(self) -> tuple[str, dict[str, Any]]:
        return "#s = :pending AND claimed_at = :mine", {":pending": "pending", ":mine": self.claimed_at}

    def finish(self, status: int, body: bytes | None, content_type: str) -> None:
        """Store the response (``body=None``: keep nothing, a retry runs again). Only the request that
        holds the claim writes; one that was taken over after it ran too long leaves the record alone."""
        cond, vals = self._mine()
        try:
            if status >= 500 or body is None:
                self.store.delete(**self.key, condition=cond, names={"#s": "state"}, values=vals)
                return
            self.store.update(
                **self.key,
                expression="SET #s = :done, #st = :status, #b = :body, #ct = :ct",
                condition=cond,
                names={"#s": "state", "#st": "status", "#b": "body", "#ct": "content_type"},
                values={**vals, ":done": "done", ":status": status, ":body": body, ":ct": content_type},
            )
        except ConditionFailed:
            pass  # the claim was taken over (this request outran reclaim_after_s): the newer run answers
