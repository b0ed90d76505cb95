"""What the run engine learns reaches the real brain adapter (``runs.agent_adapter.AgentBrain``): loop
nudges as ``avoid`` pairs and hints, reflections as hints, the user's answers; policies without ``avoid=``
still work. The policy behind ``AgentBrain`` is a double here: these tests check the plumbing, the page
model and the wire translation are the real ones."""

from __future__ import annotations

import pytest
from runs.agent_adapter import AgentBrain, avoid_pairs, verb_for
from runs.brain import ToolCall
from runs.engine import RunEngine
from runs.models import AnswerRequest, StartRequest, StepRequest
from runs.repo import RunRepo

from agenthost.agent import Action
from agenthost.agent import Decision as BrainDecision
from agenthost.agent.snapshot import from_snapshot
from agenthost.store import Store

PAGE = {"url": "https://shop.test/", "title": "Shop", "visibleText": "Welcome",
        "elements": [{"id": "agent-1", "tag": "a", "text": "Pricing", "href": "https://shop.test/pricing"},
                     {"id": "agent-2", "tag": "a", "text": "Plans", "href": "https://shop.test/plans"}]}


def click(page, ref):
    el = page.by_ref(ref)
    return BrainDecision(actions=[Action("click", {"element": el.name}, resolved=el)], thinking=f"click {el.name}")


class StubbornPolicy:
    """Clicks the first element it is not told to avoid (by id or by name), like a forgetful LLM that
    would repeat the same click forever on an unchanged page."""

    def __init__(self):
        self.calls = []

    def decide(self, task, page, history, memory, tools=None, deadline=None, *, careful=False, avoid=()):
        self.calls.append({"avoid": list(avoid), "hints": list(memory.get("hints", [])),
                           "answers": list(memory.get("user_answers", [])), "memory": dict(memory)})
        for el in page.elements:
            if ("click", el.ref) not in avoid and ("click", el.name) not in avoid:
                return click(page, el.ref)
        return BrainDecision(done=True, result="nothing left", thinking="everything avoided")


class OldPolicy:
    """A policy with the signature before ``avoid=`` existed."""

    def __init__(self):
        self.calls = 0

    def decide(self, task, page, history, memory, tools=None, deadline=None, *, careful=False):
        self.calls += 1
        return click(page, "agent-1")


@pytest.fixture
def make_engine(aws):
    def make(policy):
        return RunEngine(RunRepo(Store()), AgentBrain(policy))
    return make


def step(eng, rid, ts, snap=PAGE):
    return eng.step(rid, StepRequest.model_validate({"snapshot": {**snap, "timestamp": ts},
                                                     "lastActionResult": {"success": True}}))


def test_loop_nudge_reaches_the_policy_and_changes_the_action(make_engine):
    policy = StubbornPolicy()
    eng = make_engine(policy)
    rid = eng.start(StartRequest(task="Open the pricing page"))["runId"]
    tools = [step(eng, rid, i)["tool"]["parameters"]["id"] for i in range(3)]
    # two identical clicks on an unchanged page, then the nudge: the second decision of step 3 avoids it
    assert tools == ["agent-1", "agent-1", "agent-2"]
    nudged = policy.calls[-1]
    assert ("click", "agent-1") in nudged["avoid"] and ("click", "Pricing") in nudged["avoid"]
    assert any(h.startswith("Loop:") and "click agent-1" in h for h in nudged["hints"])
    assert policy.calls[-2]["avoid"] == []  # the first decision of step 3 had no nudge yet
    assert eng.get(rid)["state"]["status"] == "running"


def test_hints_and_answers_are_per_decision_not_stored_as_memory(make_engine):
    policy = StubbornPolicy()
    eng = make_engine(policy)
    brain = eng.brain
    asked = []

    def decide(ctx):
        if not asked:
            asked.append(1)
            return ToolCall("ask_user", {}, text="Which plan?")
        return AgentBrain.decide(brain, ctx)

    brain.decide = decide
    rid = eng.start(StartRequest(task="Open the plan the user wants"))["runId"]
    assert step(eng, rid, 0)["action"] == "ask_user"
    eng.answer(rid, AnswerRequest(approved=True, answer="the yearly plan"))
    step(eng, rid, 1)
    assert policy.calls[-1]["answers"] == ["the yearly plan"]
    meta = eng.repo.load(rid)
    assert "hints" not in meta["memory"] and "user_answers" not in meta["memory"]


def test_reflection_reaches_the_policy_as_a_hint(make_engine):
    policy = StubbornPolicy()
    eng = make_engine(policy)
    rid = eng.start(StartRequest(task="Open the pricing page"))["runId"]
    for i in range(5):  # every action fails: the reflection at step 5 says so
        eng.step(rid, StepRequest.model_validate({"snapshot": {**PAGE, "visibleText": f"page {i}", "timestamp": i},
                                                  "lastActionResult": {"success": False, "error": "not found"}}))
    step(eng, rid, 9)
    assert any(h.startswith("Reflection at step 5") and "failed" in h for h in policy.calls[-1]["hints"])


def test_policy_without_avoid_still_decides(make_engine):
    policy = OldPolicy()
    eng = make_engine(policy)
    rid = eng.start(StartRequest(task="Open the pricing page"))["runId"]
    actions = [step(eng, rid, i) for i in range(3)]
    assert [a["tool"]["parameters"]["id"] for a in actions] == ["agent-1"] * 3
    assert policy.calls == 4  # step 3 asked twice (the nudge), without avoid=


def test_policy_rejecting_avoid_at_call_time_falls_back_once():
    class Picky:
        calls = 0

        def decide(self, *args, **kwargs):
            Picky.calls += 1
            if "avoid" in kwargs:
                raise TypeError("decide() got an unexpected keyword argument 'avoid'")
            return click(args[1], "agent-2")

    brain = AgentBrain(Picky())
    from runs.brain import StepContext
    from runs.models import PageSnapshot

    ctx = StepContext(task="t", mode="autonomous", snapshot=PageSnapshot.model_validate(PAGE), history=[], step=1,
                      max_steps=10)
    assert brain.decide(ctx).parameters == {"id": "agent-2"}
    assert brain.decide(ctx).parameters == {"id": "agent-2"}
    assert Picky.calls == 3  # one failed try with avoid=, then never again


def test_avoid_pairs_in_both_vocabularies():
    page = from_snapshot({**PAGE, "elements": PAGE["elements"] + [
        {"id": "agent-3", "tag": "select", "options": ["S", "M"], "ariaLabel": "Size"}]})
    pairs = avoid_pairs([("click", "agent-1"), ("type", "agent-3"), ("scroll", "down")], page)
    assert {("click", "agent-1"), ("check", "agent-1"), ("click", "Pricing"), ("type", "agent-3"),
            ("select", "agent-3"), ("select", "Size"), ("scroll", "down"), ("scroll", "")} <= set(pairs)
    assert ("click", "") not in pairs


@pytest.mark.parametrize("category,words", [
    ("payment", "pay or place an order"), ("account", "change account or security settings"),
    ("account_security", "change account or security settings"), ("security", "change account or security"),
    ("brand_new_kind", "perform a sensitive action (brand new kind)"), ("", "perform a sensitive action"),
])
def test_question_words_for_any_category(category, words):
    assert words in verb_for(category)


def test_loop_nudge_changes_the_real_deterministic_policy(make_engine):
    """The real DeterministicPolicy, wrapped so that it forgets its own loop memory between steps (as an
    LLM policy without it would): the engine's nudge (avoid + hint) alone makes it choose differently."""
    from agenthost.agent import DeterministicPolicy

    class Forgetful:
        def __init__(self):
            self.policy = DeterministicPolicy()
            self.avoids = []

        def decide(self, task, page, history, memory, tools=None, deadline=None, *, careful=False, avoid=()):
            self.avoids.append(list(avoid))
            kept = {k: memory[k] for k in ("hints", "user_answers") if k in memory}
            return self.policy.decide(task, page, [], kept, tools, deadline, careful=careful, avoid=avoid)

    policy = Forgetful()
    eng = make_engine(policy)
    rid = eng.start(StartRequest(task="Open the Pricing page"))["runId"]
    first, second, third = (step(eng, rid, i) for i in range(3))
    assert first["tool"] == second["tool"] == {"name": "click", "parameters": {"id": "agent-1"}}
    # step 3: the same click again on the unchanged page, nudged: the policy's second decision differs
    assert ("click", "agent-1") in policy.avoids[-1] and ("click", "Pricing") in policy.avoids[-1]
    assert third.get("tool") != {"name": "click", "parameters": {"id": "agent-1"}}
    assert third["state"]["status"] != "error"
