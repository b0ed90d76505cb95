"""The shared brain (``agenthost.agent``) behind the run engine's :class:`~runs.brain.Brain` interface.

* ``decide``: builds the page model from the extension's ``PageSnapshot``, asks the configured policy
  (deterministic, or the LLM with deterministic fallback) and keeps its first guarded action: the Proxy API
  executes one tool per step. The policy's memory (its loop guard and what it clicked) lives on the run.
* ``assess``: the brain's risk classifier on the resolved element, its form and the URL (careful mode),
  plus the amount the page shows for the transaction, so one approval covers one transaction.
"""

from __future__ import annotations

import re
from typing import Any

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
         "account": "change account or security settings"}
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


class AgentBrain:
    def __init__(self, policy: Any = None):
        self.policy = policy or make_policy()

    def _page(self, ctx: StepContext) -> pages.Page:
        return pages.from_snapshot(ctx.snapshot.model_dump(mode="json", exclude_none=True))

    def decide(self, ctx: StepContext) -> Decision:
        page = self._page(ctx)
        history = [Action(_BACK.get(h["tool"], h["tool"]), {"element": h["target"]} if h.get("target") else {})
                   for h in ctx.history if h.get("tool")]
        memory = dict(ctx.memory or {})
        memory["hints"] = list(ctx.hints)
        if ctx.answers:
            memory["user_answers"] = list(ctx.answers)
        d = self.policy.decide(ctx.task, page, history, memory, PROXY_TOOLS, deadline_in(DECIDE_BUDGET_S),
                               careful=ctx.mode == "careful")
        memory = dict(d.memory or memory)
        memory.pop("hints", None)
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
        summary = f"about to {verb} '{name}' on {where or 'this page'}, which would {_VERB.get(category, 'act')}"
        return Risk(category, summary, where, amount, amount_text)


def pages_domain(url: str) -> str:
    from urllib.parse import urlsplit

    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""
