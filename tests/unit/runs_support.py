"""Helpers for the Proxy API tests: a scripted brain (a test double for the shared brain), snapshots,
and calls through the real Lambda handler with the API key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runs.brain import Risk, StepContext, ToolCall

API_KEY = "test-runs-key-0123456789"
H = {"x-api-key": API_KEY}


def api(method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    """One request to the Proxy API's real handler (with the API key unless ``headers`` says otherwise)."""
    import runs.app as runs_app

    from tests.support.apigw import call

    return call(runs_app.handler, method, path, json_body=body, headers=H if headers is None else headers)


def start_run(task: str, mode: str, **extra: Any) -> str:
    r = api("POST", "/agent/run/start", {"task": task, "mode": mode, **extra})
    assert r.status == 200, r.text
    return r.json()["runId"]


def step_run(run_id: str, snapshot: Any, result: Any) -> Any:
    return api("POST", f"/agent/run/{run_id}/step", {"snapshot": snapshot, "lastActionResult": result})


def install_brain(monkeypatch: Any, brain: Any = None) -> Any:
    """The Proxy API with its key set and ``brain`` (default: a :class:`ScriptedBrain`) deciding; the brain."""
    import runs.app as runs_app

    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    brain = brain if brain is not None else ScriptedBrain()
    monkeypatch.setattr(runs_app, "_brain", brain)
    return brain


class ScriptedBrain:
    """Decides with ``choose(ctx)`` and judges risk with ``risky`` (element id -> Risk)."""

    def __init__(self, choose: Callable[[StepContext], ToolCall] | None = None,
                 risky: dict[str, Risk] | None = None):
        self.choose = choose or (lambda ctx: ToolCall("click", {"id": ctx.snapshot.elements[0].id}))
        self.risky = risky or {}
        self.contexts: list[StepContext] = []

    def decide(self, ctx: StepContext) -> ToolCall:
        self.contexts.append(ctx)
        return self.choose(ctx)

    def assess(self, decision: ToolCall, ctx: StepContext) -> Risk | None:
        return self.risky.get(str(decision.parameters.get("id", "")))


def snapshot(url: str = "https://shop.test/", text: str = "Welcome", elements: list[dict] | None = None,
             ts: int = 1) -> dict[str, Any]:
    return {"url": url, "title": "Shop", "visibleText": text, "timestamp": ts,
            "elements": elements if elements is not None else [{"id": "agent-1", "tag": "a", "text": "Contact"}]}
