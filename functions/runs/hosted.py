"""Hosted browsing (beyond the spec): the server drives its own browser for a run.

``POST /agent/run/start`` with ``{"browser": "hosted", "startUrl": ...}`` creates the run and starts the
loop with an asynchronous invocation of this function. Each invocation is one short step, never a whole
run: it executes the tool the previous step decided in the browser function (``agenthost.browser``, one
session per run), turns the observation into the extension's ``PageSnapshot``, lets the run engine decide
(the same engine, brain, careful mode, loop and step limits as extension runs), and invokes itself again
for the next step. Progress is visible through ``GET /agent/run/{id}``. An ``ask_user`` stops the chain;
an approving ``/answer`` restarts it; a cancel, finish or error ends it.

Each event names the step it continues (``expect``). Before its browser action an invocation claims that
step with a conditional write on the run (:meth:`RunEngine.claim_hosted`): a duplicate of the same event
(asynchronous delivery is at least once) or a stale one finds it claimed or the run elsewhere and does
nothing, so no browser action runs twice. A step that raises, or cannot schedule the next one, ends the
run with that error instead of leaving it "running"; a step that dies silently (a timeout) is ended by the
next ``GET`` once nothing moved for ``AGENTHOST_RUNS_HOSTED_STALL_S``. The template sets
``MaximumRetryAttempts: 0`` on the function's asynchronous invocations: a failed step is recorded, not
retried. Each step is one metered turn (``runs`` protocol, agent ``AGENTHOST_RUNS_AGENT_ID``).
"""

from __future__ import annotations

import json
import time
from typing import Any

from agenthost import metering
from agenthost.config import settings
from agenthost.webapp import ApiError, logger
from runs.models import END_STATES, StepRequest

EVENT_KIND = "agenthost.runs.hosted_step"


def available() -> bool:
    try:
        import agenthost.browser  # noqa: F401
    except ImportError:
        return False
    return True


def check_available() -> None:
    if not available():
        raise ApiError(501, "hosted browsing needs the browser function, which this deployment does not have; "
                            "start the run without \"browser\": \"hosted\" and drive it from the extension")


def self_function() -> str:
    return settings().runs_self_function.strip() or "RunsFunction"


def agent_id() -> str:
    """The agent name Proxy API turns are metered under."""
    return settings().runs_agent_id.strip() or "proxy"


def _invoke_next(event: dict[str, Any]) -> None:
    from agenthost import aws

    aws.client("lambda").invoke(FunctionName=self_function(), InvocationType="Event",
                                Payload=json.dumps(event).encode())


def refused(url: str, *, unresolved: bool = True) -> str | None:
    """Why netguard refuses the run's ``startUrl`` (a private or metadata address, a scheme, a host that does
    not resolve unless ``unresolved`` is false), or None. A refused start ends the run at once in ``error``
    instead of browsing nothing until the step limit."""
    from agenthost import netguard

    try:
        netguard.check_url(url)
    except netguard.Blocked as exc:
        if not unresolved and exc.reason.startswith("cannot resolve"):
            return None
        return exc.reason
    return None


def launch(run_id: str, req: Any) -> None:
    """Start the hosted loop of a new run (asynchronously)."""
    if not req.startUrl:
        raise ApiError(400, "startUrl is required with \"browser\": \"hosted\"")
    _invoke_next({"kind": EVENT_KIND, "runId": run_id, "expect": 0, "tool": None})


def resume(run_id: str, current_step: int) -> None:
    """After an approving answer (which moved the run to ``current_step``): continue the hosted loop."""
    _invoke_next({"kind": EVENT_KIND, "runId": run_id, "expect": current_step,
                  "tool": {"name": "observe", "parameters": {}}})


def is_hosted_event(event: Any) -> bool:
    return isinstance(event, dict) and event.get("kind") == EVENT_KIND


def browser_action(tool: dict[str, Any], select_ids: list[str] | None = None) -> dict[str, Any] | None:
    """The browser function's action for a Proxy API tool (None for observe)."""
    name = tool.get("name")
    p = dict(tool.get("parameters") or {})
    if name == "observe" or not name:
        return None
    if name in ("click", "type"):
        el_id = str(p.get("id", ""))
        if name == "type" and el_id in (select_ids or []):
            return {"tool": "select", "element": el_id, "option": str(p.get("text", ""))}
        out = {"tool": name, "element": el_id}
        if name == "type":
            out.update(text=str(p.get("text", "")), clear=bool(p.get("clear", True)))
        return out
    if name == "press":
        out = {"tool": "press", "key": str(p.get("key") or "Enter")}
        if p.get("id"):
            out["element"] = str(p["id"])
        return out
    if name == "navigate":
        return {"tool": "navigate", "url": str(p.get("url", ""))}
    if name == "scroll":
        return {"tool": "scroll", "direction": str(p.get("direction", "down")), "amount": p.get("amount", 600)}
    return None


def step(event: dict[str, Any], engine: Any, browser: Any = None) -> dict[str, Any]:
    """One hosted step (the body of one asynchronous invocation). Returns a small report; never raises
    for a failure of the step itself (it is recorded on the run)."""
    run_id = str(event.get("runId", ""))
    expect = int(event.get("expect", 0))
    meta, why = engine.claim_hosted(run_id, expect)
    if meta is None:
        return {"runId": run_id, "skipped": why}
    with metering.turn("runs", agent_id(), decides=True) as turn:
        try:
            return _act_and_decide(run_id, expect, meta, event.get("tool") or {}, engine, browser)
        except ApiError as exc:
            # the run moved on while the browser acted (cancelled, expired): nothing to record
            fresh = engine.repo.load(run_id)
            if exc.status in (404, 409) and (fresh is None or fresh["status"] in END_STATES
                                            or fresh["status"] == "waiting_user"):
                return {"runId": run_id, "skipped": exc.message}
            turn.error()
            error = f"hosted step {expect + 1} failed: {exc.message}"
        except Exception as exc:  # noqa: BLE001 - recorded on the run; an unrecorded failure would stall it
            turn.error()
            logger.warning("hosted step failed", extra={"run_id": run_id, "step": expect + 1,
                                                        "error_type": type(exc).__name__})
            error = f"hosted step {expect + 1} failed ({type(exc).__name__}: {str(exc)[:200]})"
    engine.fail_hosted(run_id, error)
    return {"runId": run_id, "error": error}


def _act_and_decide(run_id: str, expect: int, meta: dict[str, Any], tool: dict[str, Any], engine: Any,
                    browser: Any) -> dict[str, Any]:
    from agenthost.browser import Browser, BrowserError

    if expect == 0 and meta.get("start_url"):
        # checked at start too, but the name may point elsewhere now (a name that stopped resolving is the
        # browser's to report)
        why = refused(str(meta["start_url"]), unresolved=False)
        if why:
            error = f"startUrl refused: {why}"
            engine.fail_hosted(run_id, error)
            return {"runId": run_id, "error": error}
    browser = browser or Browser()
    action = browser_action(tool, meta.get("select_ids"))
    started = time.monotonic()
    try:
        out = browser.run(run_id, [action] if action else [], url=meta.get("start_url") if expect == 0 else None,
                          observe={"aria": False, "elements": True, "text": True, "screenshot": False})
    except BrowserError as exc:
        logger.warning("hosted step: browser failed", extra={"run_id": run_id})
        out = {"results": [{"ok": False, "error": str(exc)}], "observation": None}
    obs = out.get("observation") or {}
    results = out.get("results") or []
    result = None
    if tool:
        r = results[0] if (action and results) else {"ok": True}
        result = {"success": bool(r.get("ok")), "message": "Done" if r.get("ok") else None,
                  "error": r.get("error")}
    browser_s = time.monotonic() - started
    if not obs:
        # the browser is unavailable: end the run with a clear error rather than looping
        error = f"the hosted browser failed: {results[0].get('error') if results else 'no result'}"
        engine.fail_hosted(run_id, error)
        return {"runId": run_id, "error": error}
    snapshot = {"url": obs.get("url", ""), "title": obs.get("title", ""), "visibleText": obs.get("text", ""),
                "elements": obs.get("elements") or [], "timestamp": int(time.time() * 1000)}
    reply = engine.step(run_id, StepRequest.model_validate({"snapshot": snapshot, "lastActionResult": result}),
                        driver="hosted")
    if reply["action"] == "execute_tool" and reply["state"]["status"] == "running":
        try:
            _invoke_next({"kind": EVENT_KIND, "runId": run_id, "expect": reply["state"]["currentStep"],
                          "tool": reply["tool"]})
        except Exception as exc:  # noqa: BLE001
            error = f"could not schedule hosted step {reply['state']['currentStep'] + 1} ({type(exc).__name__})"
            engine.fail_hosted(run_id, error)
            return {"runId": run_id, "error": error}
    return {"runId": run_id, "action": reply["action"], "step": reply["state"]["currentStep"],
            "browser_s": round(browser_s, 3)}
