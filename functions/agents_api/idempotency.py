"""``Idempotency-Key`` on POSTs: the first request with a key runs and its response is stored; a retry
with the same key and the same body gets the stored response (``Idempotent-Replayed: true``) without
running again. The same key with a different body is refused (400); a retry while the first is still
running gets 409 with ``Retry-After``. Responses with status >= 500 are not stored, so the retry runs again.
The states and the verdicts are :mod:`agenthost.replay`'s.

Where the claim is made (one conditional write either way, whose refusal brings back what was stored):

* **A request of a live session** claims the key on the session's own item, in the rate-limit write the
  request makes anyway (``idem#<digest>`` set to when it was claimed: :meth:`Idempotency.claim_attribute`).
  A cart add with a key is then three writes: the rate limit with the claim, the cart, the stored answer.
  A refused claim (the key was used in this session) reads the stored answer: a replay, another body (400),
  a request still running (409), or one abandoned ``reclaim_after_s`` ago, whose claim is taken over.
* **Any other request** claims ``IDEMP#<client>#<digest>`` itself (:meth:`Idempotency.begin`): no live
  record, or an abandoned claim of the same request.

A claim records when it was made (``claimed_at``). A claim left pending by a crashed or timed-out
invocation is taken over by the next request with that key once ``reclaim_after_s`` has passed (by
default a little more than the function's timeout, so the first run can no longer be alive).

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
from agenthost.items import keys
from agenthost.replay import DONE, PENDING, Record, Verdict, judge
from agenthost.store import ConditionFailed, Store

TTL_S = 24 * 3600
MAX_KEY = 255
RECLAIM_AFTER_S = 35  # the function's timeout (29 s) plus a margin

#: when a claim may be written on the record item: no live record, or an abandoned claim of the same request
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
                 reclaim_after_s: int = RECLAIM_AFTER_S, session: str | None = None):
        self.store = store
        self.digest = hashlib.sha256(f"{method} {path} {key}".encode()).hexdigest()[:40]
        self.key = keys.idempotency(client, self.digest)
        self.reclaim_after_s = reclaim_after_s
        #: the live session whose item holds the claim (None: the record item holds it)
        self.session = session
        self.claimed_at: int | None = None
        #: the request body's fingerprint (set by the edge once it has read the body)
        self.fp = ""

    @staticmethod
    def claim_attribute(method: str, path: str, key: str) -> str:
        """The session item's attribute a claim of this request is (``idem#<digest>``)."""
        return "idem#" + hashlib.sha256(f"{method} {path} {key}".encode()).hexdigest()[:24]

    # -- a claim on the record item ------------------------------------------------------------------
    def begin(self, fp: str, _again: bool = True) -> Stored | None:
        """Claim the key on its record item; returns the stored response when this is a replay. Raises
        :class:`Conflict`. One conditional write decides everything (see :data:`CLAIMABLE`)."""
        now = self.store.now()
        try:
            self.store.put({**self.key, "state": PENDING, "fp": fp, "claimed_at": now}, ttl_s=TTL_S,
                           condition=CLAIMABLE, names={"#st": "state"},
                           values={":now": now, ":pending": PENDING, ":fp": fp,
                                   ":stale": now - self.reclaim_after_s})
        except ConditionFailed as refused:
            if refused.item is None and _again:  # it expired between the write and its answer: claim again
                return self.begin(fp, _again=False)
            return self._answer(judge(Record.of(refused.item), fp, now, self.reclaim_after_s),
                                Record.of(refused.item))
        self.claimed_at = now
        return None

    # -- a claim on the session item (made by the rate-limit write) ----------------------------------
    def claimed(self, claimed_at: int) -> None:
        """The session's rate-limit write claimed the key at ``claimed_at``."""
        self.claimed_at = claimed_at

    def resolve(self, fp: str, claimed_at: int | None) -> Stored | None:
        """The session's write found the key claimed (at ``claimed_at``): the stored answer (a replay), or
        :class:`Conflict`; ``None`` when the abandoned claim was taken over and this request runs."""
        now = self.store.now()
        found = Record.of(self.store.get(**self.key))
        if found is None:  # nothing stored: the claim on the session says whether its request may still run
            found = Record(PENDING, "", claimed_at)
        verdict = judge(found, fp, now, self.reclaim_after_s)
        if verdict is not Verdict.ABANDONED:
            return self._answer(verdict, found)
        try:  # take the abandoned claim over: only if nobody did since it was read
            self.store.update(**keys.session(str(self.session)), expression="SET #c = :now", condition="#c = :old",
                              names={"#c": self._session_attribute()}, values={":now": now, ":old": claimed_at})
        except ConditionFailed:
            raise Conflict(409, "a request with this Idempotency-Key is still being processed; retry shortly") \
                from None
        self.claimed_at = now
        return None

    def _session_attribute(self) -> str:
        return "idem#" + self.digest[:24]

    @staticmethod
    def _answer(verdict: Verdict, found: Record | None) -> Stored:
        if verdict is Verdict.MISMATCH:
            raise Conflict(400, "Idempotency-Key was already used with a different request body")
        if verdict is Verdict.REPLAY and found is not None:
            body = found.answer
            return Stored(found.status, bytes(body) if body is not None else b"", found.content_type)
        # a claim of this request that is still running (or one that ended between the write and its answer)
        raise Conflict(409, "a request with this Idempotency-Key is still being processed; retry shortly")

    # -- the answer ----------------------------------------------------------------------------------
    def finish(self, status: int, body: bytes | None, content_type: str, fp: str = "") -> None:
        """Store the response (``body=None``: keep nothing, a retry runs again). Only the request that
        holds the claim writes; one that was taken over after it ran too long leaves the record alone."""
        if self.session is not None:
            self._finish_on_session(status, body, content_type, fp)
            return
        cond, vals = "#s = :pending AND claimed_at = :mine", {":pending": PENDING, ":mine": self.claimed_at}
        try:
            if status >= 500 or body is None:
                self.store.delete(**self.key, condition=cond, names={"#s": "state"}, values=vals)
                return
            self.store.update(
                **self.key,
                expression="SET #s = :done, #st = :status, #b = :body, #ct = :ct",
                condition=cond,
                names={"#s": "state", "#st": "status", "#b": "body", "#ct": "content_type"},
                values={**vals, ":done": DONE, ":status": status, ":body": body, ":ct": content_type},
            )
        except ConditionFailed:
            pass  # the claim was taken over (this request outran reclaim_after_s): the newer run answers

    def _finish_on_session(self, status: int, body: bytes | None, content_type: str, fp: str) -> None:
        session_key = keys.session(str(self.session))
        if status >= 500 or body is None:  # nothing kept: let the next request with this key run
            try:
                self.store.update(**session_key, expression="REMOVE #c", condition="#c = :mine",
                                  names={"#c": self._session_attribute()}, values={":mine": self.claimed_at})
            except ConditionFailed:
                pass
            return
        record: dict[str, Any] = {**self.key, "state": DONE, "fp": fp, "claimed_at": self.claimed_at,
                                  "status": status, "body": body, "content_type": content_type}
        try:
            # the first answer stays (a run that was taken over finishing late does not overwrite it)
            self.store.put(record, ttl_s=TTL_S, if_absent=True)
        except ConditionFailed:
            pass
