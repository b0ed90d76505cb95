"""AI Olympics webhook agent: ``POST /olympics/turn`` (``specs/ai-olympics-webhook.md``).

Handler: ``olympics.app.handler`` (API Gateway HTTP API, payload v2). A plain handler rather than a
FastAPI app: the signature is checked over the exact body bytes, the cold start stays small, and every
path below is written to answer 200 with a valid turn, except 401 for a bad or missing signature (any
other non-2xx would end the task on the platform at once).
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import Any

_IMPORTED = time.monotonic()  # start of the cold start: the 20 s budget includes it

from aws_lambda_powertools import Logger  # noqa: E402

from agenthost import deadline as deadlines  # noqa: E402
from agenthost import limits, logs, metering, signing  # noqa: E402
from agenthost.config import settings  # noqa: E402
from agenthost.deadline import Deadline  # noqa: E402
from olympics import auth  # noqa: E402
from olympics.auth import Caller  # noqa: E402
from olympics.memory import MemoryStore  # noqa: E402
from olympics.models import TurnRequest, TurnResponse  # noqa: E402
from olympics.turn import TurnStats, idle_response, play  # noqa: E402

logger = logs.trimmed(Logger(service="agenthost", use_rfc3339=True))
_cold = True
MAX_INIT_S = 10.0

JSON_HEADERS = {"content-type": "application/json", "cache-control": "no-store"}


def _respond(status: int, body: dict[str, Any]) -> dict[str, Any]:
    return {"statusCode": status, "headers": dict(JSON_HEADERS),
            "body": json.dumps(body, ensure_ascii=False, separators=(",", ":")), "isBase64Encoded": False}


def _raw_body(event: dict[str, Any]) -> bytes:
    raw = event.get("body") or ""
    if event.get("isBase64Encoded"):
        try:
            return base64.b64decode(raw, validate=True)
        except ValueError:
            return b""  # cannot be verified: answered 401 like any body whose signature does not match
    return raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)


def handler(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    global _cold
    now = time.monotonic()
    # A cold start's init counts against the budget; an import long before the first call (a SnapStart
    # snapshot restored later, a test process) is not a cold start of this request.
    started = _IMPORTED if _cold and 0 <= now - _IMPORTED <= MAX_INIT_S else now
    _cold = False
    logs.bind(logger, "olympics", context)  # this invocation's identity on every line (agenthost.logs)
    metering.arrived(event)  # through the function URL (WebhookFunctionUrls) no API request is billed
    try:
        return _handle(event, context, started)
    except Exception:  # noqa: BLE001 - the platform ends the task on any non-2xx: never fail
        logger.exception("olympics turn failed; answering an idle turn")
        return _respond(200, idle_response("internal error; waiting for the next turn"))


def _record_fallback(usage: Any, stats: TurnStats) -> None:
    # a user agent's fallback is metered by its guard (agenthost.plugins), with the reason; a replayed turn
    # decided nothing
    if stats.source not in ("llm", "agent", "agent+fallback", "replay"):
        usage.fallback((stats.llm_error or "no_llm").split(":", 1)[0])


def _handle(event: dict[str, Any], context: Any, started: float) -> dict[str, Any]:
    method = str(((event.get("requestContext") or {}).get("http") or {}).get("method") or "POST").upper()
    if method != "POST":
        # the platform only POSTs; anything else (a probe, a browser) gets a valid do-nothing turn: this
        # webhook never answers non-2xx except 401 for a bad signature
        return _respond(200, idle_response(f"this webhook plays turns sent with POST, not {method[:10]}"))
    raw = _raw_body(event)
    read = _read_turn(event, raw)
    if not isinstance(read, tuple):
        return read
    caller, request = read
    response, stats = _play(caller, request, raw, started)
    logger.info("olympics turn", extra=_line(caller, request, response, stats, started))
    return _respond(200, response.wire())


def _line(caller: Caller, request: TurnRequest, response: TurnResponse, stats: TurnStats,
          started: float) -> dict[str, Any]:
    """The turn's one log line (CloudWatch bills it by the byte): what every turn says, and what only some say
    when they say it (a test ping, dropped actions, an LLM or memory error, the rules that decided, and the
    budget's split when it is not the one a warm deterministic turn gets)."""
    line: dict[str, Any] = {"agent": caller.agent_id, "turn": request.turnNumber, "source": stats.source,
                            "actions": len(response.actions), "done": response.done,
                            "dynamodb_calls": stats.dynamodb_calls}
    optional = {"test_ping": caller.test_ping, "dropped": stats.dropped[:5], "llm_error": stats.llm_error,
                "memory_error": stats.memory_error, "rules": stats.rules}
    line.update({k: v for k, v in optional.items() if v})
    if stats.budget and stats.budget != _usual_budget():
        line["budget"] = stats.budget
    line["duration_ms"] = round((time.monotonic() - started) * 1000, 1)
    return line


def _usual_budget() -> str:
    """The budget's split a warm turn played by the deterministic policy gets (``olympics.turn.play``)."""
    cfg = settings()
    return Deadline.after(cfg.olympics_budget_s).reserve(cfg.guard_reserve_s, "guard and memory write").describe(
        "deterministic")


def _read_turn(event: dict[str, Any], raw: bytes) -> tuple[Caller, TurnRequest] | dict[str, Any]:
    """(the authenticated caller, the turn) or the response to send instead: 401 for a bad signature (checked
    before anything else is said about the body), else a valid do-nothing turn for a body we cannot play."""
    headers = {str(k).lower(): str(v) for k, v in (event.get("headers") or {}).items()}
    refused = ""
    try:
        body: Any = limits.loads(raw) if raw else None
    except limits.TooDeep as exc:
        body, refused = None, exc.message
    except ValueError:
        body = None
    try:
        caller = auth.authenticate(headers, raw, body)
    except signing.SignatureError as exc:
        logger.info("olympics request rejected", extra={"reason": exc.reason})
        return _respond(401, {"error": exc.reason})
    if refused:
        logger.info("olympics request refused", extra={"reason": refused})
        return _respond(200, idle_response(f"{refused}; nothing to do"))
    if not isinstance(body, dict):
        return _respond(200, idle_response("the request body is not a JSON object; nothing to do"))
    try:
        return caller, TurnRequest.model_validate(body)
    except ValueError as exc:
        logger.info("olympics request unreadable", extra={"error": str(exc)[:300]})
        return _respond(200, idle_response("the request could not be read; nothing to do"))


def _play(caller: Caller, request: TurnRequest, raw: bytes, started: float) -> tuple[TurnResponse, TurnStats]:
    """The turn, metered: its usage rides on the task memory's one write (``agenthost.metering``)."""
    memory_store = MemoryStore()
    try:
        memory_store.store.warm()  # the client exists before the turn, so metering counts its calls
    except Exception:  # noqa: BLE001, S110 - no client: the turn plays without memory
        pass
    deadline = Deadline.since(started, settings().olympics_budget_s)
    # every DynamoDB call of the turn (task memory, usage) finishes before the answer is due
    with deadlines.bound(deadline.reserve(settings().answer_reserve_s, "answer")), \
            metering.turn("olympics", caller.agent_id, decides=True, deadline=deadline) as usage:
        recorded = False

        def answered(stats: TurnStats) -> None:
            # recorded before the memory write, which then carries the turn's whole usage
            nonlocal recorded
            recorded = True
            _record_fallback(usage, stats)

        response, stats = play(
            request,
            caller.agent_id,
            memory_store=memory_store,
            deadline=deadline,
            answered=answered,
            digest=hashlib.sha256(raw).hexdigest()[:32],
        )
        if not recorded:
            _record_fallback(usage, stats)
    return response, stats
