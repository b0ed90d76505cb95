"""Werewolf Arena webhook (``specs/werewolf-arena-webhook.md``): ``POST /werewolf/turn``.

Handler: ``werewolf.app.handler``. The signature (``X-Werewolf-Signature: sha256=<hex>``, HMAC-SHA256
of the raw body under the agent's api key ``AGENTHOST_WEREWOLF_API_KEY`` / ``_PARAM``) is required
when a key is configured; a bad or missing one answers 401. Everything else answers 200 with a valid
object: a failure would stall the game and, three times in a row, get our webhook URL deleted.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from agenthost import metering, signing
from agenthost.config import secret
from agenthost.http import create_app, logger, make_handler
from werewolf.player import GENERIC, Policy, play
from werewolf.speech import Say

SIGNATURE_HEADER = "x-werewolf-signature"
TURN_BUDGET_S = 20.0

app = create_app("werewolf")
_store: Any = None


def get_store() -> Any:
    global _store
    if _store is None:
        from agenthost.store import Store

        _store = Store()
    return _store


def get_say() -> Say:
    lang = os.environ.get("AGENTHOST_WEREWOLF_LANGUAGE", "zh").strip().lower() or "zh"
    style = os.environ.get("AGENTHOST_WEREWOLF_PERSONALITY", "calm").strip().lower() or "calm"
    return Say(lang="en" if lang.startswith("en") else "zh", style=style)


def get_policy() -> Policy | None:
    """The LLM strategy when ``AGENTHOST_LLM`` names one and ``agenthost.llm`` is available."""
    try:
        from werewolf.llm_strategy import configured_policy
    except ImportError:
        return None
    return configured_policy()


@app.api_route("/werewolf/turn", methods=["POST"])
async def turn(request: Request) -> JSONResponse:
    started = time.monotonic()
    body = await request.body()
    key = secret("AGENTHOST_WEREWOLF_API_KEY")
    if key:
        try:
            signing.verify_request(key, body, request.headers.get(SIGNATURE_HEADER), window_s=None)
        except signing.SignatureError as exc:
            logger.warning("werewolf signature rejected", extra={"reason": exc.reason})
            return JSONResponse({"error": "unauthorized", "message": exc.reason}, status_code=401)
    try:
        raw = json.loads(body.decode("utf-8")) if body else {}
    except (UnicodeDecodeError, ValueError):
        logger.warning("werewolf turn body is not JSON; answering with a generic message")
        return JSONResponse(dict(GENERIC))
    agent = os.environ.get("AGENTHOST_WEREWOLF_AGENT_ID", "") or "werewolf"
    with metering.turn("werewolf", agent, decides=True) as usage:

        def decided(source: str) -> None:
            if source != "llm":
                usage.fallback("invalid" if source == "fallback" else "no_llm")

        # the usage counters ride along with the memory write (one round trip), see agenthost.metering
        outcome = play(raw, get_store(), say=get_say(), policy=get_policy(),
                       deadline=started + TURN_BUDGET_S, logger=logger, on_decided=decided, fold=usage.fold)
    turn_info = raw if isinstance(raw, dict) else {}
    logger.info("werewolf turn", extra={
        "game_id": str(turn_info.get("game_id", ""))[:64], "action_type": str(turn_info.get("action_type", ""))[:32],
        "round": turn_info.get("round") if isinstance(turn_info.get("round"), int) else None,
        "source": outcome.source, "problems": outcome.problems[:3],
        "duration_ms": round((time.monotonic() - started) * 1000, 2)})
    return JSONResponse(outcome.answer)


handler = make_handler(app)
