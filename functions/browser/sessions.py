"""Browser sessions: a live context and page per session id in the warm container (at most
:data:`MAX_SESSIONS`, least recently used closed first), restored in any container from the state saved to
the table (``BROWSER#<id>``/``META``: cookies, storage and URL, kept a day), and saved after each invocation,
never overwritten with an empty state when Chromium could not give one."""

from __future__ import annotations

import json
from typing import Any

from browser.actions import DEFAULT_TIMEOUT_MS, ActionError, navigate
from browser.lifecycle import browser, forget_browser, log, sessions, state
from browser.pages import OBSERVE_MS, left_ms, probe_ms, replace_page, replaced_note, responsive

MAX_SESSIONS = 4
SESSION_TTL_S = 24 * 3600
MAX_STATE_BYTES = 300_000


def _new_session(storage_state: dict[str, Any] | None) -> tuple[Any, Any]:
    ctx = browser().new_context(storage_state=storage_state or None, viewport={"width": 1280, "height": 900},
                                service_workers="block")
    page = ctx.new_page()
    return ctx, page


def session(sid: str, spec: dict[str, Any], deadline: float) -> tuple[Any, Any, bool, str]:
    """(context, page, resumed?, note) for session ``sid``: the warm one, or one restored from its saved
    state. ``note`` says when a stuck page was replaced."""
    warm = _warm(sid, deadline)
    if warm is not None:
        return warm
    saved_state = spec.get("storage_state")
    url = spec.get("url")
    if saved_state is None or not url:
        saved = None if spec.get("ephemeral") else _load(sid)
        if saved:
            saved_state = saved_state if saved_state is not None else saved.get("storage_state")
            url = url or saved.get("url")
    ctx, page = _new_session(saved_state if isinstance(saved_state, dict) else None)
    sessions[sid] = (ctx, page)
    while len(sessions) > MAX_SESSIONS:
        _, (old_ctx, _) = sessions.popitem(last=False)
        try:
            old_ctx.close()
        except Exception as exc:  # noqa: BLE001
            log.debug("ignored: %s", type(exc).__name__)
    if url and url != "about:blank":
        try:
            navigate(page, str(url), max(100, min(DEFAULT_TIMEOUT_MS * 2, left_ms(deadline) - OBSERVE_MS)))
        except ActionError:
            pass
    return ctx, page, True, ""


def _warm(sid: str, deadline: float) -> tuple[Any, Any, bool, str] | None:
    """Session ``sid`` as this container still has it (its page replaced if stuck), or None."""
    found = sessions.get(sid)
    b = state["browser"]
    if found is None or b is None or not b.is_connected() or found[1].is_closed():
        return None
    try:
        alive = responsive(found[1], probe_ms(deadline))
        sessions.move_to_end(sid)
        if alive:
            return found[0], found[1], False, ""
        stuck_url = found[1].url
        page = replace_page(sid)
        return found[0], page, False, replaced_note(stuck_url)
    except Exception as exc:  # noqa: BLE001 - the browser or the page died: relaunch
        log.debug("session page is dead: %s", type(exc).__name__)
        forget_browser()
        sessions.pop(sid, None)
        return None


def storage_state(sid: str, ctx: Any, page: Any, deadline: float, notes: list[str]) -> dict[str, Any] | None:
    """The context's cookies and storage, or None when Chromium cannot give them (dead, or a page that
    does not answer: ``storage_state`` reads every open page and has no timeout of its own). A page that
    turned busy after it was observed is replaced first, and that is said in ``notes``."""
    try:
        if not page.is_closed() and not responsive(page, probe_ms(deadline)):
            stuck_url = page.url
            replace_page(sid)
            notes.append(replaced_note(stuck_url))
        found = ctx.storage_state()
    except Exception as exc:  # noqa: BLE001 - Chromium died: keep what was saved before
        log.debug("no storage state: %s", type(exc).__name__)
        return None
    return found if isinstance(found, dict) else None


def close_session(sid: str) -> None:
    found = sessions.pop(sid, None)
    if found is not None:
        try:
            found[0].close()
        except Exception as exc:  # noqa: BLE001
            log.debug("ignored: %s", type(exc).__name__)


# --------------------------------------------------------------------------- the table

def _store() -> Any:
    from agenthost.store import Store

    return Store()


def _load(sid: str) -> dict[str, Any] | None:
    try:
        return _store().get(f"BROWSER#{sid}", "META")
    except Exception:  # noqa: BLE001 - no table: start fresh
        return None


def save(sid: str, url: str, storage: dict[str, Any]) -> bool:
    """Save the session's URL and state for any container to resume (cookies only when the state is too big)."""
    if len(json.dumps(storage)) > MAX_STATE_BYTES:
        storage = {"cookies": storage.get("cookies", []), "origins": []}
    try:
        _store().put({"pk": f"BROWSER#{sid}", "sk": "META", "url": url, "storage_state": storage},
                     ttl_s=SESSION_TTL_S)
        return True
    except Exception as exc:  # noqa: BLE001 -the session still works in this container
        log.debug("ignored: %s", type(exc).__name__)
        return False
