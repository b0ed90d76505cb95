"""Browser function: Playwright + Chromium in a container image (``browser.app.handler``).

Event::

    {"session": {"id": "s1", "storage_state": {...}?, "url": "https://..."?},
     "actions": [{"tool": "navigate", "url": "..."}, {"tool": "click", "element": "Submit"}, ...],
     "observe": {"aria": true, "elements": true, "text": true, "screenshot": false},
     "timeout_ms": 3000}

Result::

    {"results": [{"ok": true} | {"ok": false, "error": "..."} | {"ok": true, "data": ...}],
     "observation": {"url", "title", "aria"?, "elements"?, "text"?, "screenshot"?},
     "session": {"id", "url", "storage_state"}}

Actions: ``navigate{url}``, ``click{element}``, ``type{element, text, clear?}``, ``select{element, option}``,
``check{element, checked?}``, ``scroll{direction, amount?}``, ``press{key, element?}``, ``wait{condition?,
timeout?}``, ``submit{element?}``, ``extract{selector?}``. ``element`` is a ``data-agent-id`` from the element
snapshot (``agent-7``), or a name resolved like the AI Olympics runner (button, link, text; textbox by
name, label, placeholder; combobox by name, label). Each action has a short timeout (3 s by default) and
reports its own error. One browser is reused per warm container (relaunched when it died); each session's
storage state and URL are saved to the table, so any container can resume it. Every navigation, redirect
hop and subrequest passes :mod:`agenthost.netguard`.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import threading
import time
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urljoin

from agenthost import netguard
from agenthost.agent.dom import observe as observe_page

LAUNCH_ARGS = ["--no-sandbox", "--no-zygote", "--disable-gpu", "--disable-dev-shm-usage",
               "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
DEFAULT_TIMEOUT_MS = 3000
MAX_SESSIONS = 4
SESSION_TTL_S = 24 * 3600
MAX_STATE_BYTES = 300_000
_GUARD_TTL_S = 60.0

# Sync Playwright objects belong to the thread that made them: all browser work runs on this one thread
# (a Lambda container handles one invocation at a time anyway; locally, calls queue like one container).
_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="browser")
_state: dict[str, Any] = {"pw": None, "browser": None, "launches": 0, "fetch_timeout_ms": 2 * DEFAULT_TIMEOUT_MS}
_sessions: OrderedDict[str, tuple[Any, Any]] = OrderedDict()  # id -> (context, page)
_guard_cache: dict[str, tuple[float, str | None]] = {}
_guard_lock = threading.Lock()
log = logging.getLogger("agenthost.browser")


class ActionError(Exception):
    pass


def handler(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """Lambda entry point (also invoked by the local stack's Lambda endpoint)."""
    if not isinstance(event, dict):
        return {"results": [], "observation": {}, "session": {}, "error": "event must be a JSON object"}
    return _worker.submit(_run, event).result()


# --------------------------------------------------------------------------- browser lifecycle

def chromium_path() -> str | None:
    path = os.environ.get("AGENTHOST_CHROMIUM", "").strip()
    if path:
        return path
    return shutil.which("chromium") or shutil.which("chromium-browser")


def browser() -> Any:
    b = _state["browser"]
    if b is not None and b.is_connected():
        return b
    _sessions.clear()  # contexts died with the browser
    if b is not None:
        try:
            b.close()
        except Exception as exc:  # noqa: BLE001 -it is already dead
            log.debug("ignored: %s", type(exc).__name__)
    pw = _state["pw"]
    if pw is None:
        from playwright.sync_api import sync_playwright

        pw = sync_playwright().start()
        _state["pw"] = pw
    try:
        b = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=LAUNCH_ARGS)
    except Exception:  # noqa: BLE001 - the driver itself may be gone: restart it once
        try:
            pw.stop()
        except Exception as exc:  # noqa: BLE001
            log.debug("ignored: %s", type(exc).__name__)
        from playwright.sync_api import sync_playwright

        pw = sync_playwright().start()
        _state["pw"] = pw
        b = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=LAUNCH_ARGS)
    _state["browser"] = b
    _state["launches"] += 1
    return b


def _forget_browser() -> None:
    """Drop a dead browser so that :func:`browser` launches a new one."""
    b = _state["browser"]
    _state["browser"] = None
    _sessions.clear()
    if b is not None:
        try:
            b.close()
        except Exception as exc:  # noqa: BLE001 - it is already dead
            log.debug("ignored: %s", type(exc).__name__)


def _guard_reason(url: str) -> str | None:
    """Why ``url`` may not be fetched (None when allowed); cached per origin for a minute."""
    if not re.match(r"^(https?|wss?)://", url, re.I):
        return None  # data:, blob:, about: stay inside the browser
    m = re.match(r"^([a-z]+://[^/?#]+)", url, re.I)
    origin = m.group(1).lower() if m else url
    now = time.monotonic()
    with _guard_lock:
        hit = _guard_cache.get(origin)
        if hit and now - hit[0] < _GUARD_TTL_S:
            return hit[1]
    try:
        netguard.check_url(url)
        reason = None
    except netguard.Blocked as exc:
        reason = exc.reason
    with _guard_lock:
        _guard_cache[origin] = (now, reason)
        if len(_guard_cache) > 500:
            _guard_cache.clear()
    return reason


def _route(route: Any) -> None:
    request = route.request
    url = request.url
    reason = _guard_reason(url)
    if reason is not None:
        route.abort("blockedbyclient")
        return
    if not request.is_navigation_request() or request.method != "GET":
        route.continue_()
        return
    # Navigations: follow redirect hops ourselves so that every hop is checked.
    current, hops = url, 0
    try:
        while True:
            resp = route.fetch(url=current, max_redirects=0, timeout=_state["fetch_timeout_ms"])
            location = resp.headers.get("location")
            if not (300 <= resp.status < 400 and location):
                break
            nxt = urljoin(current, location)
            if _guard_reason(nxt) is not None:
                route.abort("blockedbyclient")
                return
            current, hops = nxt, hops + 1
            if hops > 10:
                route.abort("failed")
                return
    except Exception:  # noqa: BLE001 - network errors surface in the page as a failed navigation
        route.abort("failed")
        return
    if hops == 0:
        route.fulfill(response=resp)
    else:  # send the browser straight to the checked final URL
        route.fulfill(status=302, headers={"Location": current})


def _new_session(sid: str, storage_state: dict[str, Any] | None) -> tuple[Any, Any]:
    ctx = browser().new_context(storage_state=storage_state or None, viewport={"width": 1280, "height": 900},
                                service_workers="block")
    ctx.route("**/*", _route)
    page = ctx.new_page()
    return ctx, page


def _session(sid: str, spec: dict[str, Any]) -> tuple[Any, Any, bool]:
    """(context, page, resumed?) for session ``sid``: the warm one, or one restored from its saved state."""
    found = _sessions.get(sid)
    if found is not None and _state["browser"] is not None and _state["browser"].is_connected() \
            and not found[1].is_closed():
        try:
            found[1].evaluate("1")  # a round trip: a killed Chromium is noticed here, not mid-action
            _sessions.move_to_end(sid)
            return found[0], found[1], False
        except Exception as exc:  # noqa: BLE001 - the browser or the page died: relaunch below
            log.debug("session page is dead: %s", type(exc).__name__)
            _forget_browser()
            _sessions.pop(sid, None)
    state = spec.get("storage_state")
    url = spec.get("url")
    if state is None or not url:
        saved = _load(sid)
        if saved:
            state = state if state is not None else saved.get("storage_state")
            url = url or saved.get("url")
    ctx, page = _new_session(sid, state if isinstance(state, dict) else None)
    _sessions[sid] = (ctx, page)
    while len(_sessions) > MAX_SESSIONS:
        _, (old_ctx, _) = _sessions.popitem(last=False)
        try:
            old_ctx.close()
        except Exception as exc:  # noqa: BLE001
            log.debug("ignored: %s", type(exc).__name__)
    if url and url != "about:blank":
        try:
            _navigate(page, str(url), DEFAULT_TIMEOUT_MS * 2)
        except ActionError:
            pass
    return ctx, page, True


# --------------------------------------------------------------------------- session storage

def _store() -> Any:
    from agenthost.store import Store

    return Store()


def _load(sid: str) -> dict[str, Any] | None:
    try:
        return _store().get(f"BROWSER#{sid}", "META")
    except Exception:  # noqa: BLE001 - no table: start fresh
        return None


def _save(sid: str, url: str, state: dict[str, Any]) -> None:
    import json

    if len(json.dumps(state)) > MAX_STATE_BYTES:
        state = {"cookies": state.get("cookies", []), "origins": []}
    try:
        _store().put({"pk": f"BROWSER#{sid}", "sk": "META", "url": url, "storage_state": state},
                     ttl_s=SESSION_TTL_S)
    except Exception as exc:  # noqa: BLE001 -the session still works in this container
        log.debug("ignored: %s", type(exc).__name__)


# --------------------------------------------------------------------------- actions

def _navigate(page: Any, url: str, timeout: int) -> None:
    reason = _guard_reason(url)
    if reason is not None:
        raise ActionError(f"blocked: {url} ({reason})")
    if not re.match(r"^https?://", url, re.I) and url != "about:blank":
        raise ActionError("url must be http(s)")
    _state["fetch_timeout_ms"] = timeout  # a navigation's redirect hops share its time budget
    try:
        page.goto(url, wait_until="domcontentloaded", timeout=timeout)
    except Exception as exc:  # noqa: BLE001
        msg = str(exc).splitlines()[0]
        if "ERR_BLOCKED_BY_CLIENT" in msg:
            raise ActionError(f"blocked: {url} redirects to a disallowed address") from None
        raise ActionError(f"navigation failed: {msg[:200]}") from None


def _first(*locators: Any) -> Any:
    for loc in locators:
        try:
            if loc.count() > 0:
                return loc.first
        except Exception as exc:  # noqa: BLE001
            log.debug("ignored: %s", type(exc).__name__)
            continue
    return None


def _by_id(page: Any, element: str) -> Any:
    if re.fullmatch(r"agent-\d+", element):
        loc = page.locator(f'[data-agent-id="{element}"]')
        if loc.count() == 0:
            raise ActionError(f"element {element} is gone (the page changed); observe again")
        return loc.first
    return None


def _target(page: Any, tool: str, element: str) -> Any:
    if not element:
        raise ActionError("element is required")
    found = _by_id(page, element)
    if found is not None:
        return found
    if tool == "click":
        found = _first(page.get_by_role("button", name=element), page.get_by_role("link", name=element),
                       page.get_by_text(element))
    elif tool == "type":
        found = _first(page.get_by_role("textbox", name=element), page.get_by_role("searchbox", name=element),
                       page.get_by_label(element), page.get_by_placeholder(element))
    elif tool == "select":
        found = _first(page.get_by_role("combobox", name=element), page.get_by_role("listbox", name=element),
                       page.get_by_label(element))
    elif tool == "check":
        found = _first(page.get_by_role("checkbox", name=element), page.get_by_role("radio", name=element),
                       page.get_by_role("switch", name=element), page.get_by_label(element))
    if found is None:
        raise ActionError(f"no element {element!r} on the page")
    return found


def _settle(page: Any) -> None:
    try:
        page.wait_for_load_state("domcontentloaded", timeout=1000)
    except Exception as exc:  # noqa: BLE001 -still loading: the observation shows what is there
        log.debug("ignored: %s", type(exc).__name__)


def run_action(page: Any, action: dict[str, Any], timeout: int) -> Any:
    """Run one action; returns data for ``extract`` (None otherwise); raises :class:`ActionError`."""
    tool = str(action.get("tool") or action.get("name") or "")
    args = action.get("args") if isinstance(action.get("args"), dict) else action
    t = int(args.get("timeout_ms") or timeout)
    element = str(args.get("element") or args.get("id") or "")
    try:
        if tool == "navigate":
            _navigate(page, str(args.get("url") or ""), int(args.get("timeout_ms") or 2 * timeout))
        elif tool == "click":
            _target(page, "click", element).click(timeout=t)
            _settle(page)
        elif tool == "type":
            loc = _target(page, "type", element)
            text = str(args.get("text") or "")
            if args.get("clear", True):
                loc.fill(text, timeout=t)
            else:
                loc.press_sequentially(text, timeout=t)
        elif tool == "select":
            loc = _target(page, "select", element)
            option = str(args.get("option") or args.get("text") or "")
            try:
                loc.select_option(label=option, timeout=t)
            except Exception:  # noqa: BLE001 - by value, then by a label containing the text
                labels = loc.evaluate("s => Array.from(s.options).map(o => o.text)")
                match = next((lb for lb in labels if option.lower() in lb.lower()), None)
                if match is None:
                    raise ActionError(f"no option {option!r} in {element!r}") from None
                loc.select_option(label=match, timeout=t)
        elif tool == "check":
            _target(page, "check", element).set_checked(bool(args.get("checked", True)), timeout=t)
        elif tool == "scroll":
            amount = int(args.get("amount") or 500)
            direction = str(args.get("direction") or "down").lower()
            dx, dy = {"up": (0, -amount), "down": (0, amount), "left": (-amount, 0), "right": (amount, 0)}.get(
                direction, (0, amount))
            page.mouse.wheel(dx, dy)
            page.wait_for_timeout(50)
        elif tool == "press":
            key = str(args.get("key") or "Enter")
            if element:
                _target(page, "click", element).press(key, timeout=t)
            else:
                page.keyboard.press(key)
            _settle(page)
        elif tool == "wait":
            cond = str(args.get("condition") or "load")
            wt = min(int(args.get("timeout") or t), 10_000)
            if cond in ("load", "domcontentloaded"):
                page.wait_for_load_state(cond, timeout=wt)
            elif cond in ("network", "networkidle"):
                page.wait_for_load_state("networkidle", timeout=wt)
            elif cond.isdigit():
                page.wait_for_timeout(min(int(cond), wt))
            else:
                page.wait_for_selector(cond, timeout=wt)
        elif tool == "submit":
            if element:
                _target(page, "click", element).click(timeout=t)
            else:
                ok = page.evaluate("""() => { const f = (document.activeElement && document.activeElement.form)
                    || document.querySelector('form'); if (!f) return false; f.requestSubmit(); return true; }""")
                if not ok:
                    raise ActionError("no form on the page")
            _settle(page)
        elif tool == "extract":
            sel = args.get("selector")
            if sel:
                return page.locator(str(sel)).first.inner_text(timeout=t)[:6000]
            return page.locator("body").inner_text(timeout=t)[:6000]
        else:
            raise ActionError(f"unknown tool {tool!r}")
    except ActionError:
        raise
    except Exception as exc:  # noqa: BLE001 - Playwright errors become the action's error
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "Timeout" in type(exc).__name__ or "Timeout" in msg:
            msg = f"{tool} timed out after {t} ms" + (f" on {element!r}" if element else "")
        raise ActionError(msg[:300]) from None
    return None


# --------------------------------------------------------------------------- one invocation

def _run(event: dict[str, Any]) -> dict[str, Any]:
    spec = event.get("session") if isinstance(event.get("session"), dict) else {}
    sid = str(spec.get("id") or uuid.uuid4())
    actions = event.get("actions") if isinstance(event.get("actions"), list) else []
    obs_spec = event.get("observe") if isinstance(event.get("observe"), dict) else \
        {"aria": True, "elements": True, "text": True}
    timeout = int(event.get("timeout_ms") or DEFAULT_TIMEOUT_MS)
    started = time.monotonic()
    try:
        ctx, page, resumed = _session(sid, spec)
    except Exception as exc:  # noqa: BLE001 - the browser died during start: one relaunch
        log.debug("relaunching the browser: %s", type(exc).__name__)
        _forget_browser()
        ctx, page, resumed = _session(sid, spec)
    results: list[dict[str, Any]] = []
    for action in actions[:20]:
        if not isinstance(action, dict):
            results.append({"ok": False, "error": "action must be an object"})
            continue
        try:
            data = run_action(page, action, timeout)
            results.append({"ok": True} if data is None else {"ok": True, "data": data})
        except ActionError as exc:
            results.append({"ok": False, "error": str(exc)})
            if not _state["browser"].is_connected():
                break
    observation: dict[str, Any] = {}
    try:
        observation = observe_page(page, aria=bool(obs_spec.get("aria")), elements=bool(obs_spec.get("elements")),
                                   text=bool(obs_spec.get("text")), screenshot=bool(obs_spec.get("screenshot")),
                                   timeout_ms=timeout)
    except Exception as exc:  # noqa: BLE001
        observation = {"url": page.url, "error": f"observe failed: {str(exc).splitlines()[0][:200]}"}
    state: dict[str, Any] = {}
    try:
        state = ctx.storage_state()
    except Exception as exc:  # noqa: BLE001
        log.debug("ignored: %s", type(exc).__name__)
    _save(sid, page.url, state)
    return {"results": results, "observation": observation,
            "session": {"id": sid, "url": page.url, "storage_state": state, "resumed": resumed},
            "elapsed_ms": int((time.monotonic() - started) * 1000)}


def reset_for_tests() -> None:
    """Close every session (keeps the browser)."""
    def close() -> None:
        for ctx, _ in list(_sessions.values()):
            try:
                ctx.close()
            except Exception as exc:  # noqa: BLE001
                log.debug("ignored: %s", type(exc).__name__)
        _sessions.clear()
    _worker.submit(close).result()
