"""The edge of every site response: a pure ASGI middleware around the site's routes.

It adds the ``Link: </.well-known/agents.json>; rel="agents"`` discovery header, CORS (OPTIONS 204,
exposed headers) and the ``RateLimit-*``/``X-RateLimit-*`` headers to every answer, errors included (on the
site's other paths, the 404 for a path it does not serve included, Link and CORS only: they are not counted);
counts each request against the per-client rate limit (one atomic conditional write: on the session's
own item for a live session, else on the source IP's counter; 429 with ``Retry-After``) and leaves what
that write proved about the session in ``scope[SESSION_SCOPE]`` for :func:`agents_api.deps.live_session`;
honours ``Idempotency-Key`` on POSTs (replay, 400 on a different body, 409 while the first runs; a live
session's key is claimed in its rate-limit write: :mod:`agents_api.idempotency`); and
answers an unhandled error in the envelope (503 with ``Retry-After`` when the database is unavailable).

It is pure ASGI rather than a Starlette ``BaseHTTPMiddleware`` because it must read the body before the
route does (to fingerprint it for idempotency) and replay it, and capture the response to record it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agenthost.config import settings
from agenthost.store import Store
from agenthost.webapp import RETRY_AFTER_S, UNAVAILABLE_MESSAGE, logger, unavailable
from agents_api.deps import INVALID, MAX_TOKEN, MISSING, SESSION_SCOPE
from agents_api.idempotency import MAX_KEY, Conflict, Idempotency, fingerprint
from agents_api.ratelimit import Verdict
from agents_api.sessions import Session, token_hash
from agents_api.site import SiteConfig
from agents_api.wire import error_body, token_of

#: an Idempotency-Key claimed on a live session: (session hash, whether this request's write claimed it,
#: the claim time stored when it did not)
Claim = tuple[str, bool, Any]

JSON_TYPE = "application/json; charset=utf-8"
ALLOW_HEADERS = "Content-Type, Authorization, X-Session-Token, X-Agent-Session, Idempotency-Key, Accept"
EXPOSE_HEADERS = ("Link, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, "
                  "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, X-Request-Id, "
                  "Idempotent-Replayed")
LINK = '</.well-known/agents.json>; rel="agents"'
_PATHS = re.compile(r"^/(\.well-known/agents|llms\.txt)")


def _ip_key(scope: dict) -> str:
    client = scope.get("client") or ("unknown", 0)
    return "ip:" + str(client[0])


def rate_headers(site: SiteConfig, verdict: Verdict | None, now: int) -> dict[str, str]:
    """``RateLimit-*``/``X-RateLimit-*`` for a response. ``RateLimit-Remaining`` needs this request's
    counter write: without a verdict (OPTIONS, which is not counted, or a limiter that failed open)
    only the limit, the window's reset and the policy are sent."""
    rate = site.rate
    reset_at = verdict.reset_at if verdict is not None else rate.reset_at(now)
    out = {"ratelimit-limit": str(rate.limit), "ratelimit-reset": str(max(0, reset_at - now)),
           "ratelimit-policy": f"{rate.limit};w={rate.window_s}",
           "x-ratelimit-limit": str(rate.limit), "x-ratelimit-reset": str(reset_at)}
    if verdict is not None:
        out["ratelimit-remaining"] = out["x-ratelimit-remaining"] = str(verdict.remaining)
    return out


def _common(extra: dict[str, str] | None = None) -> list[tuple[bytes, bytes]]:
    h = {"link": LINK, "access-control-allow-origin": "*",
         "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
         "access-control-allow-headers": ALLOW_HEADERS, "access-control-expose-headers": EXPOSE_HEADERS,
         "vary": "Authorization, X-Session-Token"}
    h.update(extra or {})
    return [(k.encode("latin-1"), v.encode("latin-1")) for k, v in h.items()]


def _with_site_headers(send: Any) -> Any:
    """``send`` with the site's common headers (:func:`_common`) added to the answer's start."""

    async def sending(message: dict) -> None:
        if message["type"] == "http.response.start":
            present = {k.lower() for k, _ in message.get("headers", [])}
            message["headers"] = list(message.get("headers", [])) + [
                (k, v) for k, v in _common() if k not in present]
        await send(message)

    return sending


async def _send(send: Any, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _send_json(send: Any, status: int, body: dict[str, Any], extra: dict[str, str]) -> None:
    raw = json.dumps(body).encode()
    await _send(send, status, raw, _common(extra) + [(b"content-type", JSON_TYPE.encode()),
                                                     (b"content-length", str(len(raw)).encode())])


async def _send_error(send: Any, status: int, code: str, message: str, extra: dict[str, str]) -> None:
    await _send_json(send, status, error_body(status, code, message), extra)


async def _read_body(receive: Any) -> bytes:
    """The whole request body, or (at least) one byte more than the limit allows."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body") or sum(map(len, chunks)) > settings().max_body_bytes:
            break
    return b"".join(chunks)


def _replaying(raw_body: bytes) -> Any:
    """An ASGI ``receive`` that hands the route the body already read, then a disconnect."""
    replayed = False

    async def receive() -> dict:
        nonlocal replayed
        if replayed:
            return {"type": "http.disconnect"}
        replayed = True
        return {"type": "http.request", "body": raw_body, "more_body": False}
    return receive


class AgentsEdge:
    """Pure ASGI middleware around the site's routes (see the module docstring)."""

    def __init__(self, app: Any, site: SiteConfig):
        self.app = app
        self.site = site

    def _rate_limit(self, store: Store, headers: dict[str, str], scope: dict,
                    claim: str | None = None) -> tuple[str, Verdict | None, Claim | None]:
        """Count this request (one conditional write; two only for a token that is not a live session)
        and record what it proved about the session in ``scope[SESSION_SCOPE]``. With ``claim`` (the session
        attribute an ``Idempotency-Key`` is claimed in) a live session's write claims it too. Returns the
        client key (idempotency records are scoped by it), the verdict (None: the limiter failed open) and,
        for a claim on a live session, ``(session hash, claimed, stored claim time)``."""
        token = token_of(headers)
        usable = token is not None and len(token) <= MAX_TOKEN
        try:
            if usable:
                h = token_hash(token or "")
                found = self.site.rate.hit_session(store, h, claim)
                if found is not None:
                    verdict, item, claimed = found
                    scope[SESSION_SCOPE] = Session.from_item(h, item)
                    made = (h, claimed, item.get(claim) if claim else None) if claim else None
                    return "s:" + h[:32], verdict, made
            # no token, or one that is not a live session: it counts against the source IP
            scope[SESSION_SCOPE] = INVALID if token else MISSING
            return _ip_key(scope), self.site.rate.hit(store, _ip_key(scope)), None
        except Exception:  # noqa: BLE001 - fail open: the rate limit must not take the site down
            logger.exception("rate limit check failed")
            scope.pop(SESSION_SCOPE, None)  # unknown: routes read the session themselves
            return ("s:" + token_hash(token or "")[:32]) if usable else _ip_key(scope), None, None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not _PATHS.match(scope.get("path", "")):
            # the site's other routes (its 404 for any path it does not serve included): not counted, but every
            # answer of the site carries the discovery Link (and CORS)
            await self.app(scope, receive, _with_site_headers(send))
            return
        site = self.site
        store = site.store()
        if scope["method"] == "OPTIONS":  # a preflight is not counted (see rate_headers)
            extra = {"access-control-max-age": "600", **rate_headers(site, None, store.now())}
            await _send(send, 204, b"", _common(extra))
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        idem_key = headers.get("idempotency-key", "").strip()
        keyed = bool(idem_key) and site.idempotent(scope["method"], scope["path"])
        claim = (Idempotency.claim_attribute(scope["method"], scope["path"], idem_key)
                 if keyed and len(idem_key) <= MAX_KEY else None)
        client, verdict, on_session = self._rate_limit(store, headers, scope, claim)
        rate = rate_headers(site, verdict, store.now())
        if verdict is not None and not verdict.allowed:
            rate["retry-after"] = str(verdict.retry_after(store.now()))
            await _send_error(send, 429, "rate_limited", "Rate limit exceeded", rate)
            return
        idem: Idempotency | None = None
        if keyed:
            claimed = await self._claim(scope, receive, send, store, client, idem_key, rate, on_session)
            if claimed is None:
                return
            idem, receive = claimed
        await self._serve(scope, receive, send, rate, idem)

    async def _claim(self, scope: dict, receive: Any, send: Any, store: Store, client: str, key: str,
                     rate: dict[str, str], on_session: Claim | None) -> tuple[Idempotency, Any] | None:
        """Claim ``Idempotency-Key`` for this request (on the live session, where the rate-limit write
        already tried, else on its record): the record and a ``receive`` replaying the body already read,
        or None when the edge has answered (bad key, body too large, conflict, replay)."""
        if len(key) > MAX_KEY:
            await _send_error(send, 400, "bad_request", f"Idempotency-Key must be at most {MAX_KEY} characters",
                              rate)
            return None
        raw_body = await _read_body(receive)
        limit = settings().max_body_bytes
        idem = Idempotency(store, client, scope["method"], scope["path"], key,
                           reclaim_after_s=self.site.limits.idempotency_reclaim_s,
                           session=on_session[0] if on_session is not None else None)
        if on_session is not None and on_session[1]:
            idem.claimed(store.now())
        if len(raw_body) > limit:
            if on_session is not None and on_session[1]:
                idem.finish(413, None, "")  # nothing kept: the claim goes
            await _send_error(send, 413, "payload_too_large", f"request body exceeds {limit} bytes", rate)
            return None
        idem.fp = fingerprint(raw_body)
        try:
            if on_session is None:
                stored = idem.begin(idem.fp)
            elif on_session[1]:
                stored = None
            else:
                stored = idem.resolve(idem.fp, on_session[2])
        except Conflict as exc:
            extra = {**rate, "retry-after": "1"} if exc.status == 409 else rate
            await _send_error(send, exc.status, "conflict", exc.message, extra)
            return None
        except Exception as exc:
            if not unavailable(exc):
                raise
            await _send_error(send, 503, "unavailable", UNAVAILABLE_MESSAGE,
                              {**rate, "retry-after": str(RETRY_AFTER_S)})
            return None
        if stored is None:
            return idem, _replaying(raw_body)
        body = self.site.unseal_replay(store, scope["path"], stored.body)
        out = _common({**rate, "idempotent-replayed": "true"}) + [
            (b"content-type", stored.content_type.encode("latin-1")), (b"content-length", str(len(body)).encode())]
        await _send(send, stored.status, body, out)
        return None

    async def _serve(self, scope: dict, receive: Any, send: Any, rate: dict[str, str],
                     idem: Idempotency | None) -> None:
        """Run the route with the site's headers on its answer, answer an error it raised in the envelope,
        and finish the idempotency record (if any) with what was sent."""
        captured: dict[str, Any] = {"status": 500, "type": "application/json", "body": [], "started": False}

        async def send_wrapper(message: dict) -> None:
            if message["type"] == "http.response.start":
                captured["started"] = True
                kept = []
                for k, v in message.get("headers", []):
                    if k.lower() == b"content-type" and v.split(b";")[0].strip() == b"application/json":
                        v = JSON_TYPE.encode()
                    if k.lower() == b"content-type":
                        captured["type"] = v.decode("latin-1")
                    kept.append((k, v))
                message["headers"] = kept + _common(rate)
                captured["status"] = message["status"]
            elif message["type"] == "http.response.body" and idem is not None:
                captured["body"].append(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception as exc:  # noqa: BLE001 - answer in the envelope, with the site's headers
            captured["status"] = await self._failed(send, exc, rate, answer=not captured["started"])
        finally:
            if idem is not None:
                self._finish(idem, scope["path"], captured)

    @staticmethod
    async def _failed(send: Any, exc: Exception, rate: dict[str, str], *, answer: bool) -> int:
        """Answer an error the route raised (unless it already began its answer); returns the status."""
        if unavailable(exc):  # the database: 503 and when to retry
            if answer:
                await _send_error(send, 503, "unavailable", UNAVAILABLE_MESSAGE,
                                  {**rate, "retry-after": str(RETRY_AFTER_S)})
            return 503
        logger.exception("unhandled error")
        if answer:
            await _send_error(send, 500, "internal_error", "internal error", rate)
        return 500

    def _finish(self, idem: Idempotency, path: str, captured: dict[str, Any]) -> None:
        try:
            status = captured["status"]
            kept = self.site.seal_replay(path, status, b"".join(captured["body"]))
            idem.finish(status, kept, captured["type"], idem.fp)
        except Exception:  # noqa: BLE001 - the response is already sent
            logger.exception("idempotency record could not be finished")
