"""The browser function's actions on a live page: ``navigate`` (netguard-checked, blocked redirects named),
``click``, ``type``, ``select``, ``check``, ``scroll``, ``press``, ``wait``, ``submit``, ``extract`` and
``evaluate`` (a script through CDP ``Runtime.evaluate`` with a timeout). An element is a ``data-agent-id``
from the element snapshot or a name resolved like the AI Olympics runner; each action has its own timeout
and reports its own error (:class:`ActionError`; :class:`PageStuck` when the page stopped answering)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agenthost.errors import AgentHostError
from browser.lifecycle import egress, guard_reason, log
from browser.pages import PROBE_MS, responsive

DEFAULT_TIMEOUT_MS = 3000
MAX_EVALUATE_MS = 10_000
MAX_DATA_CHARS = 100_000


class ActionError(AgentHostError):
    pass


class PageStuck(ActionError):
    """The page's main thread stopped answering (a busy script)."""


def navigate(page: Any, url: str, timeout: int) -> None:
    if not re.match(r"^https?://", url, re.I) and url != "about:blank":
        reason = guard_reason(url) if re.match(r"^wss?://", url, re.I) else None
        raise ActionError(f"blocked: {url} ({reason})" if reason else "url must be http(s)")
    reason = guard_reason(url)
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
    if not responsive(page):
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
    if not responsive(page, min(PROBE_MS, timeout_ms)):
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


@dataclass
class _Call:
    """One action's page, arguments and timeouts (``t``: this action's, ``timeout``: the default, ``cap``:
    what the budget has left)."""

    page: Any
    args: dict[str, Any]
    element: str
    t: int
    timeout: int
    cap: int


def run_action(page: Any, action: dict[str, Any], timeout: int, limit_ms: int | None = None) -> Any:
    """Run one action; returns :class:`Data` for ``extract``/``evaluate`` (None otherwise); raises
    :class:`ActionError` (:class:`PageStuck` when the page stopped answering). ``timeout`` is the default
    per-action timeout (an action's ``timeout_ms`` overrides it), ``limit_ms`` what the budget has left."""
    tool = str(action.get("tool") or action.get("name") or "")
    given = action.get("args")
    args: dict[str, Any] = given if isinstance(given, dict) else action
    cap = int(limit_ms) if limit_ms is not None else 10**9
    t = max(1, min(int(args.get("timeout_ms") or timeout), cap))
    element = str(args.get("element") or args.get("id") or "")
    run = _TOOLS.get(tool)
    try:
        if run is None:
            raise ActionError(f"unknown tool {tool!r}")
        return run(_Call(page, args, element, t, timeout, cap))
    except ActionError:
        raise
    except Exception as exc:  # noqa: BLE001 - Playwright errors become the action's error
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "Timeout" in type(exc).__name__ or "Timeout" in msg:
            msg = f"{tool} timed out after {t} ms" + (f" on {element!r}" if element else "")
        raise ActionError(msg[:300]) from None


def _navigate_action(c: _Call) -> None:
    navigate(c.page, str(c.args.get("url") or ""), max(1, min(int(c.args.get("timeout_ms") or 2 * c.timeout), c.cap)))


def _click(c: _Call) -> None:
    _target(c.page, "click", c.element).click(timeout=c.t)
    _settle(c.page)


def _type(c: _Call) -> None:
    loc = _target(c.page, "type", c.element)
    text = str(c.args.get("text") or "")
    if c.args.get("clear", True):
        loc.fill(text, timeout=c.t)
    else:
        loc.press_sequentially(text, timeout=c.t)


def _select(c: _Call) -> None:
    loc = _target(c.page, "select", c.element)
    option = str(c.args.get("option") or c.args.get("text") or "")
    try:
        loc.select_option(label=option, timeout=c.t)
    except Exception:  # noqa: BLE001 - by value, then by a label containing the text
        labels = loc.evaluate("s => Array.from(s.options).map(o => o.text)", timeout=c.t)
        match = next((lb for lb in labels if option.lower() in lb.lower()), None)
        if match is None:
            raise ActionError(f"no option {option!r} in {c.element!r}") from None
        loc.select_option(label=match, timeout=c.t)


def _check(c: _Call) -> None:
    _target(c.page, "check", c.element).set_checked(bool(c.args.get("checked", True)), timeout=c.t)


def _scroll(c: _Call) -> None:
    amount = int(c.args.get("amount") or 500)
    direction = str(c.args.get("direction") or "down").lower()
    dx, dy = {"up": (0, -amount), "down": (0, amount), "left": (-amount, 0), "right": (amount, 0)}.get(
        direction, (0, amount))
    c.page.mouse.wheel(dx, dy)
    c.page.wait_for_timeout(50)


def _press(c: _Call) -> None:
    key = str(c.args.get("key") or "Enter")
    if c.element:
        _target(c.page, "click", c.element).press(key, timeout=c.t)
    else:
        c.page.keyboard.press(key)
    _settle(c.page)


def _wait(c: _Call) -> None:
    cond = str(c.args.get("condition") or "load")
    wt = max(1, min(int(c.args.get("timeout") or c.t), 10_000, c.cap))
    if cond in ("load", "domcontentloaded"):
        c.page.wait_for_load_state(cond, timeout=wt)
    elif cond in ("network", "networkidle"):
        c.page.wait_for_load_state("networkidle", timeout=wt)
    elif cond.isdigit():
        c.page.wait_for_timeout(min(int(cond), wt))
    else:
        c.page.wait_for_selector(cond, timeout=wt)


def _submit(c: _Call) -> None:
    if c.element:
        _target(c.page, "click", c.element).click(timeout=c.t)
    else:
        ok = c.page.locator(":root").evaluate("""() => { const f = (document.activeElement
            && document.activeElement.form) || document.querySelector('form'); if (!f) return false;
            f.requestSubmit(); return true; }""", timeout=c.t)
        if not ok:
            raise ActionError("no form on the page")
    _settle(c.page)


def _extract(c: _Call) -> Data:
    sel = c.args.get("selector")
    if sel:
        return Data(c.page.locator(str(sel)).first.inner_text(timeout=c.t)[:6000])
    return Data(c.page.locator("body").inner_text(timeout=c.t)[:6000])


def _evaluate(c: _Call) -> Data:
    script = str(c.args.get("script") or c.args.get("expression") or "")
    et = max(1, min(int(c.args.get("timeout_ms") or c.timeout), MAX_EVALUATE_MS, c.cap))
    return Data(evaluate_script(c.page, script, et))


_TOOLS: dict[str, Callable[[_Call], Any]] = {
    "navigate": _navigate_action, "click": _click, "type": _type, "select": _select, "check": _check,
    "scroll": _scroll, "press": _press, "wait": _wait, "submit": _submit, "extract": _extract,
    "evaluate": _evaluate,
}
