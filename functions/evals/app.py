"""WebSocket evaluation server (``specs/websocket-evaluation-protocol.md``) and its admin HTTP API.

Handler: ``evals.app.handler`` serves

* the WebSocket API's ``$connect`` (optional ``?token=`` check), ``$default`` and ``$disconnect``;
* its own asynchronous follow-ups: ``{"agenthost": "welcome"}`` (a Lambda cannot post during
  ``$connect``: the socket is not open yet, so ``welcome`` is sent by an Event invocation of this
  function that retries briefly while the connection answers Gone), ``{"agenthost": "deadline"}``
  (one-time EventBridge Scheduler timers) and ``{"agenthost": "dispatch"}`` (retry backoff);
* the admin HTTP API ``/evals/*`` (HTTP API v2 events, see :mod:`evals.admin`).
"""

from __future__ import annotations

import hmac
import json
import os
import time
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from agenthost import aws, metering
from agenthost.config import secret
from agenthost.http import logger
from agenthost.store import Store, keys
from evals import connections
from evals.definitions import Catalog, definitions_dir, load_dir
from evals.judging import default_js_runner, default_llm_judge
from evals.server import Options, Server, forget_connection, stored_catalog
from evals.timers import Timers

SERVER_ID = os.environ.get("AGENTHOST_EVALS_SERVER_ID", "agenthost-evals")
VERSION = "1.0.0"
WELCOME_RETRY_S = 5.0


def _now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _self_function(context: Any) -> str:
    return os.environ.get("AGENTHOST_SELF_FUNCTION") or getattr(context, "function_name", "EvalsFunction")


def _timer_target(context: Any) -> str:
    arn = os.environ.get("AGENTHOST_EVALS_TIMER_TARGET", "").strip()
    if arn:
        return arn
    invoked = getattr(context, "invoked_function_arn", "") or ""
    return invoked if invoked.startswith("arn:") else _self_function(context)


@lru_cache(maxsize=4)
def packaged_catalog(root: str) -> Catalog:
    cat = load_dir(root)
    for err in cat.errors:
        logger.warning("evaluation definition skipped", extra={"problem": err})
    return cat


def catalog(store: Store, client_id: str | None = None) -> Catalog:
    return stored_catalog(store, packaged_catalog(str(definitions_dir())), client_id)


def _send(connection_id: str, message: dict[str, Any]) -> bool:
    try:
        connections.post(connection_id, message)
        return True
    except connections.Gone:
        return False


def build_server(context: Any = None, store: Store | None = None) -> Server:
    store = store or Store()
    return Server(store=store, send=_send, timers=Timers(_timer_target(context)),
                  catalog=lambda cid=None: catalog(store, cid), options=Options.from_env(),
                  js_runner=default_js_runner(), llm_judge=default_llm_judge(), close=connections.close)


def on_connect(event: dict, context: Any) -> dict:
    connection_id = event["requestContext"]["connectionId"]
    token = secret("AGENTHOST_EVALS_CONNECT_TOKEN")
    if token:
        offered = ((event.get("queryStringParameters") or {}).get("token") or "").encode()
        if not hmac.compare_digest(offered, token.encode()):
            return {"statusCode": 401, "body": "invalid or missing token"}
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
        except (connections.Gone, connections.SendFailed):
            if time.monotonic() + delay > stop:
                logger.warning("welcome not delivered: connection never opened")
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def on_disconnect(event: dict, context: Any) -> dict:
    connection_id = event["requestContext"]["connectionId"]
    forget_connection(connection_id)
    store = Store()
    conn = store.get(**keys.connection(connection_id))
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
    agent = os.environ.get("AGENTHOST_EVALS_AGENT_ID", "") or "evals"
    with metering.turn("evals", agent) as usage:
        usage.ws(messages=2)  # the client's message and (usually) one reply; WebSocket messages are billed both ways
        build_server(context).on_message(connection_id, raw)
    return {"statusCode": 200}


def handler(event: dict, context: Any) -> Any:
    kind = event.get("agenthost")
    if kind == "welcome":
        return {"delivered": send_welcome(event["connectionId"])}
    if kind == "deadline":
        expired = build_server(context).on_deadline(str(event["clientId"]), str(event["evalId"]),
                                                    str(event["rpcId"]))
        return {"expired": expired}
    if kind == "dispatch":
        return {"sent": build_server(context).dispatch(str(event["clientId"]))}
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
