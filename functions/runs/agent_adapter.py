"""The shared brain (``agenthost.agent``) behind the run engine's :class:`~runs.brain.Brain` interface.

* ``decide``: builds the page model from the extension's ``PageSnapshot`` and asks the configured policy
  (deterministic, or the LLM with deterministic fallback). The brain plans a batch (what the AI Olympics
  runner would execute in one turn); the Proxy API executes one tool per step, so the adapter hands out the
  first action and keeps the rest of the plan on the run: the next step continues it, one action at a
  time, while it still fits the page (the last action succeeded, same URL, its elements still there under
  the same name, nothing the engine asks to avoid, no new control shown by what was just typed (a list of
  suggestions), not just typed into a field that lists its own), skipping what is already done (a field
  holding the value, a box in the wanted state); anything else and the policy plans afresh.
  The policy sees the history as the brain's own actions (element names, typed text, options; secrets
  masked), not just the element ids the engine keeps, so it knows what it typed and clicked.
  Its memory (loop guard, what it clicked) lives on the run.
  What the engine learned reaches the policy: ``memory["hints"]`` (reflections, loop nudges),
  ``memory["user_answers"]`` (answers to ``ask_user``) and ``avoid`` ((tool, target) pairs a loop nudge
  rules out, in the Proxy API's terms and the brain's: element id and accessible name, ``type``/``select``).
* The snapshot's ``visibleText`` has its whitespace collapsed: :func:`runs.text_tables.tables_from_text`
  recovers the tables in it, so answers read from a table work on snapshot pages as on ARIA trees.
* ``assess``: the brain's risk classifier on the resolved element, its form and the URL (careful mode),
  plus the amount the page shows for the transaction and what exactly would be approved (element, place),
  so one approval covers one transaction.
"""

from __future__ import annotations

import inspect
import re
from typing import Any
from urllib.parse import urlsplit

from agenthost import urls
from agenthost.agent import Action, make_policy
from agenthost.agent import page as pages
from agenthost.agent.actions import avoid_set, is_avoided
from agenthost.agent.guards import check_actions
from agenthost.agent.outcome import line_key
from agenthost.agent.risk import classify_risk
from agenthost.agent.snapshot import from_snapshot
from agenthost.config import settings
from agenthost.deadline import Deadline
from agenthost.webapp import logger
from runs.brain import Risk, StepContext, ToolCall
from runs.text_tables import tables_from_text

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
#: memory keys of the adapter (beside the policy's own): the brain-level actions handed out, by step, and
#: the rest of the current plan
SENT_KEY = "proxy_sent"
PLAN_KEY = "proxy_plan"
#: how many handed-out actions the history keeps (the engine passes at most 20 recent steps)
MAX_SENT = 24
#: tools a plan is continued with: the ones acting on an element of the page it was made for (navigation,
#: scrolling, key presses and finishing depend on what the page shows next: the policy decides those afresh)
PLAN_TOOLS = frozenset({"click", "type", "select", "check"})


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
        page = from_snapshot(ctx.snapshot.model_dump(mode="json", exclude_none=True))
        if not page.tables:
            page.tables = tables_from_text(page.text, labels=[e.name for e in page.elements if e.interactive])
        return page

    def decide(self, ctx: StepContext) -> ToolCall:
        page = self._page(ctx)
        memory = dict(ctx.memory or {})
        # the adapter's own keys: the policy gets its memory without them
        sent = [x for x in memory.pop(SENT_KEY, None) or [] if isinstance(x, dict)]
        plan = memory.pop(PLAN_KEY, None)
        avoid = avoid_pairs(ctx.avoid, page)
        nxt = next_planned(plan, ctx, page, avoid)
        if nxt is not None:
            action, left = nxt
            if left:
                memory[PLAN_KEY] = {**plan, "after": ctx.step, "actions": left}
            why = f" ({action.why})" if action.why else ""
            thinking = f"continuing the plan: {action.tool} {_label(action.resolved)}{why}"
            return self._hand_out(action, ctx, memory, sent, thinking)
        history = brain_history(ctx.history, sent)
        if ctx.history and ctx.history[-1].get("ok") is False:
            # the last action failed to run: an unchanged page says nothing about whether it would work
            memory.pop("sent", None)
        memory["hints"] = [str(h) for h in ctx.hints]
        memory["user_answers"] = [str(a) for a in ctx.answers]
        d = self._policy_decide(ctx.task, page, history, memory, Deadline.after(settings().runs_decide_budget_s),
                                careful=ctx.mode == "careful", avoid=avoid)
        # one line per decision, with the deterministic rules that made it (the reports count their hits)
        logger.info("proxy decision", extra={"step": ctx.step, "source": d.source, "actions": len(d.actions),
                                             "done": d.done, "rules": list(getattr(d, "rules", []) or [])})
        memory = dict(d.memory or memory)
        # per-decision context, not brain memory: the engine passes them afresh every step
        memory.pop("hints", None)
        memory.pop("user_answers", None)
        memory.pop(PLAN_KEY, None)
        memory[SENT_KEY] = sent
        thinking = (d.thinking or "")[:500]
        if d.stop:
            return ToolCall("finish", {}, thinking=thinking, stop=f"Stuck in a loop: {thinking}", memory=memory)
        if d.actions:
            a = d.actions[0]
            if a.tool == "ask_user":
                return ToolCall("ask_user", {}, thinking=thinking, text=str(a.args.get("question", "")),
                                memory=memory, raw=a)
            if a.tool == "done":
                return ToolCall("finish", {}, thinking=thinking, text=str(a.args.get("result") or d.result or ""),
                                memory=memory)
            rest = make_plan(d.actions[1:], page, ctx.step, ctx.task)
            if rest is not None:
                memory[PLAN_KEY] = rest
            return self._hand_out(a, ctx, memory, sent, thinking)
        if d.done and getattr(d, "success", None) is False:
            # the result says what was not achieved: a give-up is never reported as a success
            return ToolCall("finish", {}, thinking=thinking, text=d.failure_text(), memory=memory)
        if d.done:
            return ToolCall("finish", {}, thinking=thinking, text=d.result or "Done.", memory=memory)
        return ToolCall("observe", {}, thinking=thinking or "nothing to do yet; observe again", memory=memory)

    @staticmethod
    def _hand_out(a: Action, ctx: StepContext, memory: dict[str, Any], sent: list[dict[str, Any]],
                  thinking: str) -> ToolCall:
        """The Proxy API tool for ``a``; remembers the brain-level action for the history of later steps."""
        wire = a.to_proxy()
        record = {"step": ctx.step, "wire": wire["name"], "tool": a.tool, "args": brain_args(a)}
        memory[SENT_KEY] = (sent + [record])[-MAX_SENT:]
        return ToolCall(wire["name"], wire.get("parameters") or {}, thinking=thinking[:500], memory=memory, raw=a,
                        progress=a.progress[:40])

    def _policy_decide(self, task: str, page: pages.Page, history: list[Action], memory: dict[str, Any],
                       deadline: Deadline, *, careful: bool, avoid: list[tuple[str, str]]) -> Any:
        if self._avoid_ok:
            try:
                return self.policy.decide(task, page, history, memory, PROXY_TOOLS, deadline, careful=careful,
                                          avoid=avoid)
            except TypeError as exc:
                if "avoid" not in str(exc):
                    raise
                self._avoid_ok = False  # a policy without avoid=: the hints still carry the nudge
        return self.policy.decide(task, page, history, memory, PROXY_TOOLS, deadline, careful=careful)

    def assess(self, decision: ToolCall, ctx: StepContext) -> Risk | None:
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
        where = urls.host(page.url)
        if decision.tool == "press" and not name:
            name = "the page"
        summary = (f"about to {verb} '{name}' on {where or 'this page'}, which would "
                   f"{verb_for(str(category))}")
        return Risk(str(category), summary, where, amount, amount_text,
                    element=approval_element(decision, el), place=approval_place(page.url, el))


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split())[:200]


def approval_element(decision: ToolCall, el: Any) -> str:
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


# --------------------------------------------------------------------------- history and plans

def _here(url: str) -> str:
    return str(url or "").split("#", 1)[0]


def _label(el: pages.Element | None) -> str:
    return (el.name or el.placeholder or el.ref) if el is not None else ""


def brain_args(a: Action) -> dict[str, Any]:
    """``a``'s arguments as the brain names them (element by accessible name, as the AI Olympics runner's
    history does), with the text typed into a password or card field masked: they are stored on the run."""
    args: dict[str, Any] = {k: v for k, v in a.args.items() if k != "id"}
    if a.resolved is not None:
        args["element"] = _label(a.resolved)
    if a.tool == "type" and args.get("text"):
        secret = a.resolved is not None and a.resolved.is_secret()
        args["text"] = pages.MASK if secret else str(args["text"])[:300]
    return args


def brain_history(history: list[dict[str, Any]], sent: list[dict[str, Any]]) -> list[Action]:
    """The engine's recent steps as the brain's actions: the ones this adapter handed out with their names,
    text and options (when the step executed what was handed out), else the tool and element id."""
    by_step = {x.get("step"): x for x in sent}
    out: list[Action] = []
    for h in history:
        if not h.get("tool"):
            continue
        x = by_step.get(h.get("step"))
        if x is not None and x.get("wire") == h["tool"] and isinstance(x.get("args"), dict):
            out.append(Action(str(x.get("tool") or h["tool"]), dict(x["args"])))
        else:
            out.append(Action(_BACK.get(h["tool"], h["tool"]), {"element": h["target"]} if h.get("target") else {}))
    return out


def make_plan(actions: list[Action], page: pages.Page, step: int, task: str = "") -> dict[str, Any] | None:
    """The rest of a plan, to continue on the next steps: the actions on elements of this page, up to the
    first that is not. Secrets are never stored: a password or card number the task states is kept as its
    place in the task; a plan stops before one the task does not state (a generated password)."""
    out: list[dict[str, Any]] = []
    for a in actions:
        el = a.resolved
        if a.tool not in PLAN_TOOLS or el is None:
            break
        args = {k: v for k, v in a.args.items() if k not in ("id", "element")}
        if a.tool == "type" and el.is_secret():
            text = str(args.pop("text", "") or "")
            at = task.find(text) if text else -1
            if at < 0:
                break
            args["text_at"] = [at, at + len(text)]
        out.append({"tool": a.tool, "args": args, "ref": el.ref, "role": el.role, "name": el.name,
                    "why": (a.why or "")[:200]})
    if not out:
        return None
    return {"url": _here(page.url), "after": step, "actions": out, "shown": _controls(page)}


def _controls(page: pages.Page) -> list[str]:
    """Short keys of the page's controls (role and name, hashed): what a plan was made seeing."""
    return sorted({line_key(f"{e.role}|{e.name}") for e in page.elements if e.interactive})


def _done_already(a: Action, el: pages.Element) -> bool:
    """Whether ``a`` would change nothing: the field holds the text, the option is selected, the box or
    radio is already as wanted."""
    if a.tool == "type":
        text = str(a.args.get("text") or "").strip()
        if el.is_secret():
            return False
        return bool(text) and (el.value or "").strip() == text
    if a.tool == "select":
        opt = str(a.args.get("option") or "")
        return bool(opt) and opt in (el.selected_option, el.value)
    if a.tool == "check" and "checked" in a.args and el.checked is not None:
        return bool(el.checked) == bool(a.args["checked"])
    if a.tool == "click" and el.role == "radio":
        return bool(el.checked)
    return False


def _find(page: pages.Page, item: dict[str, Any]) -> pages.Element | None:
    """The planned element on this page: the same id with the same role and name, else (the page
    re-rendered it under a new id) the one element with that role and name."""
    role, name = str(item.get("role") or ""), _norm(str(item.get("name") or ""))
    el = page.by_ref(str(item.get("ref") or ""))
    if el is not None and el.role == role and _norm(el.name) == name:
        return el
    if not name:
        return None
    same = [e for e in page.elements if e.role == role and _norm(e.name) == name]
    return same[0] if len(same) == 1 else None


def next_planned(plan: Any, ctx: StepContext, page: pages.Page,
                 avoid: list[tuple[str, str]]) -> tuple[Action, list[dict[str, Any]]] | None:
    """The next action of the stored plan and what is left of it, or None when the policy should plan
    afresh: no plan, the action handed out last did not run or failed (or the run did something else since),
    another URL, a planned element gone or renamed, or an action the engine asks to avoid."""
    if not isinstance(plan, dict) or not isinstance(plan.get("actions"), list) or not plan["actions"]:
        return None
    if _here(page.url) != plan.get("url"):
        return None
    acted = [h for h in ctx.history if h.get("tool") not in ("observe", "ask_user")]
    if not acted or acted[-1].get("step") != plan.get("after") or acted[-1].get("ok") is False:
        return None
    shown = plan.get("shown")
    if acted[-1].get("tool") == "type" and isinstance(shown, list) and set(_controls(page)) - set(shown):
        return None  # what was typed opened new controls (a list of suggestions): the policy sees them first
    typed_into = next((e for e in page.elements if e.ref == acted[-1].get("target")), None)
    if acted[-1].get("tool") == "type" and typed_into is not None and typed_into.suggests:
        return None  # a field that lists its own suggestions: the policy looks for them before going on
    avoided = avoid_set(avoid)
    items = [x for x in plan["actions"] if isinstance(x, dict)]
    while items:
        item = items.pop(0)
        el = _find(page, item)
        if el is None:
            return None
        args = dict(item.get("args") or {})
        args["element"] = el.ref
        at = args.pop("text_at", None)
        if isinstance(at, list) and len(at) == 2 and all(isinstance(i, int) for i in at):
            args["text"] = ctx.task[at[0]:at[1]]
        checked = check_actions([Action(str(item.get("tool")), args, resolved=el, why=str(item.get("why") or ""))],
                                page, tools=PROXY_TOOLS).actions
        if not checked or checked[0].resolved is not el:
            return None
        a = checked[0]
        if _done_already(a, el):
            continue
        if is_avoided(a, avoided):
            return None
        a.risk = classify_risk(a, page)
        return a, items
    return None
