"""The web-agent brain shared by the AI Olympics webhook, the Proxy API and the evaluation client.

Interface (everything a protocol needs)::

    from agenthost.agent import make_policy, deadline_in
    from agenthost.agent.aria import from_aria
    from agenthost.agent.snapshot import from_observation, from_snapshot

    page = from_aria(tree, url=url, title=title)        # AI Olympics accessibilityTree
    page = from_snapshot(snapshot_dict)                  # Proxy API PageSnapshot
    page = from_observation(browser_result["observation"])  # browser function
    policy = make_policy()          # LLM policy with deterministic fallback, or deterministic (AGENTHOST_LLM=none)
    decision = policy.decide(task, page, history, memory, tools, deadline_in(18.0), careful=False, avoid=())

* ``task``: the task text. ``history``: previous :class:`Action` s (``Action(tool, args)``; the Olympics
  ``previousActions`` map with ``Action(a["name"], a["arguments"])``). ``memory``: the dict the caller
  stored after the last turn (pass ``{}`` at first; store ``decision.memory`` afterwards; JSON-safe).
  ``tools``: the protocol's tool list (names or JSON-schema tool dicts; empty = all).
  ``deadline``: an :class:`agenthost.deadline.Deadline` made where the turn arrived (or
  :func:`deadline_in`); a policy that needs time after its own work ``reserve`` s it by name; a bare
  ``time.monotonic()`` instant is still accepted; ``careful``: careful mode;
  ``avoid``: (tool, target) pairs not to repeat (target: element name or id). ``memory["user_answers"]``
  (the user's answers, read as stated values) and ``memory["hints"]`` (reflections, nudges: shown to the
  LLM as fenced data) are passed afresh each call.
* :class:`Decision`: ``actions`` (guarded: every target resolved against the page, capped at 10, scripts
  stripped; each has ``resolved`` element and ``risk``), ``done``, ``result``, ``thinking``, ``source``
  (``deterministic`` | ``llm`` | ``llm+fallback``), ``usage`` (tokens), ``memory``, ``stop`` (loops
  persisted: end the run), ``needs_approval`` (careful mode: the question to ask before the first risky
  action), ``prompt_chars``, ``rules`` (the names of the deterministic rules that acted, each once, in order:
  :mod:`agenthost.agent.rules`; each action's ``rule`` names its own).
* Wire forms: ``decision.olympics()`` gives the AI Olympics response body; ``action.to_proxy()`` gives
  ``{"name", "parameters": {"id": ...}}``; ``action.to_browser()`` gives a browser-function action.
* Guards: ``resolve``, ``check_actions``, ``strip_script`` (:mod:`agenthost.agent.guards`), ``LoopGuard``
  (:mod:`~agenthost.agent.loops`), ``classify_risk`` (:mod:`~agenthost.agent.risk`); usable on their own for
  actions a protocol receives from elsewhere. ``WebGuard`` / ``guard_decision``
  (:mod:`~agenthost.agent.web_guard`): the rules every policy's actions follow (off-site navigation,
  deletions, the task's secrets); ``make_policy()`` already puts its policy behind it.
"""

from __future__ import annotations

from agenthost.agent.actions import Action, Decision, tool_names
from agenthost.agent.page import Element, Page
from agenthost.agent.policy import DeterministicPolicy, Policy, deadline_in

__all__ = ["Action", "Decision", "DeterministicPolicy", "Element", "Page", "Policy", "deadline_in",
           "deterministic_policy", "make_policy", "our_policy", "tool_names"]


def make_policy() -> Policy:
    """The policy ``AGENTHOST_AGENT`` and ``AGENTHOST_LLM`` select, behind the web guard
    (:class:`~agenthost.agent.web_guard.WebGuard`: every decision checked once by the same rules): a user's
    agent (see :mod:`agenthost.plugins`) guarded, with ours as its fallback; ours is the LLM policy (with
    deterministic fallback) or the deterministic one. When the web guard leaves a decision of the LLM or a
    user's agent nothing to do, the deterministic policy decides."""
    from agenthost.agent.web_guard import WebGuard
    from agenthost.plugins import web_policy

    policy = web_policy(our_policy())
    if isinstance(policy, DeterministicPolicy):
        return deterministic_policy()
    return WebGuard(policy, DeterministicPolicy())


def deterministic_policy() -> Policy:
    """Our deterministic policy behind the web guard: what :func:`make_policy` gives when neither an LLM nor a
    user's agent is configured, and what a protocol answers with when the selected one is late (AI Olympics)."""
    from agenthost.agent.web_guard import WebGuard

    return WebGuard(DeterministicPolicy())


def our_policy() -> Policy:
    """Our own policy: the LLM policy (with deterministic fallback) when ``AGENTHOST_LLM`` names one,
    else the deterministic one."""
    from agenthost.config import settings

    if settings().llm_provider == "none":
        return DeterministicPolicy()
    from agenthost.agent.llm_policy import LlmPolicy
    from agenthost.llm import provider_from_settings

    provider = provider_from_settings()
    return DeterministicPolicy() if provider is None else LlmPolicy(provider)
