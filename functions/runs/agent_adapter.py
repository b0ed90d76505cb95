"""The shared brain (``agenthost.agent``) behind the run engine's :class:`~runs.brain.Brain` interface.

* ``decide``: builds the page model from the extension's ``PageSnapshot``, asks the configured policy
  (deterministic, or the LLM with deterministic fallback) and keeps its first guarded action: the Proxy API
  executes one tool per step. The policy's memory (its loop guard and what it clicked) lives on the run.
  What the engine learned reaches the policy: ``memory["hints"]`` (reflections, loop nudges),
  ``memory["user_answers"]`` (answers to ``ask_user``) and ``avoid`` ((tool, target) pairs a loop nudge
  rules out, in the Proxy API's terms and the brain's: element id and accessible name, ``type``/``select``).
* ``assess``: the brain's risk classifier on the resolved element, its form and the URL (careful mode),
  plus the amount the page shows for the transaction and what exactly would be approved (element, place),
  so one approval covers one transaction.
"""

from __future__ import annotations

import inspect
import re
from typing import Any
from urllib.parse import urlsplit

from agenthost.agent import Action, deadline_in, make_policy
from agenthost.agent import page as pages
from agenthost.agent.guards import classify_risk
from runs.brain import Decision, Risk, StepContext

#: the Proxy Server API's tools, as the brain names them
PROXY_TOOLS = ("navigate", "click", "type", "select", "check", "scroll", "press", "wait", "submit", "extract",
               "ask_user", "done")
_BACK = {"observe": "extract", "finish": "done"}
_PRICE = re.compile(r"(?:[$€£¥]\s?\d[\d,]*(?:\.\d{1,2})?|\d[\d,]*(?:\.\d{1,2})?\s?(?:USD|EUR|GBP))")
_TOTAL = re.compile(r"\b(total|amount due|grand total|to pay|order total|you pay|charge)\b", re.I)
_VERB = {"payment": "pay or place an order", "deletion": "delete something that may not be recoverable",
         "send": "send or publish something on your behalf", "credential": "enter a credential",
         "account": "change account or security settings", "security": "change account or security settings"}
#: the brain's names for a Proxy API tool (a loop nudge rules out all of them)
_TOOL_ALIASES = {"click": ("click", "check"), "type": ("type", "select"), "observe": ("observe", "extract"),
                 "finish": ("finish", "done")}
#: seconds a decision may take (the LLM policy falls back to the deterministic one when late)
DECIDE_BUDGET_S = 18.0


def _amount(text: str) -> float | None:
    digits = re.sub(r"[^\d.]", "", text.replace(",", ""))
    try:
        return float(digits) if digits else None
    except ValueError:
        return None


def page_amount(page: pages.Page, element_name: str = "") -> tuple[float | None, str]:
    """The transaction amount the page shows: on the element itself ("Pay $49.99"), else on a total
    line, else the largest price on the page. ``(None, "")`` when the page shows no price."""
    found = _PRICE.search(element_name or "")
    if found:
        return _amount(found.group(0)), found.group(0)
    best: tuple[float, str] | None = None
    lines = [ln for ln in (page.text or "").splitlines() if ln.strip()]
    for ln in lines:
        if _TOTAL.search(ln):
            for m in _PRICE.finditer(ln):
                value = _amount(m.group(0))
                if value is not None and (best is None or value > best[0]):
                    best = (value, m.group(0))
    if best is None:
        for m in _PRICE.finditer(page.text or ""):
            value = _amount(m.group(0))
            if value is not None and (best is None or value > best[0]):
                best = (value, m.group(0))
    return (best[0], best[1].strip()) if best else (None, "")


def verb_for(category: str) -> str:
    """What an action of ``category`` would do, in words; any category string reads sensibly."""
    known = _VERB.get(category)
    if known:
        return known
    low = category.lower()
    if "account" in low or "security" in low or "password" in low or "profile" in low:
        return "change account or security settings"
    words = re.sub(r"[^a-z0-9]+", " ", low).strip() or "sensitive"
    return f"perform a sensitive action ({words})"


def _accepts_avoid(fn: Any) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True  # cannot tell: try it (a TypeError falls back)
    return any(p.name == "avoid" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


class AgentBrain:
    def __init__(self, policy: Any = None):
        self.policy = policy or make_policy()
        #: whether ``policy.decide`` takes ``avoid=`` (older policies do not)
        self._avoid_ok = _accepts_avoid(self.policy.decide)

    def _page(self, ctx: StepContext) -> pages.Page:
        return pages.from_snapshot(ctx.snapshot.model_dump(mode="json", exclude_none=True))

    def decide(self, ctx: StepContext) -> Decision:
        page = self._page(ctx)
        history = [Action(_BACK.get(h["tool"], h["tool"]), {"element": h["target"]} if h.get("target") else {})
                   for h in ctx.history if h.get("tool")]
        memory = dict(ctx.memory or {})
        memory["hints"] = [str(h) for h in ctx.hints]
        memory["user_answers"] = [str(a) for a in ctx.answers]
        d = self._policy_decide(ctx.task, page, history, memory, deadline_in(DECIDE_BUDGET_S),
                                careful=ctx.mode == "careful", avoid=avoid_pairs(ctx.avoid, page))
        memory = dict(d.memory or memory)
        # per-decision context, not brain memory: the engine passes them afresh every step
        memory.pop("hints", None)
        memory.pop("user_answers", None)
        thinking = (d.thinking or "")[:500]
        if d.stop:
            return Decision("finish", {}, thinking=thinking, stop=f"Stuck in a loop: {thinking}", memory=memory)
        if d.actions:
            a = d.actions[0]
            if a.tool == "ask_user":
                return Decision("ask_user", {}, thinking=thinking, text=str(a.args.get("question", "")),
                                memory=memory, raw=a)
            if a.tool == "done":
                return Decision("finish", {}, thinking=thinking, text=str(a.args.get("result") or d.result or ""),
                                memory=memory)
            wire = a.to_proxy()
            return Decision(wire["name"], wire.get("parameters") or {}, thinking=thinking, memory=memory, raw=a)
        if d.done:
            return Decision("finish", {}, thinking=thinking, text=d.result or "Done.", memory=memory)
        return Decision("observe", {}, thinking=thinking or "nothing to do yet; observe again", memory=memory)

    def _policy_decide(self, task: str, page: pages.Page, history: list[Action], memory: dict[str, Any],
                       deadline: float, *, careful: bool, avoid: list[tuple[str, str]]) -> Any:
        if self._avoid_ok:
            try:
                return self.policy.decide(task, page, history, memory, PROXY_TOOLS, deadline, careful=careful,
                                          avoid=avoid)
            except TypeError as exc:
                if "avoid" not in str(exc):
                    raise
                self._avoid_ok = False  # a policy without avoid=: the hints still carry the nudge
        return self.policy.decide(task, page, history, memory, PROXY_TOOLS, deadline, careful=careful)

    def assess(self, decision: Decision, ctx: StepContext) -> Risk | None:
        page = self._page(ctx)
        action = decision.raw if isinstance(decision.raw, Action) else None
        if action is None:
            element = page.by_ref(str(decision.parameters.get("id", "")))
            args = {"element": element.ref} if element is not None else {}
            args.update({k: v for k, v in decision.parameters.items() if k != "id"})
            action = Action(decision.tool, args, resolved=element)
        category = action.risk or classify_risk(action, page)
        if not category:
            return None
        el = action.resolved
        name = (el.name if el is not None else "") or action.target or str(action.args.get("url", ""))
        amount, amount_text = page_amount(page, name) if category == "payment" else (None, "")
        verb = {"click": "click", "type": "type into", "press": f"press {action.args.get('key', '')} in",
                "navigate": "open"}.get(decision.tool, decision.tool)
        where = pages_domain(page.url)
        if decision.tool == "press" and not name:
            name = "the page"
        summary = (f"about to {verb} '{name}' on {where or 'this page'}, which would "
                   f"{verb_for(str(category))}")
        return Risk(str(category), summary, where, amount, amount_text,
                    element=approval_element(decision, el), place=approval_place(page.url, el))


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split())[:200]


def approval_element(decision: Decision, el: Any) -> str:
    """What an approval of ``decision`` is for: the resolved element's role and name (its id can change
    on a reload), the URL for navigate, the key for a press without an element."""
    if el is not None:
        return _norm(f"{el.role or el.tag}:{el.name or el.placeholder or el.field_name or el.ref}")
    if decision.tool == "navigate":
        return _norm("url:" + str(decision.parameters.get("url", "")))
    if decision.tool == "press":
        return _norm("key:" + str(decision.parameters.get("key", "")))
    return _norm(f"{decision.tool}:{decision.target}")


def approval_place(url: str, el: Any = None) -> str:
    """Where: the element's form when the snapshot names it, else the URL path (no query: it may carry
    session tokens that change on every load)."""
    form = getattr(el, "form", "") if el is not None else ""
    try:
        path = urlsplit(url).path or "/"
    except ValueError:
        path = "/"
    return _norm(f"{path}#form:{form}" if form else path)


def avoid_pairs(avoid: list[tuple[str, str]], page: pages.Page) -> list[tuple[str, str]]:
    """The engine's (tool, target) pairs in both vocabularies: Proxy API tool and element id, and the
    brain's tool names with the element's accessible name."""
    out: list[tuple[str, str]] = []
    for tool, target in avoid:
        targets = [str(target)]
        el = page.by_ref(str(target)) if target else None
        if el is not None and el.name and el.name not in targets:
            targets.append(el.name)
        if not el and tool not in ("click", "type", "navigate"):
            targets.append("")  # the brain's scroll/press/wait carry no element: avoid the tool on this page
        for t in _TOOL_ALIASES.get(tool, (tool,)):
            for tg in targets:
                if (t, tg) not in out:
                    out.append((t, tg))
    return out


def pages_domain(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""
