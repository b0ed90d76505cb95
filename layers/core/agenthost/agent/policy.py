"""Policies: ``decide(task, page, history, memory, tools, deadline) -> Decision``.

:class:`DeterministicPolicy` plays with ``AGENTHOST_LLM=none`` and is the fallback whenever the LLM is
late or wrong. General rules only (no per-site or per-task code): fill fields from values the task
states, pick dropdown options by label, tick the checkboxes the task names, click the buttons and links
the task names, submit a form with its submit button, follow the link that best matches the goal,
answer questions from page text and tables, and finish when the page shows completion or nothing is
left to do.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from agenthost.agent.actions import TOOLS, Action, Decision
from agenthost.agent.guards import LoopGuard, check_actions, classify_risk
from agenthost.agent.page import TEXT_ROLES, Element, Page
from agenthost.agent.task import TaskFacts, read_task, words

_SUCCESS = re.compile(r"\b(thank you|thanks for|successfully|success!|submitted|has been (?:sent|saved|created|"
                      r"updated|received|submitted|placed|booked)|congratulations|you are registered|"
                      r"registration (?:complete|successful)|order (?:placed|confirmed|received)|"
                      r"confirmation (?:number|code)|task complete|all done|welcome back)\b", re.I)
_SUBMIT = re.compile(r"\b(submit|send|save|continue|next|confirm|register|sign ?up|sign ?in|log ?in|apply|search|"
                     r"go|ok|finish|complete|create|add|update|place order|checkout|book|pay|post|subscribe)\b",
                     re.I)
_PLACEHOLDER_OPT = re.compile(r"^\s*(--.*--|select.*|choose.*|please select.*|pick.*|-+|none)?\s*$", re.I)


class Policy(Protocol):
    def decide(self, task: str, page: Page, history: Sequence[Action], memory: dict[str, Any],
               tools: Iterable[Any] | None = None, deadline: float | None = None, *,
               careful: bool = False) -> Decision: ...


def tool_names(tools: Iterable[Any] | None) -> tuple[str, ...]:
    """Neutral tool names from a protocol's tool list (names or JSON-schema tool definitions).

    An empty or missing list means every tool (the AI Olympics test ping sends ``[]``).
    """
    out: list[str] = []
    for t in tools or ():
        name = t if isinstance(t, str) else (t.get("name") or (t.get("function") or {}).get("name")
                                              if isinstance(t, dict) else None)
        if not name:
            continue
        name = {"finish": "done", "observe": "extract"}.get(str(name), str(name))
        out.append(name)
    return tuple(out) or TOOLS


def deadline_in(seconds: float) -> float:
    """A deadline ``seconds`` from now, on the clock policies use (``time.monotonic``)."""
    return time.monotonic() + seconds


class DeterministicPolicy:
    """Rule-based policy; fast (a few ms) and never calls out."""

    name = "deterministic"

    def decide(self, task: str, page: Page, history: Sequence[Action] = (), memory: dict[str, Any] | None = None,
               tools: Iterable[Any] | None = None, deadline: float | None = None, *,
               careful: bool = False, avoid: Iterable[str] = ()) -> Decision:
        memory = dict(memory or {})
        if history:
            memory["acted"] = True
        names = tool_names(tools)
        facts = read_task(task)
        loops = LoopGuard(memory)
        notes: list[str] = []
        plan: list[Action] = []

        if page.is_empty():
            if facts.urls and "navigate" in names and not memory.get("navigated"):
                memory["navigated"] = True
                return self._finish(memory, loops, page, [Action("navigate", {"url": facts.urls[0]},
                                                                  why="the task names this URL")],
                                    "The page is empty; opening the URL the task names.", names, careful)
            return self._finish(memory, loops, page, [Action("wait", {"condition": "load", "timeout": 2000})],
                                "The page has no content yet; waiting for it to load.", names, careful)

        # 1. the URL the task names, once
        if facts.urls and not memory.get("navigated") and "navigate" in names:
            target = facts.urls[0]
            memory["navigated"] = True
            if page.url.rstrip("/") != target.rstrip("/"):
                plan.append(Action("navigate", {"url": target}, why="the task names this URL"))
                return self._finish(memory, loops, page, plan, "Opening the URL the task names.", names, careful)

        success = bool(_SUCCESS.search(page.text)) or bool(_SUCCESS.search(page.title))
        fills = self._fill(facts, page, names)
        plan.extend(fills)
        submit = None
        if fills:
            submit = self._submit_button(facts, page, plan)
            if submit is not None:
                plan.append(Action("click", {"element": submit.name}, resolved=submit, why="submit the form"))
        if not plan:
            plan.extend(self._named_clicks(facts, page, memory))

        # answers
        answer = None
        if facts.question:
            answer = answer_from(facts, page)

        if not plan and answer and not fills:
            return self._done(memory, f"Answer found on the page: {answer}", answer)
        if not plan and success and memory.get("acted"):
            return self._done(memory, "The page shows completion.", _first_line_matching(page.text, _SUCCESS))
        if not plan and not success:
            link = self._best_link(facts, page, memory)
            if link is not None:
                plan.append(Action("click", {"element": link.name}, resolved=link, why="best match for the goal"))
        if not plan:
            if success:
                return self._done(memory, "The page shows completion.", _first_line_matching(page.text, _SUCCESS))
            result = answer or "Nothing left to do on this page."
            return self._done(memory, "Nothing the task names is left to do on this page.", result)

        kept, nudges, stop = loops.filter(plan, page)
        if stop:
            d = self._done(memory, "Stopping: the same actions keep repeating on an unchanged page. "
                           + "; ".join(nudges), answer or "Stopped: no progress.")
            d.stop, d.done = True, True
            return d
        if nudges:
            notes.extend(nudges)
            kept = kept or self._alternatives(facts, page, memory, loops, plan)
        if not kept:
            if success or answer:
                return self._done(memory, "No further progress possible; the page shows the outcome.",
                                  answer or _first_line_matching(page.text, _SUCCESS))
            kept = [Action("scroll", {"direction": "down", "amount": 600}, why="look for more of the page")]
            if loops.is_looping(kept[0], page):
                d = self._done(memory, "Stopping: nothing new to try on this page.", "Stopped: no progress.")
                d.stop = True
                return d
        thinking = "; ".join(f"{a.tool} {a.target or a.args.get('url', '')}".strip() + (f" ({a.why})" if a.why else "")
                             for a in kept)
        if notes:
            thinking = "Avoiding repeats (" + "; ".join(notes) + "). " + thinking
        return self._finish(memory, loops, page, kept, thinking, names, careful)

    # ------------------------------------------------------------------ pieces

    def _fill(self, facts: TaskFacts, page: Page, names: Sequence[str]) -> list[Action]:
        acts: list[Action] = []
        for e in page.elements:
            if e.disabled:
                continue
            label = e.name or e.placeholder or e.field_name
            if e.role in TEXT_ROLES and "type" in names:
                val = facts.value_for(label, e.input_type)
                if val is not None and val.strip() != (e.value or "").strip():
                    acts.append(Action("type", {"element": e.name or e.placeholder, "text": val, "clear": True},
                                       resolved=e, why=f"the task gives {label!r}"))
            elif e.role in ("combobox", "listbox") and e.options and ("select" in names or "type" in names):
                opt = self._option_for(facts, e)
                if opt and opt != e.selected_option and opt != e.value:
                    acts.append(Action("select", {"element": e.name, "option": opt}, resolved=e,
                                       why=f"the task names option {opt!r}"))
            elif e.role in ("checkbox", "switch") and e.name:
                score = facts.mentions(e.name, min_cover=0.6)
                if score <= 0:
                    continue
                want = not facts.negated(e.name)
                if bool(e.checked) != want:
                    tool = "check" if "check" in names else "click"
                    acts.append(Action(tool, {"element": e.name, "checked": want} if tool == "check"
                                       else {"element": e.name}, resolved=e,
                                       why=("tick" if want else "untick") + f" {e.name!r} as the task says"))
            elif e.role == "radio" and e.name and not e.checked and facts.mentions(e.name, min_cover=1.0) >= 1.0:
                acts.append(Action("click", {"element": e.name}, resolved=e, why=f"the task names {e.name!r}"))
        return acts

    def _option_for(self, facts: TaskFacts, e: Element) -> str | None:
        val = facts.value_for(e.name)
        real = [o for o in e.options if o and not _PLACEHOLDER_OPT.match(o)]
        if val:
            v = val.lower()
            for o in real:
                if o.lower() == v:
                    return o
            for o in real:
                if v in o.lower() or o.lower() in v:
                    return o
        best, best_len = None, 0
        for o in real:
            if facts.mentions(o, min_cover=1.0) >= 1.0 and len(o) > best_len:
                best, best_len = o, len(o)
        return best

    def _submit_button(self, facts: TaskFacts, page: Page, plan: list[Action]) -> Element | None:
        buttons = [e for e in page.elements if e.role == "button" and e.name and not e.disabled]
        if not buttons:
            return None
        named = [b for b in buttons if facts.mentions(b.name, min_cover=1.0) >= 1.0]
        if named:
            return max(named, key=lambda b: len(b.name))
        subs = [b for b in buttons if _SUBMIT.search(b.name) or b.input_type == "submit"]
        if subs:
            # prefer the submit-like button that follows the last field we fill
            last = max((page.elements.index(a.resolved) for a in plan if a.resolved in page.elements), default=-1)
            after = [b for b in subs if page.elements.index(b) > last]
            return (after or subs)[0]
        return buttons[0] if len(buttons) == 1 else None

    def _named_clicks(self, facts: TaskFacts, page: Page, memory: dict[str, Any]) -> list[Action]:
        clicked = set(memory.get("clicked", []))
        best: tuple[float, int, Element] | None = None
        for e in page.elements:
            if e.role not in ("button", "link", "tab", "menuitem") or not e.name or e.disabled:
                continue
            if f"{page.fingerprint}|{e.name}" in clicked:
                continue
            score = facts.mentions(e.name, min_cover=1.0)
            quoted = any(q.strip().lower() == e.name.strip().lower() for q in facts.quoted)
            if quoted:
                score = 2.0
            if score >= 1.0 and (best is None or (score, len(e.name)) > (best[0], best[1])):
                best = (score, len(e.name), e)
        if best is None:
            return []
        e = best[2]
        return [Action("click", {"element": e.name}, resolved=e, why=f"the task names {e.name!r}")]

    def _best_link(self, facts: TaskFacts, page: Page, memory: dict[str, Any]) -> Element | None:
        clicked = set(memory.get("clicked", []))
        goal = facts.words
        best, best_score = None, 0.0
        for e in page.elements:
            if e.role != "link" or not e.name or e.disabled or f"{page.fingerprint}|{e.name}" in clicked:
                continue
            lw = words(e.name) | words(re.sub(r"[/_.-]", " ", e.href))
            if not lw:
                continue
            score = len(lw & goal) / (len(lw) ** 0.5)
            if score > best_score:
                best, best_score = e, score
        return best if best_score > 0 else None

    def _alternatives(self, facts: TaskFacts, page: Page, memory: dict[str, Any], loops: LoopGuard,
                      plan: list[Action]) -> list[Action]:
        link = self._best_link(facts, page, memory)
        if link is not None:
            alt = Action("click", {"element": link.name}, resolved=link, why="earlier attempts made no progress")
            if not loops.is_looping(alt, page):
                return [alt]
        return []

    # ------------------------------------------------------------------ endings

    def _done(self, memory: dict[str, Any], thinking: str, result: str | None) -> Decision:
        return Decision(actions=[], done=True, result=result, thinking=thinking, source=self.name, memory=memory)

    def _finish(self, memory: dict[str, Any], loops: LoopGuard, page: Page, plan: list[Action], thinking: str,
                names: Sequence[str], careful: bool) -> Decision:
        checked = check_actions(plan, page, tools=names)
        acts = checked.actions
        for a in acts:
            a.risk = classify_risk(a, page)
        loops.record(acts, page)
        clicked = memory.setdefault("clicked", [])
        for a in acts:
            if a.tool == "click" and a.resolved is not None:
                clicked.append(f"{page.fingerprint}|{a.resolved.name}")
        del clicked[:-100]
        if acts:
            memory["acted"] = True
        d = Decision(actions=acts, thinking=thinking, source=self.name, memory=memory)
        if careful:
            risky = next((a for a in acts if a.risk), None)
            if risky is not None:
                d.needs_approval = approval_question(risky)
        return d


def approval_question(action: Action) -> str:
    what = action.resolved.name if action.resolved is not None else action.target or action.args.get("url", "")
    verb = {"payment": "make a payment or purchase", "deletion": "delete something",
            "send": "send or publish something", "credential": "enter a credential"}.get(action.risk or "", "act")
    return f"Security check: about to {action.tool} {what!r}, which would {verb}. Proceed?"


# --------------------------------------------------------------------------- answers

_ASK_EMAIL = re.compile(r"\be-?mail\b", re.I)
_ASK_PHONE = re.compile(r"\b(phone|telephone|number to call)\b", re.I)
_ASK_PRICE = re.compile(r"\b(price|cost|total|amount|how much)\b", re.I)
_PRICE = re.compile(r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP)")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"\+?\d[\d ().-]{6,}\d")


def answer_from(facts: TaskFacts, page: Page) -> str | None:
    """An answer to the task's question from page text and tables (None when the page does not show one)."""
    text = page.text or ""
    if _ASK_EMAIL.search(facts.text):
        found = [e for e in _EMAIL.findall(text) if e not in facts.emails]
        if found:
            return found[0]
    if _ASK_PHONE.search(facts.text):
        found = [p.strip() for p in _PHONE.findall(text) if sum(c.isdigit() for c in p) >= 7]
        if found:
            return found[0]
    goal = facts.words
    # tables: the row naming the entity, the column named by the question
    best: tuple[int, str] | None = None
    for table in page.tables:
        if len(table) < 2:
            continue
        header = table[0]
        for row in table[1:]:
            entity_cols = {i for i, c in enumerate(row) if words(c) & goal}
            if not entity_cols:
                continue
            for i, h in enumerate(header):
                if i in entity_cols or i >= len(row) or not (words(h) & goal):
                    continue
                score = sum(len(words(row[j]) & goal) for j in entity_cols)
                if best is None or score > best[0]:
                    best = (score, row[i])
    if best is not None:
        return best[1]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if _ASK_PRICE.search(facts.text):
        price: tuple[int, str] | None = None
        for ln in lines:
            pm = _PRICE.search(ln)
            if pm:
                score = len(words(ln) & goal)
                if price is None or score > price[0]:
                    price = (score, pm.group(0))
        if price:
            return price[1]
    best_line, best_score = None, 0.0
    for ln in lines:
        lw = words(ln)
        if not lw or len(ln) > 400:
            continue
        line_score = len(lw & goal) / (len(goal) ** 0.5 or 1)
        if line_score > best_score and not (lw <= goal):  # the line must add something the task does not say
            best_line, best_score = ln, line_score
    if best_line is not None and best_score >= 0.6:
        return best_line[:300]
    return None


def _first_line_matching(text: str, rx: re.Pattern[str]) -> str:
    for ln in text.splitlines():
        if rx.search(ln):
            return ln.strip()[:300]
    return "Done."
