"""Proxy Server API: every endpoint and status code, the status machine, DynamoDB state, retries,
concurrency, maxSteps, expiry, reflections and loop nudges (brain replaced by a scripted double)."""

from __future__ import annotations

import threading

import pytest
import runs.app as runs_app
from runs.brain import Risk, ToolCall
from runs.engine import RunEngine
from runs.repo import RunRepo

from agenthost.items import keys
from agenthost.store import Store
from tests.support.apigw import call
from tests.unit.runs_support import API_KEY, H, ScriptedBrain, api, install_brain, snapshot, start_run, step_run


@pytest.fixture
def brain(aws, monkeypatch):
    return install_brain(monkeypatch)


def start(task="Find contact information", mode="autonomous", **extra):
    return start_run(task, mode, **extra)


def step(run_id, snap=None, result=None):
    return step_run(run_id, snap, result)


# ---------------------------------------------------------------- start

def test_start_shape(brain):
    r = api("POST", "/agent/run/start", {"task": "Find pricing", "mode": "autonomous"})
    body = r.json()
    assert r.status == 200
    assert body["success"] is True and len(body["runId"]) == 36
    assert body["state"] == {"status": "created", "currentStep": 0, "maxSteps": 150}


@pytest.mark.parametrize("payload,needle", [
    ({"mode": "autonomous"}, "task"),
    ({"task": "   "}, "task"),
    ({"task": "x", "mode": "reckless"}, "mode"),
    ({"task": "x", "maxSteps": 0}, "maxSteps"),
])
def test_start_bad_request(brain, payload, needle):
    r = api("POST", "/agent/run/start", payload)
    assert r.status == 400
    body = r.json()
    assert body["error"] == "bad_request" and needle in body["message"]


def test_start_malformed_json(brain):
    r = call(runs_app.handler, "POST", "/agent/run/start", body="{nope",
             headers={**H, "content-type": "application/json"})
    assert r.status == 400 and "Malformed JSON" in r.json()["message"]


def test_start_unknown_fields_ignored_and_max_steps(brain):
    r = api("POST", "/agent/run/start", {"task": "t", "mode": "careful", "extra": 1, "maxSteps": 7})
    assert r.status == 200 and r.json()["state"]["maxSteps"] == 7


# ---------------------------------------------------------------- step

def test_first_step_without_snapshot_observes(brain):
    rid = start()
    r = step(rid)
    assert r.status == 200
    assert r.json() == {"action": "execute_tool", "tool": {"name": "observe", "parameters": {}},
                        "state": {"status": "running", "currentStep": 1, "maxSteps": 150}}
    # an empty body is a null snapshot too
    r = call(runs_app.handler, "POST", f"/agent/run/{rid}/step", headers=H)
    assert r.status == 200 and r.json()["tool"]["name"] == "observe"


def test_step_executes_brain_decision_and_records_result(brain):
    rid = start()
    step(rid)
    r = step(rid, snapshot(), {"success": True, "message": "Observed"})
    assert r.json()["action"] == "execute_tool"
    assert r.json()["tool"] == {"name": "click", "parameters": {"id": "agent-1"}}
    assert r.json()["state"]["currentStep"] == 2
    step(rid, snapshot(url="https://shop.test/contact", text="mail@shop.test"),
         {"success": True, "message": "Clicked successfully"})
    state = api("GET", f"/agent/run/{rid}").json()["state"]
    assert [h["action"] for h in state["history"]] == ["observe", "click", "click"]
    assert [h["observation"] for h in state["history"]][:2] == ["Observed", "Clicked successfully"]
    assert state["currentSnapshot"]["url"] == "https://shop.test/contact"
    # the brain saw the recorded result of the previous action
    assert brain.contexts[-1].history[-1]["result"] == "Clicked successfully"


def test_finish_completes_and_then_409(brain):
    brain.choose = lambda ctx: ToolCall("finish", {}, text="Contact: mail@shop.test")
    rid = start()
    r = step(rid, snapshot())
    assert r.json() == {"action": "finish", "result": "Contact: mail@shop.test",
                        "state": {"status": "completed", "currentStep": 1, "maxSteps": 150}}
    r = step(rid, snapshot(ts=2))
    assert r.status == 409 and r.json()["error"] == "conflict" and "completed" in r.json()["message"]
    assert api("POST", f"/agent/run/{rid}/answer", {"approved": True}).status == 409
    assert api("POST", f"/agent/run/{rid}/cancel").status == 409
    got = api("GET", f"/agent/run/{rid}").json()["state"]
    assert got["status"] == "completed" and got["result"] == "Contact: mail@shop.test"


def test_unknown_run_404_everywhere(brain):
    for method, path, body in [("POST", "/agent/run/nope/step", {}), ("POST", "/agent/run/nope/answer",
                               {"approved": True}), ("POST", "/agent/run/nope/cancel", None),
                               ("GET", "/agent/run/nope", None)]:
        r = api(method, path, body)
        assert r.status == 404, path
        assert r.json()["error"] == "not_found" and "nope" in r.json()["message"]


def test_wrong_methods_405(brain):
    rid = start()
    assert api("GET", f"/agent/run/{rid}/step").status == 405
    assert api("DELETE", f"/agent/run/{rid}").status == 405


def test_bad_step_body_400(brain):
    rid = start()
    r = api("POST", f"/agent/run/{rid}/step", {"snapshot": {"url": "x", "elements": "nope"}})
    assert r.status == 400 and "snapshot.elements" in r.json()["message"]


def test_snapshot_trimmed_to_extension_limits(brain):
    rid = start()
    els = [{"id": f"agent-{i}", "tag": "button", "text": "y" * 500} for i in range(150)]
    step(rid, snapshot(text="x" * 9000, elements=els))
    snap = api("GET", f"/agent/run/{rid}").json()["state"]["currentSnapshot"]
    assert len(snap["elements"]) == 100 and len(snap["visibleText"]) == 6000
    assert len(snap["elements"][0]["text"]) == 200


# ---------------------------------------------------------------- ask_user / answer / cancel

def test_policy_question_waits_for_answer(brain):
    brain.choose = lambda ctx: (ToolCall("ask_user", {}, text="Which size?") if not ctx.answers
                                else ToolCall("finish", {}, text=f"size {ctx.answers[-1]}"))
    rid = start()
    r = step(rid, snapshot())
    assert r.json()["action"] == "ask_user" and r.json()["question"] == "Which size?"
    assert r.json()["state"]["status"] == "waiting_user"
    blocked = step(rid, snapshot(ts=2))
    assert blocked.status == 409 and "answer" in blocked.json()["message"]
    r = api("POST", f"/agent/run/{rid}/answer", {"approved": True, "answer": "M"})
    assert r.json() == {"action": "execute_tool", "tool": {"name": "observe", "parameters": {}},
                        "state": {"status": "running", "currentStep": 2, "maxSteps": 150}}
    r = step(rid, snapshot(ts=3), {"success": True})
    assert r.json()["action"] == "finish" and r.json()["result"] == "size M"
    hist = api("GET", f"/agent/run/{rid}").json()["state"]["history"]
    assert hist[0]["action"] == "ask_user" and hist[0]["observation"].startswith("User approved")


def test_answer_when_not_waiting_is_409(brain):
    rid = start()
    r = api("POST", f"/agent/run/{rid}/answer", {"approved": True})
    assert r.status == 409 and "not waiting" in r.json()["message"]
    assert api("POST", f"/agent/run/{rid}/answer", {}).status == 400


def test_declined_answer_cancels(brain):
    brain.choose = lambda ctx: ToolCall("ask_user", {}, text="Really?")
    rid = start()
    step(rid, snapshot())
    r = api("POST", f"/agent/run/{rid}/answer", {"approved": False})
    assert r.status == 200
    assert r.json()["action"] == "error" and r.json()["state"]["status"] == "cancelled"
    state = api("GET", f"/agent/run/{rid}").json()["state"]
    assert state["status"] == "cancelled" and state["history"][-1]["observation"] == "User declined"
    assert step(rid, snapshot(ts=5)).status == 409


def test_cancel(brain):
    rid = start()
    step(rid)
    r = api("POST", f"/agent/run/{rid}/cancel")
    assert r.status == 200 and r.json() == {"success": True}
    assert api("GET", f"/agent/run/{rid}").json()["state"]["status"] == "cancelled"
    assert step(rid, snapshot()).status == 409
    # cancelled is an end state: a second cancel is a 409 like anything else after it
    again = api("POST", f"/agent/run/{rid}/cancel")
    assert again.status == 409 and again.json()["error"] == "conflict"
    assert "already cancelled" in again.json()["message"]
    assert api("GET", f"/agent/run/{rid}").json()["state"]["status"] == "cancelled"


def test_get_shape(brain):
    rid = start(task="Find contact", mode="careful")
    step(rid)
    state = api("GET", f"/agent/run/{rid}").json()["state"]
    assert {"runId", "task", "mode", "status", "currentStep", "maxSteps", "history", "reflections",
            "currentSnapshot", "createdAt", "updatedAt"} <= set(state)
    assert state["runId"] == rid and state["task"] == "Find contact" and state["mode"] == "careful"
    assert state["history"][0]["stepNumber"] == 1 and isinstance(state["history"][0]["timestamp"], int)
    assert state["createdAt"] <= state["updatedAt"]


# ---------------------------------------------------------------- careful mode bookkeeping

PAY = Risk("payment", "click 'Pay now' to pay $49.99 on shop.test", "shop.test", 49.99, "$49.99")


def test_careful_asks_before_risky_action_once_per_transaction(brain):
    els = [{"id": "agent-9", "tag": "button", "text": "Pay now"}]
    brain.choose = lambda ctx: ToolCall("click", {"id": "agent-9"})
    brain.risky = {"agent-9": PAY}
    rid = start(mode="careful")
    r = step(rid, snapshot(url="https://shop.test/checkout", elements=els))
    body = r.json()
    assert body["action"] == "ask_user" and body["state"]["status"] == "waiting_user"
    assert "Pay now" in body["question"] and "$49.99" in body["question"]
    api("POST", f"/agent/run/{rid}/answer", {"approved": True})
    r = step(rid, snapshot(url="https://shop.test/checkout", elements=els, ts=2))
    assert r.json()["action"] == "execute_tool" and r.json()["tool"]["parameters"] == {"id": "agent-9"}
    # the amount grew: ask again
    brain.risky = {"agent-9": Risk("payment", "click 'Pay now' to pay $99.00", "shop.test", 99.0, "$99.00")}
    r = step(rid, snapshot(url="https://shop.test/checkout", elements=els, ts=3, text="Total $99.00"))
    assert r.json()["action"] == "ask_user" and "$99.00" in r.json()["question"]


def test_autonomous_never_asks(brain):
    brain.choose = lambda ctx: ToolCall("click", {"id": "agent-9"})
    brain.risky = {"agent-9": PAY}
    rid = start(mode="autonomous")
    r = step(rid, snapshot(elements=[{"id": "agent-9", "tag": "button", "text": "Pay now"}]))
    assert r.json()["action"] == "execute_tool"


def test_careful_ordinary_action_not_blocked(brain):
    brain.choose = lambda ctx: ToolCall("click", {"id": "agent-2"})
    brain.risky = {"agent-9": PAY}
    rid = start(mode="careful")
    r = step(rid, snapshot(elements=[{"id": "agent-2", "tag": "button", "text": "Add to cart"}]))
    assert r.json()["action"] == "execute_tool"


# ---------------------------------------------------------------- retries and concurrency

def test_retried_identical_step_returns_same_answer(aws, brain):
    rid = start()
    step(rid)
    first = step(rid, snapshot(), {"success": True})
    store = Store()
    before = store.get(f"RUN#{rid}", "META")["version"]
    again = step(rid, snapshot(), {"success": True})
    assert again.status == 200 and again.json() == first.json()
    assert store.get(f"RUN#{rid}", "META")["version"] == before
    assert api("GET", f"/agent/run/{rid}").json()["state"]["currentStep"] == 2
    # a stale retry of an older step after the run moved on is refused, not re-applied
    step(rid, snapshot(ts=2), {"success": True})
    stale = step(rid, snapshot(), {"success": True})
    assert stale.status == 409 and "already processed as step 2" in stale.json()["message"]


def test_concurrent_steps_never_both_advance(aws, monkeypatch):
    gate = threading.Barrier(2)

    class SlowBrain(ScriptedBrain):
        def decide(self, ctx):
            try:
                gate.wait(5)
            except threading.BrokenBarrierError:
                pass
            return super().decide(ctx)

    brain = SlowBrain()
    eng = RunEngine(RunRepo(Store()), brain)
    from runs.models import StartRequest, StepRequest

    rid = eng.start(StartRequest(task="t"))["runId"]
    results: list = []

    def go(ts):
        e = RunEngine(RunRepo(Store()), brain)
        try:
            results.append(("ok", e.step(rid, StepRequest.model_validate({"snapshot": snapshot(ts=ts)}))))
        except Exception as exc:  # noqa: BLE001
            results.append(("err", exc))

    threads = [threading.Thread(target=go, args=(ts,)) for ts in (1, 2)]
    [t.start() for t in threads]
    [t.join(10) for t in threads]
    oks = [r for kind, r in results if kind == "ok"]
    errs = [r for kind, r in results if kind == "err"]
    assert len(oks) == 1 and len(errs) == 1
    assert getattr(errs[0], "status", None) == 409
    state = eng.get(rid)["state"]
    assert state["currentStep"] == 1 and len(state["history"]) == 1, (state, oks)


def test_concurrent_identical_retries_both_get_the_answer(aws):
    gate = threading.Barrier(2)

    class SlowBrain(ScriptedBrain):
        def decide(self, ctx):
            try:
                gate.wait(5)
            except threading.BrokenBarrierError:
                pass
            return super().decide(ctx)

    brain = SlowBrain()
    from runs.models import StartRequest, StepRequest

    rid = RunEngine(RunRepo(Store()), brain).start(StartRequest(task="t"))["runId"]
    results: list = []

    def go():
        results.append(RunEngine(RunRepo(Store()), brain).step(
            rid, StepRequest.model_validate({"snapshot": snapshot(ts=7)})))

    threads = [threading.Thread(target=go) for _ in range(2)]
    [t.start() for t in threads]
    [t.join(10) for t in threads]
    assert len(results) == 2 and results[0] == results[1]
    assert results[0]["state"]["currentStep"] == 1


# ---------------------------------------------------------------- limits, expiry, reflections, loops

def test_max_steps_ends_run_with_spec_error(brain):
    rid = start(maxSteps=3)
    for i in range(3):
        assert step(rid, snapshot(url=f"https://shop.test/{i}", ts=i)).json()["action"] == "execute_tool"
    r = step(rid, snapshot(url="https://shop.test/x", ts=99))
    assert r.json() == {"action": "error", "error": "Maximum steps reached",
                        "state": {"status": "error", "currentStep": 3, "maxSteps": 3}}
    assert step(rid, snapshot(ts=100)).status == 409


def test_default_max_steps_from_env(brain, monkeypatch):
    monkeypatch.setenv("AGENTHOST_RUNS_MAX_STEPS", "40")
    assert api("POST", "/agent/run/start", {"task": "t"}).json()["state"]["maxSteps"] == 40


def test_expired_run_is_404_and_items_carry_ttl(aws, monkeypatch):
    clock = [1_000_000.0]
    brain = ScriptedBrain()
    eng = RunEngine(RunRepo(Store(clock=lambda: clock[0])), brain, ttl_s=3600)
    from runs.models import StartRequest, StepRequest

    rid = eng.start(StartRequest(task="t"))["runId"]
    eng.step(rid, StepRequest())
    items = list(Store(clock=lambda: clock[0]).query(f"RUN#{rid}"))
    assert {i["expires_at"] for i in items} == {1_003_600}
    clock[0] += 3601
    from agenthost.webapp import ApiError

    with pytest.raises(ApiError) as err:
        eng.get(rid)
    assert err.value.status == 404 and "expired" in err.value.message


def test_reflections_every_five_steps_do_not_end_run(brain):
    brain.choose = lambda ctx: ToolCall("scroll", {"direction": "down"})
    rid = start()
    for i in range(10):
        r = step(rid, snapshot(ts=i, text=f"page {i}"), {"success": False, "error": "nothing happened"})
        assert r.json()["state"]["status"] == "running"
    refl = api("GET", f"/agent/run/{rid}").json()["state"]["reflections"]
    assert [x["stepNumber"] for x in refl] == [5, 10]
    assert refl[-1]["efficiency"] == "low" and refl[-1]["shouldAdjust"] is True
    assert refl[-1]["stepsAnalyzed"] == 5 and any("failed" in i for i in refl[-1]["issues"])
    # and the reflection reaches the policy as a hint
    assert any("Reflection at step 10" in h for h in brain.contexts[-1].hints) is False  # made after step 10
    step(rid, snapshot(ts=50))
    assert any("Reflection at step 10" in h for h in brain.contexts[-1].hints)


def test_loop_nudge_changes_course(brain):
    def choose(ctx):
        if ("click", "agent-1") in ctx.avoid:
            return ToolCall("scroll", {"direction": "down"})
        return ToolCall("click", {"id": "agent-1"})
    brain.choose = choose
    rid = start()
    tools = [step(rid, snapshot(ts=i), {"success": True}).json()["tool"]["name"] for i in range(4)]
    assert tools == ["click", "click", "scroll", "scroll"]
    assert any("Loop:" in h for h in brain.contexts[-2].hints)


def test_persisting_loop_ends_run_with_clear_error(brain):
    brain.choose = lambda ctx: ToolCall("click", {"id": "agent-1"})
    rid = start()
    actions = [step(rid, snapshot(ts=i), {"success": True}).json() for i in range(6)]
    assert [a["action"] for a in actions[:4]] == ["execute_tool"] * 4
    assert actions[4]["action"] == "error" and "loop" in actions[4]["error"].lower()
    assert "click agent-1" in actions[4]["error"]
    assert actions[4]["state"]["status"] == "error"


def test_changing_page_is_not_a_loop(brain):
    brain.choose = lambda ctx: ToolCall("click", {"id": "agent-1"})
    rid = start()
    for i in range(8):
        r = step(rid, snapshot(text=f"results page {i}", ts=i), {"success": True})
        assert r.json()["action"] == "execute_tool"


def test_a_wait_that_counts_down_is_not_a_loop_but_the_same_wait_again_is(brain):
    """A brain waiting out a pause looks again on an unchanged page, each time with less time left: that is
    progress, not a loop. The same look with nothing moved is still caught."""
    left = iter(range(9, 0, -1))
    brain.choose = lambda ctx: ToolCall("observe", {}, progress=f"{next(left)} s left")
    rid = start()
    for i in range(8):
        assert step(rid, snapshot(ts=i), {"success": True}).json()["action"] == "execute_tool"
    brain.choose = lambda ctx: ToolCall("observe", {}, progress="stuck at 3")
    rid = start()
    actions = [step(rid, snapshot(ts=i), {"success": True}).json()["action"] for i in range(5)]
    assert actions[-1] == "error"


def test_a_step_is_one_read_and_one_write_and_a_block_of_history_every_twenty(aws, brain):
    from runs.models import StartRequest, StepRequest

    from tests.support.usage import DynamoCalls

    eng = RunEngine(RunRepo(Store()), brain)
    rid = eng.start(StartRequest(task="t", maxSteps=200))["runId"]
    brain.choose = lambda ctx: ToolCall("click", {"id": f"agent-{ctx.step % 7}"})
    per_step = []
    with DynamoCalls() as calls:
        for i in range(45):
            calls.ops.clear()
            eng.step(rid, StepRequest.model_validate({"snapshot": snapshot(text=f"page {i}", ts=i),
                                                      "lastActionResult": {"success": True, "message": f"ok {i}"}}))
            per_step.append(list(calls.ops))
    assert per_step[0] == ["GetItem", "PutItem"]  # read META, write META: the step's history rides on it
    blocks = [n + 1 for n, ops in enumerate(per_step) if ops != ["GetItem", "PutItem"]]
    assert blocks == [21, 41] and per_step[20] == ["GetItem", "PutItem", "PutItem"]  # steps 1-20, 21-40 archived
    history = eng.get(rid)["state"]["history"]
    assert [h["stepNumber"] for h in history] == list(range(1, 46))
    assert [h["observation"] for h in history[:44]] == [f"ok {i}" for i in range(1, 45)]  # what came of each
    assert history[44]["observation"] == "Pending" and {h["action"] for h in history} == {"click"}


def test_get_reads_one_query_of_small_items(aws, brain):
    eng = RunEngine(RunRepo(Store()), brain)
    from runs.models import StartRequest, StepRequest

    rid = eng.start(StartRequest(task="t"))["runId"]
    big = [{"id": f"agent-{i}", "tag": "a", "text": f"Product {i} " + "x" * 150, "href": f"https://shop.test/{i}"}
           for i in range(100)]
    for i in range(6):
        eng.step(rid, StepRequest.model_validate({"snapshot": snapshot(text=f"page {i} " + "y" * 5000, elements=big,
                                                                       url=f"https://shop.test/p{i}", ts=i)}))
    assert [i["sk"] for i in Store().query(f"RUN#{rid}")] == ["META"]  # the steps ride on META
    meta = Store().get(f"RUN#{rid}", "META")
    assert len(bytes(getattr(meta["snap_z"], "value", meta["snap_z"]))) < 10_000
    assert max(len(str(e)) for e in meta["recent"]) < 600  # a step's entry is small; the snapshot is compressed
    before = eng.repo.calls
    state = eng.get(rid)["state"]
    assert eng.repo.calls - before == 1
    current = state["currentSnapshot"]
    assert current["url"] == "https://shop.test/p5" and len(current["elements"]) == 100
    assert current["visibleText"].startswith("page 5 ")
    assert [h["stepNumber"] for h in state["history"]] == [1, 2, 3, 4, 5, 6]


def test_a_run_stored_with_one_item_per_step_still_shows_its_history(aws, brain):
    """Runs written before history blocks (one ``STEP#`` item per step, within the run's TTL during an upgrade)
    keep their history: GET reads those items with the rest."""
    from runs.models import StartRequest

    eng = RunEngine(RunRepo(Store()), brain)
    rid = eng.start(StartRequest(task="t"))["runId"]
    meta = Store().get(f"RUN#{rid}", "META")
    for n, action, result in ((1, "click", None), (2, "type", {"success": True, "message": "clicked"}),
                              (3, "finish", {"success": True, "message": "typed"})):
        Store().put({**keys.run_step(rid, n), "stepNumber": n, "action": action, "timestamp": 1000 + n,
                     "lastActionResult": result, **({"result": "done: 42"} if action == "finish" else {}),
                     "expires_at": meta["expires_at"]})
    Store().update(f"RUN#{rid}", "META", set_={"current_step": 3, "status": "completed", "result": "done: 42"})
    history = eng.get(rid)["state"]["history"]
    assert [(h["stepNumber"], h["action"], h["observation"], h["timestamp"]) for h in history] == [
        (1, "click", "clicked", 1001), (2, "type", "typed", 1002), (3, "finish", "done: 42", 1003)]


def test_usage_counted_once_per_step_and_never_outside_a_turn(aws, rollup, monkeypatch):
    """Deployed: a /step is one metered turn, its usage riding on the step's writes; engine writes outside a
    turn (hosted bookkeeping) count no turn for nobody."""
    from datetime import UTC, datetime

    from agenthost import config, metering

    monkeypatch.delenv("AGENTHOST_LOCAL", raising=False)
    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    monkeypatch.setenv("AGENTHOST_RUNS_AGENT_ID", "ext-agent")
    config.reset()
    metering.reset()
    monkeypatch.setattr(runs_app, "_brain", ScriptedBrain())
    rid = start()
    assert step(rid, snapshot()).status == 200
    rollup()
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    usage = list(Store().query(f"USAGE#{day}"))
    assert [u["sk"] for u in usage] == ["ext-agent#runs"] and usage[0]["turns"] == 1
    from runs.models import StepRequest

    RunEngine(RunRepo(Store()), ScriptedBrain()).step(rid, StepRequest.model_validate({"snapshot": snapshot(ts=5)}))
    rollup()
    assert [u["sk"] for u in Store().query(f"USAGE#{day}")] == ["ext-agent#runs"]
    assert Store().get(f"USAGE#{day}", "ext-agent#runs")["turns"] == 1
    metering.reset()


def test_get_never_shows_a_run_ahead_of_its_history(brain, monkeypatch):
    """The step that ended a run is on the same item as the run's status: one read shows both (a poll used
    to see a completed run without its last step when it came between two writes)."""
    brain.choose = lambda ctx: ToolCall("finish", {}, text="Contact: mail@shop.test")
    rid = start()
    assert step(rid, snapshot()).json()["state"]["status"] == "completed"
    reads = []
    real_query = Store.query

    def query(self, pk, *args, **kwargs):
        reads.append(pk)
        return real_query(self, pk, *args, **kwargs)

    monkeypatch.setattr(Store, "query", query)
    got = api("GET", f"/agent/run/{rid}").json()["state"]
    assert got["status"] == "completed" and len(reads) == 1
    assert [(h["stepNumber"], h["action"], h["observation"]) for h in got["history"]] == [
        (1, "finish", "Contact: mail@shop.test")]
