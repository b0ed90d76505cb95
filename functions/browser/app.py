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
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import time
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from agenthost import netguard
from agenthost.agent.dom import observe as observe_page
from browser.egress import EgressProxy

# a switch Chromium ignores, naming this process's browsers so the watchdog can find (and kill) them
_MARKER = f"--agenthost-browser={os.getpid()}-{uuid.uuid4().hex[:8]}"
LAUNCH_ARGS = ["--no-sandbox", "--no-zygote", "--disable-gpu", "--disable-dev-shm-usage",
               "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
               # WebRTC may only use the proxy (no direct UDP to any address)
               "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
               "--webrtc-ip-handling-policy=disable_non_proxied_udp", _MARKER]
DEFAULT_TIMEOUT_MS = 3000
MAX_EVALUATE_MS = 10_000
MAX_DATA_CHARS = 100_000
MAX_SESSIONS = 4
SESSION_TTL_S = 24 * 3600
MAX_STATE_BYTES = 300_000
DEFAULT_BUDGET_S = 50.0
RESERVE_S = 6.0      # of the Lambda's remaining time, kept for the watchdog, the save and the answer
GRACE_S = 1.0        # past the budget before the watchdog kills Chromium
KILL_WAIT_S = 3.0    # for the worker to come back after the kill
OBSERVE_MS = 1500    # of the budget, kept for observing and saving after the actions
PROBE_MS = 800       # a responsive page answers a trivial script well within this

# Sync Playwright objects belong to the thread that made them: all browser work runs on this one thread
# (a Lambda container handles one invocation at a time anyway; locally, calls queue like one container).
_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="browser")
_state: dict[str, Any] = {"pw": None, "browser": None, "launches": 0, "kills": 0, "egress": None}
_sessions: OrderedDict[str, tuple[Any, Any]] = OrderedDict()  # id -> (context, page)
log = logging.getLogger("agenthost.browser")


class ActionError(Exception):
    pass


class PageStuck(ActionError):
    """The page's main thread stopped answering (a busy script)."""


def handler(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """Lambda entry point (also invoked by the local stack's Lambda endpoint)."""
    if not isinstance(event, dict):
        return {"results": [], "observation": {}, "session": {}, "error": "event must be a JSON object"}
    budget = _budget_s(event, context)
    deadline = time.monotonic() + budget
    fut = _worker.submit(_run, event, deadline)
    try:
        return fut.result(timeout=budget + GRACE_S)
    except FutureTimeout:
        pass
    # A browser call is stuck past the budget (one without its own timeout): kill Chromium so it returns.
    log.warning("browser call still running %.1fs past the budget; killing Chromium", GRACE_S)
    _kill_browsers()
    error = f"the browser did not answer within the time budget ({budget:.0f} s); Chromium was restarted"
    try:
        out = fut.result(timeout=KILL_WAIT_S)
    except FutureTimeout:
        spec = event.get("session") if isinstance(event.get("session"), dict) else {}
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


def _left_ms(deadline: float) -> int:
    return int((deadline - time.monotonic()) * 1000)


# --------------------------------------------------------------------------- browser lifecycle

HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"  # Debian's chromium-headless-shell package


def chromium_path() -> str | None:
    """``AGENTHOST_CHROMIUM``, else Debian's headless shell, else the full ``chromium``.

    The headless shell (Chromium's old headless mode, which Playwright itself uses for headless runs) opens a
    fresh context and its first page about four times faster than the full browser's headless mode and
    launches in a third of the time; pages, ARIA snapshots and the proxy behave the same."""
    from agenthost.config import settings

    path = settings().chromium.strip()
    if path:
        return path
    if os.access(HEADLESS_SHELL, os.X_OK):
        return HEADLESS_SHELL
    return (shutil.which("chromium-headless-shell") or shutil.which("chromium")
            or shutil.which("chromium-browser"))


def egress() -> EgressProxy:
    """The egress proxy (started once per process; restarted if its thread died)."""
    proxy = _state["egress"]
    if proxy is None or not proxy.alive():
        if proxy is not None:
            proxy.stop()
        proxy = EgressProxy().start()
        _state["egress"] = proxy
    return proxy


def _launch_args() -> list[str]:
    return [*LAUNCH_ARGS, f"--proxy-server={egress().url}", "--proxy-bypass-list=<-loopback>"]


def browser() -> Any:
    b = _state["browser"]
    proxy_ok = _state["egress"] is not None and _state["egress"].alive()
    if b is not None and b.is_connected() and proxy_ok:
        return b
    _sessions.clear()  # contexts died with the browser (or lose their proxy)
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
        b = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=_launch_args())
    except Exception:  # noqa: BLE001 - the driver itself may be gone: restart it once
        try:
            pw.stop()
        except Exception as exc:  # noqa: BLE001
            log.debug("ignored: %s", type(exc).__name__)
        from playwright.sync_api import sync_playwright

        pw = sync_playwright().start()
        _state["pw"] = pw
        b = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=_launch_args())
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


def _kill_browsers() -> int:
    """SIGKILL this process's Chromium browsers (found by their marker switch); any thread may call it.
    Playwright calls waiting on them then fail at once, and the next invocation relaunches."""
    marker = _MARKER.encode()
    killed = 0
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if marker in (d / "cmdline").read_bytes():
                os.kill(int(d.name), signal.SIGKILL)
                killed += 1
        except (OSError, ValueError):
            continue
    _state["kills"] += killed
    return killed


def clear_guard_cache() -> None:
    """Forget cached netguard answers (tests change the allow-list between cases)."""
    proxy = _state["egress"]
    if proxy is not None:
        proxy.clear_cache()


def _guard_reason(url: str) -> str | None:
    """Why ``url`` may not be opened (None when allowed); the same check the proxy makes."""
    if not re.match(r"^(https?|wss?)://", url, re.I):
        return None  # data:, blob:, about: stay inside the browser
    try:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme.lower() in ("https", "wss") else 80)
    except ValueError as exc:
        return f"malformed URL ({exc})"
    if not host:
        return "no host"
    try:
        egress().addresses(host, port)
    except netguard.Blocked as exc:
        return exc.reason
    return None


# --------------------------------------------------------------------------- pages that stop answering

def _responsive(page: Any, timeout_ms: int = PROBE_MS) -> bool:
    """Whether the page's main thread runs a trivial script within ``timeout_ms`` (raises if it is dead).

    One round trip in Playwright's utility world (the ARIA snapshot needs that world's script anyway);
    ``Locator.evaluate`` would take three (wait for the element, evaluate, dispose the handle) and load
    Playwright's script into the page's main world as well, on every new document."""
    from playwright.sync_api import TimeoutError as PwTimeout

    try:
        page.locator(":root").get_attribute("data-agenthost-probe", timeout=max(100, timeout_ms))
        return True
    except PwTimeout:
        return False


def _replace_page(sid: str) -> Any:
    """Close session ``sid``'s stuck page and give it a fresh one in the same context (cookies and storage
    stay)."""
    ctx, page = _sessions[sid]
    try:
        page.close(run_before_unload=False)
    except Exception as exc:  # noqa: BLE001 - closing a stuck page still frees it
        log.debug("ignored: %s", type(exc).__name__)
    fresh = ctx.new_page()
    _sessions[sid] = (ctx, fresh)
    return fresh


class _TimedPage:
    """The page as :func:`agenthost.agent.dom.observe` uses it, each script run only once the page answered
    within the timeout (``Page.evaluate`` and ``Page.title`` have none, and a busy page would hold them
    forever; ``Locator.evaluate``'s timeout, too, covers only finding the element, not the script)."""

    def __init__(self, page: Any, timeout_ms: int):
        self._page = page
        self._timeout = max(100, timeout_ms)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._page, name)

    def _answering(self) -> None:
        if not _responsive(self._page, self._timeout):
            from playwright.sync_api import TimeoutError as PwTimeout

            raise PwTimeout(f"Timeout {self._timeout}ms exceeded: the page is not responding (a busy script)")

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        self._answering()
        return self._page.evaluate(expression, arg)

    def title(self) -> str:
        self._answering()
        return str(self._page.title())


# --------------------------------------------------------------------------- sessions

def _new_session(sid: str, storage_state: dict[str, Any] | None) -> tuple[Any, Any]:
    ctx = browser().new_context(storage_state=storage_state or None, viewport={"width": 1280, "height": 900},
                                service_workers="block")
    page = ctx.new_page()
    return ctx, page


def _session(sid: str, spec: dict[str, Any], deadline: float) -> tuple[Any, Any, bool, str]:
    """(context, page, resumed?, note) for session ``sid``: the warm one, or one restored from its saved
    state. ``note`` says when a stuck page was replaced."""
    found = _sessions.get(sid)
    b = _state["browser"]
    if found is not None and b is not None and b.is_connected() and not found[1].is_closed():
        try:
            alive = _responsive(found[1], min(PROBE_MS, max(_left_ms(deadline), 100)))
            _sessions.move_to_end(sid)
            if alive:
                return found[0], found[1], False, ""
            stuck_url = found[1].url
            page = _replace_page(sid)
            return found[0], page, False, f"the page {stuck_url} stopped responding (a busy script); " \
                                          "it was closed and a fresh page opened"
        except Exception as exc:  # noqa: BLE001 - the browser or the page died: relaunch below
            log.debug("session page is dead: %s", type(exc).__name__)
            _forget_browser()
            _sessions.pop(sid, None)
    state = spec.get("storage_state")
    url = spec.get("url")
    if state is None or not url:
        saved = None if spec.get("ephemeral") else _load(sid)
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
            _navigate(page, str(url), max(100, min(DEFAULT_TIMEOUT_MS * 2, _left_ms(deadline) - OBSERVE_MS)))
        except ActionError:
            pass
    return ctx, page, True, ""


# --------------------------------------------------------------------------- session storage

def _store() -> Any:
    from agenthost.store import Store

    return Store()


def _load(sid: str) -> dict[str, Any] | None:
    try:
        return _store().get(f"BROWSER#{sid}", "META")
    except Exception:  # noqa: BLE001 - no table: start fresh
        return None


def _save(sid: str, url: str, state: dict[str, Any]) -> bool:
    if len(json.dumps(state)) > MAX_STATE_BYTES:
        state = {"cookies": state.get("cookies", []), "origins": []}
    try:
        _store().put({"pk": f"BROWSER#{sid}", "sk": "META", "url": url, "storage_state": state},
                     ttl_s=SESSION_TTL_S)
        return True
    except Exception as exc:  # noqa: BLE001 -the session still works in this container
        log.debug("ignored: %s", type(exc).__name__)
        return False


# --------------------------------------------------------------------------- actions

def _navigate(page: Any, url: str, timeout: int) -> None:
    if not re.match(r"^https?://", url, re.I) and url != "about:blank":
        reason = _guard_reason(url) if re.match(r"^wss?://", url, re.I) else None
        raise ActionError(f"blocked: {url} ({reason})" if reason else "url must be http(s)")
    reason = _guard_reason(url)
    if reason is not None:
        raise ActionError(f"blocked: {url} ({reason})")
    started = time.monotonic()
    try:
        resp = page.goto(url, wait_until="domcontentloaded", timeout=timeout)
    except Exception as exc:  # noqa: BLE001
        msg = str(exc).splitlines()[0]
        refused = egress().blocked_since(started)
        if refused and ("ERR_TUNNEL_CONNECTION_FAILED" in msg or "ERR_BLOCKED" in msg):
            raise ActionError(f"blocked: {url} redirects to a disallowed address ({refused[-1][1]})") from None
        if "Timeout" in type(exc).__name__ or "Timeout" in msg:
            _stop_loading(page)
            raise ActionError(f"navigation failed: Timeout {timeout} ms exceeded") from None
        raise ActionError(f"navigation failed: {msg[:200]}") from None
    if resp is not None:
        blocked = resp.headers.get("x-agenthost-blocked")
        if blocked:
            raise ActionError(f"blocked: {url} redirects to a disallowed address ({blocked})")
        failed = resp.headers.get("x-agenthost-error")
        if failed:
            raise ActionError(f"navigation failed: {failed}")


def _stop_loading(page: Any) -> None:
    """Cancel a navigation still waiting for its server, so the page keeps its current document
    (otherwise every later call waits for the late navigation to commit)."""
    try:
        page.context.new_cdp_session(page).send("Page.stopLoading")
    except Exception as exc:  # noqa: BLE001 - the next calls report what is wrong
        log.debug("ignored: %s", type(exc).__name__)


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
    # Locator.count() has no timeout: make sure the page answers before looking elements up
    if not _responsive(page):
        raise PageStuck(f"{tool} timed out: the page is not responding (a busy script)")
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


# The script's value as JSON (undefined -> null; a function is called; a promise awaited), raced against a
# timer; Runtime.evaluate's own ``timeout`` stops a script that never yields (``while (true) {}``).
_TIMEOUT_MARK = "__agenthost_evaluate_timeout__"
_EVAL_WRAP = ("Promise.race([Promise.resolve().then(async () => {{ {body} }}).then(v => v === undefined ? null : "
              "JSON.parse(JSON.stringify(v) ?? 'null')), new Promise((_, reject) => setTimeout(() => "
              "reject(new Error('" + _TIMEOUT_MARK + "')), {ms}))])")
_EVAL_EXPRESSION = "let v = await ({script}\n); if (typeof v === 'function') v = await v(); return v;"
_EVAL_BODY = "{script}\n"


def evaluate_script(page: Any, script: str, timeout_ms: int) -> Any:
    """Run ``script`` (expression, function or function body) in the page's main world; its JSON value.

    Raises :class:`ActionError` with the script's own error, or :class:`PageStuck` when the page does not
    answer or the script runs past ``timeout_ms``."""
    if not script.strip():
        raise ActionError("script is required")
    if len(script) > 20_000:
        raise ActionError("script is longer than 20000 characters")
    if not _responsive(page, min(PROBE_MS, timeout_ms)):
        raise PageStuck("the page is not responding (a busy script)")
    expression = script.strip().rstrip(";").strip()
    cdp = page.context.new_cdp_session(page)
    try:
        reply: dict[str, Any] = {}
        for form, text in ((_EVAL_EXPRESSION, expression), (_EVAL_BODY, script)):
            source = _EVAL_WRAP.format(body=form.format(script=text), ms=int(timeout_ms))
            reply = cdp.send("Runtime.evaluate", {"expression": source, "awaitPromise": True,
                                                  "returnByValue": True, "timeout": int(timeout_ms)})
            if not _compile_error(reply):
                break  # else: not an expression (nothing ran); try it as a function body with ``return``
    except Exception as exc:  # noqa: BLE001 - the page or the browser went away
        raise ActionError(f"script error: {str(exc).splitlines()[0][:300]}") from None
    finally:
        try:
            cdp.detach()
        except Exception as exc:  # noqa: BLE001
            log.debug("ignored: %s", type(exc).__name__)
    details = reply.get("exceptionDetails")
    if details:
        exc_obj = details.get("exception") or {}
        text = str(exc_obj.get("description") or details.get("text") or "the script failed")
        if _TIMEOUT_MARK in text or "terminated" in text.lower():
            raise PageStuck(f"evaluate timed out after {timeout_ms} ms")
        raise ActionError(f"script error: {text.splitlines()[0][:300]}")
    value = (reply.get("result") or {}).get("value")
    if len(json.dumps(value)) > MAX_DATA_CHARS:
        raise ActionError(f"the script's value is larger than {MAX_DATA_CHARS} characters of JSON")
    return value


def _compile_error(reply: dict[str, Any]) -> bool:
    """The source did not parse. Everything the script runs is inside the promise chain, so its own
    errors (a runtime SyntaxError from ``JSON.parse`` included) arrive as "Uncaught (in promise)"."""
    details = reply.get("exceptionDetails")
    if not details:
        return False
    exc_obj = details.get("exception") or {}
    return exc_obj.get("className") == "SyntaxError" and "(in promise)" not in str(details.get("text", ""))


class Data:
    """An action's data (``None`` included: ``evaluate`` may return null)."""

    def __init__(self, value: Any):
        self.value = value


def run_action(page: Any, action: dict[str, Any], timeout: int, limit_ms: int | None = None) -> Any:
    """Run one action; returns :class:`Data` for ``extract``/``evaluate`` (None otherwise); raises
    :class:`ActionError` (:class:`PageStuck` when the page stopped answering). ``timeout`` is the default
    per-action timeout (an action's ``timeout_ms`` overrides it), ``limit_ms`` what the budget has left."""
    tool = str(action.get("tool") or action.get("name") or "")
    args = action.get("args") if isinstance(action.get("args"), dict) else action
    cap = int(limit_ms) if limit_ms is not None else 10**9
    t = max(1, min(int(args.get("timeout_ms") or timeout), cap))
    element = str(args.get("element") or args.get("id") or "")
    try:
        if tool == "navigate":
            _navigate(page, str(args.get("url") or ""), max(1, min(int(args.get("timeout_ms") or 2 * timeout), cap)))
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
                labels = loc.evaluate("s => Array.from(s.options).map(o => o.text)", timeout=t)
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
            wt = max(1, min(int(args.get("timeout") or t), 10_000, cap))
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
                ok = page.locator(":root").evaluate("""() => { const f = (document.activeElement
                    && document.activeElement.form) || document.querySelector('form'); if (!f) return false;
                    f.requestSubmit(); return true; }""", timeout=t)
                if not ok:
                    raise ActionError("no form on the page")
            _settle(page)
        elif tool == "extract":
            sel = args.get("selector")
            if sel:
                return Data(page.locator(str(sel)).first.inner_text(timeout=t)[:6000])
            return Data(page.locator("body").inner_text(timeout=t)[:6000])
        elif tool == "evaluate":
            script = str(args.get("script") or args.get("expression") or "")
            et = max(1, min(int(args.get("timeout_ms") or timeout), MAX_EVALUATE_MS, cap))
            return Data(evaluate_script(page, script, et))
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

def _run(event: dict[str, Any], deadline: float) -> dict[str, Any]:
    spec = event.get("session") if isinstance(event.get("session"), dict) else {}
    sid = str(spec.get("id") or uuid.uuid4())
    ephemeral = bool(spec.get("ephemeral"))
    actions = event.get("actions") if isinstance(event.get("actions"), list) else []
    obs_spec = event.get("observe") if isinstance(event.get("observe"), dict) else \
        {"aria": True, "elements": True, "text": True}
    timeout = int(event.get("timeout_ms") or DEFAULT_TIMEOUT_MS)
    started = time.monotonic()
    try:
        ctx, page, resumed, note = _session(sid, spec, deadline)
    except Exception as exc:  # noqa: BLE001 - the browser died during start: one relaunch
        log.debug("relaunching the browser: %s", type(exc).__name__)
        _forget_browser()
        ctx, page, resumed, note = _session(sid, spec, deadline)
    notes = [note] if note else []
    results: list[dict[str, Any]] = []
    stuck = ""
    for action in actions[:20]:
        if not isinstance(action, dict):
            results.append({"ok": False, "error": "action must be an object"})
            continue
        if stuck:
            results.append({"ok": False, "error": f"not run: {stuck}"})
            continue
        limit = _left_ms(deadline) - OBSERVE_MS
        if limit < 100:
            results.append({"ok": False, "error": "not run: the invocation's time budget is spent"})
            continue
        try:
            data = run_action(page, action, timeout, limit)
            results.append({"ok": True} if data is None else {"ok": True, "data": data.value})
        except ActionError as exc:
            results.append({"ok": False, "error": str(exc)})
            b = _state["browser"]
            if b is None or not b.is_connected():
                stuck = "the browser stopped"
                continue
            if isinstance(exc, PageStuck) or "timed out" in str(exc):
                try:
                    if not _responsive(page, min(PROBE_MS, max(_left_ms(deadline), 100))):
                        stuck_url = page.url
                        page = _replace_page(sid)
                        stuck = "the page stopped responding (a busy script)"
                        notes.append(f"the page {stuck_url} stopped responding (a busy script); it was closed "
                                     "and a fresh page opened")
                except Exception as probe_exc:  # noqa: BLE001 - the browser died meanwhile
                    log.debug("probe failed: %s", type(probe_exc).__name__)
                    stuck = "the browser stopped"
    observation: dict[str, Any] = {}
    obs_ms = max(100, min(timeout, _left_ms(deadline) - 500))
    try:
        observation = observe_page(_TimedPage(page, obs_ms), aria=bool(obs_spec.get("aria")),
                                   elements=bool(obs_spec.get("elements")), text=bool(obs_spec.get("text")),
                                   screenshot=bool(obs_spec.get("screenshot")), timeout_ms=obs_ms)
    except Exception as exc:  # noqa: BLE001
        observation = {"url": _url(page), "error": f"observe failed: {str(exc).splitlines()[0][:200]}"}
        if "Timeout" in type(exc).__name__ or "Timeout" in str(exc):
            try:
                if not _responsive(page, min(PROBE_MS, max(_left_ms(deadline), 100))):
                    stuck_url = page.url
                    page = _replace_page(sid)
                    notes.append(f"the page {stuck_url} stopped responding (a busy script); it was closed "
                                 "and a fresh page opened")
            except Exception as probe_exc:  # noqa: BLE001
                log.debug("probe failed: %s", type(probe_exc).__name__)
    if notes:
        observation["error"] = "; ".join([*notes, *([observation["error"]] if "error" in observation else [])])
    state = _storage_state(sid, ctx, page, deadline)
    saved = False
    if ephemeral:
        _close_session(sid)
    elif state is not None:  # never replace a good saved session with an empty one
        saved = _save(sid, _url(page), state)
    out = {"results": results, "observation": observation,
           "session": {"id": sid, "url": _url(page), "storage_state": state, "resumed": resumed, "saved": saved},
           "elapsed_ms": int((time.monotonic() - started) * 1000)}
    return out


def _url(page: Any) -> str:
    try:
        return str(page.url)
    except Exception:  # noqa: BLE001
        return ""


def _storage_state(sid: str, ctx: Any, page: Any, deadline: float) -> dict[str, Any] | None:
    """The context's cookies and storage, or None when Chromium cannot give them (dead, or a page that
    does not answer: ``storage_state`` reads every open page and has no timeout of its own)."""
    try:
        if not page.is_closed() and not _responsive(page, min(PROBE_MS, max(_left_ms(deadline), 100))):
            _replace_page(sid)
        state = ctx.storage_state()
    except Exception as exc:  # noqa: BLE001 - Chromium died: keep what was saved before
        log.debug("no storage state: %s", type(exc).__name__)
        return None
    return state if isinstance(state, dict) else None


def _close_session(sid: str) -> None:
    found = _sessions.pop(sid, None)
    if found is not None:
        try:
            found[0].close()
        except Exception as exc:  # noqa: BLE001
            log.debug("ignored: %s", type(exc).__name__)


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
