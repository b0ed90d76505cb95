"""Guards every protocol applies to every action, whichever policy proposed it: targets and arguments.

* :func:`resolve` finds an action's target the way the AI Olympics runner does (case-insensitive
  substring): click = button by name, then link by name, then text; type = textbox by name, then
  label, then placeholder; select = combobox by name/label, option by label. Proxy snapshots also
  resolve by element id.
* :func:`check_actions` resolves, repairs (nearest element of a compatible role) or drops each action,
  type-checks and caps arguments, strips script-like text (:func:`strip_script`), and caps the batch.

The other checks live beside this module: :mod:`agenthost.agent.loops` (:class:`LoopGuard`, repeats across
turns), :mod:`agenthost.agent.risk` (:func:`classify_risk`, careful mode's risk classes) and
:mod:`agenthost.agent.web_guard` (:class:`WebGuard`, the rules every policy's decision follows).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from agenthost.agent.actions import TARGETED, TOOLS, Action
from agenthost.agent.address import address
from agenthost.agent.page import TEXT_ROLES, Element, Page

MAX_TEXT = 2000
MAX_URL = 2048

_SCRIPTY = re.compile(
    r"(<\s*script\b[^>]*>.*?(<\s*/\s*script\s*>|$)|<\s*/?\s*script\b[^>]*>|\b(?:eval|new\s+Function)\s*\((?:[^()]|\([^()]*\))*\)?|\bon[a-z]+\s*=|process\.env"
    r"|javascript\s*:|document\.cookie|[A-Za-z0-9+/]{120,}={0,2})",
    re.IGNORECASE | re.DOTALL,
)


def is_scripty(text: str) -> bool:
    return bool(_SCRIPTY.search(text or ""))


def strip_script(text: str) -> str:
    """Remove script-like fragments (the AI Olympics runner blocks actions containing them)."""
    prev = None
    while prev != text:
        prev = text
        text = _SCRIPTY.sub("", text)
    return text.strip() if prev != text else text


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", (s or "").strip().lower())


def _tokens(s: str) -> set[str]:
    return {t for t in re.findall(r"[a-z0-9]+", (s or "").lower()) if len(t) > 1 or t.isdigit()}


def _contains(hay: str, needle: str) -> bool:
    return bool(needle) and needle in _norm(hay)


def resolve(page: Page, tool: str, target: str, option: str | None = None) -> Element | None:
    """The page element ``target`` names for ``tool``, matched like the AI Olympics runner (or by id)."""
    if not target:
        return None
    by_id = page.by_ref(target.strip())
    if by_id is not None and page.source != "aria":
        return by_id
    t = _norm(target)
    els = [e for e in page.elements if not e.disabled or tool == "click"]
    if tool == "click":
        for roles in (("button",), ("link",)):
            found = _first(els, roles, t)
            if found:
                return found
        lists = {e.ref for e in els if e.role == "listbox"}
        for e in els:  # text: any element whose name or text contains it (a field's value is no text)
            if e.role == "option" and e.parent not in lists:
                continue  # a <select>'s option is chosen with select, not clicked; a list's option is clicked
            if _contains(e.name, t) or (e.role not in ("textbox", "combobox", "searchbox") and _contains(e.value, t)):
                return e
        return None
    if tool == "type":
        for attr in ("name", "placeholder"):
            for e in els:
                takes_text = e.role in TEXT_ROLES or (e.role == "combobox" and not e.options)
                if takes_text and _contains(getattr(e, attr), t):
                    return e  # (an editable combobox takes text: the runner finds it by its label)
        return None
    if tool == "select":
        for e in els:
            if e.role in ("combobox", "listbox") and _contains(e.name, t):
                if option is None or not e.options or _option(e, option):
                    return e
        return None
    if tool == "check":
        for e in els:
            if e.role in ("checkbox", "radio", "switch", "menuitemcheckbox") and _contains(e.name, t):
                return e
        return None
    return None


def _first(els: Iterable[Element], roles: tuple[str, ...], t: str) -> Element | None:
    exact = None
    for e in els:
        if e.role in roles and _contains(e.name, t):
            if _norm(e.name) == t:
                return e
            exact = exact or e
    return exact


def _option(el: Element, option: str) -> str | None:
    o = _norm(option)
    for opt in el.options:
        if _norm(opt) == o:
            return opt
    for opt in el.options:
        if o and o in _norm(opt):
            return opt
    return None


_COMPATIBLE = {
    "click": ("button", "link", "checkbox", "radio", "tab", "menuitem", "switch", "option"),
    "type": tuple(TEXT_ROLES),
    "select": ("combobox", "listbox"),
    "check": ("checkbox", "radio", "switch", "menuitemcheckbox"),
}


def repair(page: Page, tool: str, target: str) -> Element | None:
    """The element of a compatible role whose name best overlaps ``target`` (None when nothing is close)."""
    want = _tokens(target)
    if not want:
        return None
    best, best_score = None, 0.0
    for e in page.elements:
        if e.role not in _COMPATIBLE.get(tool, ()) or e.disabled:
            continue
        have = _tokens(e.name) | _tokens(e.placeholder)
        if not have:
            continue
        score = len(want & have) / len(want | have)
        if score > best_score:
            best, best_score = e, score
    return best if best_score >= 0.5 else None


@dataclass
class Checked:
    """What :func:`check_actions` kept and why others were dropped or changed."""

    actions: list[Action] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)


def _str_arg(args: dict[str, Any], key: str, limit: int) -> str | None:
    v = args.get(key)
    if v is None:
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = str(v)
    if not isinstance(v, str):
        raise ValueError(f"{key} must be a string")
    return v[:limit]


def check_actions(actions: Iterable[Action], page: Page, *, tools: Iterable[str] | None = None,
                  max_actions: int = 10) -> Checked:
    """Resolve, repair, type-check, sanitise and cap ``actions`` against ``page``."""
    allowed = set(tools) if tools is not None else set(TOOLS)
    out = Checked()
    for a in actions:
        if len(out.actions) >= max_actions:
            out.dropped.append(f"{a.tool}: more than {max_actions} actions")
            continue
        # check/select map onto click/type for protocols without them, wait onto a fresh look (Action.to_proxy)
        if a.tool not in allowed and not (a.tool == "check" and "click" in allowed) \
                and not (a.tool == "select" and "type" in allowed) and not (a.tool == "wait" and "extract" in allowed):
            out.dropped.append(f"{a.tool}: not an available tool")
            continue
        try:
            args = _clean_args(a.tool, dict(a.args or {}), out)
        except (ValueError, TypeError) as exc:
            out.dropped.append(f"{a.tool}: {exc}")
            continue
        if a.tool in TARGETED:
            checked = _on_page(a, args, page, out)
            if checked is not None:
                out.actions.append(checked)
        else:
            out.actions.append(replace(a, args=args))
    return out


def _clean_args(tool: str, args: dict[str, Any], out: Checked) -> dict[str, Any]:
    """``args`` of a ``tool`` action type-checked and sanitised (repairs noted in ``out``); ValueError or
    TypeError for arguments that cannot be used."""
    if tool == "navigate":
        url = _str_arg(args, "url", MAX_URL) or ""
        if not re.match(r"^https?://", url, re.I):
            raise ValueError("url must be http(s)")
        args["url"] = url
    if tool == "type":
        text = _str_arg(args, "text", MAX_TEXT)
        if text is None:
            raise ValueError("text is required")
        clean = strip_script(text)
        if clean != text:
            if not clean:
                raise ValueError("text was script-like")
            out.repaired.append("type: script-like text removed")
        args["text"] = clean
        if "clear" in args:
            args["clear"] = bool(args["clear"])
    if tool == "select":
        args["option"] = _str_arg(args, "option", 300) or ""
    if tool == "scroll":
        d = str(args.get("direction", "down")).lower()
        args["direction"] = d if d in ("up", "down", "left", "right") else "down"
        amt = args.get("amount", 500)
        args["amount"] = max(1, min(int(amt), 5000)) if isinstance(amt, (int, float, str)) and \
            str(amt).lstrip("-").isdigit() else 500
    if tool == "press":
        key = _str_arg(args, "key", 40) or ""
        if not re.fullmatch(r"[A-Za-z0-9+ ]{1,40}", key):
            raise ValueError("key is not a key name")
    for k in ("result", "question", "thinking"):
        if isinstance(args.get(k), str):
            args[k] = strip_script(args[k])[:MAX_TEXT]
    return args


def _on_page(a: Action, args: dict[str, Any], page: Page, out: Checked) -> Action | None:
    """A targeted action resolved (or repaired) to an element of ``page``, its option matched; None (the
    reason in ``out.dropped``) when it names no usable element."""
    target = _str_arg(args, "element", 300) if isinstance(args.get("element"), (str, int)) else \
        _str_arg(args, "id", 300)
    el = a.resolved if a.resolved is not None and any(e is a.resolved for e in page.elements) else None
    if el is None and not target:
        out.dropped.append(f"{a.tool}: no element named")
        return None
    if el is None:
        el = resolve(page, a.tool, str(target), args.get("option"))
    if el is None:
        el = repair(page, a.tool, str(target))
        if el is None:
            out.dropped.append(f"{a.tool}: no element {target!r} on the page")
            return None
        out.repaired.append(f"{a.tool}: {target!r} -> {el.name!r}")
    if target and is_scripty(str(target)):
        out.dropped.append(f"{a.tool}: script-like element name")
        return None
    if page.source == "aria":
        # a runner that finds elements by name: the name that reaches this one, if any does
        name = address(page, {"check": "click"}.get(a.tool, a.tool), el, prefer=str(target or ""))
        if name is None and a.tool == "click" and el.role in TEXT_ROLES:
            focus = address(page, "type", el)
            if focus is not None:  # a field no click name reaches: typing nothing into it focuses it
                return replace(a, tool="type", args={"element": focus, "text": "", "clear": False}, resolved=el,
                               why=a.why or "focus the field")
        if name is None:
            out.dropped.append(f"{a.tool}: {el.label or el.role!r} cannot be reached by name on this page")
            return None
        args["element"] = name
    else:
        args["element"] = el.ref
    args.pop("id", None)
    if a.tool == "select" and el.options:
        opt = _option(el, args.get("option", ""))
        if opt is None:
            out.dropped.append(f"select: no option {args.get('option')!r} in {el.name!r}")
            return None
        args["option"] = opt
    return replace(a, args=args, resolved=el)
