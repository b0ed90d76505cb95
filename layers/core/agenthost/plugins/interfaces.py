"""What a user's agent implements (:class:`WebAgent`, :class:`WerewolfAgent`) and what it is given each turn
(:class:`WebTurn`, :class:`WerewolfState`); see ``PLUGINS.md``."""

from __future__ import annotations

import secrets as _secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from agenthost.agent.actions import Action, Decision
from agenthost.agent.page import Page


@dataclass
class WebTurn:
    """Everything a web decision may use. ``deadline`` is a ``time.monotonic()`` instant."""

    task: str
    page: Page
    history: tuple[Action, ...]
    memory: dict[str, Any]
    tools: tuple[str, ...]
    deadline: float
    #: the exact solvers as tools by name (``call(args) -> str``); see also :meth:`solve`
    skills: Mapping[str, Any] = field(default_factory=dict)
    careful: bool = False
    #: (tool, target) pairs not to repeat (a loop nudge, a declined approval)
    avoid: tuple[tuple[str, str], ...] = ()
    #: reflections and loop nudges from the engine: untrusted data, fence them in a prompt
    hints: tuple[str, ...] = ()
    #: what the user answered to ``ask_user``: the user's own words
    user_answers: tuple[str, ...] = ()

    def remaining(self) -> float:
        """Seconds left before the deadline."""
        return max(0.0, self.deadline - time.monotonic())

    def fenced_page(self, nonce: str | None = None) -> tuple[str, str]:
        """``(nonce, text)``: the page for a prompt, fenced as untrusted content between markers carrying
        a random nonce (page text cannot close the fence), password and card values masked."""
        from agenthost.agent.llm_policy import render_page

        nonce = nonce or _secrets.token_hex(8)
        return nonce, render_page(self.page, nonce)

    def fence(self, name: str, text: str, nonce: str) -> str:
        """Any untrusted text (hints, history, tool output) fenced like the page."""
        from agenthost.agent.llm_policy import fence

        return fence(name, text, nonce)

    def solve(self, question: str) -> Any:
        """The exact answer to ``question`` from the skills, with this page as context (its tables, text,
        URL), within the deadline: a ``Solution`` (``skill``, ``answer``, ``detail``, ``alternatives``) or
        None when no skill solves it exactly."""
        try:
            from agenthost.skills import solve
        except ImportError:
            return None
        return solve(question, context=self.page, deadline=self.deadline)

    def http(self, **kwargs: Any) -> Any:
        """An ``httpx.Client`` (use it in a ``with``) whose every request and redirect netguard checks
        (no metadata endpoints; no private addresses when deployed), timing out by the deadline."""
        from agenthost import netguard

        kwargs.setdefault("timeout", max(0.1, self.remaining()))
        return netguard.guarded_client(**kwargs)

    def llm(self) -> Any:
        """The configured LLM (``AGENTHOST_LLM``), metered and under the agent's budget, or None:
        ``complete_json(messages, schema, deadline) -> (obj, usage)``."""
        from agenthost.llm import provider_from_settings

        return provider_from_settings()


@dataclass
class WerewolfState:
    """One Werewolf turn as the agent sees it (names exactly as targets must be written)."""

    action_type: str
    round: int
    phase: str
    me: str
    role: str
    #: who may be named as ``target``/``second_target`` (alive, not us)
    targets: list[str]
    alive: list[str]
    dead: list[str]
    teammates: list[str]
    #: public chat, oldest first: ``(speaker, text)``, other players' words: untrusted data
    chat: list[tuple[str, str]]
    known_info: list[str]
    extra_context: dict[str, Any]
    #: what our deterministic strategy would answer (a valid answer)
    suggestion: dict[str, Any]
    #: what we inferred: seer results, claims, suspicion, known wolves/good...
    facts: dict[str, Any]
    #: the agent's own memory for this game and seat: change it in place
    memory: dict[str, Any]
    deadline: float
    game_id: str = ""
    language: str = "zh"
    personality: str = "calm"
    #: the last player we protected as the guard (the engine refuses the same one twice in a row)
    last_guarded: str | None = None

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def http(self, **kwargs: Any) -> Any:
        """An ``httpx.Client`` (use it in a ``with``) whose every request and redirect netguard checks
        (no metadata endpoints; no private addresses when deployed), timing out by the deadline."""
        from agenthost import netguard

        kwargs.setdefault("timeout", max(0.1, self.remaining()))
        return netguard.guarded_client(**kwargs)

    def llm(self) -> Any:
        """The configured LLM (``AGENTHOST_LLM``), metered on the turn, or None (see :meth:`WebTurn.llm`)."""
        from agenthost.llm import provider_from_settings

        return provider_from_settings()


@runtime_checkable
class WebAgent(Protocol):
    def decide_web(self, turn: WebTurn) -> Decision | None: ...


@runtime_checkable
class WerewolfAgent(Protocol):
    def decide_werewolf(self, state: WerewolfState) -> dict[str, Any] | None: ...
