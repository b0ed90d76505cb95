"""Werewolf Arena webhook (``specs/werewolf-arena-webhook.md``): ``POST /werewolf/turn``.

Handler: ``werewolf.app.handler``. The signature (``X-Werewolf-Signature: sha256=<hex>``, HMAC-SHA256
of the raw body under the agent's api key ``AGENTHOST_WEREWOLF_API_KEY`` / ``_PARAM``) is required
when a key is configured; a bad or missing one answers 401. Everything else answers 200 with a valid
object: a failure stalls the game and, three times in a row, gets our webhook URL deleted.

Never failing a turn, in detail:

* **The key cannot be fetched** (SSM/Secrets Manager down or slow on a cold start): the one secret
  resolver (``agenthost.secrets.secret``) bounds each fetch with its client's timeouts (1 s connect, 2 s
  read, 2 requests: about 4 s against a store that accepts and never answers, well inside the turn's
  budget, which started before the fetch); a fast failure is retried once within ``KEY_WAIT_S``. Then, if
  the request carries a well-formed signature header, answer **200 with the deterministic answer built
  from the payload alone**: no memory read or write and no LLM call, and an ERROR log line
  (``werewolf api key unavailable``). Why not 401: every real turn would then fail and after three the
  platform deletes our webhook URL, for an outage on our side. Why this is safe: an unverified request
  can neither read our stored game memory (our role, checks, teammates never reach the answer unless
  the payload itself says them) nor write to it, and costs no LLM tokens; all a forger gets is what
  the deterministic strategy makes of its own payload. A request with no signature header at all is
  not the platform's (it always signs) and still gets 401.
* **DynamoDB is slow**: the game memory goes through turn-sized clients (reads: 1 s connect, 2 s read,
  2 attempts; writes: 1 attempt), the decision (LLM included) must be ready ``werewolf_write_reserve_s``
  before the turn budget ends, and the memory write is skipped when less than that is left; metering's own
  write (a turn that changed no memory) is bounded too (1 s connect, 1 s read, one request) and skipped
  when the answer is due. A turn is answered within about ``werewolf_budget_s`` (settings) whatever
  DynamoDB does; the request's access line says how that budget was split.
* **Big bodies**: a late game's ``chat_history`` can pass 1 MB, so this function accepts bodies up to
  ``MAX_TURN_BYTES`` (the HTTP API's own limit; nothing larger can reach a Lambda) and plays them.
* **Any path**: the function URL sends every path here; like the AI Olympics webhook, a POST to any path
  is a turn and a GET/HEAD anywhere is the probe below (through the HTTP API only ``/werewolf/turn``
  reaches this function).
* **Other methods**: the platform only POSTs turns. A ``GET``/``HEAD`` (a reachability probe, a person
  with a browser) is not a turn: 200 with a short JSON description, nothing played. Other methods get
  the app's 405 JSON.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from agenthost import deadline as deadlines
from agenthost import limits, metering, signing
from agenthost.config import raw as raw_setting
from agenthost.config import settings
from agenthost.deadline import Deadline
from agenthost.errors import Unavailable
from agenthost.secrets import secret
from agenthost.webapp import annotate, create_app, logger, make_handler
from werewolf.player import GENERIC, Policy, play
from werewolf.speech import Say

SIGNATURE_HEADER = "x-werewolf-signature"
KEY_NAME = "AGENTHOST_WEREWOLF_API_KEY"
KEY_WAIT_S = 2.0          # fetching the api key (cold start only; cached afterwards)
MAX_TURN_BYTES = 10 * 1024 * 1024
PROBE = {"status": "ok", "message": "Werewolf Arena webhook: the platform POSTs signed turns here."}

# the depth limit is checked by the turn itself, after the signature: a too-deep body is a "nothing to do" 200
app = create_app("werewolf", max_body_bytes=MAX_TURN_BYTES, max_depth=None)
_store: Any = None


def get_store() -> Any:
    global _store
    if _store is None:
        from werewolf.memory import turn_store

        _store = turn_store()
    return _store


def get_say() -> Say:
    cfg = settings()
    lang = cfg.werewolf_language.strip().lower() or "zh"
    style = cfg.werewolf_personality.strip().lower() or "calm"
    return Say(lang="en" if lang.startswith("en") else "zh", style=style)


def get_policy() -> Policy | None:
    """The user's agent (``AGENTHOST_AGENT`` with ``decide_werewolf``, guarded), else the LLM strategy when
    ``AGENTHOST_LLM`` names one and ``agenthost.llm`` is available."""
    from werewolf.agent_policy import configured_policy as agent_policy

    agent = agent_policy()
    if agent is not None:
        return agent
    try:
        from werewolf.llm_strategy import configured_policy
    except ImportError:
        return None
    return configured_policy()


# ---------------------------------------------------------------------------------------------- the key

class KeyUnavailable(Unavailable):
    """A key is configured (``_PARAM``) but could not be fetched."""


def api_key(wait_s: float = KEY_WAIT_S) -> str:
    """The api key; ``""`` when none is configured; :class:`KeyUnavailable` when one is configured but
    the parameter store did not give it (one retry after a failure that came within ``wait_s``). Each fetch
    is bounded by the resolver's short-timeout client, so no thread of our own is needed to bound the wait."""
    if raw_setting(KEY_NAME) or not raw_setting(f"{KEY_NAME}_PARAM"):
        return secret(KEY_NAME)  # a literal key, or none: no I/O
    end = time.monotonic() + wait_s
    for attempt in range(2):
        try:
            return secret(KEY_NAME)
        except Exception as exc:  # noqa: BLE001 - any fetch failure: retry once, then degrade
            if attempt == 1 or time.monotonic() + 0.2 >= end:
                raise KeyUnavailable(type(exc).__name__) from exc
            time.sleep(0.2)
    raise KeyUnavailable("unreachable")  # pragma: no cover - the loop returns or raises


# ---------------------------------------------------------------------------------------------- routes

@app.api_route("/werewolf/turn", methods=["GET", "HEAD"])
async def probe(request: Request) -> Response:
    """Not a turn (the platform only POSTs): say what this URL is, play nothing."""
    if request.method == "HEAD":
        return Response(status_code=200, media_type="application/json")
    return JSONResponse(PROBE)


@app.api_route("/werewolf/turn", methods=["POST"])
async def turn(request: Request) -> JSONResponse:
    cfg = settings()
    turn_deadline = Deadline.after(cfg.werewolf_budget_s)
    body = await request.body()
    verified, refused = _authenticate(body, request.headers.get(SIGNATURE_HEADER))
    if refused is not None:
        return refused
    try:
        raw = limits.loads(body.decode("utf-8")) if body else {}
    except limits.TooDeep as exc:
        logger.warning("werewolf turn body refused; answering with a generic message", extra={"reason": exc.message})
        return JSONResponse(dict(GENERIC))
    except (UnicodeDecodeError, ValueError):
        logger.warning("werewolf turn body is not JSON; answering with a generic message")
        return JSONResponse(dict(GENERIC))
    store = get_store()
    try:
        store.warm()  # the clients exist before the turn opens, so metering counts their calls
    except Exception:  # noqa: BLE001 - no client: the turn plays without memory
        store = None
    # game memory only for a verified request
    memory_store = store if verified else None
    # every DynamoDB call of the turn (memory, usage) finishes before the answer is due
    with deadlines.bound(turn_deadline.reserve(cfg.answer_reserve_s, "answer")), \
            metering.turn("werewolf", cfg.werewolf_agent_id or "werewolf", decides=True,
                          deadline=turn_deadline) as usage:
        policy = get_policy() if verified else None
        # the turn's usage rides on the memory write when there is one (agenthost.metering), else metering
        # adds it with one write of its own
        outcome = play(raw, memory_store, say=get_say(), policy=policy,
                       deadline=(decide_by := turn_deadline.reserve(cfg.werewolf_write_reserve_s,
                                                                    "memory write")),
                       save_by=decide_by,
                       logger=logger, on_decided=_metered(usage, policy),
                       digest=hashlib.sha256(body).hexdigest()[:32] if verified else "")
    turn_info = raw if isinstance(raw, dict) else {}
    annotate(  # on the request's one access line
        game_id=str(turn_info.get("game_id", ""))[:64], action_type=str(turn_info.get("action_type", ""))[:32],
        round=turn_info.get("round") if isinstance(turn_info.get("round"), int) else None,
        source=outcome.source, problems=outcome.problems[:3], verified=verified, budget=outcome.budget)
    return JSONResponse(outcome.answer)


def _authenticate(body: bytes, header: str | None) -> tuple[bool, JSONResponse | None]:
    """(verified, the 401 to answer or None). Unverified but answered: the key could not be fetched and the
    request carries a well-formed signature (see the module docstring)."""
    try:
        key = api_key()
    except KeyUnavailable as exc:
        if not _looks_signed(header):
            logger.warning("werewolf signature rejected", extra={"reason": "missing signature"})
            return False, JSONResponse({"error": "unauthorized", "message": "missing signature"}, status_code=401)
        logger.error("werewolf api key unavailable; answering from the payload alone (no memory, no LLM)",
                     extra={"reason": str(exc)})
        return False, None
    if key:
        try:
            signing.verify_request(key, body, header, window_s=None)
        except signing.SignatureError as exc:
            logger.warning("werewolf signature rejected", extra={"reason": exc.reason})
            return False, JSONResponse({"error": "unauthorized", "message": exc.reason}, status_code=401)
    return True, None


def _metered(usage: Any, policy: Policy | None) -> Any:
    """The player's ``on_decided(source, policy_error)``: counts an agent's answer, or why we fell back."""

    def decided(source: str, policy_error: str = "") -> None:
        if source == "agent":
            usage.answered()
        if source in ("llm", "agent"):
            return
        if policy is not None and policy.name == "agent":  # the user's agent was not used: why
            usage.fallback("agent_" + (policy_error.split(":", 1)[0] or "invalid"))
        else:
            usage.fallback("invalid" if source == "fallback" else "no_llm")

    return decided


# The function URL delivers every path to this one function, and the platform POSTs to whatever URL it was
# given: like the AI Olympics webhook, any path answers the webhook (the HTTP API routes only /werewolf/turn).
app.add_api_route("/{path:path}", probe, methods=["GET", "HEAD"], include_in_schema=False)
app.add_api_route("/{path:path}", turn, methods=["POST"], include_in_schema=False)


def _looks_signed(header: str | None) -> bool:
    """A well-formed ``sha256=<64 hex>`` (or bare hex) header: what the platform always sends."""
    value = (header or "").strip()
    if value.lower().startswith("sha256="):
        value = value[7:]
    return len(value) == 64 and all(c in "0123456789abcdefABCDEF" for c in value)


handler = make_handler(app, budget_s=lambda: settings().werewolf_budget_s)
