"""Bring your own agent: the interfaces a user's agent implements, how it is loaded, and the guard that
keeps our guarantees around it.

``AGENTHOST_AGENT=package.module:factory`` names a callable (a class or a function) returning the agent.
The agent implements either or both of:

* :class:`WebAgent` ``decide_web(turn: WebTurn) -> Decision | None``: AI Olympics turns, Proxy API steps and the
  evaluation client's web tasks. ``turn`` carries the task, the page model, the history, the agent's own
  memory, the tools the protocol offers, the skills, the deadline, careful mode, what not to repeat, the
  engine's hints and the user's answers. The answer is a :class:`~agenthost.agent.Decision` of
  :class:`~agenthost.agent.Action` s, the types our own policies return (a list of actions will do);
  ``Decision.memory`` is kept and comes back as ``turn.memory`` next time; ``None`` lets our policy
  decide this turn.
* :class:`WerewolfAgent` ``decide_werewolf(state: WerewolfState) -> dict | None``: the answer object for
  ``state.action_type`` (``{"message"}``, ``{"target"}``, ``{"witch_action", "target"?}``,
  ``{"target", "second_target"}``...); ``None`` lets our strategy answer. ``state.memory`` is the agent's
  own dict for this game and seat: change it in place, it is kept.

What the agent does not implement, our policies answer. Around user code (:class:`GuardedWebPolicy`, and
``werewolf.agent_policy`` for Werewolf):

* it runs on its own thread and is abandoned at the turn's deadline (less ``AGENTHOST_AGENT_RESERVE_S``
  for our fallback);
  while earlier calls are still stuck (``MAX_STUCK``), no new one starts;
* an exception, a timeout, an answer of the wrong type, a target not on the page, a navigation netguard
  refuses, an action listed under ``avoid``, memory that is not JSON: the reason is logged (the exception
  type and where it was raised, never its message, which may hold page or user secrets), metered as a
  fallback (``agent_<reason>``), and our policy answers the turn;
* actions are re-resolved against the page by our guards (the agent cannot set ``resolved``/``risk``),
  risk is classified by us, careful mode's ``needs_approval`` is ours, loops are tracked by our
  :class:`~agenthost.agent.loops.LoopGuard`, script-like text is stripped, values typed into password
  and card fields are masked in the thinking, the result and the stored memory.

Written here rather than taken from a plugin library: loading is one ``importlib`` call, and what matters
is the guard, which is specific to our decision types and protocols.

Modules: ``interfaces`` (what the agent implements and is given), ``loading`` (``AGENTHOST_AGENT``, once per
process), ``calls`` (user code on its own thread under a deadline), ``guarded`` (:class:`GuardedWebPolicy`:
the agent behind our guards).
Import the names below from :mod:`agenthost.plugins`.
"""

from agenthost.plugins.calls import Refused, agent_deadline, call_with_deadline, stuck
from agenthost.plugins.guarded import (
    MAX_MEMORY_CHARS,
    MEMORY_KEY,
    GuardedWebPolicy,
    json_memory,
    mask,
    record_fallback,
    skills,
    web_policy,
)
from agenthost.plugins.interfaces import WebAgent, WebTurn, WerewolfAgent, WerewolfState
from agenthost.plugins.loading import ENV, Loaded, load, reset, spec

__all__ = ["ENV", "MAX_MEMORY_CHARS", "MEMORY_KEY", "GuardedWebPolicy", "Loaded", "Refused", "WebAgent", "WebTurn",
           "WerewolfAgent", "WerewolfState", "agent_deadline", "call_with_deadline", "json_memory", "load", "mask",
           "record_fallback", "reset", "skills", "spec", "stuck", "web_policy"]
