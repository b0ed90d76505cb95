"""WebSocket evaluation server (``specs/websocket-evaluation-protocol.md``) and its admin HTTP API.

Handler: ``evals.app.handler`` serves

* the WebSocket API's ``$connect`` (optional ``?token=`` check), ``$default`` and ``$disconnect``;
* its own asynchronous follow-ups: ``{"agenthost": "welcome"}`` (a Lambda cannot post during
  ``$connect``: the socket is not open yet, so ``welcome`` is sent by an Event invocation of this
  function that retries briefly while the connection answers Gone), ``{"agenthost": "deadline"}``
  (one-time EventBridge Scheduler timers) and ``{"agenthost": "dispatch"}`` (retry backoff);
* the admin HTTP API ``/evals/*`` (HTTP API v2 events, see :mod:`evals.admin`).

Every WebSocket-side invocation is metered under protocol ``evals`` (agent ``AGENTHOST_EVALS_AGENT_ID``):
a client's message is a turn; ``$connect``, ``$disconnect``, welcome, deadline and dispatch invocations
are invocations only. WebSocket messages are counted as billed (the inbound message and every post, in
32 KB units) and ``$disconnect`` adds the connection minutes since ``connectedAt``.
"""

from __future__ import annotations

import hmac
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from agenthost import aws, logs, metering
from agenthost import deadline as deadlines
from agenthost.config import settings
from agenthost.items import keys
from agenthost.secrets import secret
from agenthost.store import Store
from agenthost.webapp import logger, request_deadline
from evals import connections
from evals.registry import forget_connection
from evals.runtime import build_server, self_function
from evals.server import Server

SERVER_ID = settings().evals_server_id
VERSION = "1.0.0"
WELCOME_RETRY_S = 5.0


def _now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _agent() -> str:
    return settings().evals_agent_id or "evals"


@contextmanager
def _metered(turn: bool = False) -> Iterator[metering.Turn]:
    """Meter one invocation under protocol ``evals``. Only a client's message is a turn; ``$connect``,
    ``$disconnect``, ``welcome``, deadline and dispatch invocations count as invocations (Lambda requests,
    duration, DynamoDB) with their WebSocket messages and connection minutes, not as turns."""
    with metering.turn("evals", _agent(), counts_as_turn=turn) as usage:
        yield usage


def on_connect(event: dict, context: Any) -> dict:
    connection_id = event["requestContext"]["connectionId"]
    with _metered():
        token = secret("AGENTHOST_EVALS_CONNECT_TOKEN")
        if token:
            offered = ((event.get("queryStringParameters") or {}).get("token") or "").encode()
            if not hmac.compare_digest(offered, token.encode()):
                return {"statusCode": 401, "body": "invalid or missing token"}
        aws.client("lambda").invoke(
            FunctionName=self_function(context),
            InvocationType="Event",
            Payload=json.dumps({"agenthost": "welcome", "connectionId": connection_id}).encode(),
        )
    return {"statusCode": 200}


def send_welcome(connection_id: str, deadline_s: float = WELCOME_RETRY_S) -> bool:
    """Post ``welcome``, retrying while the socket is not open yet. True when delivered."""
    stop = time.monotonic() + deadline_s
    delay = 0.05
    while True:
        try:
            connections.post(connection_id, {"type": "welcome", "serverId": SERVER_ID,
                                             "version": VERSION, "timestamp": _now_iso()})
            return True
        except (connections.Gone, connections.SendFailed):
            if time.monotonic() + delay > stop:
                logger.warning("welcome not delivered: connection never opened")
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def connection_minutes(request_context: dict[str, Any], now_s: float | None = None) -> float:
    """Minutes from ``connectedAt`` (epoch ms, in every WebSocket event) to now: what API Gateway bills as
    connection minutes for a connection that is closing."""
    try:
        connected_ms = float(request_context.get("connectedAt") or 0)
    except (TypeError, ValueError):
        return 0.0
    if connected_ms <= 0:
        return 0.0
    now_ms = (time.time() if now_s is None else now_s) * 1000
    return round(max(0.0, now_ms - connected_ms) / 60_000, 4)


def on_disconnect(event: dict, context: Any) -> dict:
    rc = event["requestContext"]
    connection_id = rc["connectionId"]
    forget_connection(connection_id)
    with _metered() as usage:
        usage.ws(connection_minutes=connection_minutes(rc))
        store = Store()
        conn = store.get(**keys.connection(connection_id))
        if conn and conn.get("clientId") and conn.get("state") == "registered" and \
                str(rc.get("disconnectStatusCode", "")) == "1009":
            # a frame over 32 KB (DevTools sends a big result as one frame): fail what was in flight now
            build_server(context, store).on_frame_too_big(connection_id, str(conn["clientId"]),
                                                          str(rc.get("disconnectReason") or ""))
        if conn and conn.get("clientId"):
            from agenthost.store import ConditionFailed

            try:
                store.update(**keys.client(str(conn["clientId"])), set_={"connectionId": "", "ready": False},
                             condition="connectionId = :c", values={":c": connection_id})
            except ConditionFailed:
                pass  # already rebound to a newer connection
        if conn:
            store.delete(**keys.connection(connection_id))
    return {"statusCode": 200}


def on_message(event: dict, context: Any) -> dict:
    connection_id = event["requestContext"]["connectionId"]
    raw = event.get("body") or ""
    if event.get("isBase64Encoded"):
        import base64

        raw = base64.b64decode(raw).decode("utf-8", "replace")
    with _metered(turn=True) as usage:
        server = build_server(context)
        try:
            server.on_message(connection_id, raw)
        finally:
            # billed both ways, in 32 KB units: the client's message and every post this turn made
            usage.ws(messages=connections.billed_units(len(raw.encode())) + server.billed_sent)
    return {"statusCode": 200}


def _server_invocation(context: Any, run: Callable[[Server], Any]) -> Any:
    """A timer or follow-up invocation (deadline, dispatch), metered with the messages it posted."""
    with _metered() as usage:
        server = build_server(context)
        try:
            return run(server)
        finally:
            usage.ws(messages=server.billed_sent)


def handler(event: dict, context: Any) -> Any:
    logs.bind(logger, "evals", context)  # this invocation's identity on every line (agenthost.logs)
    # every DynamoDB call ends before the Lambda's own time does (HTTP requests: the admin app's budget)
    with deadlines.bound(request_deadline(float("inf"), context)):
        return _handle(event, context)


def _handle(event: dict, context: Any) -> Any:
    kind = event.get("agenthost")
    if kind == "welcome":
        with _metered() as usage:
            delivered = send_welcome(event["connectionId"])
            usage.ws(messages=1 if delivered else 0)
        return {"delivered": delivered}
    if kind == "deadline":
        expired = _server_invocation(context, lambda s: s.on_deadline(
            str(event["clientId"]), str(event["evalId"]), str(event["rpcId"])))
        return {"expired": expired}
    if kind == "dispatch":
        return {"sent": _server_invocation(context, lambda s: s.on_dispatch(event))}
    rc = event.get("requestContext", {})
    if "http" in rc:
        from evals.admin import http_handler

        return http_handler(event, context)
    route = rc.get("routeKey")
    if route == "$connect":
        return on_connect(event, context)
    if route == "$disconnect":
        return on_disconnect(event, context)
    return on_message(event, context)
