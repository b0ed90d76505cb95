"""Answering a request once: the building block every replay and idempotency mechanism here uses.

A request is known by a *key* (the digest of what identifies it: a signed body, an ``Idempotency-Key`` with its
method and path, a run's operation and body) and a *payload hash* (``fp``: whether a request with the same key
is the same request). Its record moves through four states:

* **absent**: never seen, or **expired** (past its TTL, or an abandoned claim older than ``reclaim_after_s``);
* **claimed** (in flight): a request took the key and runs (``claimed_at``); the same key meanwhile is told to
  retry shortly;
* **completed**: the answer is kept (``status``, ``answer``, ``content_type``); the same request again gets it
  (a *replay*), a different payload under the same key is refused.

The claim is ONE conditional write that returns the old item when it is refused (``Store`` sends every
refused condition back with the item as stored, :attr:`agenthost.store.ConditionFailed.item`): the write
either claims the key or says, through :func:`judge`, which answer to give. Where no two requests run at once
for one key (a webhook turn whose item is read and written once, a run guarded by its optimistic version),
there is no claim: the completed answers ride in the item the request writes anyway, the last few kept
(:class:`KeptAnswers`).

Hand-written because it is the protocol-neutral core of our own records (``agents_api.idempotency``, the
AI Olympics and Werewolf turns' answers, the Proxy API's retried requests); a library would bring its own table.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PENDING, DONE = "pending", "done"


class Verdict(enum.Enum):
    FRESH = "fresh"            # absent or expired: run it (the claim is this request's)
    IN_FLIGHT = "in_flight"    # claimed by a request that may still run: retry shortly
    REPLAY = "replay"          # completed: answer as then
    MISMATCH = "mismatch"      # the key was used with another payload
    ABANDONED = "abandoned"    # claimed long enough ago that its request cannot be running: may be taken over


@dataclass(frozen=True)
class Record:
    """A key's record as stored (any item's attributes: ``state``, ``fp``, ``claimed_at``, ``status``,
    ``answer``/``body``, ``content_type``)."""

    state: str
    fp: str = ""
    claimed_at: int | None = None
    status: int = 200
    answer: Any = None
    content_type: str = "application/json"

    @classmethod
    def of(cls, item: Mapping[str, Any] | None) -> Record | None:
        if not item or item.get("state") not in (PENDING, DONE):
            return None
        answer = item.get("answer", item.get("body"))
        claimed = item.get("claimed_at")
        return cls(str(item["state"]), str(item.get("fp") or ""), int(claimed) if claimed is not None else None,
                   int(item.get("status") or 200), answer, str(item.get("content_type") or "application/json"))


def judge(found: Record | None, fp: str, now: int, reclaim_after_s: int) -> Verdict:
    """What a request with payload hash ``fp`` does about a key whose record is ``found``."""
    if found is None:
        return Verdict.FRESH
    if found.fp and fp and found.fp != fp:
        return Verdict.MISMATCH
    if found.state == DONE:
        return Verdict.REPLAY
    if found.claimed_at is None or found.claimed_at <= now - reclaim_after_s:
        return Verdict.ABANDONED
    return Verdict.IN_FLIGHT


class KeptAnswers:
    """The last ``limit`` completed answers by key, kept in the item the request writes anyway (a map, oldest
    first): a request seen before gets its answer again without a second decision or write."""

    def __init__(self, kept: Mapping[str, Any] | None, limit: int):
        self.kept: dict[str, Any] = dict(kept or {})
        self.limit = limit

    def find(self, key: str) -> Any:
        """The answer kept for ``key``, or None."""
        return self.kept.get(key) if key else None

    def keep(self, key: str, answer: Any) -> None:
        """Keep ``answer`` for ``key`` (the newest; the oldest beyond ``limit`` go)."""
        if not key:
            return
        self.kept = {k: v for k, v in self.kept.items() if k != key}
        self.kept[key] = answer
        self.kept = dict(list(self.kept.items())[-self.limit:])
