"""The guard around a user's web agent: :class:`GuardedWebPolicy` checks every answer with our guards and
lets our policy answer whenever the agent's cannot be used (logged and metered as a fallback).

Written here rather than taken from a plugin library: what matters is the guard, which is specific to our
decision types and protocols."""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agenthost.agent.actions import TOOLS, Action, Decision
from agenthost.agent.page import MASK, Page
from agenthost.deadline import Deadline
from agenthost.plugins.calls import Refused, agent_deadline, call_with_deadline
from agenthost.plugins.interfaces import WebTurn
from agenthost.plugins.loading import load

logger = logging.getLogger("agenthost.plugins")

#: memory key under which the agent's own memory is kept (beside our loop guard's)
MEMORY_KEY = "agent"
#: largest memory an agent may keep (JSON characters)
MAX_MEMORY_CHARS = 64_000
MAX_TEXT = 2000


def record_fallback(reason: str, detail: str, protocol: str = "") -> None:
    """Log why the agent's answer was not used and meter the turn as a fallback (``agent_<reason>``)."""
    from agenthost import metering

    logger.warning("user agent answer not used (%s): %s; our policy answers", reason, detail[:300],
                   extra={"agent_fallback": reason, "protocol": protocol})
    metering.current().fallback(f"agent_{reason}")


def json_memory(value: Any, secrets: Iterable[str] = ()) -> dict[str, Any]:
    """``value`` as JSON-safe memory with ``secrets`` masked; :class:`Refused` (``invalid``) otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Refused("invalid", f"memory must be a dict, not {type(value).__name__}")
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise Refused("invalid", f"memory is not JSON ({type(exc).__name__})") from None
    if len(text) > MAX_MEMORY_CHARS:
        raise Refused("invalid", f"memory over {MAX_MEMORY_CHARS} characters")
    masked = mask(text, secrets)
    return json.loads(masked) if masked != text else json.loads(text)


def mask(text: str, secrets: Iterable[str]) -> str:
    for s in sorted({s for s in secrets if s and len(s) >= 3 and s != MASK}, key=len, reverse=True):
        text = text.replace(s, MASK)
        text = text.replace(json.dumps(s, ensure_ascii=False)[1:-1], MASK)
    return text


def skills() -> Mapping[str, Any]:
    """The exact solvers (:mod:`agenthost.skills`) as tools by name: ``name``, ``description``,
    ``parameters`` (JSON schema), ``call(args) -> str``; empty when this build has none."""
    try:
        from agenthost.skills import tools
    except ImportError:
        return {}
    try:
        return {t.name: t for t in tools()}
    except Exception:  # noqa: BLE001 - skills are a help
        return {}


class GuardedWebPolicy:
    """Our ``Policy`` interface around a user's :class:`WebAgent`: the agent decides under the deadline,
    our guards check the answer, and ``fallback`` (our policy) answers whenever the agent's cannot be
    used. ``source`` is ``agent`` or ``agent+fallback``."""

    name = "agent"

    def __init__(self, agent: Any, fallback: Any, *, reserve_s: float | None = None, load_error: str = ""):
        self.agent = agent
        self.fallback = fallback
        self.reserve_s = reserve_s  # None: the setting AGENTHOST_AGENT_RESERVE_S
        self.load_error = load_error

    def decide(self, task: str, page: Page, history: Sequence[Action] = (), memory: dict[str, Any] | None = None,
               tools: Iterable[Any] | None = None, deadline: Deadline | float | None = None, *,
               careful: bool = False, avoid: Iterable[Any] = (), max_actions: int = 10) -> Decision:
        from agenthost import metering
        from agenthost.agent.actions import avoid_list, tool_names

        memory = dict(memory or {})
        theirs = memory.pop(MEMORY_KEY, None)
        theirs = dict(theirs) if isinstance(theirs, dict) else {}
        avoid = avoid_list(avoid)
        names = tool_names(tools)
        from agenthost.config import settings

        deadline = Deadline.of(deadline, settings().decide_budget_s)
        try:
            if self.agent is None:
                raise Refused("load", self.load_error or "no agent")
            turn = WebTurn(task=task, page=page, history=tuple(history), memory=copy.deepcopy(theirs),
                           tools=tuple(names), deadline=agent_deadline(deadline, self.reserve_s), skills=skills(),
                           careful=careful, avoid=tuple(avoid),
                           hints=tuple(str(h) for h in memory.get("hints") or ()),
                           user_answers=tuple(str(a) for a in memory.get("user_answers") or ()))
            answer = call_with_deadline(self.agent.decide_web, turn, deadline=turn.deadline)
            decision = self._accept(answer, task, page, memory, names, careful, avoid, max_actions)
            metering.current().answered()
            return decision
        except Refused as exc:
            record_fallback(exc.reason, exc.detail, "web")
            d = self.fallback.decide(task, page, history, memory, names, deadline, careful=careful, avoid=avoid)
            d.source = "agent+fallback"
            d.memory = dict(d.memory or memory)
            d.memory[MEMORY_KEY] = theirs
            d.thinking = (d.thinking or "").strip()[:MAX_TEXT]
            return d

    def _accept(self, answer: Any, task: str, page: Page, memory: dict[str, Any], names: Sequence[str],
                careful: bool, avoid: list[Any], max_actions: int) -> Decision:
        from agenthost.agent.actions import approval_question, avoid_set, is_avoided
        from agenthost.agent.guards import check_actions, strip_script
        from agenthost.agent.loops import LoopGuard
        from agenthost.agent.risk import classify_risk

        answer, proposed, done, result = _proposed(answer)
        checked = check_actions(proposed, page, tools=names, max_actions=max_actions)
        if checked.dropped:
            raise Refused("invalid", "; ".join(checked.dropped[:3]))
        pairs = avoid_set(avoid)
        if pairs and any(is_avoided(a, pairs) for a in checked.actions):
            raise Refused("invalid", "an action is listed under avoid")
        loops = LoopGuard(memory)
        kept, nudges, stop = loops.filter(checked.actions, page)
        secret_values = [str(a.args.get("text", "")) for a in kept
                         if a.tool == "type" and a.resolved is not None and a.resolved.is_secret()]
        theirs = json_memory(answer.memory, secret_values)
        if nudges:
            notes = memory.setdefault("notes", [])
            notes.extend(nudges)
            del notes[:-5]
        if stop and not kept:
            memory[MEMORY_KEY] = theirs
            return Decision(actions=[], done=True, stop=True, result="Stopped: no progress.",
                            thinking="Stopping: the same actions keep repeating on an unchanged page.",
                            source=self.name, memory=memory)
        if not kept and not done:
            raise Refused("invalid", "; ".join(nudges[:2]) or "no actions and not done")
        for a in kept:
            a.risk = classify_risk(a, page)
        loops.record(kept, page)
        if kept:
            memory["acted"] = True
        memory[MEMORY_KEY] = theirs
        d = Decision(actions=kept, done=done, source=self.name, memory=memory, usage=dict(answer.usage or {}),
                     thinking=mask(strip_script(str(answer.thinking or "")), secret_values)[:MAX_TEXT],
                     result=None if result is None else mask(strip_script(str(result)), secret_values)[:4000])
        if careful:
            risky = next((a for a in kept if a.risk), None)
            if risky is not None:
                d.needs_approval = approval_question(risky)
        return d


def _proposed(answer: Any) -> tuple[Decision, list[Action], bool, Any]:
    """``(decision, fresh actions, done, result)`` from what ``decide_web`` returned (a Decision or a list of
    actions), ``done`` actions folded into the flag; :class:`Refused` for an answer of the wrong shape, an
    unknown tool or a navigation netguard refuses."""
    from agenthost import netguard

    if answer is None:
        raise Refused("declined", "decide_web returned None: our policy decides this turn")
    if isinstance(answer, (list, tuple)):
        answer = Decision(actions=list(answer))
    if not isinstance(answer, Decision):
        raise Refused("invalid", f"decide_web returned {type(answer).__name__}, not a Decision")
    proposed: list[Action] = []
    done, result = bool(answer.done), answer.result
    for a in answer.actions or []:
        if not isinstance(a, Action) or not isinstance(a.tool, str) or not isinstance(a.args, dict):
            raise Refused("invalid", f"an action is {type(a).__name__}, not an Action(tool, args)")
        if a.tool not in TOOLS:
            raise Refused("invalid", f"unknown tool {a.tool[:40]!r}")
        if a.tool == "done":
            done = True
            result = result if result is not None else a.args.get("result")
            continue
        if a.tool == "navigate":
            try:
                netguard.check_url(str(a.args.get("url", "")))
            except netguard.Blocked as exc:
                raise Refused("unsafe", f"navigate refused by netguard: {exc.reason}") from None
        # fresh actions: the element, its risk and the approval are ours to work out
        proposed.append(Action(a.tool, dict(a.args), why=str(a.why or "")[:200]))
    return answer, proposed, done, result


def web_policy(ours: Any) -> Any:
    """``ours`` wrapped around the configured agent when it implements :class:`WebAgent` (or failed to
    load: every turn then meters the fallback); else ``ours`` unchanged."""
    got = load()
    if got is None:
        return ours
    if got.error:
        return GuardedWebPolicy(None, ours, load_error=got.error)
    if not got.web():
        return ours
    return GuardedWebPolicy(got.agent, ours)
