"""One AI Olympics turn under a time budget: memory in, policy (LLM with a deadline, else the deterministic
policy), what the runner can execute, memory out. Whatever happens inside, a valid turn comes out.

The policies are the brain's (:mod:`olympics.agent_adapter`, which gets them from ``make_policy``) and their
:class:`~agenthost.agent.Decision` is the one decision type down to the webhook body: its actions are kept
by :func:`olympics.executable.sanitize` (targets the brain resolved are not resolved again), a give-up
(``success`` false, or loop detection's ``stop``) is answered as one, and its memory is the task memory's
``brain`` for the next turn."""

from __future__ import annotations

import concurrent.futures
import contextvars
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from agenthost.agent import Action, Decision
from agenthost.agent.aria import from_aria
from agenthost.agent.page import Page
from agenthost.config import settings
from agenthost.deadline import Deadline
from olympics import agent_adapter, executable
from olympics.agent_adapter import Policy, TurnInput
from olympics.memory import MemoryStore, TaskMemory, task_hash
from olympics.models import TurnRequest, TurnResponse

#: the LLM is not started with less time than this left before its deadline
MIN_LLM_S = 0.5
MAX_THINKING = 1500


@dataclass
class TurnStats:
    source: str = ""
    dropped: list[str] = field(default_factory=list)
    llm_error: str = ""
    memory_error: str = ""
    dynamodb_calls: int = 0
    #: how the turn's budget was split (the deadline the deciding policy worked to)
    budget: str = ""
    #: the deterministic rules that made the decision (``Decision.rules``), for the turn's log line
    rules: list[str] = field(default_factory=list)


_pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="olympics-llm")


#: roles the platform's one-line test trees write with HTML names; the ARIA role the runner resolves them by
_PING_ROLES = {"input": "textbox", "textarea": "textbox", "select": "combobox", "a": "link", "h1": "heading",
               "h2": "heading", "h3": "heading"}
#: one element of a one-line tree: ``role "name"``
_PING_ITEM = re.compile(r'^(?P<role>[A-Za-z][A-Za-z0-9]*)(?: +"(?P<name>(?:[^"\\]|\\.)*)")?(?P<rest>.*)$')


def ping_tree(tree: str) -> str:
    """The platform's test pings send a one-line tree instead of an ARIA snapshot (``button "Submit"``,
    ``[sandbox] button "Start" | input "answer" | heading "<task>"``): read each ``|``-separated part as one
    ARIA line, so the brain sees the sandbox form and can act on it. A real snapshot is returned unchanged."""
    text = (tree or "").strip()
    if not text or "\n" in text or text.startswith("- "):
        return tree
    text = re.sub(r"^\[[^\]]*\]\s*", "", text)  # the "[sandbox]" tag
    lines = []
    for part in text.split(" | "):
        m = _PING_ITEM.match(part.strip())
        if m is None or m["name"] is None:  # every part is `role "name"`, else this is no form we know
            return tree
        role = _PING_ROLES.get(m["role"].lower(), m["role"].lower())
        lines.append(f'- {role} "{m["name"]}"{m["rest"]}')
    return "\n".join(lines)


def ping_decision(page: Page, task_prompt: str) -> Decision | None:
    """The first move on a test ping's one-line form: type the answer to the question it shows into its
    answer box when a skill can work it out exactly, then click its button (Start, Submit...). ``None`` when
    the form has no button to press."""
    buttons = [e for e in page.elements if e.role == "button" and e.name]
    if not buttons:
        return None
    button = next((b for b in buttons if b.name.lower() in ("submit", "start")), buttons[0])
    actions: list[Action] = []
    box = next((e for e in page.elements if e.role == "textbox" and e.name), None)
    question = next((e.name for e in page.elements if e.role == "heading" and e.name), "") or task_prompt
    if box is not None and question:
        from agenthost.skills import solve  # only test pings need it: no import cost on a normal turn

        solved = solve(question)
        if solved is not None:
            actions.append(Action("type", {"element": box.name, "text": solved.answer}))
    actions.append(Action("click", {"element": button.name}))
    what = f"enter {actions[0].args['text']!r} and press" if len(actions) > 1 else "press"
    return Decision(thinking=f"A test form: {what} {button.name!r}.", actions=actions, source="deterministic")


def clean_thinking(text: Any) -> str:
    s = str(text or "")
    s = re.sub(r"<[^>]{0,200}>", "", s)  # no markup reaches spectators
    return executable.without_script(s)[:MAX_THINKING]


def _gave_up(decision: Decision) -> bool:
    """An honest give-up: the policy says the task is not achieved, or loop detection stopped it."""
    return bool(decision.stop or (decision.done and decision.success is False))


def _accepted(decision: Decision, verdict: executable.Verdict) -> bool:
    return bool(verdict.actions) or bool(decision.done) or _gave_up(decision)


def play(
    request: TurnRequest,
    agent: str,
    *,
    memory_store: MemoryStore | None,
    deadline: Deadline | None = None,
    answered: Callable[[TurnStats], None] | None = None,
    digest: str = "",
    deterministic: Policy | None = None,
    llm: Policy | None | Literal["configured"] = "configured",
) -> tuple[TurnResponse, TurnStats]:
    """Play one turn to ``deadline`` (the turn's whole budget, created where the request arrived; by
    default ``olympics_budget_s`` from now). The LLM works to a deadline that keeps ``olympics_reserve_s``
    back for the deterministic policy, the guard and the memory write; the deterministic policy to one
    that keeps ``guard_reserve_s``; no memory write starts in the last ``answer_reserve_s``. ``answered(stats)``
    runs once the answer is final, before the task memory's write (which carries the turn's usage).

    The policies are the brain's (:mod:`olympics.agent_adapter`: the configured one under the LLM's deadline,
    the deterministic one otherwise); ``deterministic``/``llm`` put others in their place (``llm=None``: none)."""
    cfg = settings()
    deterministic = deterministic if deterministic is not None else agent_adapter.deterministic
    llm = agent_adapter.llm_policy() if llm == "configured" else llm
    deadline = deadline if deadline is not None else Deadline.after(cfg.olympics_budget_s)
    stats = TurnStats()
    tree = ping_tree(request.pageState.accessibilityTree)
    page = from_aria(tree, url=request.pageState.url, title=request.pageState.title)
    offered = request.tools()
    memory = _load(memory_store, agent, request, digest, stats)
    if memory is not None and memory.replayed is not None:
        # this signed body was answered already (a replay, or the platform retrying): the same answer, no
        # second decision and no second write
        stats.source = "replay"
        stats.dynamodb_calls = memory_store.store.calls if memory_store is not None else 0
        if memory.replayed.get("idle"):
            return TurnResponse.model_validate(idle_response("this turn was answered already")), stats
        return TurnResponse.model_validate(memory.replayed), stats
    memory = memory if memory is not None else _new_memory(agent, request)
    memory.observe(request.turnNumber, request.pageState.url, page.fingerprint)
    if request.pageState.error:  # the spec's field; the real runner never sends it
        memory.note(f"Turn {request.turnNumber}: the platform reported an error after the last actions: "
                    f"{request.pageState.error[:200]}")
    inp = TurnInput(request, page, memory, offered, deadline)
    decided = _ask_llm(llm, inp, tree, stats) if llm is not None and not isinstance(llm, str) else None
    if decided is None and tree != request.pageState.accessibilityTree and not request.previousActions:
        decision = ping_decision(page, request.task.taskPrompt)  # a test ping's one-line form, first turn
        if decision is not None:
            decision.memory = dict(memory.brain)  # not the brain's decision: its memory stays as it was
            decided = decision, executable.sanitize(decision.actions, tree, offered, page)
    if decided is None:
        det_deadline = deadline.reserve(cfg.guard_reserve_s, "guard and memory write")
        stats.budget = stats.budget or det_deadline.describe("deterministic")
        decision = deterministic(TurnInput(request, page, memory, offered, det_deadline))
        decided = decision, executable.sanitize(decision.actions, tree, offered, page)
    response = _answer(decided, request, memory, stats)
    memory.remember_answer(digest, response.wire())
    if answered is not None:
        answered(stats)
    _save(memory_store, memory, deadline.reserve(cfg.answer_reserve_s, "answer"), stats)
    return response, stats


def _load(memory_store: MemoryStore | None, agent: str, request: TurnRequest, digest: str,
          stats: TurnStats) -> TaskMemory | None:
    """This task's memory (one read), or None: memory is a help, never a reason to fail a turn."""
    if memory_store is None:
        return None
    try:
        return memory_store.load(agent, request.task.taskPrompt, request.turnNumber, request.pageState.url, digest)
    except Exception as exc:  # noqa: BLE001
        stats.memory_error = f"load: {type(exc).__name__}"
        return None


def _new_memory(agent: str, request: TurnRequest) -> TaskMemory:
    return TaskMemory(agent=agent, task=task_hash(request.task.taskPrompt, request.pageState.url),
                      first_url=request.pageState.url, started_at=time.time())


def _ask_llm(llm: Policy, inp: TurnInput, tree: str,
             stats: TurnStats) -> tuple[Decision, executable.Verdict] | None:
    """The LLM's decision and the guard's verdict on it, if it answered in time with something executable
    (it works on its own thread to a deadline that keeps the fallback's reserve); else None, and why in
    ``stats.llm_error`` and the task memory's notes."""
    llm_deadline = inp.deadline.reserve(settings().olympics_reserve_s, "fallback, guard and memory write")
    stats.budget = llm_deadline.describe("llm")
    remaining = llm_deadline.remaining()
    decided = None
    if remaining > MIN_LLM_S:
        # the worker sees this turn's context (metering records the LLM call on the turn)
        future = _pool.submit(contextvars.copy_context().run, llm,
                              TurnInput(inp.request, inp.page, inp.memory, inp.offered, llm_deadline))
        try:
            candidate = future.result(timeout=remaining)
            v = executable.sanitize(candidate.actions, tree, inp.offered, inp.page)
            if _accepted(candidate, v):
                decided = candidate, v
            else:
                stats.llm_error = "invalid: nothing executable (" + "; ".join(v.dropped[:3]) + ")"
        except concurrent.futures.TimeoutError:
            future.cancel()
            stats.llm_error = "late"
        except Exception as exc:  # noqa: BLE001 - any LLM failure falls back to the deterministic policy
            stats.llm_error = f"failed: {type(exc).__name__}"
    else:
        stats.llm_error = "no time left"
    if stats.llm_error:
        inp.memory.note(f"turn {inp.request.turnNumber}: LLM {stats.llm_error}; deterministic policy answered")
    return decided


def _answer(decided: tuple[Decision, executable.Verdict], request: TurnRequest, memory: TaskMemory,
            stats: TurnStats) -> TurnResponse:
    """The response with the actions the runner can execute, recorded in the stats and the task memory (the
    decision's memory is the brain's for the next turn)."""
    decision, verdict = decided
    stats.source = str(decision.source or "deterministic")
    stats.dropped = verdict.dropped
    stats.rules = list(decision.rules)
    if isinstance(decision.memory, dict):
        memory.brain = decision.memory
    gave_up = _gave_up(decision)
    result: Any = decision.result
    if gave_up:
        # an honest give-up: done, with success false and what was not achieved (never a claimed success)
        result = {"success": False, "reason": str(decision.result or "no progress: the same actions kept repeating")}
    done = bool(decision.done) or gave_up
    response = TurnResponse(
        thinking=clean_thinking(decision.thinking),
        actions=verdict.actions,
        done=done,
        result=executable.clean_result(result, request.task.taskPrompt, not gave_up) if done else None,
    )
    memory.record_actions([{"tool": a.tool, "args": a.args} for a in response.actions])
    return response


def _save(memory_store: MemoryStore | None, memory: TaskMemory, answer_by: Deadline, stats: TurnStats) -> None:
    """The task memory's one write, unless the answer is due."""
    if memory_store is None:
        return
    if not answer_by.expired:
        try:
            memory_store.save(memory)
        except Exception as exc:  # noqa: BLE001
            stats.memory_error = (stats.memory_error + " " if stats.memory_error else "") + \
                f"save: {type(exc).__name__}"
    stats.dynamodb_calls = memory_store.store.calls


def idle_response(reason: str) -> dict[str, Any]:
    """The valid do-nothing turn sent when a request cannot be played (never a non-2xx)."""
    return {"thinking": clean_thinking(reason), "actions": [], "done": False}
