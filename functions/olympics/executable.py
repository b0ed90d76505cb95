"""What the AI Olympics runner can execute: whatever a policy (LLM or deterministic) proposes, only actions
the runner can carry out leave the webhook (the web guard's rules, :mod:`agenthost.agent.web_guard`, ran before).

Rules (spec + field notes): at most 10 actions; only tools offered this turn; every ``element`` present in
the current tree under the runner's resolution rules; ``submit`` only with ``form``; scroll only up/down;
no script-like text anywhere in an action; a batch ends after an action that changes the page (navigate,
submit, a click on a button or link) because later names would no longer be on the page.

Actions come as the brain's neutral :class:`~agenthost.agent.Action` (sent in the runner's form,
``to_olympics``) or as plain ``{"tool", "args"}`` dicts. A target the brain already resolved on this page
(``resolved``, its name the one that reaches it: :func:`agenthost.agent.guards.check_actions`) is not
resolved again; only names nobody resolved are looked up the way the runner does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from agenthost.agent import address
from agenthost.agent.aria import from_aria
from agenthost.agent.page import Element, Page
from olympics.models import MAX_ACTIONS, Action

_SCRIPTY = re.compile(
    r"eval\s*\(|<\s*script|onerror\s*=|onload\s*=|process\.env|javascript\s*:|document\.cookie"
    r"|\bnew\s+Function\s*\(|[A-Za-z0-9+/]{120,}={0,2}",
    re.IGNORECASE,
)
_PAGE_CHANGING_CLICK_ROLES = ("button", "link", "menuitem", "tab")
MAX_TEXT = 2000


def scripty(value: Any) -> bool:
    """True when any string inside ``value`` looks like script (the runner blocks such actions)."""
    if isinstance(value, str):
        return bool(_SCRIPTY.search(value))
    if isinstance(value, dict):
        return any(scripty(k) or scripty(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(scripty(v) for v in value)
    return False


def without_script(text: str) -> str:
    """``text`` with what the runner would block as script replaced by ``[removed]``."""
    return _SCRIPTY.sub("[removed]", text) if _SCRIPTY.search(text) else text


@dataclass
class Verdict:
    actions: list[Action] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # one short reason per dropped action


def _str(args: dict[str, Any], key: str) -> str:
    v = args.get(key)
    return v.strip() if isinstance(v, str) else ("" if v is None else str(v).strip())


def _http_url(url: str) -> bool:
    p = urlparse(url)
    return p.scheme in ("http", "https") and bool(p.netloc)


def runner_hit(page: Page, tool: str, element: str) -> Any:
    """The element the runner would act on for ``element`` (:func:`agenthost.agent.address.runner_hit`)."""
    return address.runner_hit(page, tool, element)


_ROLES = {"click": None, "type": ("textbox", "searchbox", "spinbutton", "combobox"),
          "select": ("combobox", "listbox")}


def _ambiguous(page: Page, tool: str, element: str, hit: Element | None = None) -> bool:
    """True when an element named exactly ``element`` exists but the runner hits another one first (``hit``,
    the element the name reaches, when it is known; else looked up)."""
    t = element.strip().lower()
    roles = _ROLES.get(tool)
    exact = [e for e in page.elements if e.name and e.name.strip().lower() == t and (not roles or e.role in roles)]
    if not exact:
        return False
    hit = hit if hit is not None else runner_hit(page, tool, element)
    return hit is not None and hit not in exact


def check_action(tool: str, args: dict[str, Any], page: Page, offered: tuple[str, ...],
                 resolved: Element | None = None) -> tuple[dict[str, Any] | None, str]:
    """Return (clean args, "") or (None, reason). ``resolved``: the element of ``page`` the brain resolved the
    target to (its ``element`` is the name that reaches it), not looked up again."""
    if tool not in offered:
        return None, f"{tool or '?'}: tool not offered"
    if tool == "done":
        return None, "done: answered as the response's done/result"
    if scripty(args):
        return None, f"{tool}: script-like text"
    check = _CHECKS.get(tool)
    if check is None:
        # an offered tool the spec does not describe: pass through only plain, script-free arguments
        return ({k: v for k, v in args.items() if isinstance(k, str)}, "")
    return check(args, page, resolved)


Checked = tuple[dict[str, Any] | None, str]


def _target(page: Page, tool: str, element: str, resolved: Element | None) -> Element | None:
    """The element ``element`` names: the one the brain resolved, else the one the runner would hit (None:
    nothing on the page)."""
    return resolved if resolved is not None else runner_hit(page, tool, element)


def _reaches_another(page: Page, tool: str, element: str, resolved: Element | None) -> bool:
    """The name reaches another element than one named exactly so (the brain's resolved one is what it reaches:
    not looked up again)."""
    return _ambiguous(page, tool, element, resolved)


def _navigate(args: dict[str, Any], page: Page, resolved: Element | None = None) -> Checked:
    url = _str(args, "url")
    return ({"url": url}, "") if _http_url(url) else (None, "navigate: url must be http(s)")


def _click(args: dict[str, Any], page: Page, resolved: Element | None = None) -> Checked:
    el = _str(args, "element")
    if not el:
        return None, "click: element missing"
    if _target(page, "click", el, resolved) is None:
        return None, f"click: '{el[:60]}' is not on the page"
    if _reaches_another(page, "click", el, resolved):
        return None, f"click: '{el[:60]}' would hit another element first"
    return {"element": el}, ""


def _type(args: dict[str, Any], page: Page, resolved: Element | None = None) -> Checked:
    el, text = _str(args, "element"), args.get("text")
    if not isinstance(args.get("element"), str) or text is None:
        return None, "type: element and text are required"
    if _target(page, "type", el, resolved) is None:
        return None, f"type: no field named '{el[:60]}'"
    if _reaches_another(page, "type", el, resolved):
        return None, f"type: '{el[:60]}' would reach another field first"
    clean: dict[str, Any] = {"element": el, "text": str(text)[:MAX_TEXT]}
    if "clear" in args:
        clean["clear"] = bool(args.get("clear"))
    return clean, ""


def _select(args: dict[str, Any], page: Page, resolved: Element | None = None) -> Checked:
    el, option = _str(args, "element"), _str(args, "option")
    if not isinstance(args.get("element"), str) or not option:
        return None, "select: element and option are required"
    found = _target(page, "select", el, resolved)
    if found is None:
        return None, f"select: no dropdown named '{el[:60]}'"
    if _reaches_another(page, "select", el, resolved):
        return None, f"select: '{el[:60]}' would reach another dropdown first"
    if found.options and not any(option.lower() in o.lower() for o in found.options):
        return None, f"select: '{option[:60]}' is not an option of '{el[:60]}'"
    return {"element": el, "option": option}, ""


def _int(args: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    """``args[key]`` as an int within [low, high]; ``default`` when it is not a number."""
    try:
        value = int(args.get(key, default))
    except (TypeError, ValueError):
        value = default
    return max(low, min(value, high))


def _scroll(args: dict[str, Any], page: Page, resolved: Element | None = None) -> Checked:
    direction = _str(args, "direction").lower() or "down"
    if direction not in ("up", "down"):
        return None, f"scroll: direction '{direction[:10]}' does nothing (only up/down)"
    return {"direction": direction, "amount": _int(args, "amount", 500, 50, 5000)}, ""


def _wait(args: dict[str, Any], page: Page, resolved: Element | None = None) -> Checked:
    cond = _str(args, "condition") or "load"
    return {"condition": cond[:200], "timeout": _int(args, "timeout", 3000, 100, 10000)}, ""


def _submit(args: dict[str, Any], page: Page, resolved: Element | None = None) -> Checked:
    form = _str(args, "form")
    if not form:
        return None, "submit: needs form (without it the page's handlers are skipped)"
    return {"form": form}, ""


def _api_call(args: dict[str, Any], page: Page, resolved: Element | None = None) -> Checked:
    method, url = _str(args, "method").upper() or "GET", _str(args, "url")
    if method not in ("GET", "POST") or not _http_url(url):
        return None, "api_call: GET/POST to an http(s) url only"
    clean = {"method": method, "url": url}
    if "body" in args and args["body"] is not None:
        body = args["body"]
        clean["body"] = body if isinstance(body, str) else json.dumps(body)
    return clean, ""


_CHECKS: dict[str, Callable[[dict[str, Any], Page, Element | None], Checked]] = {
    "navigate": _navigate, "click": _click, "type": _type, "select": _select, "scroll": _scroll,
    "wait": _wait, "submit": _submit, "api_call": _api_call,
}


def _ends_batch(tool: str, args: dict[str, Any], page: Page, resolved: Element | None) -> bool:
    if tool in ("navigate", "submit"):
        return True
    if tool == "click":
        hit = _target(page, "click", args["element"], resolved)
        return hit is None or hit.role in _PAGE_CHANGING_CLICK_ROLES
    return False


def _already(action: Any) -> bool:
    """A ``check`` whose box is already in the wanted state: the runner has no check tool, only click, which
    would toggle it the wrong way."""
    if getattr(action, "tool", None) != "check":
        return False
    state = getattr(getattr(action, "resolved", None), "checked", None)
    return state is not None and bool(state) == bool(action.args.get("checked", True))


def _on(page: Page, action: Any) -> Element | None:
    """The element of ``page`` the brain resolved ``action`` to, if it did (on this very page)."""
    el = getattr(action, "resolved", None)
    return el if el is not None and any(e is el for e in page.elements) else None


def sanitize(proposed: list[Any], tree: str, offered: tuple[str, ...], page: Page | None = None) -> Verdict:
    """Keep the executable prefix of ``proposed`` (the brain's actions or dicts) under the rules above. A target
    the brain resolved on ``page`` stays resolved; other names are resolved with the shared page model
    (:mod:`agenthost.agent`) exactly as the runner resolves them."""
    page = page if page is not None else from_aria(tree)
    verdict = Verdict()
    proposed = [a for a in (proposed or []) if not _already(a)]
    for i, raw in enumerate(proposed):
        resolved = None
        if hasattr(raw, "to_olympics"):
            wire = raw.to_olympics()
            tool, args, resolved = str(wire["tool"]), dict(wire["args"] or {}), _on(page, raw)
        elif not isinstance(raw, dict) and hasattr(raw, "tool") and hasattr(raw, "args"):
            tool, args = str(raw.tool), dict(raw.args or {})
        elif isinstance(raw, dict):
            tool = str(raw.get("tool") or raw.get("name") or "").strip()
            given = raw.get("args") if raw.get("args") is not None else raw.get("arguments")
            args = dict(given) if isinstance(given, dict) else {}
        else:
            verdict.dropped.append("not an action object")
            continue
        if len(verdict.actions) >= MAX_ACTIONS:
            verdict.dropped.append(f"{tool}: over the {MAX_ACTIONS}-action cap")
            continue
        clean, reason = check_action(tool, args, page, offered, resolved)
        if clean is None:
            verdict.dropped.append(reason)
            continue
        verdict.actions.append(Action(tool=tool, args=clean))
        if _ends_batch(tool, clean, page, resolved):
            rest = len(proposed) - i - 1
            if rest > 0:
                verdict.dropped.append(f"{rest} action(s) after a page-changing {tool}")
            break
    return verdict


def clean_result(result: Any, task_prompt: str, success: bool = True) -> Any:
    """``result`` for a done turn: a JSON object when the task asks for JSON, script-free, bounded.

    ``success`` is the policy's outcome (False: it gave up). Cleaning never decides it: a give-up's result
    always says ``"success": false`` (its reason kept when safe to return), a result whose own ``success``
    disagrees is corrected to the outcome, and a result withheld as unsafe keeps the outcome."""
    wants_json = bool(re.search(r"\bjson\b|\bobject\b", task_prompt or "", re.IGNORECASE))
    if isinstance(result, str):
        try:
            parsed = json.loads(result)
            if isinstance(parsed, dict):
                result = parsed
        except ValueError:
            pass
    if not success:
        reason = result if not isinstance(result, dict) else result.get("reason")
        result = {**(result if isinstance(result, dict) else {}), "success": False}
        if reason is not None:
            result["reason"] = reason
    elif isinstance(result, dict) and "success" in result:
        result = {**result, "success": True}
    if wants_json and not isinstance(result, dict):
        result = {"answer": result} if result is not None else {"success": success}
    if result is None:
        result = {"success": success}
    text = json.dumps(result, default=str)
    if scripty(result) or len(text) > 20000:
        return {"success": success, "note": "result withheld: not safe to return"}
    return json.loads(text)
