"""A user's Werewolf agent (``AGENTHOST_AGENT``, :class:`agenthost.plugins.WerewolfAgent`) as the player's
policy.

The agent gets a :class:`~agenthost.plugins.WerewolfState` (the parsed turn, what we inferred, our
deterministic suggestion, its own memory for this game and seat) and answers the object for the action
type. It runs on its own thread under the turn's deadline (less ``AGENTHOST_AGENT_RESERVE_S``); an exception, a timeout,
an answer that is not an object of the action type's fields is refused here (:class:`Refused`, with the
reason); an answer the engine would refuse (a target not alive, a teammate kill, a repeated guard, a
potion the witch no longer has...) is refused by the player's contract check. Either way our strategy
answers and the reason is logged and metered.
"""

from __future__ import annotations

import copy
from typing import Any

from agenthost.deadline import Deadline
from agenthost.plugins import Refused, WerewolfState, agent_deadline, call_with_deadline, json_memory
from werewolf.knowledge import View
from werewolf.llm_strategy import to_answer
from werewolf.player import Policy, Proposal
from werewolf.speech import Say
from werewolf.strategy import decide

FIELDS = frozenset({"message", "target", "second_target", "witch_action", "flip"})


class AgentPolicy(Policy):
    name = "agent"

    def __init__(self, agent: Any, reserve_s: float | None = None, load_error: str = ""):
        self.agent = agent
        self.reserve_s = reserve_s  # None: the setting AGENTHOST_AGENT_RESERVE_S
        self.load_error = load_error

    def decide(self, view: View, say: Say, deadline: Deadline | float) -> Proposal:
        if self.agent is None:
            raise Refused("load", self.load_error or "no agent")
        state = build_state(view, say, agent_deadline(deadline, self.reserve_s))
        obj = call_with_deadline(self.agent.decide_werewolf, state, deadline=state.deadline)
        memory = json_memory(state.memory)
        if obj is None:
            raise Refused("declined", "the agent returned None")
        if not isinstance(obj, dict):
            raise Refused("invalid", f"decide_werewolf returned {type(obj).__name__}, not a dict")
        unknown = sorted(set(obj) - FIELDS)
        if unknown:
            raise Refused("invalid", f"unknown fields {', '.join(k[:20] for k in unknown[:3])}")
        answer = to_answer(view.turn.action_type, obj)
        if answer is None:
            raise Refused("invalid", f"no usable answer for {view.turn.action_type[:30]!r}")
        return Proposal(answer, memory)


def build_state(view: View, say: Say, deadline: float) -> WerewolfState:
    mem = view.memory
    turn = view.turn
    try:
        suggestion = decide(view, say).answer.wire()
    except Exception:  # noqa: BLE001 - a suggestion is a help
        suggestion = {}
    facts = {
        "seer_results": dict(mem.seer_results), "claims": dict(mem.claims),
        "claimed_checks": copy.deepcopy(mem.claimed_checks), "trusted_seer": view.trusted_seer,
        "known_wolves": sorted(view.known_wolves), "known_good": sorted(view.known_good),
        "suspicion": dict(view.score), "votes": list(mem.votes[-50:]), "seats": dict(view.seats),
        "lovers": list(mem.lovers), "witch_saved": list(mem.witch_saved), "witch_poisoned": list(mem.witch_poisoned),
    }
    return WerewolfState(
        action_type=turn.action_type, round=turn.round, phase=turn.phase, me=view.me, role=view.role,
        targets=list(view.targets), alive=list(view.alive), dead=list(mem.dead), teammates=list(view.teammates),
        chat=[(c.speaker, c.content) for c in turn.chat_history], known_info=list(turn.known_info),
        extra_context=copy.deepcopy(turn.extra_context), suggestion=suggestion, facts=facts,
        memory=copy.deepcopy(mem.agent), deadline=deadline, game_id=turn.game_id, language=say.lang,
        personality=say.style,
        last_guarded=mem.guard_history[-1][1] if mem.guard_history else None)


def configured_policy() -> AgentPolicy | None:
    """The user's agent when ``AGENTHOST_AGENT`` names one with ``decide_werewolf`` (or one that failed to
    load: every turn then meters the fallback), else None."""
    from agenthost import plugins

    got = plugins.load()
    if got is None:
        return None
    if got.error:
        return AgentPolicy(None, load_error=got.error)
    return AgentPolicy(got.agent) if got.werewolf() else None
