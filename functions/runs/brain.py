"""What the run engine needs from the web-agent brain, as a narrow interface.

The engine never decides by itself: a :class:`Brain` chooses one tool per step (``decide``) and judges
whether a chosen action is risky (``assess``, careful mode). :class:`runs.agent_adapter.AgentBrain` adapts
the shared brain in ``agenthost.agent`` (page model from the element snapshot, policy, guards, risk
classifier); tests pass their own. This module imports no implementation, so nothing here imports back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from runs.models import PageSnapshot


@dataclass
class ToolCall:
    """One Proxy API tool call, the engine's step: ``tool`` is a spec ToolName, ``parameters`` its wire
    parameters. Not a second decision type: the policy decides with :class:`agenthost.agent.Decision` (several
    actions), and :mod:`runs.agent_adapter` sends it to the engine one tool call per step."""

    tool: str
    parameters: dict[str, Any] = field(default_factory=dict)
    thinking: str = ""
    #: ask_user: the question; finish: the result
    text: str = ""
    #: set when the brain itself sees a persisting loop: why the run should end
    stop: str | None = None
    #: the brain's memory after this decision (stored on the run, given back next step)
    memory: dict[str, Any] | None = None
    #: the brain's own action object (for its risk classifier)
    raw: Any = None
    #: what moved since the same call was last chosen, when the brain makes progress by repeating it (the time
    #: a wait has left, the value a key press moved a readout to): a repeat counts as a loop only when it is the
    #: same (:attr:`agenthost.agent.Action.progress`)
    progress: str = ""

    @property
    def target(self) -> str:
        p = self.parameters
        return str(p.get("id") or p.get("url") or p.get("key") or p.get("direction") or "")


@dataclass
class Risk:
    """A risky action found by the brain's classifier (careful mode)."""

    #: the classifier's category: payment | deletion | send | credential | an account/security category...
    #: (any string: the engine and the question text handle categories they do not know)
    category: str
    #: what will happen, in words a user understands ("click 'Pay now' to pay $49.99 on shop.test")
    summary: str
    #: the site the transaction happens on
    domain: str = ""
    #: the amount the page shows for this transaction, when it shows one
    amount: float | None = None
    amount_text: str = ""
    #: what exactly an approval covers (with ``category``, ``domain`` and ``amount``): the resolved
    #: element ("button:pay now"; a URL for navigate, a key for press), the URL path or the element's form
    element: str = ""
    place: str = ""


@dataclass
class StepContext:
    task: str
    mode: str
    snapshot: PageSnapshot
    #: recent steps, oldest first: ``{step, tool, target, url, result, ok}``
    history: list[dict[str, Any]]
    step: int
    max_steps: int
    #: loop nudges and reflection advice for this decision, in words
    hints: list[str] = field(default_factory=list)
    #: (tool, target) pairs the policy should not repeat on this page
    avoid: list[tuple[str, str]] = field(default_factory=list)
    #: the user's answers to earlier questions
    answers: list[str] = field(default_factory=list)
    #: the latest reflection (``efficiency``, ``issues``, ``suggestions``, ``shouldAdjust``)
    reflection: dict[str, Any] | None = None
    #: the brain's memory from the previous step (JSON-safe)
    memory: dict[str, Any] = field(default_factory=dict)


class Brain(Protocol):
    def decide(self, ctx: StepContext) -> ToolCall: ...

    def assess(self, decision: ToolCall, ctx: StepContext) -> Risk | None: ...

