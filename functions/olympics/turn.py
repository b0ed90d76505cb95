"""One AI Olympics turn under a time budget: memory in, policy (LLM with a deadline, else the deterministic
policy), guard, memory out. Whatever happens inside, a valid turn comes out."""

from __future__ import annotations

import concurrent.futures
import contextvars
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agenthost.agent.page import Page, from_aria
from olympics import guard
from olympics.memory import MemoryStore, TaskMemory, task_hash
from olympics.models import TurnRequest, TurnResponse

#: a turn must be answered within this many seconds of the request arriving (platform cut-off: 30 s)
BUDGET_S = 20.0
#: kept back from the LLM for the deterministic policy, the guard and the memory write
MARGIN_S = 3.0
MAX_THINKING = 1500


@dataclass
class Decision:
    """What a policy proposes; the guard decides what is sent."""

    thinking: str = ""
    actions: list[Any] = field(default_factory=list)
    done: bool = False
    result: Any = None
    source: str = "deterministic"
    notes: list[str] = field(default_factory=list)


@dataclass
class TurnInput:
    request: TurnRequest
    page: Page
    memory: TaskMemory
    offered: tuple[str, ...]
    deadline: float  # time.monotonic() by which the policy must have answered


Policy = Callable[[TurnInput], Decision]


@dataclass
class TurnStats:
    source: str = ""
    dropped: list[str] = field(default_factory=list)
    llm_error: str = ""
    memory_error: str = ""
    dynamodb_calls: int = 0


_pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="olympics-llm")


def clean_thinking(text: Any) -> str:
    s = str(text or "")
    s = re.sub(r"<[^>]{0,200}>", "", s)  # no markup reaches spectators
    if guard.scripty(s):
        s = guard._SCRIPTY.sub("[removed]", s)
    return s[:MAX_THINKING]


def _accepted(decision: Decision, verdict: guard.Verdict) -> bool:
    return bool(verdict.actions) or decision.done


def play(
    request: TurnRequest,
    agent: str,
    *,
    memory_store: MemoryStore | None,
    deterministic: Policy,
    llm: Policy | None = None,
    started: float | None = None,
    budget_s: float = BUDGET_S,
    fold: Callable[[TurnStats], dict[str, Any]] | None = None,
) -> tuple[TurnResponse, TurnStats]:
    """Play one turn. ``started`` is the ``time.monotonic()`` the request (or cold start) began; ``fold``
    gives a write to send with the task memory's own (the turn's usage counters), keeping one write."""
    started = time.monotonic() if started is None else started
    deadline = started + budget_s
    stats = TurnStats()
    tree = request.pageState.accessibilityTree
    page = from_aria(tree, url=request.pageState.url, title=request.pageState.title)
    offered = request.tools()
    turn = request.turnNumber

    memory: TaskMemory | None = None
    if memory_store is not None:
        try:
            memory = memory_store.load(agent, request.task.taskPrompt, turn, request.pageState.url)
        except Exception as exc:  # noqa: BLE001 - memory is a help, never a reason to fail a turn
            stats.memory_error = f"load: {type(exc).__name__}"
    if memory is None:
        memory = TaskMemory(agent=agent, task=task_hash(request.task.taskPrompt, request.pageState.url),
                            first_url=request.pageState.url, started_at=time.time())
    memory.observe(turn, request.pageState.url, page.fingerprint)
    if request.pageState.error:  # the spec's field; the real runner never sends it
        memory.note(f"Turn {turn}: the platform reported an error after the last actions: "
                    f"{request.pageState.error[:200]}")

    decision: Decision | None = None
    verdict: guard.Verdict | None = None
    if llm is not None:
        llm_deadline = deadline - MARGIN_S
        inp = TurnInput(request, page, memory, offered, llm_deadline)
        remaining = llm_deadline - time.monotonic()
        if remaining > 0.5:
            # the worker sees this turn's context (metering records the LLM call on the turn)
            future = _pool.submit(contextvars.copy_context().run, llm, inp)
            try:
                candidate = future.result(timeout=remaining)
                v = guard.sanitize(candidate.actions, tree, offered, page)
                if _accepted(candidate, v):
                    decision, verdict = candidate, v
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
            memory.note(f"turn {turn}: LLM {stats.llm_error}; deterministic policy answered")

    if decision is None:
        inp = TurnInput(request, page, memory, offered, deadline - 1.0)
        decision = deterministic(inp)
        verdict = guard.sanitize(decision.actions, tree, offered, page)
    assert verdict is not None
    stats.source = decision.source
    stats.dropped = verdict.dropped
    for n in decision.notes:
        memory.note(n)

    response = TurnResponse(
        thinking=clean_thinking(decision.thinking),
        actions=verdict.actions,
        done=bool(decision.done),
        result=guard.clean_result(decision.result, request.task.taskPrompt) if decision.done else None,
    )
    memory.record_actions([{"tool": a.tool, "args": a.args} for a in response.actions])
    if memory_store is not None and time.monotonic() < deadline - 0.5:
        try:
            memory_store.save(memory, also=[fold(stats)] if fold is not None else None)
        except Exception as exc:  # noqa: BLE001
            stats.memory_error = (stats.memory_error + " " if stats.memory_error else "") + \
                f"save: {type(exc).__name__}"
    if memory_store is not None:
        stats.dynamodb_calls = memory_store.store.calls
    return response, stats


def idle_response(reason: str) -> dict[str, Any]:
    """The valid do-nothing turn sent when a request cannot be played (never a non-2xx)."""
    return {"thinking": clean_thinking(reason), "actions": [], "done": False}
