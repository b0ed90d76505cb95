"""``Idempotency-Key`` on POSTs: the first request with a key runs and its response is stored; a retry
with the same key and the same body gets the stored response (``Idempotent-Replayed: true``) without
running again. The same key with a different body is refused (400); a retry while the first is still
running gets 409. Responses with status >= 500 are not stored, so the retry runs again.

Records are ``IDEMP#<client>#<sha256(method path key)>`` with a 24 h TTL.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from agenthost.store import ConditionFailed, Store, keys

TTL_S = 24 * 3600
MAX_KEY = 255


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
    def __init__(self, store: Store, client: str, method: str, path: str, key: str):
        self.store = store
        digest = hashlib.sha256(f"{method} {path} {key}".encode()).hexdigest()[:40]
        self.key = keys.idempotency(client, digest)

    def begin(self, fp: str) -> Stored | None:
        """Claim the key; returns the stored response when this is a replay. Raises :class:`Conflict`."""
        try:
            self.store.put({**self.key, "state": "pending", "fp": fp}, ttl_s=TTL_S, if_absent=True)
            return None
        except ConditionFailed:
            pass
        found: dict[str, Any] | None = self.store.get(**self.key)
        if found is None:  # expired in between: claim again
            return self.begin(fp)
        if found.get("fp") != fp:
            raise Conflict(400, "Idempotency-Key was already used with a different request body")
        if found.get("state") != "done":
            raise Conflict(409, "a request with this Idempotency-Key is still being processed; retry shortly")
        body = found.get("body", b"")
        return Stored(int(found["status"]), bytes(body) if body is not None else b"",
                      str(found.get("content_type", "application/json")))

    def finish(self, status: int, body: bytes, content_type: str) -> None:
        if status >= 500:
            self.store.delete(**self.key)
            return
        self.store.update(self.key["pk"], self.key["sk"],
                          set_={"state": "done", "status": status, "body": body, "content_type": content_type})
