"""One invocation of the browser function, on the browser thread: the session opened (the browser relaunched
once if it died meanwhile), the actions run while the budget allows (the rest reported as not run; after a
stuck page, none), the page observed, the session's state saved. A page that stopped answering is replaced by
a fresh one in the same context, and the observation's ``error`` says so."""

from __future__ import annotations

import time
import uuid
from typing import Any

from agenthost.agent.dom import observe as observe_page
from browser.actions import DEFAULT_TIMEOUT_MS, ActionError, PageStuck, run_action
from browser.lifecycle import forget_browser, log, sessions, state
from browser.pages import OBSERVE_MS, TimedPage, left_ms, probe_ms, replace_page, replaced_note, responsive
from browser.sessions import close_session, save, session, storage_state

MAX_ACTIONS = 20


class _Invocation:
    """What one event asked for, and the session it runs on."""

    def __init__(self, event: dict[str, Any], deadline: float):
        spec, actions, observe = event.get("session"), event.get("actions"), event.get("observe")
        self.spec: dict[str, Any] = spec if isinstance(spec, dict) else {}
        self.sid = str(self.spec.get("id") or uuid.uuid4())
        self.ephemeral = bool(self.spec.get("ephemeral"))
        self.actions: list[Any] = actions if isinstance(actions, list) else []
        self.observe: dict[str, Any] = observe if isinstance(observe, dict) else \
            {"aria": True, "elements": True, "text": True}
        self.timeout = int(event.get("timeout_ms") or DEFAULT_TIMEOUT_MS)
        self.deadline = deadline
        self.notes: list[str] = []
        self.ctx: Any = None
        self.page: Any = None

    def replace_if_stuck(self) -> bool:
        """Replace the page when it no longer answers (noted); whether it was replaced."""
        if responsive(self.page, probe_ms(self.deadline)):
            return False
        stuck_url = self.page.url
        self.page = replace_page(self.sid)
        self.notes.append(replaced_note(stuck_url))
        return True


def run(event: dict[str, Any], deadline: float) -> dict[str, Any]:
    inv = _Invocation(event, deadline)
    started = time.monotonic()
    try:
        inv.ctx, inv.page, resumed, note = session(inv.sid, inv.spec, deadline)
    except Exception as exc:  # noqa: BLE001 - the browser died during start: one relaunch
        log.debug("relaunching the browser: %s", type(exc).__name__)
        forget_browser()
        inv.ctx, inv.page, resumed, note = session(inv.sid, inv.spec, deadline)
    if note:
        inv.notes.append(note)
    results = _run_actions(inv)
    observation = _observe(inv)
    found = storage_state(inv.sid, inv.ctx, inv.page, deadline, inv.notes)
    if inv.sid in sessions:  # the page may have been replaced while the state was read
        inv.page = sessions[inv.sid][1]
    if inv.notes:
        observation["error"] = "; ".join([*inv.notes, *([observation["error"]] if "error" in observation else [])])
    saved = False
    if inv.ephemeral:
        close_session(inv.sid)
    elif found is not None:  # never replace a good saved session with an empty one
        saved = save(inv.sid, _url(inv.page), found)
    return {"results": results, "observation": observation,
            "session": {"id": inv.sid, "url": _url(inv.page), "storage_state": found, "resumed": resumed,
                        "saved": saved},
            "elapsed_ms": int((time.monotonic() - started) * 1000)}


def _run_actions(inv: _Invocation) -> list[dict[str, Any]]:
    """Each action's result; after a stuck page or a dead browser the rest are reported as not run."""
    results: list[dict[str, Any]] = []
    stuck = ""
    for action in inv.actions[:MAX_ACTIONS]:
        if not isinstance(action, dict):
            results.append({"ok": False, "error": "action must be an object"})
            continue
        if stuck:
            results.append({"ok": False, "error": f"not run: {stuck}"})
            continue
        limit = left_ms(inv.deadline) - OBSERVE_MS
        if limit < 100:
            results.append({"ok": False, "error": "not run: the invocation's time budget is spent"})
            continue
        try:
            data = run_action(inv.page, action, inv.timeout, limit)
            results.append({"ok": True} if data is None else {"ok": True, "data": data.value})
        except ActionError as exc:
            results.append({"ok": False, "error": str(exc)})
            stuck = _why_stopped(inv, exc)
    return results


def _why_stopped(inv: _Invocation, exc: ActionError) -> str:
    """After a failed action: why no further action can run ("" when they can)."""
    b = state["browser"]
    if b is None or not b.is_connected():
        return "the browser stopped"
    if not (isinstance(exc, PageStuck) or "timed out" in str(exc)):
        return ""
    try:
        return "the page stopped responding (a busy script)" if inv.replace_if_stuck() else ""
    except Exception as probe_exc:  # noqa: BLE001 - the browser died meanwhile
        log.debug("probe failed: %s", type(probe_exc).__name__)
        return "the browser stopped"


def _observe(inv: _Invocation) -> dict[str, Any]:
    """The page as the caller asked to see it; on failure its URL and the error (a stuck page replaced)."""
    obs_ms = max(100, min(inv.timeout, left_ms(inv.deadline) - 500))
    spec = inv.observe
    try:
        return observe_page(TimedPage(inv.page, obs_ms), aria=bool(spec.get("aria")),
                            elements=bool(spec.get("elements")), text=bool(spec.get("text")),
                            screenshot=bool(spec.get("screenshot")), timeout_ms=obs_ms)
    except Exception as exc:  # noqa: BLE001
        observation = {"url": _url(inv.page), "error": f"observe failed: {str(exc).splitlines()[0][:200]}"}
        if "Timeout" in type(exc).__name__ or "Timeout" in str(exc):
            try:
                inv.replace_if_stuck()
            except Exception as probe_exc:  # noqa: BLE001
                log.debug("probe failed: %s", type(probe_exc).__name__)
        return observation


def _url(page: Any) -> str:
    try:
        return str(page.url)
    except Exception:  # noqa: BLE001
        return ""
