"""Policies: ``decide(task, page, history, memory, tools, deadline, *, careful=False, avoid=()) -> Decision``.

:class:`DeterministicPolicy` plays with ``AGENTHOST_LLM=none`` and is the fallback whenever the LLM is
late or wrong. Its rules are written for kinds of pages: no code branches on a site or a task, but their word
lists are English phrases, some first met on this project's own task suites (the hits per rule in the arena and
MiniWoB++ reports show where each acts). Each rule is a named entry of :mod:`~agenthost.agent.rules` (what it
recognises, what it proposes); every action carries its rule's name and ``Decision.rules`` the names of the rules
that acted. What a turn plans, in the cascade's order, is :mod:`~agenthost.agent.planning`'s; this module opens
the task, gives up on gestures no tool performs, and sends the plan through the guards (loops, risk) or ends the
task. The bodies live in their own modules:

* :mod:`~agenthost.agent.forms`: fill fields from values the task states (see :mod:`agenthost.agent.task`),
  or from values the page shows when the task asks to use them (a table cell, a code printed in the text);
  pick dropdown options by label; tick the boxes the task names (untick those it turns off, and the others
  of a group when it says "only"); tick agreement/confirmation boxes of a form being submitted; choose the
  radio it names; click the buttons that put named items somewhere ("Buy X" -> "Add X to cart"); submit a
  filled form with its own submit button;
* :mod:`~agenthost.agent.navigation`: click the buttons, tabs and links the task names, once each (a form's
  submit button held back while a field the task refers to is still empty); follow the link that best
  matches the goal and the clues the page gives (unvisited first; "highest"/"lowest" picks among numbered
  links), backtracking from dead ends; next-step buttons and other routes when a batch changed nothing;
* :mod:`~agenthost.agent.problems`: a problem the page poses, solved by :mod:`agenthost.skills`;
* :mod:`~agenthost.agent.answers`: answer from page text and tables when the task asks for a value;
* :mod:`~agenthost.agent.progress`: what earlier turns did, and which batches changed nothing;
* finish when the page shows completion after acting (:mod:`~agenthost.agent.outcome`), or the asked value
  was found; give up honestly (``success=False``) when nothing is left to try;
* never repeat what ``avoid`` names, and take answers the user gave (``memory["user_answers"]``) as
  stated values.
"""


from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from agenthost.agent import rules, waiting
from agenthost.agent.actions import Action, Decision, approval_question, is_avoided
from agenthost.agent.guards import check_actions
from agenthost.agent.navigation import alternatives
from agenthost.agent.outcome import Outcome
from agenthost.agent.page import Page
from agenthost.agent.planning import Turn, fills_form, other_routes, page_verdict, read_turn, task_answer, task_plan
from agenthost.agent.progress import action_key, futile_keys, sent_record
from agenthost.agent.risk import classify_risk
from agenthost.agent.sending import SENDS, unsent_work
from agenthost.agent.sliders import slider_actions
from agenthost.agent.waiting import pause_in, pause_left
from agenthost.deadline import Deadline


class Policy(Protocol):
    def decide(self, task: str, page: Page, history: Sequence[Action], memory: dict[str, Any],
               tools: Iterable[Any] | None = None, deadline: Deadline | float | None = None, *,
               careful: bool = False, avoid: Iterable[Any] = ()) -> Decision: ...


def deadline_in(seconds: float) -> Deadline:
    """A deadline ``seconds`` from now, on the clock policies use (``time.monotonic``)."""
    return Deadline.after(seconds)


#: an imperative that needs a pointer gesture no protocol tool performs (drag, draw, highlight a text, resize,
#: hover or keep the mouse somewhere)
_GESTURE = re.compile(r"(?:^|[.;:,!?]\s*|\b(?:and|then|to|please)\s+)(?:drag\b|draw\b|highlight\b|resize\b|hover\b|"
                      r"keep\s+(?:your|the)\s+mouse\b|move\s+the\s+(?:mouse|cursor|pointer)\b)", re.I)


#: rules that look for something to do when nothing the task names is left
_SEARCHING = frozenset(r.name for r in (rules.SCROLL, rules.ESCALATE, rules.ALTERNATIVE, rules.BEST_LINK,
                                        rules.NEXT_STEP, rules.REPEAT))


#: the steps before a pause kept in its state (what the task names and does once; no typed text is kept)
_STEPS = frozenset({"click", "check", "select", "submit"})


def _with_steps_before(history: Sequence[Action], state: dict[str, Any]) -> list[Action]:
    """``history`` with the steps handed out before the pause (kept in its state) that it no longer shows: a
    caller that passes only its last steps loses them among the looks that waited for the pause to pass."""
    shown = {(a.tool, a.target) for a in history or ()}
    done = [(str(x[0]), str(x[1])) for x in state.get("done") or [] if isinstance(x, (list, tuple)) and len(x) == 2]
    kept = [Action(tool, {"element": target}) for tool, target in done if (tool, target) not in shown]
    return [*kept, *(history or ())]


def _scroll(why: str) -> Action:
    return Action("scroll", {"direction": "down", "amount": 600}, why=why, rule=rules.SCROLL.name)


def _sends_after(plan: Sequence[Action]) -> bool:
    """Whether a click on a send button (Submit, Send, Done...) comes later in ``plan``."""
    return any(a.tool == "click" and a.resolved is not None and a.resolved.role == "button"
               and SENDS.search(a.resolved.name or "") for a in plan)


def _status_text(page: Page) -> str:
    for e in page.elements:
        if e.role in ("status", "alert") and (e.value or e.name):
            return (e.value or e.name).strip()[:300]
    return ""


class DeterministicPolicy:
    """Rule-based policy; fast (a few ms) and never calls out."""

    name = "deterministic"

    def decide(self, task: str, page: Page, history: Sequence[Action] = (), memory: dict[str, Any] | None = None,
               tools: Iterable[Any] | None = None, deadline: Deadline | float | None = None, *,
               careful: bool = False, avoid: Iterable[Any] = ()) -> Decision:
        pause = pause_in(task)
        if pause is not None:
            staged = self._paused(pause, task, page, history, memory, tools, deadline, careful, avoid)
            if staged is not None:
                return staged
            state = (memory or {}).get("pause") or {}
            memory = {**(memory or {}), "pause": {"stage": "after", "done": state.get("done") or []}}
            history = _with_steps_before(history, state)
        t = read_turn(task, page, history, memory, tools, deadline, careful, avoid)
        d = self._decide(t, task, page, history)
        d.rules = t.noted + [n for n in d.rules if n not in t.noted]  # the page's verdict first, as it was read
        return d

    def _paused(self, pause: tuple[str, float, str], task: str, page: Page, history: Sequence[Action],
                memory: dict[str, Any] | None, tools: Iterable[Any] | None, deadline: Deadline | float | None,
                careful: bool, avoid: Iterable[Any]) -> Decision | None:
        """A task with a pause between two steps (:func:`~agenthost.agent.waiting.pause_in`): the steps before it
        (decided on the task's words before the pause), then waits until the pause has passed since the last of
        them was handed out; None once it has (the whole task is decided on, what was done before counted)."""
        before, seconds, _after = pause
        state = dict((memory or {}).get("pause") or {})
        if state.get("stage") == "after":
            return None
        if state.get("stage") != "wait":
            # decided on a copy: a decision dropped here was never sent, so what it records (the loop counts, the
            # clicks, the batch sent) must not reach the memory the task goes on with
            scratch = copy.deepcopy({**(memory or {}), "pause": {}})
            d = self.decide(before, page, history, scratch, tools, deadline, careful=careful, avoid=avoid)
            # once a step before the pause was handed out, a search for something else to do means it is done
            moves = [a for a in d.actions if not state.get("at") or a.rule not in _SEARCHING]
            if moves and not d.done:
                done = list(state.get("done") or []) + [[a.tool, a.target]
                                                        for a in d.actions if a.tool in _STEPS]
                d.memory["pause"] = {"stage": "before", "at": waiting.clock(), "done": done[-10:]}
                return d
            # nothing left before the pause: the pause runs from the last step handed out before it
            memory = {**(memory or {}), "pause": {"stage": "wait", "at": state.get("at"),
                                                  "done": state.get("done") or []}}
            state = memory["pause"]
        else:
            memory = dict(memory or {})
        left = pause_left(state, seconds)
        memory["pause"] = state
        if left <= 0.05:
            return None
        wait = Action("wait", {"condition": "load", "timeout": int(min(left, 5.0) * 1000)},
                      why=f"the task says to wait {seconds:g} s here: {left:.1f} s left", rule=rules.PAUSE.name,
                      progress=f"{left:.1f}")
        return Decision(actions=[wait], thinking=f"wait ({wait.why})", source=self.name, memory=memory,
                        rules=[rules.PAUSE.name])

    def _decide(self, t: Turn, task: str, page: Page, history: Sequence[Action]) -> Decision:
        opening = self._open(t)
        if opening is not None:
            return opening
        gesture = _GESTURE.search(task)
        if gesture and not page.is_empty() and slider_actions(t.facts, page, dict(t.memory), t.names) is None:
            # a step no tool of these protocols performs: the later steps (a submit) would go without it (a slider
            # to drag moves by keys where the protocol presses them)
            return self._give_up(t.memory, f"The task needs a pointer gesture ({gesture.group(0).strip()!r}) that "
                                 "this protocol's tools cannot perform.", Outcome(None, ""), rule=rules.GESTURE)
        verdict = page_verdict(t)
        t.seen.home = str(t.memory.get("home") or "")
        acted = bool(t.memory.get("acted"))
        t.futile = futile_keys(t.memory, page, bool(history), t.seen)
        plan = task_plan(t, verdict)
        if not plan and t.blocked:
            return self._give_up(t.memory, t.blocked, Outcome(None, ""), rule=t.blocked_by)
        answer, kind = task_answer(t, verdict)
        result_text = answer or verdict.text or _status_text(page) or "Done."
        if not plan and verdict.success and acted:
            return self._done(t.memory, "The page shows completion.", verdict.text or result_text,
                              rule=rules.COMPLETION)
        if not plan and answer and kind != "line":
            return self._done(t.memory, f"Answer found on the page: {answer}", answer, rule=rules.ANSWER)
        plan = other_routes(t, plan, verdict.success, answer)
        if not plan:
            ending = self._nothing_left(t, verdict, answer, result_text)
            if ending is not None:
                return ending
            plan = [_scroll("look for more of the page")]
        return self._send(t, plan, verdict, answer, result_text)

    def _open(self, t: Turn) -> Decision | None:
        """An empty page (the task's URL opened, or a wait for it to load); the URL the task names, once."""
        facts, memory, page = t.facts, t.memory, t.page
        if page.is_empty():
            if facts.urls and "navigate" in t.names and not memory.get("navigated"):
                memory["navigated"] = True
                return self._finish(t, [Action("navigate", {"url": facts.urls[0]}, why="the task names this URL",
                                               rule=rules.OPEN_URL.name)],
                                    "The page is empty; opening the URL the task names.")
            return self._finish(t, [Action("wait", {"condition": "load", "timeout": 2000}, rule=rules.WAIT_LOAD.name)],
                                "The page has no content yet; waiting for it to load.")
        if facts.urls and not memory.get("navigated") and "navigate" in t.names:
            target = facts.urls[0]
            memory["navigated"] = True
            if page.url.rstrip("/") != target.rstrip("/"):
                go = [Action("navigate", {"url": target}, why="the task names this URL", rule=rules.OPEN_URL.name)]
                return self._finish(t, go, "Opening the URL the task names.")
        return None

    def _nothing_left(self, t: Turn, verdict: Outcome, answer: str | None, result_text: str) -> Decision | None:
        """Nothing to do on this page: done when it shows the outcome, else a scroll once (None), else a
        give-up."""
        if verdict.success:
            return self._done(t.memory, "The page shows completion.", verdict.text or result_text,
                              rule=rules.COMPLETION)
        if answer:
            return self._done(t.memory, f"Answer found on the page: {answer}", answer, rule=rules.ANSWER)
        scroll = _scroll("look for more of the page")
        if "scroll" in t.names and not t.loops.count(scroll, t.page) and not is_avoided(scroll, t.avoid) \
                and len(t.page.elements) > 12 and action_key(scroll) not in t.futile:
            return None
        return self._give_up(t.memory, "Nothing the task names is left to do on this page.", verdict,
                             rule=rules.NOTHING_LEFT)

    def _send(self, t: Turn, plan: list[Action], verdict: Outcome, answer: str | None,
              result_text: str) -> Decision:
        """The plan through the loop guard: repeats dropped (another route instead), a stop when they
        persist, a give-up when nothing new is left."""
        kept, nudges, stop = t.loops.filter(plan, t.page)
        if stop:
            d = self._give_up(t.memory, "Stopping: the same actions keep repeating on an unchanged page. "
                              + "; ".join(nudges), verdict, answer=answer, rule=rules.LOOP_STOP)
            d.stop = True
            return d
        if nudges:
            kept = kept or rules.tag(rules.ALTERNATIVE,
                                     alternatives(t.facts, t.page, t.seen, t.visited, t.avoid, t.loops))
        if not kept:
            if verdict.success or answer:
                return self._done(t.memory, "No further progress possible; the page shows the outcome.",
                                  answer or verdict.text or result_text, rule=rules.NO_PROGRESS_DONE)
            kept = [_scroll("look for more of the page")]
            if t.loops.is_looping(kept[0], t.page) or is_avoided(kept[0], t.avoid) or action_key(kept[0]) in t.futile:
                d = self._give_up(t.memory, "Stopping: nothing new to try on this page.", verdict,
                                  rule=rules.NOTHING_NEW)
                d.stop = True
                return d
        thinking = "; ".join(f"{a.tool} {a.target or a.args.get('url', '')}".strip() + (f" ({a.why})" if a.why else "")
                             for a in kept)
        if nudges:
            thinking = "Avoiding repeats (" + "; ".join(nudges) + "). " + thinking
        if t.futile:
            thinking = "The last actions changed nothing; trying something else. " + thinking
        return self._finish(t, kept, thinking)

    # ------------------------------------------------------------------ endings

    def _done(self, memory: dict[str, Any], thinking: str, result: str | None, *, rule: rules.Rule) -> Decision:
        """Done, with the task achieved: the page shows it (or the asked value was found)."""
        return Decision(actions=[], done=True, success=True, result=result, thinking=thinking, source=self.name,
                        memory=memory, rules=[rule.name])

    def _give_up(self, memory: dict[str, Any], thinking: str, verdict: Outcome, *, rule: rules.Rule,
                 answer: str | None = None) -> Decision:
        """Done, *not* achieved: nothing left to try. The result says what the page shows instead."""
        if answer:
            return self._done(memory, thinking, answer, rule=rule)
        if verdict.success:
            return self._done(memory, thinking, verdict.text, rule=rule)
        why = {"progress": "the page shows the task still under way", "failure": "the page reports",
               "error": "the page reports a problem"}.get(verdict.kind or "", "")
        shown = f" ({why}: {verdict.text})" if why and verdict.text else ""
        result = f"Not completed: {thinking.rstrip('.')}{shown}."
        return Decision(actions=[], done=True, success=False, result=result[:600], thinking=thinking,
                        source=self.name, memory=memory, rules=[rule.name])

    def _finish(self, t: Turn, plan: list[Action], thinking: str) -> Decision:
        """The actions as sent: guarded, risk-classed, recorded (loops, what was sent on which page state)."""
        memory, page = t.memory, t.page
        acts: list[Action] = []
        unreachable: Action | None = None
        for i, a in enumerate(plan):
            checked = check_actions([a], page, tools=t.names)
            if checked.actions:
                acts.extend(checked.actions)
            elif any("cannot be reached" in d for d in checked.dropped):
                unreachable = unreachable or a
                if fills_form(a) or _sends_after(plan[i + 1:]):
                    # a value, a choice or a step this protocol cannot put in place: the steps after it (a
                    # submit) would go without it, and what was done before it is no answer to send
                    if not fills_form(a):
                        acts = []
                    break
        if not acts and unreachable is not None:
            # what the task needs cannot be reached through this protocol: an honest give-up
            what = unreachable.resolved.label if unreachable.resolved is not None else unreachable.target
            return self._give_up(memory, f"The page's {what!r} cannot be reached by name on this page, so the "
                                 "task cannot be done through this protocol.", Outcome(None, ""),
                                 rule=rules.UNREACHABLE)
        acts = acts[:10]
        # a caller that sends no history is taken at its word: what it acted on before is not known here
        undone = "" if not t.history and memory.get("acted") else unsent_work(
            t.facts, page, t.history, acts, ready=slider_actions(t.facts, page, dict(memory), t.names) == [])
        if undone:
            return self._give_up(memory, undone, Outcome(None, ""), rule=rules.WORK_UNDONE)
        for a in acts:
            a.risk = classify_risk(a, page)
        t.loops.record(acts, page)
        memory["sent"] = sent_record(page, acts)
        memory["nav_only"] = bool(acts) and all(a.tool in ("navigate", "wait") for a in acts)
        clicked = memory.setdefault("clicked", [])
        clicked.extend(k for k in sorted(t.seen.confirmed) if k not in clicked)
        del clicked[:-100]
        if acts:
            memory["acted"] = True
        d = Decision(actions=acts, thinking=thinking, source=self.name, memory=memory, rules=rules.trace(acts))
        if t.careful:
            risky = next((a for a in acts if a.risk), None)
            if risky is not None:
                d.needs_approval = approval_question(risky)
        return d
