"""Policies: ``decide(task, page, history, memory, tools, deadline, *, careful=False, avoid=()) -> Decision``.

:class:`DeterministicPolicy` plays with ``AGENTHOST_LLM=none`` and is the fallback whenever the LLM is
late or wrong. General rules only (no per-site or per-task code):

* fill fields from values the task states (see :mod:`agenthost.agent.task`), or from values the page
  shows when the task asks to use them (a table cell, a code printed in the text); pick dropdown options
  by label; tick the boxes the task names (untick those it turns off, and the others of a group when it
  says "only"); tick agreement/confirmation boxes of a form being submitted; choose the radio it names;
* click the buttons that put named items somewhere ("Buy X" -> "Add X to cart"), submit a filled form
  with its own submit button, click the buttons, tabs and links the task names, once each;
* hold back a form's submit button while a field the task refers to is still empty, and look for the
  value instead (tabs, links);
* follow the link that best matches the goal and the clues the page gives (unvisited first; "highest"/
  "lowest" picks among numbered links), backtracking from dead ends;
* answer from page text and tables when the task asks for a value;
* finish when the page shows completion (a status message) after acting, or the asked value was found;
* never repeat what ``avoid`` names, and take answers the user gave (``memory["user_answers"]``) as
  stated values.
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Iterable, Sequence
from typing import Any, Protocol
from urllib.parse import urljoin, urlsplit

from agenthost.agent.actions import TOOLS, Action, Decision
from agenthost.agent.guards import LoopGuard, check_actions, classify_risk, resolve
from agenthost.agent.outcome import Outcome, judge, line_key, success_keys
from agenthost.agent.page import MASK, TEXT_ROLES, Element, Page
from agenthost.agent.task import (
    TaskFacts,
    field_kind,
    has_phrase,
    label_keys,
    make_password,
    password_rules,
    read_task,
    words,
)
from agenthost.agent.values import is_description
from agenthost.deadline import Deadline

_SUBMIT = re.compile(r"\b(submit|send|save|continue|next|confirm|register|sign ?up|sign ?in|log ?in|apply|search|"
                     r"go|ok|finish|complete|create|add|update|place order|checkout|book|pay|post|subscribe|get|"
                     r"start|check|reserve|done|proceed)\b", re.I)
_NOT_SUBMIT = re.compile(r"\b(back|previous|prev|cancel|reset|clear|show|hide|remove|delete|close|toggle|edit)\b",
                         re.I)
_PLACEHOLDER_OPT = re.compile(r"^\s*(--.*--|select.*|choose.*|please select.*|pick.*|-+|none)?\s*$", re.I)
_CONSENT = re.compile(r"\b(agree|accept|consent|confirm|correct|acknowledge|i have read|terms|privacy)\b", re.I)
#: opt-ins that only look like agreements: never ticked unless the task asks
_OPT_IN = re.compile(r"\b(marketing|newsletter|offers?|promotions?|promotional|e-?mails?|sms|texts?|partners?|"
                     r"third[- ]part(?:y|ies)|updates|news|remember me|stay signed in|keep me)\b", re.I)
_ITEM_VERB = re.compile(r"\b(buy|add|order|purchase|get|put|pick up)\b", re.I)
_ITEM_WORDS = re.compile(r"\b(add|adds|to|the|a|an|my|your|cart|basket|bag|trolley|buy|order|purchase|now|item|"
                         r"one|in|into)\b", re.I)
_REPEAT = re.compile(r"\b(until|again|repeat|each|every|all of|one by one)\b", re.I)
_HIGHEST = re.compile(r"\b(highest|largest|biggest|greatest|most|maximum|last|top)\b", re.I)
_LOWEST = re.compile(r"\b(lowest|smallest|least|minimum|first|fewest)\b", re.I)
_USE_PAGE_VALUE = re.compile(r"\b(enter|type|put|use|submit|fill|write|input|paste|copy|apply|check)\b", re.I)
#: the task wants a value put into the page (so finding the value on the page does not finish it)
_ENTER_ANSWER = re.compile(r"\b(enter|type|fill(?: in| out)?|submit|put|write|input|paste|record|send|save|"
                           r"complete the (?:form|report))\b", re.I)
#: buttons that move a flow on (a cart to its checkout, a wizard or a game to its next step)
_NEXT_STEP = re.compile(r"\b(next|continue|proceed|checkout|check out|place order|complete (?:order|purchase)|"
                        r"finish|submit|done|start|play|begin|download|next (?:question|round|level|word|puzzle))\b",
                        re.I)
#: a field that takes the answer to a problem the page poses
_ANSWER_FIELD = re.compile(r"\b(answer|guess|solution|response|result|reply|your (?:move|word|number|answer)|move|"
                           r"word|number|value|essay|text|writing|code|sum|total)\b", re.I)
_CODE = re.compile(r"^(?=[A-Z0-9._/#-]*\d|[A-Z]{3,})[A-Z0-9][A-Z0-9._/#-]{2,39}$")


class Policy(Protocol):
    def decide(self, task: str, page: Page, history: Sequence[Action], memory: dict[str, Any],
               tools: Iterable[Any] | None = None, deadline: Deadline | float | None = None, *,
               careful: bool = False, avoid: Iterable[Any] = ()) -> Decision: ...


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


def deadline_in(seconds: float) -> Deadline:
    """A deadline ``seconds`` from now, on the clock policies use (``time.monotonic``)."""
    return Deadline.after(seconds)


def _norm(s: Any) -> str:
    return re.sub(r"\s+", " ", str(s or "").strip().lower())


def avoid_list(avoid: Iterable[Any]) -> list[tuple[str, str]]:
    """``avoid`` as (tool, target) pairs as given; accepts pairs, ``{"tool", "target"}`` dicts and
    ``"tool|target"`` / ``"tool target"`` strings."""
    out: list[tuple[str, str]] = []
    for item in avoid or ():
        tool, target = "", ""
        if isinstance(item, (tuple, list)) and len(item) >= 2:
            tool, target = str(item[0]), str(item[1])
        elif isinstance(item, dict):
            tool, target = str(item.get("tool", "")), str(item.get("target") or item.get("element") or "")
        elif isinstance(item, str):
            tool, _, target = item.replace("|", " ", 1).partition(" ")
        if tool and (tool.strip(), target.strip()) not in out:
            out.append((tool.strip(), target.strip()))
    return out


def avoid_set(avoid: Iterable[Any]) -> set[tuple[str, str]]:
    """``avoid`` as normalised (lower case) (tool, target) pairs, for matching."""
    return {(_norm(t), _norm(x)) for t, x in avoid_list(avoid)}


def is_avoided(action: Action, avoid: set[tuple[str, str]]) -> bool:
    if not avoid:
        return False
    el = action.resolved
    targets = {_norm(action.target), _norm(action.args.get("url", ""))}
    if el is not None:
        targets |= {_norm(el.ref), _norm(el.name), _norm(el.placeholder)}
    targets.discard("")
    tools = {action.tool, {"check": "click", "select": "type"}.get(action.tool, action.tool)}
    return any((t, x) in avoid for t in tools for x in targets) or any((t, "") in avoid for t in tools
                                                                        if action.tool not in ("click", "type",
                                                                                               "select", "check"))


class _Seen:
    """What earlier turns did, from ``history`` (what was really sent) and the policy's memory."""

    def __init__(self, history: Sequence[Action], page: Page, memory: dict[str, Any]):
        self.clicks: dict[str, int] = {}
        self.typed: set[str] = set()
        #: (field, value) typed before a later click: a step that was sent in full (the form had its value)
        self.consumed: set[tuple[str, str]] = set()
        pending: list[tuple[str, str]] = []
        for a in history or ():
            target = _norm(a.args.get("element") or a.args.get("id") or "")
            if a.tool in ("click", "check", "submit", "press") and (target or a.tool in ("submit", "press")):
                if target:
                    self.clicks[target] = self.clicks.get(target, 0) + 1
                self.consumed.update(pending)
                pending = []
            elif a.tool == "type" and a.args.get("text"):
                self.typed.add(_norm(a.args.get("text")))
                pending.append((target, _norm(a.args.get("text"))))
        self.filled = any(a.tool in ("type", "select") for a in history or ())
        self.on_page = set(memory.get("clicked", []))
        self.fingerprint = page.fingerprint
        #: the task's site (its URL's host, else the first page's)
        self.home = str(memory.get("home") or "")

    def clicked(self, e: Element) -> int:
        return max(self.clicks.get(_norm(e.name), 0), self.clicks.get(_norm(e.ref), 0))

    def clicked_here(self, e: Element) -> bool:
        return f"{self.fingerprint}|{e.name}" in self.on_page


class DeterministicPolicy:
    """Rule-based policy; fast (a few ms) and never calls out."""

    name = "deterministic"

    def decide(self, task: str, page: Page, history: Sequence[Action] = (), memory: dict[str, Any] | None = None,
               tools: Iterable[Any] | None = None, deadline: Deadline | float | None = None, *,
               careful: bool = False, avoid: Iterable[Any] = ()) -> Decision:
        memory = dict(memory or {})
        if history:
            memory["acted"] = True
        names = tool_names(tools)
        answers = [str(a) for a in memory.get("user_answers") or [] if str(a).strip()]
        facts = read_task(task + ("\n" + "\n".join(answers) if answers else ""))
        loops = LoopGuard(memory)
        avoid_pairs = avoid_set(avoid)
        seen = _Seen(history, page, memory)
        visited = [u for u in memory.get("visited", []) if isinstance(u, str)]
        here = page.url.split("#", 1)[0]
        if here and here not in visited:
            visited.append(here)
            memory["visited"] = visited[-50:]

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
                go = [Action("navigate", {"url": target}, why="the task names this URL")]
                return self._finish(memory, loops, page, go, "Opening the URL the task names.", names, careful)

        verdict = self._verdict(facts, page, memory, history)
        seen.home = str(memory.get("home") or "")
        success = verdict.success
        acted = bool(memory.get("acted"))
        futile = _futile(memory, page, bool(history))

        # 2. what the task asks of this page
        items = self._item_clicks(facts, page, seen)
        fills = self._fill(facts, page, names, seen, rejected=verdict.kind in ("error", "failure"),
                           problem=verdict.text if verdict.kind == "error" else "")
        fills = [a for a in fills if not is_avoided(a, avoid_pairs)]
        plan: list[Action] = list(items)
        plan.extend(fills)
        if not fills and verdict.kind != "success":
            plan.extend(self._solve(facts, page, names, seen, deadline, playing=verdict.kind == "progress"))
        submit = None
        opening = any(a.tool == "type" and a.resolved is not None and a.resolved.role == "combobox" for a in fills)
        if (fills or (plan and plan[-1].tool == "type")) and not opening:  # a typed combobox's list comes first
            submit = self._submit_button(facts, page, plan, avoid_pairs)
            if submit is not None:
                plan.append(Action("click", {"element": submit.name}, resolved=submit, why="submit the form"))
        taken = {id(a.resolved) for a in plan if a.resolved is not None}
        plan.extend(a for a in self._named_clicks(facts, page, seen, fills, avoid_pairs)
                    if id(a.resolved) not in taken and not (opening and a.resolved is not None
                                                            and a.resolved.role == "button"))
        plan = [a for a in plan if not is_avoided(a, avoid_pairs)]
        if futile and plan and {_key(a) for a in plan} <= futile:
            plan = []  # the same batch changed nothing on this page: never sent again unchanged

        # 3. answers
        answer, kind = answer_from(facts, page) if facts.question else (None, "")
        if kind == "line" and not facts.wh_question:
            answer = None
        if answer and _ENTER_ANSWER.search(facts.text):
            answer = None  # the task wants the value entered or submitted: finding it is not finishing
        if verdict.kind == "progress":
            answer = None  # a game or wizard under way: its lines are not the answer
        result_text = answer or verdict.text or _status_text(page) or "Done."

        if not plan and success and acted:
            return self._done(memory, "The page shows completion.", verdict.text or result_text)
        if not plan and answer and kind != "line":
            return self._done(memory, f"Answer found on the page: {answer}", answer)
        if not plan:
            plan.extend(self._repeat_named(facts, page, seen, avoid_pairs))
        if not plan and not success and off_site(page.url, seen.home, facts):
            back = next((u for u in reversed(visited) if not off_site(u, seen.home, facts)), None)
            if back and "navigate" in names:
                plan.append(Action("navigate", {"url": back}, why="back to the task's site"))
        if not plan and not success and not answer:
            plan.extend(self._next_step(facts, page, seen, avoid_pairs, futile))
        if not plan and not success:
            link = self._best_link(facts, page, seen, visited, avoid_pairs, loops, explore=not seen.filled)
            if link is not None:
                plan.append(Action("click", {"element": link.name}, resolved=link, why="best match for the goal"))
        if futile:
            plan = [a for a in plan if _key(a) not in futile]
            if not plan:
                plan = self._escalate(facts, page, seen, visited, avoid_pairs, loops, futile, names, memory)
        if not plan:
            if success:
                return self._done(memory, "The page shows completion.", verdict.text or result_text)
            if answer:
                return self._done(memory, f"Answer found on the page: {answer}", answer)
            scroll = Action("scroll", {"direction": "down", "amount": 600}, why="look for more of the page")
            if "scroll" in names and not loops.count(scroll, page) and not is_avoided(scroll, avoid_pairs) \
                    and len(page.elements) > 12 and _key(scroll) not in futile:
                plan = [scroll]
            else:
                return self._give_up(memory, "Nothing the task names is left to do on this page.", verdict)

        kept, nudges, stop = loops.filter(plan, page)
        notes: list[str] = []
        if stop:
            d = self._give_up(memory, "Stopping: the same actions keep repeating on an unchanged page. "
                              + "; ".join(nudges), verdict, answer=answer)
            d.stop = True
            return d
        if nudges:
            notes.extend(nudges)
            kept = kept or self._alternatives(facts, page, seen, visited, avoid_pairs, loops)
        if not kept:
            if success or answer:
                return self._done(memory, "No further progress possible; the page shows the outcome.",
                                  answer or verdict.text or result_text)
            kept = [Action("scroll", {"direction": "down", "amount": 600}, why="look for more of the page")]
            if loops.is_looping(kept[0], page) or is_avoided(kept[0], avoid_pairs) or _key(kept[0]) in futile:
                d = self._give_up(memory, "Stopping: nothing new to try on this page.", verdict)
                d.stop = True
                return d
        thinking = "; ".join(f"{a.tool} {a.target or a.args.get('url', '')}".strip() + (f" ({a.why})" if a.why else "")
                             for a in kept)
        if notes:
            thinking = "Avoiding repeats (" + "; ".join(notes) + "). " + thinking
        if futile:
            thinking = "The last actions changed nothing; trying something else. " + thinking
        return self._finish(memory, loops, page, kept, thinking, names, careful)

    # ------------------------------------------------------------------ pieces

    def _fill(self, facts: TaskFacts, page: Page, names: Sequence[str], seen: _Seen, *,
              rejected: bool = False, problem: str = "") -> list[Action]:
        acts: list[Action] = []
        present = _shown_text(page).lower()
        rules: dict[str, int] | None = None
        password: str | None = None
        typed_values: set[str] = set(seen.typed)
        pending_pw: list[Element] = []
        for e in page.elements:
            if e.disabled:
                continue
            label = e.name or e.placeholder or e.field_name
            if e.role in TEXT_ROLES and "type" in names:
                kind = field_kind(label, e.input_type, e.role)
                val = facts.value_for(label, e.input_type, role=e.role, present=present)
                if val is None and kind == "password":
                    pending_pw.append(e)
                    continue
                if val is None and not (e.value or "").strip():
                    val = self._page_value(facts, page, e, label)
                if val is not None and e.is_secret() and (e.value or "").strip() and \
                        (e.value == MASK or val.strip() == e.value.strip()):
                    continue  # a masked password/card field that holds something: it was typed before
                if val is not None and not (e.value or "").strip() and not rejected and \
                        ((_norm(e.name or e.placeholder), _norm(val)) in seen.consumed or
                         (_norm(e.ref), _norm(val)) in seen.consumed):
                    continue  # typed and submitted before, and the form took it: that step took effect
                if val is not None and val.strip() != (e.value or "").strip():
                    acts.append(Action("type", {"element": e.name or e.placeholder, "text": val, "clear": True},
                                       resolved=e, why=f"the task gives {label!r}"))
                    typed_values.add(_norm(val))
            elif e.role == "listbox" and e.options and _popup_list(page, e):
                # the open list of an editable combobox: its option is clicked (a select would not reach it)
                opt = self._option_for(facts, e, problem=problem)
                item = next((o for o in page.elements if o.role == "option" and o.parent == e.ref and o.name == opt),
                            None)
                if opt and item is not None and not item.selected:
                    acts.append(Action("click", {"element": opt}, resolved=item, why=f"choose {opt!r} from the list"))
            elif e.role in ("combobox", "listbox") and e.options and ("select" in names or "type" in names):
                opt = self._option_for(facts, e, problem=problem)
                if opt and opt != e.selected_option and opt != e.value:
                    acts.append(Action("select", {"element": e.name, "option": opt}, resolved=e,
                                       why=f"the task names option {opt!r}"))
            elif e.role == "combobox" and not e.options and "type" in names:
                # an editable combobox (type, then choose from the list it opens): type the task's value
                val = facts.value_for(label, e.input_type, role="textbox", present=present)
                if val and _norm(val) != _norm(e.value):
                    acts.append(Action("type", {"element": e.name or e.placeholder, "text": val, "clear": True},
                                       resolved=e, why=f"type {val!r} to open the list"))
        # passwords the task does not state: one fresh password meeting the rules stated by the task or the
        # page, typed into every empty password field (a confirmation field gets the same one)
        if pending_pw and facts.text and re.search(r"\b(password|passcode|register|sign ?up|account)\b",
                                                   facts.text, re.I):
            if any(not (e.value or "").strip() for e in pending_pw):
                rules = {**password_rules(page.text), **facts.password_rules}
                password = make_password(rules)
                for e in pending_pw:
                    acts.append(Action("type", {"element": e.name or e.placeholder, "text": password, "clear": True},
                                       resolved=e, why="a password meeting the stated rules"))
        acts.extend(self._ticks(facts, page, names, typed_values))
        order = {id(e): i for i, e in enumerate(page.elements)}
        acts.sort(key=lambda a: order.get(id(a.resolved), 10**6))
        return acts

    def _ticks(self, facts: TaskFacts, page: Page, names: Sequence[str], typed: set[str]) -> list[Action]:
        acts: list[Action] = []
        tool = "check" if "check" in names else "click"
        boxes = [e for e in page.elements if e.role in ("checkbox", "switch") and e.name and not e.disabled]
        named: dict[str, set[int]] = {}
        for e in boxes:
            if _norm(e.name) in typed:  # an item we just added (its own checkbox), not an instruction
                continue
            score = facts.mentions(e.name, min_cover=0.6)
            want: bool | None = None
            if score > 0:
                want = not facts.negated(e.name)
                named.setdefault(e.parent, set()).add(id(e))
            elif _CONSENT.search(e.name) and not _OPT_IN.search(e.name) and not facts.negated(e.name) \
                    and _has_button_after(page, e):
                want = True
            if want is not None and bool(e.checked) != want:
                acts.append(self._tick(e, want, tool, "as the task says" if score > 0 else "required to submit"))
        if facts.only:
            for e in boxes:
                if e.parent in named and id(e) not in named[e.parent] and e.checked \
                        and not _CONSENT.search(e.name) and _norm(e.name) not in typed:
                    acts.append(self._tick(e, False, tool, "the task wants only the ones it names"))
        for e in page.elements:
            if e.role == "radio" and e.name and not e.checked and not e.disabled \
                    and facts.mentions(e.name, min_cover=1.0) >= 1.0 and not facts.negated(e.name):
                acts.append(Action("click", {"element": e.name}, resolved=e, why=f"the task names {e.name!r}"))
        return acts

    @staticmethod
    def _tick(e: Element, want: bool, tool: str, why: str) -> Action:
        return Action(tool, {"element": e.name, "checked": want} if tool == "check" else {"element": e.name},
                      resolved=e, why=("tick" if want else "untick") + f" {e.name!r} ({why})")

    def _page_value(self, facts: TaskFacts, page: Page, e: Element, label: str) -> str | None:
        """A value the page shows for a field the task refers to (``use the code shown``, ``enter the
        population from the table``): a code printed next to the field's label, or the task's answer."""
        if not label or facts.mentions(label, min_cover=0.5) <= 0 or not _USE_PAGE_VALUE.search(facts.text):
            return None
        code = code_from_text(label, page.text)
        if code:
            return code
        if facts.question:
            answer, kind = answer_from(facts, page)
            if answer and kind in ("table", "email", "phone", "price", "code"):
                return answer
        return None

    def _option_for(self, facts: TaskFacts, e: Element, *, problem: str = "") -> str | None:
        """The option the task names; where it only describes one ("any country"), asks for made-up
        details, or the page says this list needs a choice, a real option (never the placeholder)."""
        val = facts.value_for(e.name)
        real = [o for o in e.options if o and not _PLACEHOLDER_OPT.match(o)]
        chosen = e.selected_option or (e.value if e.value in real else "")
        described = any(is_description(v) for k, v in facts.pairs if words(k) & words(e.name))
        pick = self._named_option(facts, real, val)
        if pick is None and real and not (chosen and chosen in real) and (
                described or facts.wants_made_up or (problem and facts_mentions_label(problem, e.name))):
            return real[0]
        return pick

    @staticmethod
    def _named_option(facts: TaskFacts, real: list[str], val: str | None) -> str | None:
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

    def _submit_button(self, facts: TaskFacts, page: Page, plan: list[Action],
                       avoid: set[tuple[str, str]]) -> Element | None:
        buttons = [e for e in page.elements if e.role == "button" and e.name and not e.disabled
                   and not is_avoided(Action("click", {"element": e.name}, resolved=e), avoid)]
        if not buttons:
            return None
        index = {id(e): i for i, e in enumerate(page.elements)}
        last = max((index.get(id(a.resolved), -1) for a in plan), default=-1)
        after = [b for b in buttons if index[id(b)] > last and not _NOT_SUBMIT.search(b.name)]
        for pool in (after, [b for b in buttons if not _NOT_SUBMIT.search(b.name)]):
            named = [b for b in pool if facts.mentions(b.name, min_cover=1.0) >= 1.0]
            subs = [b for b in pool if _SUBMIT.search(b.name) or b.input_type == "submit"]
            for group in (named, subs):
                if group:
                    return group[0]
        return buttons[0] if len(buttons) == 1 else None

    def _item_clicks(self, facts: TaskFacts, page: Page, seen: _Seen) -> list[Action]:
        """"Buy X" / "add X": the buttons that put a named item somewhere ("Add X to cart"), as many times as
        the task says, minus the times earlier turns clicked them."""
        if not _ITEM_VERB.search(facts.text):
            return []
        acts: list[Action] = []
        for e in page.elements:
            if e.role != "button" or not e.name or e.disabled or not _ITEM_VERB.search(e.name):
                continue
            item = re.sub(r"\s+", " ", _ITEM_WORDS.sub(" ", e.name)).strip()
            low_item = item.lower()
            if not item or low_item not in facts.low or not any(
                    has_phrase(facts.low, low_item + plural) for plural in ("", "s", "es")):
                continue
            if _field_before(page, e):  # the submit button of a text field ("Add task"), not an item
                continue
            for _ in range(facts.count_for(item) - seen.clicked(e)):
                acts.append(Action("click", {"element": e.name}, resolved=e, why=f"the task wants {item!r}"))
        return acts

    def _named_clicks(self, facts: TaskFacts, page: Page, seen: _Seen, fills: list[Action],
                      avoid: set[tuple[str, str]]) -> list[Action]:
        """Buttons, tabs and links the task names that earlier turns have not clicked yet (task order); a
        form's submit button is held back while a field the task refers to is still empty."""
        found: list[tuple[int, float, Element]] = []
        filling = {id(a.resolved) for a in fills}
        for e in page.elements:
            if e.role not in ("button", "link", "tab", "menuitem") or not e.name or e.disabled:
                continue
            if seen.clicked(e) or seen.clicked_here(e):
                continue
            score = _name_score(facts, e.name)
            if score < 0.9:
                continue
            if resolve(page, "click", e.name) is not e:
                continue  # the runner would click another element with this name first
            if e.role == "link" and e.href and off_site(urljoin(page.url, e.href), seen.home, facts):
                continue
            if e.role == "button" and _blocked(facts, page, e, filling):
                continue
            act = Action("click", {"element": e.name}, resolved=e, why=f"the task names {e.name!r}")
            if is_avoided(act, avoid):
                continue
            found.append((facts.position(e.name), score, e))
        if not found:
            return []
        links = [f for f in found if f[2].role == "link"]
        others = sorted((f for f in found if f[2].role != "link"), key=lambda f: (f[0], -f[1]))
        out = [Action("click", {"element": e.name}, resolved=e, why=f"the task names {e.name!r}") for _, _, e in others]
        if links:
            best = max(links, key=lambda f: (f[1], len(f[2].name)))[2]
            out.append(Action("click", {"element": best.name}, resolved=best, why=f"the task names {best.name!r}"))
        return out

    def _repeat_named(self, facts: TaskFacts, page: Page, seen: _Seen,
                      avoid: set[tuple[str, str]]) -> list[Action]:
        """A named button clicked on an earlier page state, again, when the task says to repeat it (or quotes
        it): never twice on the same page state."""
        for e in page.elements:
            if e.role not in ("button", "link", "tab", "menuitem") or not e.name or e.disabled:
                continue
            if seen.clicked_here(e):
                continue
            quoted = any(_norm(q) == _norm(e.name) for q in facts.quoted)
            if not (quoted or (_REPEAT.search(facts.text) and facts.mentions(e.name, min_cover=1.0) >= 1.0)):
                continue
            act = Action("click", {"element": e.name}, resolved=e, why=f"the task names {e.name!r} again")
            if not is_avoided(act, avoid):
                return [act]
        return []

    def _best_link(self, facts: TaskFacts, page: Page, seen: _Seen, visited: Sequence[str],
                   avoid: set[tuple[str, str]], loops: LoopGuard, *, explore: bool = True) -> Element | None:
        """The link (or tab) toward the goal: words shared with the task and with the page's clues about
        it, unvisited targets first, "highest"/"lowest" among numbered links; a visited one only to
        backtrack from a dead end. With ``explore`` (a navigation task: nothing typed yet), an unexplored
        link on a page that gives clues is worth trying even when it shares no word with the goal."""
        goal = set(facts.words)
        clues = clue_text(facts, page)
        goal |= words(clues)
        numbered: dict[str, list[tuple[float, Element]]] = {}
        scored: list[tuple[float, int, Element]] = []
        for i, e in enumerate(page.elements):
            if e.role not in ("link", "tab") or not e.name or e.disabled or seen.clicked_here(e):
                continue
            act = Action("click", {"element": e.name}, resolved=e)
            if is_avoided(act, avoid) or loops.is_looping(act, page):
                continue
            target = urljoin(page.url, e.href).split("#", 1)[0] if e.href else ""
            if target and off_site(target, seen.home, facts):
                continue  # leaving the site needs a reason in the task
            lw = words(e.name) | words(re.sub(r"[/_.-]", " ", e.href))
            if not lw:
                continue
            score = len(lw & goal) / (len(lw) ** 0.5)
            if target and target in visited and target != page.url.split("#", 1)[0]:  # in-page links are not
                score = score * 0.1 - 1.0
            elif clues and score <= 0 and explore:
                score = 0.01  # unexplored, on a page that gives clues about the goal
            num = re.search(r"\d+(?:\.\d+)?", e.name)
            if num:
                numbered.setdefault(re.sub(r"\d+(?:\.\d+)?", "#", e.name.lower()), []).append((float(num.group(0)), e))
            scored.append((score, -i, e))
        if not scored:
            return None
        boost: dict[int, float] = {}
        if clues and (_HIGHEST.search(clues) or _LOWEST.search(clues)):
            for group in numbered.values():
                if len(group) > 1:
                    pick = max(group, key=lambda g: g[0]) if _HIGHEST.search(clues) else min(group, key=lambda g: g[0])
                    boost[id(pick[1])] = 0.5
        best = max(scored, key=lambda s: (s[0] + boost.get(id(s[2]), 0.0), s[1]))
        if best[0] + boost.get(id(best[2]), 0.0) > 0:
            return best[2]
        # a dead end: go back the way we came (a visited page may still have unexplored links)
        back = [s for s in scored if s[0] < 0 and not judge(page).success]
        return max(back, key=lambda s: (s[0], s[1]))[2] if back and clues and explore else None

    def _alternatives(self, facts: TaskFacts, page: Page, seen: _Seen, visited: Sequence[str],
                      avoid: set[tuple[str, str]], loops: LoopGuard) -> list[Action]:
        link = self._best_link(facts, page, seen, visited, avoid, loops)
        if link is not None:
            alt = Action("click", {"element": link.name}, resolved=link, why="earlier attempts made no progress")
            if not loops.is_looping(alt, page):
                return [alt]
        return []

    def _verdict(self, facts: TaskFacts, page: Page, memory: dict[str, Any],
                 history: Sequence[Action]) -> Outcome:
        """The page's verdict (:func:`~agenthost.agent.outcome.judge`): lines shown before the agent acted
        are no evidence, and neither is a page on another site than the task's unless the task names it."""
        if ("before" not in memory and not history and not memory.get("acted")) or memory.get("nav_only"):
            # the first page, and a page the agent only navigated to: what they show was there before acting
            memory["before"] = (list(memory.get("before") or []) + success_keys(page))[-40:]
        if not memory.get("home"):
            home = _host(facts.urls[0]) if facts.urls else _host(page.url)
            if home:
                memory["home"] = home
        verdict = judge(page, memory.get("before") or ())
        if verdict.kind in ("success", "failure") and off_site(page.url, memory.get("home", ""), facts):
            return Outcome(None, "")
        return verdict

    def _solve(self, facts: TaskFacts, page: Page, names: Sequence[str], seen: _Seen,
               deadline: Any, *, playing: bool = False) -> list[Action]:
        """A problem the page poses (a sum, a sequence, an anagram, a chess move, a table question...),
        solved exactly by :mod:`agenthost.skills`: the answer typed into the page's answer field and
        submitted, or the choice naming it clicked. In a game under way with no skill for the question, one
        of its answer choices is tried (the page tells whether it was right; giving up scores nothing)."""
        several = _question_fields(page, facts)
        if len(several) > 1 and "type" in names:
            # several questions, each with its own answer field: each field gets its own question's answer
            acts: list[Action] = []
            for q_field, question in several:
                found = solve_problem(page, facts, deadline, questions=[question])
                if found is not None and str(found.answer).strip():
                    acts.append(Action("type", {"element": q_field.name or q_field.placeholder,
                                                "text": str(found.answer).strip(), "clear": True},
                                       resolved=q_field, why=f"{found.skill} skill for {question[:60]!r}"))
            return acts
        field = answer_field(page, facts)
        choices = [e for e in page.elements if e.role in ("button", "radio") and e.name and not e.disabled
                   and not _NEXT_STEP.search(e.name) and not _NOT_SUBMIT.search(e.name)
                   and facts.mentions(e.name, min_cover=1.0) < 1.0]
        if field is None and len(choices) < 2:
            return []
        solution = solve_problem(page, facts, deadline)
        if solution is None:
            if playing and field is None and len(choices) >= 2 and not any(seen.clicked_here(e) for e in choices):
                pick = choices[0]
                return [Action("click", {"element": pick.name}, resolved=pick, why="no skill answers this: a guess")]
            return []
        answer = str(solution.answer).strip()
        if not answer:
            return []
        why = f"{solution.skill} skill: {answer}"
        for e in choices:
            if _norm(e.name) == _norm(answer) and not seen.clicked_here(e):
                return [Action("click", {"element": e.name}, resolved=e, why=why)]
        if field is None or "type" not in names or _norm(field.value) == _norm(answer):
            return []
        return [Action("type", {"element": field.name or field.placeholder, "text": answer, "clear": True},
                       resolved=field, why=why)]

    def _next_step(self, facts: TaskFacts, page: Page, seen: _Seen, avoid: set[tuple[str, str]],
                   futile: set[str]) -> list[Action]:
        """An enabled next-step button (checkout, next, continue, start...) not clicked on this page state:
        a flow goes on rather than repeating a step that already took effect."""
        for e in page.elements:
            if e.role != "button" or not e.name or e.disabled or not _NEXT_STEP.search(e.name):
                continue
            if _NOT_SUBMIT.search(e.name) or seen.clicked_here(e) or facts.negated(e.name) or seen.clicked(e) >= 3:
                continue  # (clicked three times already in this task: going round in circles)
            if resolve(page, "click", e.name) is not e:
                continue
            act = Action("click", {"element": e.name}, resolved=e, why="the next step")
            if not is_avoided(act, avoid) and _key(act) not in futile:
                return [act]
        return []

    def _escalate(self, facts: TaskFacts, page: Page, seen: _Seen, visited: Sequence[str],
                  avoid: set[tuple[str, str]], loops: LoopGuard, futile: set[str], names: Sequence[str],
                  memory: dict[str, Any]) -> list[Action]:
        """After a batch that changed nothing: another matching button, Enter in the last field, scrolling
        the target into view, another route (a link toward the goal, or back)."""
        tried = [k for k in futile]
        for e in page.elements:
            if e.role != "button" or not e.name or e.disabled or _NOT_SUBMIT.search(e.name):
                continue
            if not (_SUBMIT.search(e.name) or e.input_type == "submit" or _NEXT_STEP.search(e.name)):
                continue
            act = Action("click", {"element": e.name}, resolved=e, why="another way to submit")
            if _key(act) not in futile and not seen.clicked_here(e) and not is_avoided(act, avoid) \
                    and not loops.is_looping(act, page):
                return [act]
        enter = Action("press", {"key": "Enter"}, why="submit with Enter") if "press" in names else \
            Action("submit", {}, why="submit the form")
        if enter.tool in names and _key(enter) not in futile and \
                any(e.role in TEXT_ROLES and (e.value or "").strip() for e in page.elements):
            return [enter]
        scroll = Action("scroll", {"direction": "down", "amount": 600}, why="bring the target into view")
        if "scroll" in names and _key(scroll) not in futile and not is_avoided(scroll, avoid) and tried and \
                (len(page.elements) > 12 or any(not e.in_viewport for e in page.elements)):
            return [scroll]
        link = self._best_link(facts, page, seen, visited, avoid, loops, explore=True)
        if link is not None:
            act = Action("click", {"element": link.name}, resolved=link, why="another route")
            if _key(act) not in futile:
                return [act]
        return []

    # ------------------------------------------------------------------ endings

    def _done(self, memory: dict[str, Any], thinking: str, result: str | None) -> Decision:
        """Done, with the task achieved: the page shows it (or the asked value was found)."""
        return Decision(actions=[], done=True, success=True, result=result, thinking=thinking, source=self.name,
                        memory=memory)

    def _give_up(self, memory: dict[str, Any], thinking: str, verdict: Outcome, *,
                 answer: str | None = None) -> Decision:
        """Done, *not* achieved: nothing left to try. The result says what the page shows instead."""
        if answer:
            return self._done(memory, thinking, answer)
        if verdict.success:
            return self._done(memory, thinking, verdict.text)
        why = {"progress": "the page shows the task still under way", "failure": "the page reports",
               "error": "the page reports a problem"}.get(verdict.kind or "", "")
        shown = f" ({why}: {verdict.text})" if why and verdict.text else ""
        result = f"Not completed: {thinking.rstrip('.')}{shown}."
        return Decision(actions=[], done=True, success=False, result=result[:600], thinking=thinking,
                        source=self.name, memory=memory)

    def _finish(self, memory: dict[str, Any], loops: LoopGuard, page: Page, plan: list[Action], thinking: str,
                names: Sequence[str], careful: bool) -> Decision:
        checked = check_actions(plan, page, tools=names)
        acts = checked.actions
        for a in acts:
            a.risk = classify_risk(a, page)
        loops.record(acts, page)
        memory["sent"] = {"fp": page.fingerprint, "keys": [_key(a) for a in acts]}
        memory["nav_only"] = bool(acts) and all(a.tool in ("navigate", "wait") for a in acts)
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
            "send": "send or publish something", "credential": "enter a credential",
            "account": "change account or security settings"}.get(action.risk or "", "act")
    return f"Security check: about to {action.tool} {what!r}, which would {verb}. Proceed?"


# --------------------------------------------------------------------------- page reading helpers

def _name_score(facts: TaskFacts, name: str) -> float:
    """How clearly the task names an element: 2 quoted, 1 named, 0.9 a number the task gives (``the one
    published in 1974`` -> ``The Dispossessed (1974)``), else 0."""
    if any(_norm(q) == _norm(name) for q in facts.quoted):
        return 2.0
    if facts.mentions(name, min_cover=1.0) >= 1.0:
        return 1.0
    if facts.numbers and any(c.isdigit() for c in name) and \
            set(re.findall(r"(?<![\d.])\d{2,}(?!\d|\.\d)", name)) & facts.numbers:
        return 0.9
    return 0.0


def _popup_list(page: Page, listbox: Element) -> bool:
    """Whether ``listbox`` is the list an editable combobox opened (a combobox with no options of its own comes
    right before it)."""
    idx = page.elements.index(listbox)
    for e in reversed(page.elements[max(0, idx - 3):idx]):
        if e.role == "combobox" and not e.options:
            return True
    return False


def facts_mentions_label(text: str, label: str) -> bool:
    """Whether ``text`` (a page's error line) names the field ``label``."""
    lw = words(label)
    return bool(lw) and lw <= words(text)


def _blocked(facts: TaskFacts, page: Page, button: Element, filling: set[int]) -> bool:
    """Whether ``button`` submits a form group with an empty field the task refers to (and no value yet)."""
    idx = page.elements.index(button)
    for e in reversed(page.elements[:idx]):
        if e.role == "button":
            break
        if e.role in TEXT_ROLES and not (e.value or "").strip() and id(e) not in filling:
            label = e.name or e.placeholder
            if label and facts.mentions(label, min_cover=1.0) > 0:
                return True
    return False


def _field_before(page: Page, button: Element) -> bool:
    idx = page.elements.index(button)
    for e in reversed(page.elements[:idx]):
        if e.role in TEXT_ROLES:
            return True
        if e.role in ("button", "listitem", "list", "row", "cell") or e.depth < button.depth - 1:
            return False
    return False


def _has_button_after(page: Page, el: Element) -> bool:
    idx = page.elements.index(el)
    return any(e.role == "button" and not e.disabled for e in page.elements[idx + 1:])


def _shown_text(page: Page) -> str:
    """What the page shows besides field values: its text and the names of its elements."""
    return page.text + "\n" + "\n".join(e.name for e in page.elements if e.name and e.role not in TEXT_ROLES)


def _status_text(page: Page) -> str:
    for e in page.elements:
        if e.role in ("status", "alert") and (e.value or e.name):
            return (e.value or e.name).strip()[:300]
    return ""


def page_outcome(page: Page) -> str | None:
    """``success`` | ``failure`` | ``error`` | ``progress`` | None: the page's verdict
    (:func:`agenthost.agent.outcome.judge`, without memory of what was shown before acting)."""
    return judge(page).kind


def clue_text(facts: TaskFacts, page: Page) -> str:
    """Page sentences about the task's goal (they share a content word with it), links excluded."""
    labels = {e.name for e in page.elements if e.interactive and e.name}
    out = []
    for line in page.text.splitlines():
        line = line.strip()
        if not line or line in labels or len(line) > 400:
            continue
        if words(line) & facts.words:
            out.append(line)
    return " ".join(out)


def code_from_text(label: str, text: str) -> str | None:
    """A code the text prints right after a field's label or its head noun (``use return code RX-4417``)."""
    low = text.lower()
    for key in label_keys(label):
        if key not in low:
            continue
        for m in re.finditer(r"(?<![\w-])" + re.escape(key) + r"s?\b[ \t]*(?:[:=#]|is|was|reads)?[ \t]*[\"'“]?"
                             r"([A-Za-z0-9][A-Za-z0-9._/#-]{2,39})", text, re.I):
            token = m.group(1).rstrip(".")
            if _CODE.match(token):
                return token
    return None


# --------------------------------------------------------------------------- progress and problems

def _key(action: Action) -> str:
    """A short key for an action (tool, target, value), hashed: kept in memory without the typed text."""
    el = action.resolved
    target = _norm(el.name or el.ref) if el is not None else _norm(action.target or action.args.get("url", "")
                                                                     or action.args.get("key", "")
                                                                     or action.args.get("direction", ""))
    extra = action.args.get("text") or action.args.get("option") or ""
    if extra and action.tool == "type" and el is not None and el.is_secret():
        extra = MASK  # a password's hash is no better kept than the password
    return line_key(f"{action.tool}|{target}|{extra}")


def _futile(memory: dict[str, Any], page: Page, acted: bool) -> set[str]:
    """Keys of the actions already sent on exactly this page state without changing it."""
    table = memory.get("futile")
    if not isinstance(table, dict):
        table = memory["futile"] = {}
    sent = memory.get("sent")
    if (acted or memory.get("acted")) and isinstance(sent, dict) and sent.get("fp") == page.fingerprint:
        keys = table.setdefault(page.fingerprint, [])
        for k in sent.get("keys") or []:
            if k not in keys:
                keys.append(k)
        memory["sent"] = {}
        for old in list(table)[:-20]:
            del table[old]
    return set(table.get(page.fingerprint) or [])


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def _site(host: str) -> str:
    """The registrable part of a host, roughly (``shop.example.com`` -> ``example.com``; IPs as they are)."""
    if re.fullmatch(r"[\d.]+|\[?[0-9a-f:]+\]?", host):
        return host
    parts = host.split(".")
    return ".".join(parts[-2:]) if len(parts) >= 2 else host


def off_site(url: str, home: str, facts: TaskFacts) -> bool:
    """Whether ``url`` is on another site than the task's (``home``) and the task gives no reason to go
    there (it names neither the host nor the site's name)."""
    host = _host(url)
    if not host or not home or _site(host) == _site(home):
        return False
    name = _site(host).split(".")[0]
    return not (host in facts.low or _site(host) in facts.low or (len(name) > 3 and has_phrase(facts.low, name))
                or any(_host(u) == host for u in facts.urls))


def answer_field(page: Page, facts: TaskFacts) -> Element | None:
    """The empty field a problem's answer goes into: one labelled like an answer, else the only empty text
    field of the page (never a password or card field, never one the task gives a value for)."""
    empty = [e for e in page.elements if e.role in TEXT_ROLES and not e.disabled and not e.is_secret()
             and not (e.value or "").strip()]
    named = [e for e in empty if _ANSWER_FIELD.search(f"{e.name} {e.placeholder}")]
    pool = named or (empty if len(empty) == 1 else [])
    for e in pool:
        label = e.name or e.placeholder or e.field_name
        if facts.value_for(label, e.input_type, role=e.role) is None:
            return e
    return None


def _question_fields(page: Page, facts: TaskFacts) -> list[tuple[Element, str]]:
    """Empty answer fields each right after its own question (a paragraph or heading asking something, up to
    three elements back): ``[(field, question)]``."""
    out: list[tuple[Element, str]] = []
    for i, e in enumerate(page.elements):
        if e.role not in TEXT_ROLES or e.disabled or e.is_secret() or (e.value or "").strip():
            continue
        if not _ANSWER_FIELD.search(f"{e.name} {e.placeholder}"):
            continue
        for prev in reversed(page.elements[max(0, i - 3):i]):
            if prev.role in TEXT_ROLES or prev.role == "button":
                break
            text = (prev.value or prev.name or "").strip()
            if prev.role in ("paragraph", "heading", "listitem", "generic", "strong", "text") and \
                    ("?" in text or re.search(r"\b(what|which|how|find|compute|calculate)\b", text, re.I)):
                out.append((e, text))
                break
    return out


def solve_problem(page: Page, facts: TaskFacts, deadline: Any = None, *,
                  questions: Sequence[str] | None = None) -> Any:
    """:func:`agenthost.skills.solve` on the problem the page poses (its question lines first, then its
    whole text, then the task), or None when there is no skill for it. The one call site of the skills."""
    try:
        skills = importlib.import_module("agenthost.skills")
    except ImportError:
        return None
    limit = deadline if isinstance(deadline, (int, float)) else None
    if limit is None and deadline is not None and hasattr(deadline, "remaining"):
        limit = time.monotonic() + float(deadline.remaining())
    labels = {e.name for e in page.elements if e.interactive and e.name}
    lines = [ln.strip() for ln in page.text.splitlines() if ln.strip() and ln.strip() not in labels]
    asks = [ln for ln in lines if "?" in ln or ":" in ln]
    tries = list(questions) if questions else asks[:3] + ["\n".join(lines)[:3000], facts.text]
    for q in tries:
        if not q.strip():
            continue
        try:
            found = skills.solve(q, context=page, deadline=limit)
        except Exception:  # noqa: BLE001 - a skill failing is no reason to lose the turn
            found = None
        if found is not None and str(getattr(found, "answer", "") or "").strip():
            return found
        if limit is not None and time.monotonic() > limit:
            break
    return None


# --------------------------------------------------------------------------- answers

_ASK_EMAIL = re.compile(r"\be-?mail\b", re.I)
_ASK_PHONE = re.compile(r"\b(phone|telephone|number to call)\b", re.I)
_ASK_PRICE = re.compile(r"\b(price|cost|total|amount|how much)\b", re.I)
_PRICE = re.compile(r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP)")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"\+?\d[\d ().-]{6,}\d")


def answer_from(facts: TaskFacts, page: Page) -> tuple[str | None, str]:
    """An answer to the task's question from page text and tables, with its kind (``email``, ``phone``,
    ``table``, ``price``, ``line``); ``(None, "")`` when the page does not show one."""
    text = page.text or ""
    if _ASK_EMAIL.search(facts.text):
        found = [e for e in _EMAIL.findall(text) if e not in facts.emails]
        if found:
            return found[0], "email"
    if _ASK_PHONE.search(facts.text):
        found = [p.strip() for p in _PHONE.findall(text) if sum(c.isdigit() for c in p) >= 7]
        if found:
            return found[0], "phone"
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
        return best[1], "table"
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
            return price[1], "price"
    labels = {e.name for e in page.elements if e.interactive and e.name}
    best_line, best_score = None, 0.0
    for ln in lines:
        lw = words(ln)
        if not lw or len(ln) > 400 or ln in labels:
            continue
        line_score = len(lw & goal) / (len(goal) ** 0.5 or 1)
        if line_score > best_score and not (lw <= goal):  # the line must add something the task does not say
            best_line, best_score = ln, line_score
    if best_line is not None and best_score >= 0.6:
        return best_line[:300], "line"
    return None, ""
