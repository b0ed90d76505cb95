"""The local gateways, as ASGI apps served by uvicorn:

* :class:`HttpGateway`: API Gateway HTTP API. Matches the template's routes (most specific first),
  builds payload-v2 events, invokes the real handler, maps the result back like API Gateway does.
* :class:`WebSocketGateway`: API Gateway WebSocket API. ``$connect``/``$default``/``$disconnect``
  events with the template's route selection, plus the ``@connections`` management API (POST, GET,
  DELETE) on the same port, so functions use the normal boto3 ``apigatewaymanagementapi`` client.
* :class:`LambdaApi`: the Lambda ``Invoke`` API (RequestResponse and Event) for function-to-function
  calls with the normal boto3 ``lambda`` client.
"""

from __future__ import annotations

import asyncio
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, unquote

from agenthost import limits
from infra.local.events import function_url_event, http_event, http_response, new_connection_id, ws_event
from infra.local.runtime import FunctionError, FunctionNotFound, Runtime
from infra.local.template import REGION, Template

MAX_HTTP_BODY = 10 * 1024 * 1024  # API Gateway HTTP API payload limit
MAX_URL_BODY = 6 * 1024 * 1024  # a function URL: Lambda's synchronous invocation payload limit
MAX_WS_MESSAGE = 128 * 1024
MAX_WS_FRAME = 32 * 1024  # API Gateway closes the connection with 1009 on a larger frame (or message)


@cache
def frame_limited_protocol() -> type:
    """uvicorn's WebSocket protocol with API Gateway's inbound frame limit: a data frame over
    :data:`MAX_WS_FRAME` closes the connection with 1009 (the application sees the disconnect), as the
    service does; a larger message must arrive as continuation frames. Like API Gateway it negotiates no
    ``permessage-deflate``, so frame sizes are what the client really sent."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.server import ServerProtocol

    class FrameLimitedProtocol(WebSocketsSansIOProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.conn = ServerProtocol(extensions=[], max_size=self.config.ws_max_size, logger=self.logger)

        def _too_big(self, event: Any) -> bool:
            if len(event.data) <= MAX_WS_FRAME:
                return False
            self.conn.fail(1009, "Frame too big")
            self.handle_parser_exception()
            return True

        def handle_text(self, event: Any) -> None:
            if not self._too_big(event):
                super().handle_text(event)

        def handle_bytes(self, event: Any) -> None:
            if not self._too_big(event):
                super().handle_bytes(event)

        def handle_cont(self, event: Any) -> None:
            if not self._too_big(event):
                super().handle_cont(event)

    return FrameLimitedProtocol


async def _read_body(receive: Callable, limit: int) -> bytes | None:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body = message.get("body", b"")
        size += len(body)
        if size > limit:
            return None
        chunks.append(body)
        if not message.get("more_body"):
            return b"".join(chunks)


async def _respond(send: Callable, status: int, body: bytes, headers: list[tuple[str, str]] | None = None,
                   content_type: str | None = "application/json") -> None:
    hdrs = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in (headers or [])]
    if content_type and not any(k == b"content-type" for k, _ in hdrs):
        hdrs.append((b"content-type", content_type.encode()))
    hdrs = [h for h in hdrs if h[0] != b"content-length"] + [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": hdrs})
    await send({"type": "http.response.body", "body": body})


def _headers(scope: dict) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers", [])]


def _raw_path(scope: dict) -> str:
    """The request path as sent (still percent-encoded), without the query."""
    return str((scope.get("raw_path") or scope["path"].encode()).decode("latin-1").split("?", 1)[0])


async def _invoke_http(runtime: Runtime, function: str, event: dict, send: Callable,
                       failure: tuple[int, bytes]) -> int:
    """Invoke ``function`` with an HTTP event and send its answer (``failure`` when it raised); the status."""
    try:
        status, headers, out = http_response(await runtime.invoke(function, event))
    except FunctionError:
        (status, out), headers = failure, []
    await _respond(send, status, out, headers, content_type=None if headers else "application/json")
    return status


class _HttpApp(ABC):
    """ASGI app: lifespan events are acknowledged, HTTP requests go to ``handle``."""

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
        elif scope["type"] == "http":
            await self.handle(scope, receive, send, time.perf_counter())

    @abstractmethod
    async def handle(self, scope: dict, receive: Callable, send: Callable, started: float) -> None:
        """Answer one HTTP request (``started``: its arrival, ``time.perf_counter()``)."""


class HttpGateway(_HttpApp):
    def __init__(self, template: Template, runtime: Runtime, log: Callable[[str], None] = print):
        self.routes = template.http_routes
        self.runtime = runtime
        self.log = log

    def match(self, method: str, path: str) -> tuple[Any, dict[str, str]] | None:
        for route in self.routes:
            if route.method not in ("ANY", method):
                continue
            m = route.regex.match(path)
            if m:
                return route, {k: unquote(v) for k, v in m.groupdict().items()}
        return None

    async def handle(self, scope: dict, receive: Callable, send: Callable, started: float) -> None:
        # Match on the path as sent (still percent-encoded), then decode path parameters, so an
        # encoded "/" stays inside one parameter.
        method = scope["method"]
        path = _raw_path(scope)
        found = self.match(method, path)
        if found is None:
            await _respond(send, 404, b'{"message":"Not Found"}')
            self.log(f"{method} {path} -> 404 (no route)")
            return
        route, params = found
        body = await _read_body(receive, MAX_HTTP_BODY)
        if body is None:
            await _respond(send, 413, b'{"message":"Request Entity Too Large"}')
            return
        client = scope.get("client") or ("127.0.0.1", 0)
        host = dict(_headers(scope)).get("host", "localhost")
        event = http_event(
            method, path, body=body, headers=_headers(scope),
            query=scope.get("query_string", b"").decode("latin-1"),
            route_key=route.route_key,
            path_parameters=params or None, source_ip=client[0], domain=host,
        )
        status = await _invoke_http(self.runtime, route.function, event, send,
                                    (500, b'{"message":"Internal Server Error"}'))
        self.log(f"{method} {path} -> {status} {route.function} {(time.perf_counter() - started) * 1000:.0f} ms")


class FunctionUrlGateway(_HttpApp):
    """A Lambda function URL: every method and path goes to one function, as a function URL event (domain
    ``<name>.lambda-url.<region>.on.aws``, so the function sees what it would deployed)."""

    def __init__(self, function: str, runtime: Runtime, log: Callable[[str], None] = print):
        self.function = function
        self.runtime = runtime
        self.log = log
        self.domain = f"{function.lower()}.lambda-url.{REGION}.on.aws"

    async def handle(self, scope: dict, receive: Callable, send: Callable, started: float) -> None:
        method = scope["method"]
        path = _raw_path(scope)
        body = await _read_body(receive, MAX_URL_BODY)
        if body is None:
            await _respond(send, 413, b'{"Message":"Request must be smaller than 6291456 bytes for the '
                                      b'InvokeFunction operation"}')
            return
        client = scope.get("client") or ("127.0.0.1", 0)
        event = function_url_event(method, path, body=body, headers=_headers(scope),
                                   query=scope.get("query_string", b"").decode("latin-1"), source_ip=client[0],
                                   domain=self.domain)
        status = await _invoke_http(self.runtime, self.function, event, send,
                                    (502, b'{"Message":"Internal Server Error"}'))
        self.log(f"{method} {path} -> {status} {self.function} (function URL) "
                 f"{(time.perf_counter() - started) * 1000:.0f} ms")


async def _lifespan(receive: Callable, send: Callable) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


@dataclass
class _Conn:
    send: Callable
    source_ip: str
    user_agent: str
    connected_at: float = field(default_factory=time.time)
    last_active: float = field(default_factory=time.time)
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    close_code: int = 1000


class WebSocketGateway:
    #: serve with ``uvicorn.Config(ws=gateway.ws_protocol)``: enforces the 32 KB frame limit
    ws_protocol = property(lambda self: frame_limited_protocol())

    def __init__(self, template: Template, runtime: Runtime, stage: str = "local",
                 log: Callable[[str], None] = print):
        self.routes = template.ws_routes
        self.selection = template.ws_selection
        self.runtime = runtime
        self.stage = stage
        self.log = log
        self.connections: dict[str, _Conn] = {}

    # -------- route selection: "$request.body.<field>" -------------------------------------
    def select_route(self, body: str) -> str | None:
        key = None
        expr = self.selection
        if expr.startswith("$request.body."):
            try:
                doc = limits.loads(body)  # a frame nested thousands deep selects $default, like any non-JSON
                for part in expr[len("$request.body."):].split("."):
                    doc = doc.get(part) if isinstance(doc, dict) else None
                key = doc if isinstance(doc, str) else None
            except ValueError:
                key = None
        if key and key in self.routes:
            return key
        return "$default" if "$default" in self.routes else None

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        elif scope["type"] == "http":
            await self._management(scope, receive, send)

    async def _websocket(self, scope: dict, receive: Callable, send: Callable) -> None:
        first = await receive()
        if first["type"] != "websocket.connect":
            return
        connection_id = new_connection_id()
        headers = dict(_headers(scope))
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        client = scope.get("client") or ("127.0.0.1", 0)
        conn = _Conn(send=send, source_ip=client[0], user_agent=headers.get("user-agent", ""))
        common = {"domain": headers.get("host", "localhost"), "stage": self.stage, "source_ip": client[0],
                  "connected_at": int(conn.connected_at * 1000)}
        if not await self._connect(connection_id, send, headers, query, common):
            return
        await send({"type": "websocket.accept"})
        self.connections[connection_id] = conn
        self.log(f"WS connect {connection_id}")
        closed = {"code": 1005, "reason": ""}
        tasks: set[asyncio.Task] = set()
        try:
            await self._messages(connection_id, conn, receive, send, common, tasks, closed)
        finally:
            self.connections.pop(connection_id, None)
            conn.closed.set()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
            if "$disconnect" in self.routes:
                event = ws_event("$disconnect", connection_id, disconnect_code=closed["code"],
                                 disconnect_reason=closed["reason"], **common)
                try:
                    await self.runtime.invoke(self.routes["$disconnect"], event)
                except FunctionError:
                    pass
            self.log(f"WS disconnect {connection_id} ({closed['code']})")

    async def _connect(self, connection_id: str, send: Callable, headers: dict[str, str], query: dict[str, str],
                       common: dict[str, Any]) -> bool:
        """The ``$connect`` route, if any: a status of 300 or more refuses the connection (close 1008)."""
        if "$connect" not in self.routes:
            return True
        event = ws_event("$connect", connection_id, headers=headers, query=query or None, **common)
        try:
            result = await self.runtime.invoke(self.routes["$connect"], event)
            status = int(result.get("statusCode", 200)) if isinstance(result, dict) else 200
        except FunctionError:
            status = 500
        if status >= 300:
            await send({"type": "websocket.close", "code": 1008})
            self.log(f"WS $connect {connection_id} refused ({status})")
            return False
        return True

    async def _messages(self, connection_id: str, conn: _Conn, receive: Callable, send: Callable,
                        common: dict[str, Any], tasks: set[asyncio.Task], closed: dict[str, Any]) -> None:
        """Each message to its route's function (as a task in ``tasks``) until the socket closes; ``closed``
        gets the close code and reason (1009 for a message over API Gateway's 128 KB)."""
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                closed["code"] = message.get("code", 1005)
                return
            text = message.get("text")
            if text is None and message.get("bytes") is not None:
                text = message["bytes"].decode("utf-8", "replace")
            if text is None:
                continue
            conn.last_active = time.time()
            if len(text.encode()) > MAX_WS_MESSAGE:
                closed.update(code=1009, reason="Message too big")
                await send({"type": "websocket.close", "code": 1009})
                return
            route = self.select_route(text)
            if route is None:
                await self._send(conn, json.dumps({"message": "Forbidden", "connectionId": connection_id}))
                continue
            task = asyncio.create_task(self._dispatch(route, ws_event(route, connection_id, body=text, **common)))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    async def _dispatch(self, route: str, event: dict) -> None:
        try:
            await self.runtime.invoke(self.routes[route], event)
        except FunctionError:
            pass

    async def _send(self, conn: _Conn, text: str) -> bool:
        if conn.closed.is_set():
            return False
        try:
            await conn.send({"type": "websocket.send", "text": text})
            return True
        except Exception:  # noqa: BLE001 - the socket went away under us
            return False

    async def _management(self, scope: dict, receive: Callable, send: Callable) -> None:
        # raw_path: connection ids are base64 and may contain "/" (sent as %2F)
        parts = [p for p in _raw_path(scope).split("/") if p]
        if "@connections" not in parts or parts.index("@connections") + 1 >= len(parts):
            await _respond(send, 404, b'{"message":"Not Found"}')
            return
        connection_id = unquote(parts[parts.index("@connections") + 1])
        method = scope["method"]
        conn = self.connections.get(connection_id)
        body = await _read_body(receive, MAX_WS_MESSAGE + 1)
        if conn is None:
            await _respond(send, 410, b'{"message":"Gone"}', [("x-amzn-errortype", "GoneException")])
            return
        if method == "POST":
            if body is None or len(body) > MAX_WS_MESSAGE:
                await _respond(send, 413, b'{"message":"Payload Too Large"}',
                               [("x-amzn-errortype", "PayloadTooLargeException")])
                return
            ok = await self._send(conn, body.decode("utf-8", "replace"))
            if not ok:
                await _respond(send, 410, b'{"message":"Gone"}', [("x-amzn-errortype", "GoneException")])
                return
            await _respond(send, 200, b"")
        elif method == "GET":
            doc = {
                "connectedAt": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(conn.connected_at)),
                "lastActiveAt": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(conn.last_active)),
                "identity": {"sourceIp": conn.source_ip, "userAgent": conn.user_agent},
            }
            await _respond(send, 200, json.dumps(doc).encode())
        elif method == "DELETE":
            try:
                await conn.send({"type": "websocket.close", "code": 1000})
            except Exception:  # noqa: BLE001
                pass
            conn.closed.set()
            await _respond(send, 204, b"", content_type=None)
        else:
            await _respond(send, 405, b'{"message":"Method Not Allowed"}')


class LambdaApi:
    """``POST /2015-03-31/functions/{name}/invocations`` as boto3's lambda client calls it."""

    def __init__(self, runtime: Runtime, log: Callable[[str], None] = print):
        from infra.local.scheduler import LocalScheduler

        self.runtime = runtime
        self.log = log
        # EventBridge Scheduler's one-time schedules share this port (AWS_ENDPOINT_URL_SCHEDULER)
        self.scheduler = LocalScheduler(runtime, log=log)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        raw_path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        parts = [p for p in raw_path.split("?", 1)[0].split("/") if p]
        if len(parts) == 2 and parts[0] == "schedules":
            body = await _read_body(receive, 256 * 1024) or b""
            status, doc, err = self.scheduler.handle(scope["method"], raw_path, body)
            await _respond(send, status, json.dumps(doc).encode(), [("x-amzn-errortype", err)] if err else None)
            return
        if len(parts) != 4 or parts[1] != "functions" or parts[3] != "invocations" or scope["method"] != "POST":
            await _respond(send, 404, b'{"message":"Not Found"}',
                           [("x-amzn-errortype", "ResourceNotFoundException")])
            return
        name = unquote(parts[2])
        headers = dict(_headers(scope))
        invocation_type = headers.get("x-amz-invocation-type", "RequestResponse")
        body = await _read_body(receive, 6 * 1024 * 1024) or b""
        try:
            payload = json.loads(body) if body else {}
        except ValueError:
            await _respond(send, 400, b'{"Type":"User","message":"Could not parse request body into json"}',
                           [("x-amzn-errortype", "InvalidRequestContentException")])
            return
        try:
            self.runtime.resolve(name)
        except FunctionNotFound as exc:
            await _respond(send, 404, json.dumps({"Type": "User", "message": str(exc)}).encode(),
                           [("x-amzn-errortype", "ResourceNotFoundException")])
            return
        if invocation_type == "Event":
            self.runtime.invoke_async(name, payload)
            await _respond(send, 202, b"")
            return
        if invocation_type == "DryRun":
            await _respond(send, 204, b"", content_type=None)
            return
        try:
            result = await self.runtime.invoke(name, payload)
            await _respond(send, 200, json.dumps(result).encode(), [("x-amz-executed-version", "$LATEST")])
        except FunctionError as exc:
            await _respond(send, 200, json.dumps(exc.payload).encode(),
                           [("x-amz-function-error", "Unhandled"), ("x-amz-executed-version", "$LATEST")])
