"""Reflections: every few steps, a look back at the recent steps, kept as data that informs the policy.

A reflection never ends a run. It rates ``efficiency`` (high/medium/low) from failed actions, repeated
actions and whether the page changed, names the ``issues``, suggests what to do differently and sets
``shouldAdjust``; the engine passes the latest one to the policy as hints.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

EVERY = 5


def reflect(entries: list[dict[str, Any]], step: int, now_ms: int) -> dict[str, Any]:
    """The reflection over ``entries`` (the last steps, oldest first) made at ``step``."""
    analyzed = [e for e in entries if e.get("tool")]
    failed = [e for e in analyzed if e.get("ok") is False]
    sigs = Counter((e.get("tool"), e.get("target"), e.get("fp")) for e in analyzed if e.get("fp"))
    repeated = [(tool, target) for (tool, target, _fp), n in sigs.items() if n > 1]
    pages = {e.get("fp") for e in analyzed if e.get("fp")}
    observes = sum(1 for e in analyzed if e.get("tool") == "observe")

    issues: list[str] = []
    suggestions: list[str] = []
    if failed:
        issues.append(f"{len(failed)} of {len(analyzed)} actions failed"
                      + (f" (last: {failed[-1].get('result')})" if failed[-1].get("result") else ""))
        suggestions.append("re-read the page: element ids may be stale after a reload; target fresh ids")
    for tool, target in repeated:
        issues.append(f"repeated {tool} {target}".strip() + " on an unchanged page")
        suggestions.append(f"do not repeat {tool} {target}".strip() + "; try another element, scroll or navigate")
    if len(analyzed) >= 3 and len(pages) <= 1:
        issues.append(f"the page did not change in {len(analyzed)} steps")
        suggestions.append("scroll to reveal more of the page or navigate to a more relevant page")
    if observes >= 3:
        issues.append(f"{observes} observe steps without acting")
        suggestions.append("act on the page instead of observing again")

    score = len(failed) + len(repeated) + (1 if len(analyzed) >= 3 and len(pages) <= 1 else 0)
    efficiency = "high" if score == 0 else "medium" if score == 1 else "low"
    return {
        "stepNumber": step,
        "stepsAnalyzed": len(analyzed),
        "efficiency": efficiency,
        "issues": issues,
        "suggestions": suggestions,
        "shouldAdjust": efficiency != "high",
        "timestamp": now_ms,
    }


def hints(reflection: dict[str, Any] | None) -> list[str]:
    """Advice for the next decisions from the latest reflection (empty when nothing needs adjusting)."""
    if not reflection or not reflection.get("shouldAdjust"):
        return []
    return [f"Reflection at step {reflection['stepNumber']}: " + "; ".join(reflection.get("issues", []))
            + ". Suggestion: " + "; ".join(reflection.get("suggestions", []))]
