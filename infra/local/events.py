"""API Gateway event builders (HTTP API payload v2 and WebSocket) and a Lambda-like context.

Used by the local gateways and by tests that call handlers directly, so both see the same events
API Gateway would send.
"""

from __future__ import annotations

import base64
import secrets
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

from infra.local.template import ACCOUNT, REGION

TEXT_TYPES = ("text/", "json", "xml", "javascript", "x-www-form-urlencoded", "yaml", "csv")


class LambdaContext:
    """The attributes of the Lambda context object that handlers and Powertools use."""

    def __init__(self, function_name: str, timeout_s: int = 29, memory_mb: int = 512):
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = memory_mb
        self.invoked_function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{function_name}"
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = time.strftime("%Y/%m/%d") + "/[$LATEST]" + secrets.token_hex(16)
        self.identity = None
        self.client_context = None
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def _is_text(content_type: str) -> bool:
    ct = content_type.lower()
    return any(t in ct for t in TEXT_TYPES)


def http_event(
    method: str,
    path: str,
    *,
    body: bytes | str | None = None,
    headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
    query: str | Mapping[str, str] | None = None,
    route_key: str | None = None,
    path_parameters: Mapping[str, str] | None = None,
    source_ip: str = "127.0.0.1",
    domain: str = "localhost",
    stage: str = "$default",
) -> dict[str, Any]:
    """An API Gateway HTTP API (payload format 2.0) event."""
    hdrs, cookies = _headers_and_cookies(headers)
    raw_body = body.encode() if isinstance(body, str) else (body or b"")
    if raw_body and "content-length" not in hdrs:
        hdrs["content-length"] = str(len(raw_body))
    raw_query = urlencode(list(query.items())) if isinstance(query, Mapping) else (query or "")
    qs: dict[str, str] = {}
    for k, v in parse_qsl(raw_query, keep_blank_values=True):
        qs[k] = f"{qs[k]},{v}" if k in qs else v
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route_key or "$default",
        "rawPath": path,
        "rawQueryString": raw_query,
        "headers": hdrs,
        "requestContext": _http_context(method, path, hdrs, route_key=route_key, source_ip=source_ip,
                                        domain=domain, stage=stage),
        "isBase64Encoded": False,
    }
    if cookies:
        event["cookies"] = cookies
    if qs:
        event["queryStringParameters"] = qs
    if path_parameters:
        event["pathParameters"] = dict(path_parameters)
    if raw_body:
        event.update(_body(raw_body, hdrs.get("content-type", "")))
    return event


def _headers_and_cookies(
    headers: Mapping[str, str] | Iterable[tuple[str, str]] | None,
) -> tuple[dict[str, str], list[str]]:
    """Lower-cased headers, repeated ones joined with commas as API Gateway does; ``Cookie`` split out."""
    pairs = list(headers.items()) if isinstance(headers, Mapping) else list(headers or [])
    hdrs: dict[str, str] = {}
    cookies: list[str] = []
    for k, v in pairs:
        key = k.lower()
        if key == "cookie":
            cookies.extend(c.strip() for c in v.split(";") if c.strip())
            continue
        hdrs[key] = f"{hdrs[key]},{v}" if key in hdrs else v
    return hdrs, cookies


def _http_context(method: str, path: str, hdrs: Mapping[str, str], *, route_key: str | None, source_ip: str,
                  domain: str, stage: str) -> dict[str, Any]:
    now = time.time()
    return {
        "accountId": ACCOUNT,
        "apiId": "local",
        "domainName": domain,
        "domainPrefix": domain.split(".")[0],
        "http": {
            "method": method.upper(),
            "path": path,
            "protocol": "HTTP/1.1",
            "sourceIp": source_ip,
            "userAgent": hdrs.get("user-agent", ""),
        },
        "requestId": base64.b32encode(secrets.token_bytes(10)).decode().rstrip("="),
        "routeKey": route_key or "$default",
        "stage": stage,
        "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
        "timeEpoch": int(now * 1000),
    }


def _body(raw_body: bytes, content_type: str) -> dict[str, Any]:
    """``body`` as text for a text type that decodes as UTF-8, else base64 with ``isBase64Encoded``."""
    if _is_text(content_type):
        try:
            return {"body": raw_body.decode("utf-8")}
        except UnicodeDecodeError:
            pass
    return {"body": base64.b64encode(raw_body).decode(), "isBase64Encoded": True}


FUNCTION_URL_DOMAIN = "abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws"


def function_url_event(method: str, path: str, *, domain: str = FUNCTION_URL_DOMAIN, **kwargs: Any) -> dict[str, Any]:
    """A Lambda function URL event: payload format 2.0 like the HTTP API's, with the URL's own domain
    (``<url-id>.lambda-url.<region>.on.aws``), ``routeKey``/``stage`` ``$default`` and an anonymous caller
    account (AuthType NONE)."""
    event = http_event(method, path, domain=domain, **kwargs)
    event["requestContext"].update({"accountId": "anonymous", "apiId": domain.split(".")[0],
                                    "routeKey": "$default", "stage": "$default"})
    event["routeKey"] = "$default"
    return event


def http_response(result: Any) -> tuple[int, list[tuple[str, str]], bytes]:
    """Turn a handler's return value into (status, headers, body) as HTTP API payload v2 does."""
    if not isinstance(result, dict) or "statusCode" not in result:
        import json

        body = result if isinstance(result, str) else json.dumps(result)
        return 200, [("content-type", "application/json")], body.encode()
    status = int(result["statusCode"])
    headers: list[tuple[str, str]] = [(k.lower(), str(v)) for k, v in (result.get("headers") or {}).items()]
    for k, values in (result.get("multiValueHeaders") or {}).items():
        headers.extend((k.lower(), str(v)) for v in values)
    headers.extend(("set-cookie", c) for c in result.get("cookies") or [])
    raw = result.get("body") or ""
    body = base64.b64decode(raw) if result.get("isBase64Encoded") else str(raw).encode()
    return status, headers, body


def new_connection_id() -> str:
    return base64.b64encode(secrets.token_bytes(10)).decode()


def ws_event(
    route_key: str,
    connection_id: str,
    *,
    body: str | None = None,
    headers: Mapping[str, str] | None = None,
    query: Mapping[str, str] | None = None,
    domain: str = "localhost",
    stage: str = "local",
    source_ip: str = "127.0.0.1",
    connected_at: int | None = None,
    disconnect_code: int | None = None,
    disconnect_reason: str = "",
) -> dict[str, Any]:
    """An API Gateway WebSocket event for ``$connect``, ``$disconnect`` or a message route."""
    event_type = {"$connect": "CONNECT", "$disconnect": "DISCONNECT"}.get(route_key, "MESSAGE")
    now = int(time.time() * 1000)
    ctx: dict[str, Any] = {
        "routeKey": route_key,
        "eventType": event_type,
        "extendedRequestId": secrets.token_hex(8),
        "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime()),
        "messageDirection": "IN",
        "stage": stage,
        "connectedAt": connected_at or now,
        "requestTimeEpoch": now,
        "identity": {"sourceIp": source_ip, "userAgent": (headers or {}).get("user-agent", "")},
        "requestId": secrets.token_hex(8),
        "domainName": domain,
        "connectionId": connection_id,
        "apiId": "local",
    }
    event: dict[str, Any] = {"requestContext": ctx, "isBase64Encoded": False}
    if event_type == "MESSAGE":
        ctx["messageId"] = secrets.token_hex(8)
        event["body"] = body or ""
    if event_type == "CONNECT":
        event["headers"] = dict(headers or {})
        event["multiValueHeaders"] = {k: [v] for k, v in (headers or {}).items()}
        if query:
            event["queryStringParameters"] = dict(query)
            event["multiValueQueryStringParameters"] = {k: [v] for k, v in query.items()}
    if event_type == "DISCONNECT":
        ctx["disconnectStatusCode"] = disconnect_code if disconnect_code is not None else 1005
        ctx["disconnectReason"] = disconnect_reason
    return event
