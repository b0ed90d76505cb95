"""FastAPI app factory and Lambda handler shared by the HTTP functions.

``create_app`` gives every function the same behaviour at the edges:

* errors are JSON in the protocol's own shape (``error_body``), never an HTML page or a stack trace:
  unknown route 404, wrong method 405, malformed JSON 400 naming the problem, body over the limit 413, body
  nested deeper than :data:`agenthost.limits.MAX_DEPTH` 400 naming the limit (checked before any parser runs),
  validation errors 400 naming the field, anything unexpected 500 without internals;
* every response carries ``x-request-id`` (taken from the request, the Lambda context, or new) and the
  request id is on every log line;
* Powertools Logger (JSON) and Metrics (EMF), created once per container; the Tracer (X-Ray)
  only where tracing is on (``tracer()``).

``make_handler`` wraps the app in Mangum for API Gateway HTTP API v2 events.

Example::

    from agenthost.webapp import create_app, make_handler
    app = create_app("runs")

    @app.get("/health")
    def health() -> dict: ...

    handler = make_handler(app)
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import threading
import time
import uuid
import warnings
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from mangum import Mangum
from starlette.exceptions import HTTPException as StarletteHTTPException

from agenthost import aws, invocation, limits, logs
from agenthost import deadline as deadlines
from agenthost.config import settings
from agenthost.errors import AgentHostError, BadInput

# Metrics are flushed after every invocation; a turn that recorded none is normal, not a warning.
warnings.filterwarnings("ignore", message="No application metrics to publish")

logger = Logger(service="agenthost", use_rfc3339=True)
metrics = Metrics(namespace="agenthost")

# CloudWatch Logs bills every byte ingested: a line keeps what identifies it (level, message, time, service,
# function_name, cold_start, request_id) and drops what repeats it (agenthost.logs.REPEATED_KEYS) and asyncio
# task names.
_access_notes: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("agenthost_access_notes",
                                                                                      default=None)


def annotate(**fields: Any) -> None:
    """Add ``fields`` to this request's access log line (one line per request: CloudWatch bills by the byte)
    instead of logging a line of their own. Outside a request they are logged at once."""
    notes = _access_notes.get()
    if notes is None:
        logger.info("annotation", extra=fields)
    else:
        notes.update(fields)
logging.logAsyncioTasks = False  # type: ignore[attr-defined]  # Python 3.12+
logs.trimmed(logger)

_tracer: Any = None


def tracing_enabled() -> bool:
    """X-Ray tracing runs only inside Lambda with tracing not disabled (the template sets Active)."""

    from agenthost.config import settings

    cfg = settings()
    return bool(cfg.lambda_function_name) and not cfg.trace_disabled


def tracer() -> Any:
    """The Powertools Tracer, created on first use: importing the X-Ray SDK costs ~200 ms of init,
    which only deployed functions with tracing on should pay (and SnapStart absorbs there)."""
    global _tracer
    if _tracer is None:
        from aws_lambda_powertools import Tracer

        _tracer = Tracer(service="agenthost")
    return _tracer

ErrorBody = Callable[[int, str, str], dict[str, Any]]

CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "bad_request",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


#: seconds a client is asked to wait (``Retry-After``) when the database is unavailable
RETRY_AFTER_S = 5


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` means the database (an AWS service) is unreachable, too slow, overloaded, throttling or
    missing its table: the request may succeed later, so it is answered 503 with ``Retry-After`` rather than
    500 (what an AWS error means is decided in one place: :func:`agenthost.aws.fault`)."""
    found = aws.fault(exc, "dynamodb")
    return found is not None and found.unavailable


UNAVAILABLE_MESSAGE = f"the service's database is unavailable right now; retry in {RETRY_AFTER_S} s"


def default_error_body(status: int, code: str, message: str) -> dict[str, Any]:
    """``{"error": code, "message": message}`` (the Proxy Server API's shape)."""
    return {"error": code, "message": message}


class ApiError(AgentHostError):
    """Raise from a route to answer ``status`` with the app's error shape and this message."""

    def __init__(self, status: int, message: str, code: str | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code or CODES.get(status, "error")
        self.message = message
        self.headers = headers or {}


def describe_validation_error(exc: RequestValidationError) -> str:
    """One readable sentence naming what is wrong with the request."""
    parts = []
    for err in exc.errors():
        if err.get("type") == "json_invalid":
            ctx = err.get("ctx") or {}
            detail = ctx.get("error") or err.get("msg", "invalid JSON")
            where = list(err.get("loc") or ())
            pos = where[1] if len(where) > 1 else None
            return f"Malformed JSON body: {detail}" + (f" at position {pos}" if pos is not None else "")
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path", "header")]
        field = ".".join(loc) if loc else "body"
        parts.append(f"{field}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


class _EdgeMiddleware:
    """Pure ASGI middleware: request id, body size limit, one access log line per request."""

    def __init__(self, app: Any, error_body: ErrorBody, max_body: int, max_depth: int | None = None):
        self.app = app
        self.error_body = error_body
        self.max_body = max_body
        self.max_depth = max_depth

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        ctx = scope.get("aws.context")
        request_id = (headers.get("x-request-id") or getattr(ctx, "aws_request_id", None)
                      or str(uuid.uuid4()))[:128]
        scope.setdefault("state", {})["request_id"] = request_id
        logs.add(logger, request_id=request_id)
        started = time.perf_counter()
        status_holder = {"status": 500}
        notes: dict[str, Any] = {}
        notes_token = _access_notes.set(notes)

        async def send_wrapper(message: dict) -> None:
            if message["type"] == "http.response.start":
                status_holder["status"] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [(b"x-request-id", request_id.encode())]
            await send(message)

        try:
            declared = int(headers.get("content-length", "0") or 0)
        except ValueError:
            declared = 0
        if declared > self.max_body:
            await self._too_large(send_wrapper)
        elif self.max_depth is not None and scope.get("method") not in ("GET", "HEAD", "OPTIONS"):
            await self._depth_checked(scope, receive, send_wrapper, headers.get("content-type", ""))
        else:
            await self._size_limited(scope, receive, send_wrapper)
        _access_notes.reset(notes_token)
        logger.info(
            "request",
            extra={
                **notes,
                "method": scope.get("method"),
                "path": scope.get("path"),
                "status": status_holder["status"],
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
            },
        )

    async def _size_limited(self, scope: dict, receive: Callable, send: Callable) -> None:
        """Hand the body to the app as it arrives, answering 413 once it passes the size limit."""
        received = 0

        async def receive_limited() -> dict:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise _BodyTooLarge()
            return message

        try:
            await self.app(scope, receive_limited, send)
        except _BodyTooLarge:
            await self._too_large(send)

    async def _depth_checked(self, scope: dict, receive: Callable, send: Callable, content_type: str) -> None:
        """Read the whole body (within the size limit), refuse it with 400 when it nests deeper than the
        depth limit (:mod:`agenthost.limits`), else hand it to the app as it arrived."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break  # the client went away: let the app see the disconnect
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_body:
                await self._too_large(send)
                return
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if self.max_depth is not None and "yaml" not in content_type.lower():
            try:
                limits.check_json(body, self.max_depth)
            except limits.TooDeep as exc:
                await self._send_json(send, 400, self.error_body(400, "bad_request", exc.message))
                return
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _send_json(self, send: Callable, status: int, doc: dict[str, Any]) -> None:
        body = json.dumps(doc).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def _too_large(self, send: Callable) -> None:
        body = json.dumps(self.error_body(
            413, "payload_too_large", f"request body exceeds {self.max_body} bytes")).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class _BodyTooLarge(BadInput):
    pass


def create_app(
    service: str,
    *,
    error_body: ErrorBody = default_error_body,
    max_body_bytes: int | None = None,
    max_depth: int | None = limits.MAX_DEPTH,
    **fastapi_kwargs: Any,
) -> FastAPI:
    """A FastAPI app with agenthost's JSON errors, request ids and body limits: size (413) and nesting depth
    (400 naming the limit; ``max_depth=None`` leaves depth to the app, as a webhook that must answer 200
    does)."""
    fastapi_kwargs.setdefault("title", f"agenthost {service}")
    fastapi_kwargs.setdefault("redoc_url", None)
    fastapi_kwargs.setdefault("docs_url", None)
    app = FastAPI(**fastapi_kwargs)
    app.state.service = service
    app.state.error_body = error_body
    _add_error_handlers(app, error_body)
    limit = max_body_bytes if max_body_bytes is not None else settings().max_body_bytes
    app.add_middleware(_EdgeMiddleware, error_body=error_body, max_body=limit, max_depth=max_depth)
    return app


def _add_error_handlers(app: FastAPI, error_body: ErrorBody) -> None:
    """Every error the app raises answered as JSON in ``error_body``'s shape: ours (:class:`ApiError`),
    Starlette's 404/405, validation (400 naming the field), AWS (503 with ``Retry-After`` when the database
    is unavailable, else 500), anything else 500 with the request id and no internals."""

    def respond(request: Request | None, status: int, code: str, message: str,
                headers: dict[str, str] | None = None) -> JSONResponse:
        # a message may quote the request (a field's name): text UTF-8 cannot carry (a lone surrogate from a
        # JSON escape) is written as its escape rather than failing the answer
        message = message.encode("utf-8", "backslashreplace").decode("utf-8")
        return JSONResponse(error_body(status, code, message), status_code=status, headers=headers)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return respond(request, exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        status = exc.status_code
        if status == 404 and exc.detail == "Not Found":
            message = f"no route for {request.method} {request.url.path}"
        elif status == 405:
            message = f"method {request.method} is not allowed on {request.url.path}"
        else:
            message = str(exc.detail)
        return respond(request, status, CODES.get(status, "error"), message,
                       dict(exc.headers) if exc.headers else None)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return respond(request, 400, "bad_request", describe_validation_error(exc))

    async def _aws_error(request: Request, exc: Exception) -> JSONResponse:
        if unavailable(exc):
            found = aws.fault(exc, "dynamodb")
            logger.warning("database unavailable", extra={"error_type": type(exc).__name__,
                                                          "reason": found.reason if found else ""})
            return respond(request, 503, "unavailable", UNAVAILABLE_MESSAGE, {"retry-after": str(RETRY_AFTER_S)})
        logger.exception("unhandled AWS error")
        rid = request.scope.get("state", {}).get("request_id", "")
        return respond(request, 500, "internal_error", f"internal error (request id {rid})")

    from botocore.exceptions import BotoCoreError, ClientError

    app.add_exception_handler(BotoCoreError, _aws_error)
    app.add_exception_handler(ClientError, _aws_error)
    app.add_exception_handler(aws.AwsFailure, _aws_error)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        if isinstance(exc, RecursionError):  # a body too deep for a parser the depth check did not cover
            return respond(request, 400, "bad_request", limits.TooDeep().message)
        logger.exception("unhandled error")
        rid = request.scope.get("state", {}).get("request_id", "")
        return respond(request, 500, "internal_error", f"internal error (request id {rid})")


_loops = threading.local()


def _ensure_event_loop() -> None:
    """Mangum drives the app with ``asyncio.get_event_loop()``; give each thread one loop, reused,
    and make it current again in case something (``asyncio.run``) unset it."""
    loop = getattr(_loops, "loop", None)
    if loop is None or loop.is_closed():
        loop = _loops.loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)


#: seconds kept back from the Lambda's own remaining time, for answering after the deadline
LAMBDA_MARGIN_S = 0.5


def request_deadline(budget_s: float, context: Any = None) -> deadlines.Deadline:
    """A request's deadline: ``budget_s`` from now, and never past the Lambda's own remaining time (less
    :data:`LAMBDA_MARGIN_S`) when the context says it."""
    seconds = float(budget_s)
    left = getattr(context, "get_remaining_time_in_millis", None)
    if callable(left):
        try:
            seconds = min(seconds, max(0.0, left() / 1000 - LAMBDA_MARGIN_S))
        except (TypeError, ValueError):
            pass
    return deadlines.Deadline.after(seconds)


def bounded(handler: Callable[[dict, Any], Any], budget_s: Callable[[], float] | None = None
            ) -> Callable[[dict, Any], Any]:
    """``handler`` with each invocation bound to a deadline (:func:`request_deadline`: ``budget_s()``, default
    the ``api_budget_s`` setting): for what wraps :func:`make_handler`'s handler and still talks to DynamoDB
    after it (a metering wrapper's counter write)."""
    budget = budget_s or (lambda: settings().api_budget_s)

    def bounded_handler(event: dict, context: Any) -> Any:
        with deadlines.bound(request_deadline(budget(), context)):
            return handler(event, context)

    return bounded_handler


def make_handler(
    app: FastAPI,
    *,
    other_events: Callable[[dict, Any], Any] | None = None,
    budget_s: Callable[[], float] | None = None,
) -> Callable[[dict, Any], Any]:
    """The Lambda handler for ``app``: HTTP API events go through Mangum; any other event shape (async
    invocations, timers) goes to ``other_events`` when given. Each HTTP request works to a deadline bound
    to it (:func:`agenthost.deadline.bound`): ``budget_s()`` seconds (default: the ``api_budget_s``
    setting), so every DynamoDB call it makes fits in that time and a database that never answers costs a
    503 within it; other events work to the Lambda's own remaining time."""
    _ensure_event_loop()
    mangum = Mangum(app, lifespan="off")
    service = app.state.service
    budget = budget_s or (lambda: settings().api_budget_s)

    @metrics.log_metrics(capture_cold_start_metric=not settings().local)
    def handler(event: dict, context: Any) -> Any:
        _ensure_event_loop()
        logs.bind(logger, service, context)  # per invocation, never the logger's shared state (agenthost.logs)
        invocation.arrived(event)  # a function URL's turns bill no API Gateway request
        if other_events is not None and not _is_http_event(event):
            with deadlines.bound(request_deadline(float("inf"), context)):
                return other_events(event, context)
        with deadlines.bound(request_deadline(budget(), context)):
            return mangum(event, context)

    if tracing_enabled():
        return tracer().capture_lambda_handler(handler)
    return handler


def _is_http_event(event: Any) -> bool:
    return isinstance(event, dict) and "requestContext" in event and (
        "http" in event.get("requestContext", {}) or "httpMethod" in event)
