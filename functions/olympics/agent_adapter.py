"""The shared web-agent brain (:mod:`agenthost.agent`) behind an AI Olympics turn.

Kept thin on purpose: the page model, the policies, loop detection and their memory belong to the brain.
This module maps the Olympics request to the brain's ``decide(task, page, history, memory, tools,
deadline)`` and hands back the brain's own :class:`~agenthost.agent.Decision`: one decision type from the
policy to the webhook body (:mod:`olympics.turn` answers with it, :mod:`olympics.executable` keeps what the
runner can execute). The policies come from :func:`agenthost.agent.make_policy`, the one way every protocol
gets them. Nothing here imports the turn: the turn calls this module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agenthost.agent import Action, Decision, DeterministicPolicy, deterministic_policy, make_policy
from agenthost.agent.page import Page
from agenthost.deadline import Deadline
from olympics.memory import TaskMemory
from olympics.models import TurnRequest

#: our deterministic policy, behind the web guard like every policy (what ``make_policy`` gives without an
#: LLM or a user's agent)
_deterministic = deterministic_policy()


@dataclass
class TurnInput:
    request: TurnRequest
    page: Page
    memory: TaskMemory
    offered: tuple[str, ...]
    deadline: Deadline  # by which the policy must have answered


#: a policy as the turn plays it: the brain's decision for this turn
Policy = Callable[[TurnInput], Decision]


def _history(inp: TurnInput) -> list[Action]:
    return [Action(a.tool, dict(a.args)) for a in inp.request.previousActions if a.tool]


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
    return policy.decide(inp.request.task.taskPrompt, inp.page, _history(inp), _brain_memory(inp),
                         list(inp.offered), inp.deadline)


def deterministic(inp: TurnInput) -> Decision:
    """The brain's deterministic policy for this turn."""
    return _decide(_deterministic, inp)


def llm_policy() -> Policy | None:
    """The policy played under the turn's deadline, as :func:`agenthost.agent.make_policy` selects it: the
    user's agent (``AGENTHOST_AGENT``, guarded, ours as its fallback) or the brain's LLM policy
    (``AGENTHOST_LLM``); None when it selects the deterministic policy (:func:`deterministic` plays)."""
    policy = make_policy()
    if isinstance(getattr(policy, "policy", policy), DeterministicPolicy):
        return None

    def decide(inp: TurnInput) -> Decision:
        return _decide(policy, inp)

    return decide
