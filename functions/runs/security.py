"""Security at the edge of the Proxy API when deployed: an API key header, CORS limited to configured
origins (e.g. the extension's ``chrome-extension://<id>``), and a request size limit.

Settings (environment):

* ``AGENTHOST_RUNS_API_KEY`` (local only) or ``AGENTHOST_RUNS_API_KEY_PARAM`` (an SSM parameter or
  ``secretsmanager:`` name): the key clients send as ``x-api-key`` (or ``Authorization: Bearer``).
* ``AGENTHOST_RUNS_REQUIRE_API_KEY``: defaults to on everywhere except the local stack. With the key
  required but not configured, ``/agent/*`` answers 503 rather than running open.
* ``AGENTHOST_RUNS_CORS_ORIGINS`` (else ``AGENTHOST_CORS_ORIGINS``): comma-separated allowed origins.
  Deployed with none configured, no origin is allowed; the local stack allows any origin.
* ``AGENTHOST_RUNS_MAX_BODY_BYTES``: request body limit (default 256 KiB; a full snapshot is ~50 KB).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable
from typing import Any

from fastapi import Header

from agenthost.config import settings
from agenthost.secrets import secret
from agenthost.webapp import ApiError

ALLOWED_METHODS = "GET, POST, OPTIONS"
ALLOWED_HEADERS = "content-type, x-api-key, authorization, x-request-id"


def max_body_bytes() -> int:
    return settings().runs_max_body_bytes


def api_key_required() -> bool:
    return bool(settings().runs_require_api_key)


def cors_origins() -> tuple[str, ...]:
    own = tuple(p.rstrip("/") for p in settings().runs_cors_origins)
    return own or tuple(o.rstrip("/") for o in settings().cors_origins)


def origin_allowed(origin: str) -> bool:
    allowed = cors_origins()
    if not allowed:
        return settings().local
    return "*" in allowed or origin.rstrip("/") in allowed


def require_api_key(x_api_key: str | None = Header(default=None),
                    authorization: str | None = Header(default=None)) -> None:
    """FastAPI dependency: 401 unless the request carries the configured key (when required)."""
    if not api_key_required():
        return
    expected = secret("AGENTHOST_RUNS_API_KEY")
    if not expected:
        raise ApiError(503, "the Proxy API key is not configured on the server "
                            "(set AGENTHOST_RUNS_API_KEY_PARAM to an SSM or Secrets Manager name)")
    given = x_api_key
    if not given and authorization and authorization.lower().startswith("bearer "):
        given = authorization[7:].strip()
    if not given:
        raise ApiError(401, "missing API key: send it in the x-api-key header")
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise ApiError(401, "invalid API key")


class CorsMiddleware:
    """Pure ASGI CORS: preflights from allowed origins get 204, others a 403 in the API's error shape;
    responses to allowed origins carry ``Access-Control-Allow-Origin`` (never ``*`` with credentials)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        origin = headers.get("origin")
        if not origin:
            await self.app(scope, receive, send)
            return
        allowed = origin_allowed(origin)
        if scope.get("method") == "OPTIONS" and "access-control-request-method" in headers:
            if allowed:
                await _send(send, 204, b"", [
                    (b"access-control-allow-origin", origin.encode()),
                    (b"access-control-allow-methods", ALLOWED_METHODS.encode()),
                    (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
                    (b"access-control-max-age", b"600"),
                    (b"vary", b"Origin"),
                ])
            else:
                body = json.dumps({"error": "forbidden", "message": f"origin {origin} is not allowed"}).encode()
                await _send(send, 403, body, [(b"content-type", b"application/json"), (b"vary", b"Origin")])
            return
        if not allowed:
            await self.app(scope, receive, send)
            return

        async def send_with_cors(message: dict) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + [
                    (b"access-control-allow-origin", origin.encode()), (b"vary", b"Origin")]
            await send(message)

        await self.app(scope, receive, send_with_cors)


async def _send(send: Callable, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": headers + [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
