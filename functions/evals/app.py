"""WebSocket evaluation server (``specs/websocket-evaluation-protocol.md``).

Handler: ``evals.app.handler`` behind the WebSocket API's ``$connect``/``$default``/``$disconnect``
routes. A Lambda cannot post to a connection during ``$connect`` (the socket is not open yet), so
``welcome`` is sent by an asynchronous follow-up invocation of this same function that retries briefly
while the connection answers Gone.
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from typing import Any

from agenthost import aws
from agenthost.http import logger
from evals import connections

SERVER_ID = os.environ.get("AGENTHOST_EVALS_SERVER_ID", "agenthost-evals")
VERSION = "1.0.0"
WELCOME_RETRY_S = 5.0


def _now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _self_function(context: Any) -> str:
    return os.environ.get("AGENTHOST_SELF_FUNCTION") or getattr(context, "function_name", "EvalsFunction")


def on_connect(event: dict, context: Any) -> dict:
    connection_id = event["requestContext"]["connectionId"]
    aws.client("lambda").invoke(
        FunctionName=_self_function(context),
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
        except connections.Gone:
            if time.monotonic() + delay > stop:
                logger.warning("welcome not delivered: connection never opened")
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def on_message(event: dict, context: Any) -> dict:
    connection_id = event["requestContext"]["connectionId"]
    raw = event.get("body") or ""
    try:
        message = json.loads(raw)
    except ValueError as exc:
        connections.post(connection_id, {"jsonrpc": "2.0", "id": None,
                                         "error": {"code": -32700, "message": f"Parse error: {exc}"}})
        return {"statusCode": 200}
    if isinstance(message, dict) and message.get("type") == "ping":
        connections.post(connection_id, {"type": "pong", "timestamp": _now_iso()})
        return {"statusCode": 200}
    connections.post(connection_id, {"jsonrpc": "2.0", "id": None,
                                     "error": {"code": -32600, "message": "Invalid Request: unknown message"}})
    return {"statusCode": 200}


def handler(event: dict, context: Any) -> Any:
    if event.get("agenthost") == "welcome":
        return {"delivered": send_welcome(event["connectionId"])}
    route = event.get("requestContext", {}).get("routeKey")
    if route == "$connect":
        return on_connect(event, context)
    if route == "$disconnect":
        return {"statusCode": 200}
    return on_message(event, context)
