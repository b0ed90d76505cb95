"""Adapter from the shared web-agent brain (:mod:`agenthost.agent`) to an AI Olympics turn.

Kept thin on purpose: the page model, the policies, loop detection and their memory belong to the brain.
This module only maps the Olympics request to the brain's ``decide(task, page, history, memory, tools,
deadline)`` and its :class:`~agenthost.agent.Decision` back to a :class:`~olympics.turn.Decision`.
"""

from __future__ import annotations

from typing import Any

from agenthost.agent import Action, DeterministicPolicy
from agenthost.agent.guards import WebGuard
from olympics.turn import Decision, Policy, TurnInput

#: our deterministic policy, behind the web guard like every policy (``make_policy`` gives the others)
_deterministic = WebGuard(DeterministicPolicy())


def _history(inp: TurnInput) -> list[Action]:
    return [Action(a.tool, dict(a.args)) for a in inp.request.previousActions if a.tool]


def _already(a: Any) -> bool:
    """A ``check`` whose box is already in the wanted state: the runner has no check tool, only click, which
    would toggle it the wrong way."""
    if getattr(a, "tool", None) != "check":
        return False
    el = getattr(a, "resolved", None)
    state = getattr(el, "checked", None)
    return state is not None and bool(state) == bool(a.args.get("checked", True))


def _convert(d: Any, inp: TurnInput) -> Decision:
    """The brain's decision as an Olympics decision; its memory goes back into the task memory."""
    if isinstance(getattr(d, "memory", None), dict):
        inp.memory.brain = d.memory
    actions = [a.to_olympics() if hasattr(a, "to_olympics") else a for a in (d.actions or [])
               if not _already(a)]
    result: Any = d.result
    done = bool(d.done)
    gave_up = bool(getattr(d, "stop", False) or (done and getattr(d, "success", None) is False))
    if gave_up:
        # an honest give-up: done, with success false and what was not achieved (never a claimed success)
        done = True
        result = {"success": False, "reason": str(d.result or "no progress: the same actions kept repeating")}
    return Decision(thinking=str(d.thinking or ""), actions=actions, done=done, result=result, success=not gave_up,
                    source=str(getattr(d, "source", "") or "deterministic"))


def _brain_memory(inp: TurnInput) -> dict[str, Any]:
    """The brain's memory, with our task notes (inferred failures) added to the notes it shows the LLM."""
    memory = dict(inp.memory.brain)
    notes = [n for n in (memory.get("notes") or []) if isinstance(n, str)]
    for n in inp.memory.notes[-5:]:
        if n not in notes:
            notes.append(n)
    if notes:
        memory["notes"] = notes[-5:]
    return memory


def _decide(policy: Any, inp: TurnInput) -> Decision:
    d = policy.decide(inp.request.task.taskPrompt, inp.page, _history(inp), _brain_memory(inp),
                      list(inp.offered), inp.deadline)
    return _convert(d, inp)


def deterministic(inp: TurnInput) -> Decision:
    """The brain's deterministic policy for this turn."""
    return _decide(_deterministic, inp)


def llm_policy() -> Policy | None:
    """The policy played under the turn's deadline: the user's agent (``AGENTHOST_AGENT``, guarded, ours as
    its fallback) or the brain's LLM policy (``AGENTHOST_LLM``); None when neither is configured (the
    deterministic policy plays)."""
    from agenthost import plugins
    from agenthost.config import settings

    if settings().llm_provider == "none" and not plugins.spec():
        return None
    from agenthost.agent import make_policy

    policy = make_policy()

    def decide(inp: TurnInput) -> Decision:
        return _decide(policy, inp)

    return decide
