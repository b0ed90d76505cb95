"""Browser function: Playwright + Chromium in a container image (``browser.app.handler``).

Event::

    {"session": {"id": "s1", "storage_state": {...}?, "url": "https://..."?, "ephemeral": false?},
     "actions": [{"tool": "navigate", "url": "..."}, {"tool": "click", "element": "Submit"}, ...],
     "observe": {"aria": true, "elements": true, "text": true, "screenshot": false},
     "timeout_ms": 3000, "budget_ms": 20000?}

Result::

    {"results": [{"ok": true} | {"ok": false, "error": "..."} | {"ok": true, "data": ...}],
     "observation": {"url", "title", "aria"?, "elements"?, "text"?, "screenshot"?, "error"?},
     "session": {"id", "url", "storage_state", "resumed", "saved"}, "elapsed_ms", "error"?}

Actions: ``navigate{url}``, ``click{element}``, ``type{element, text, clear?}``, ``select{element, option}``,
``check{element, checked?}``, ``scroll{direction, amount?}``, ``press{key, element?}``, ``wait{condition?,
timeout?}``, ``submit{element?}``, ``extract{selector?}``, ``evaluate{script}`` (a JavaScript expression, a
function such as ``() => document.title``, or a function body using ``return``; its JSON value comes back
as ``data``; at most 10 s). ``element`` is a ``data-agent-id`` from the element snapshot (``agent-7``), or
a name resolved like the AI Olympics runner (button, link, text; textbox by name, label, placeholder;
combobox by name, label). Each action has a short timeout (3 s by default) and reports its own error.

Time: each invocation has a budget: the Lambda context's remaining time less a reserve for answering
(``AGENTHOST_BROWSER_BUDGET_S``, default 50 s, caps it, e.g. locally; ``budget_ms`` in the event lowers it).
Actions that no longer fit are reported as not run; a page whose script keeps its main thread busy is
closed and replaced by a fresh page of the same session (cookies and storage kept), and if a browser call
still has not returned at the budget, Chromium is killed (relaunched on the next call) so the invocation
answers in time.

One browser is reused per warm container (relaunched when it died); each session's storage state and URL
are saved to the table, so any container can resume it (never overwritten with an empty state when
Chromium could not give one). All of Chromium's traffic goes through :mod:`browser.egress`, a loopback
proxy that checks every connection with :mod:`agenthost.netguard` and connects to the checked address:
navigations, each redirect hop, subrequests (fetch/XHR, images, POSTs) and WebSockets alike.

This module is the handler and its time budget; the parts: :mod:`browser.lifecycle` (Playwright, Chromium,
the egress proxy, the watchdog's kill), :mod:`browser.sessions` (live, restored, saved),
:mod:`browser.actions` (the actions), :mod:`browser.pages` (pages that stop answering) and
:mod:`browser.invocation` (one event, on the browser thread).
"""

from __future__ import annotations

import time
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from browser.invocation import run
from browser.lifecycle import kill_browsers, log, worker

RESERVE_S = 6.0      # of the Lambda's remaining time, kept for the watchdog, the save and the answer
GRACE_S = 1.0        # past the budget before the watchdog kills Chromium
KILL_WAIT_S = 3.0    # for the worker to come back after the kill


def handler(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """Lambda entry point (also invoked by the local stack's Lambda endpoint)."""
    if not isinstance(event, dict):
        return {"results": [], "observation": {}, "session": {}, "error": "event must be a JSON object"}
    budget = _budget_s(event, context)
    deadline = time.monotonic() + budget
    fut = worker.submit(run, event, deadline)
    try:
        return fut.result(timeout=budget + GRACE_S)
    except FutureTimeout:
        pass
    # A browser call is stuck past the budget (one without its own timeout): kill Chromium so it returns.
    log.warning("browser call still running %.1fs past the budget; killing Chromium", GRACE_S)
    kill_browsers()
    error = f"the browser did not answer within the time budget ({budget:.0f} s); Chromium was restarted"
    try:
        out = fut.result(timeout=KILL_WAIT_S)
    except FutureTimeout:
        given = event.get("session")
        spec: dict[str, Any] = given if isinstance(given, dict) else {}
        return {"results": [], "observation": {}, "session": {"id": str(spec.get("id") or ""), "saved": False},
                "error": error}
    out["error"] = error
    return out


def _budget_s(event: dict[str, Any], context: Any) -> float:
    """Seconds this invocation may spend on browser work (see the module docstring)."""
    from agenthost.config import settings

    cap = settings().browser_budget_s
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if callable(remaining):
        try:
            cap = min(cap, remaining() / 1000.0 - RESERVE_S)
        except (TypeError, ValueError):
            pass
    asked = event.get("budget_ms")
    if isinstance(asked, (int, float)) and not isinstance(asked, bool) and asked > 0:
        cap = min(cap, asked / 1000.0)
    return max(cap, 1.0)
