"""Helpers for the Proxy API tests: a scripted brain (a test double for the shared brain), snapshots,
and calls through the real Lambda handler with the API key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runs.brain import Decision, Risk, StepContext

API_KEY = "test-runs-key-0123456789"


class ScriptedBrain:
    """Decides with ``choose(ctx)`` and judges risk with ``risky`` (element id -> Risk)."""

    def __init__(self, choose: Callable[[StepContext], Decision] | None = None,
                 risky: dict[str, Risk] | None = None):
        self.choose = choose or (lambda ctx: Decision("click", {"id": ctx.snapshot.elements[0].id}))
        self.risky = risky or {}
        self.contexts: list[StepContext] = []

    def decide(self, ctx: StepContext) -> Decision:
        self.contexts.append(ctx)
        return self.choose(ctx)

    def assess(self, decision: Decision, ctx: StepContext) -> Risk | None:
        return self.risky.get(str(decision.parameters.get("id", "")))


def snapshot(url: str = "https://shop.test/", text: str = "Welcome", elements: list[dict] | None = None,
             ts: int = 1) -> dict[str, Any]:
    return {"url": url, "title": "Shop", "visibleText": text, "timestamp": ts,
            "elements": elements if elements is not None else [{"id": "agent-1", "tag": "a", "text": "Contact"}]}
