"""Hosted browsing (beyond the spec): the server drives its own browser for a run.

``POST /agent/run/start`` with ``{"browser": "hosted", "startUrl": ...}`` creates the run and starts the
loop with an asynchronous invocation of this function. Each invocation is one short step, never a whole
run: it executes the tool the previous step decided in the browser function (``agenthost.browser``, one
session per run), turns the observation into the extension's ``PageSnapshot``, lets the run engine decide
(the same engine, brain, careful mode, loop and step limits as extension runs), and invokes itself again
for the next step. Progress is visible through ``GET /agent/run/{id}``. An ``ask_user`` stops the chain;
an approving ``/answer`` restarts it; a cancel, finish or error ends it.

Each event names the step it continues (``expect``); a duplicate or stale event (Lambda retries an async
invocation on error) finds the run elsewhere and does nothing, so no browser action runs twice.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from agenthost.http import ApiError, logger
from runs.models import StepRequest

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
    return os.environ.get("AGENTHOST_RUNS_SELF_FUNCTION", "").strip() or "RunsFunction"


def _invoke_next(event: dict[str, Any]) -> None:
    from agenthost import aws

    aws.client("lambda").invoke(FunctionName=self_function(), InvocationType="Event",
                                Payload=json.dumps(event).encode())


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
    """One hosted step (the body of one asynchronous invocation). Returns a small report."""
    from agenthost.browser import Browser, BrowserError

    run_id = str(event.get("runId", ""))
    expect = int(event.get("expect", 0))
    meta = engine.repo.load(run_id)
    if meta is None or meta.get("browser") != "hosted":
        return {"runId": run_id, "skipped": "unknown run"}
    if meta["status"] not in ("created", "running") or int(meta["current_step"]) != expect:
        return {"runId": run_id, "skipped": f"run is {meta['status']} at step {meta['current_step']}"}
    browser = browser or Browser()
    tool = event.get("tool") or {}
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
    snapshot = None
    if obs:
        snapshot = {"url": obs.get("url", ""), "title": obs.get("title", ""), "visibleText": obs.get("text", ""),
                    "elements": obs.get("elements") or [], "timestamp": int(time.time() * 1000)}
    browser_s = time.monotonic() - started
    if snapshot is None and not obs:
        # the browser is unavailable: end the run with a clear error rather than looping
        engine.fail_hosted(run_id, f"the hosted browser failed: {results[0].get('error') if results else 'no result'}")
        return {"runId": run_id, "error": "browser failed"}
    reply = engine.step(run_id, StepRequest.model_validate({"snapshot": snapshot, "lastActionResult": result}),
                        driver="hosted")
    if reply["action"] == "execute_tool" and reply["state"]["status"] == "running":
        _invoke_next({"kind": EVENT_KIND, "runId": run_id, "expect": reply["state"]["currentStep"],
                      "tool": reply["tool"]})
    return {"runId": run_id, "action": reply["action"], "step": reply["state"]["currentStep"],
            "browser_s": round(browser_s, 3)}
