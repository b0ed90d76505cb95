"""The Proxy Server API contract (``specs/agent-proxy-server-api.md``): every endpoint, every response shape
and status code the spec shows, through the Lambda handler with the API Gateway events the local gateway
builds. Shapes are checked exactly (the keys the spec lists, no others on the spec's own responses).

The brain is a scripted double where a test needs a given decision (the wire is under test, not the
policy); the spec's example flow at the end runs the real shared brain."""

from __future__ import annotations

import re
import uuid

import pytest
import runs.app as runs_app
from runs.brain import Risk, ToolCall

from tests.support.apigw import call
from tests.unit.runs_support import API_KEY, H, api, install_brain, start_run, step_run

STATE_KEYS = {"status", "currentStep", "maxSteps"}
STATUSES = {"created", "running", "waiting_user", "completed", "error", "cancelled"}
TOOLS = {"observe", "navigate", "click", "type", "scroll", "press", "ask_user", "finish"}

# the spec's own example request bodies
SPEC_SNAPSHOT = {
    "url": "https://example.com", "title": "Example Domain",
    "visibleText": "Example Domain This domain is for use in...",
    "elements": [{"id": "agent-1", "tag": "a", "text": "More information...",
                  "href": "https://www.iana.org/domains/example"}],
    "timestamp": 1737292800000,
}
SPEC_RESULT = {"success": True, "message": "Clicked successfully"}
# every ElementInfo field of the spec's Data Types
FULL_ELEMENT = {"id": "agent-7", "tag": "input", "role": "searchbox", "text": "", "ariaLabel": "Search",
                "placeholder": "Search the site", "type": "search", "value": "tea", "href": None,
                "disabled": False, "name": "q", "bbox": {"x": 10, "y": 20, "width": 300, "height": 32}}


@pytest.fixture
def brain(aws, monkeypatch):
    return install_brain(monkeypatch)


def start(mode="autonomous", task="Find contact information on this page", **extra):
    return start_run(task, mode, **extra)


def step(rid, snapshot=SPEC_SNAPSHOT, result=SPEC_RESULT):
    return step_run(rid, snapshot, result)


def assert_state(state, status, step_no, max_steps=150):
    assert set(state) == STATE_KEYS
    assert state == {"status": status, "currentStep": step_no, "maxSteps": max_steps}


def assert_error(r, status, code):
    assert r.status == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"error", "message"} and body["error"] == code
    assert isinstance(body["message"], str) and body["message"]
    return body


# ---------------------------------------------------------------- GET /health

def test_health(brain):
    r = call(runs_app.handler, "GET", "/health")
    assert r.status == 200
    body = r.json()
    assert set(body) == {"status", "model", "baseUrl", "timestamp"} and body["status"] == "ok"
    assert isinstance(body["model"], str) and isinstance(body["baseUrl"], str)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["timestamp"])


# ---------------------------------------------------------------- POST /agent/run/start

@pytest.mark.parametrize("mode", ["autonomous", "careful"])
def test_start_200(brain, mode):
    r = api("POST", "/agent/run/start", {"task": "Find contact information on this page", "mode": mode})
    assert r.status == 200
    body = r.json()
    assert set(body) == {"success", "runId", "state"} and body["success"] is True
    assert str(uuid.UUID(body["runId"])) == body["runId"]
    assert_state(body["state"], "created", 0)


@pytest.mark.parametrize("body,field", [
    ({"mode": "autonomous"}, "task"),                       # missing task
    ({"task": "Find pricing", "mode": "reckless"}, "mode"),  # invalid mode
    ({"task": 42, "mode": "autonomous"}, "task"),          # wrong type
])
def test_start_400(brain, body, field):
    err = assert_error(api("POST", "/agent/run/start", body), 400, "bad_request")
    assert field in err["message"]


def test_start_mode_defaults_to_autonomous(brain):
    rid = start(mode="autonomous")
    r = api("POST", "/agent/run/start", {"task": "Find pricing"})
    assert r.status == 200
    assert api("GET", f"/agent/run/{r.json()['runId']}").json()["state"]["mode"] == "autonomous"
    assert api("GET", f"/agent/run/{rid}").status == 200


# ---------------------------------------------------------------- POST /agent/run/:runId/step

def test_step_null_snapshot_and_null_result_on_first_call(brain):
    rid = start()
    r = api("POST", f"/agent/run/{rid}/step", {"snapshot": None, "lastActionResult": None})
    assert r.status == 200
    body = r.json()
    assert set(body) == {"action", "tool", "state"} and body["action"] == "execute_tool"
    assert body["tool"] == {"name": "observe", "parameters": {}}
    assert_state(body["state"], "running", 1)


def test_step_execute_tool(brain):
    brain.choose = lambda ctx: ToolCall("click", {"id": "agent-1"})
    rid = start()
    r = step(rid)
    assert r.status == 200
    body = r.json()
    assert set(body) == {"action", "tool", "state"}
    assert body == {"action": "execute_tool", "tool": {"name": "click", "parameters": {"id": "agent-1"}},
                    "state": {"status": "running", "currentStep": 1, "maxSteps": 150}}


@pytest.mark.parametrize("decision,parameters", [
    (ToolCall("navigate", {"url": "https://example.com/contact"}), {"url": "https://example.com/contact"}),
    (ToolCall("type", {"id": "agent-7", "text": "green tea"}), {"id": "agent-7", "text": "green tea"}),
    (ToolCall("scroll", {"direction": "down"}), {"direction": "down"}),
    (ToolCall("press", {"key": "Enter"}), {"key": "Enter"}),
    (ToolCall("observe", {}), {}),
])
def test_step_every_executable_tool(brain, decision, parameters):
    brain.choose = lambda ctx: decision
    rid = start()
    body = step(rid, {**SPEC_SNAPSHOT, "elements": SPEC_SNAPSHOT["elements"] + [FULL_ELEMENT]}).json()
    assert body["action"] == "execute_tool" and body["tool"]["name"] in TOOLS
    assert body["tool"] == {"name": decision.tool, "parameters": parameters}


def test_step_ask_user_from_careful_mode(brain):
    brain.choose = lambda ctx: ToolCall("click", {"id": "agent-5"})
    brain.risky = {"agent-5": Risk("payment", "about to click 'Pay Now' on example.com, which would pay",
                                   "example.com", 20.0, "$20.00")}
    rid = start(mode="careful")
    snap = {**SPEC_SNAPSHOT, "visibleText": "Total $20.00",
            "elements": [{"id": "agent-5", "tag": "button", "text": "Pay Now"}]}
    for _ in range(4):  # take a few steps first, like the spec's example at currentStep 5
        brain.choose = lambda ctx: ToolCall("scroll", {"direction": "down"})
        step(rid, {**snap, "visibleText": f"Total $20.00 {_}"})
    brain.choose = lambda ctx: ToolCall("click", {"id": "agent-5"})
    r = step(rid, snap)
    assert r.status == 200
    body = r.json()
    assert set(body) == {"action", "question", "state"} and body["action"] == "ask_user"
    assert "Pay Now" in body["question"] and "$20.00" in body["question"] and body["question"].endswith("Proceed?")
    assert_state(body["state"], "waiting_user", 5)


def test_step_ask_user_from_the_policy(brain):
    brain.choose = lambda ctx: ToolCall("ask_user", {}, text="Which size should I pick?")
    rid = start()
    body = step(rid).json()
    assert body == {"action": "ask_user", "question": "Which size should I pick?",
                    "state": {"status": "waiting_user", "currentStep": 1, "maxSteps": 150}}


def test_step_finish(brain):
    result = "Contact info: email@example.com, phone: +1-234-567-8900"
    brain.choose = lambda ctx: ToolCall("finish", {}, text=result)
    rid = start()
    r = step(rid)
    assert r.status == 200
    body = r.json()
    assert set(body) == {"action", "result", "state"}
    assert body == {"action": "finish", "result": result,
                    "state": {"status": "completed", "currentStep": 1, "maxSteps": 150}}


def test_step_error_maximum_steps_reached(brain):
    brain.choose = lambda ctx: ToolCall("scroll", {"direction": "down"})
    rid = start(maxSteps=2)
    for i in range(2):
        assert step(rid, {**SPEC_SNAPSHOT, "visibleText": f"page {i}"}).json()["action"] == "execute_tool"
    r = step(rid, {**SPEC_SNAPSHOT, "visibleText": "page 3"})
    assert r.status == 200
    body = r.json()
    assert set(body) == {"action", "error", "state"}
    assert body == {"action": "error", "error": "Maximum steps reached",
                    "state": {"status": "error", "currentStep": 2, "maxSteps": 2}}


def test_step_400_404_409(brain):
    assert_error(api("POST", "/agent/run/nope/step", {"snapshot": None}), 404, "not_found")
    rid = start()
    err = assert_error(step(rid, {"url": "https://example.com", "elements": "not a list"}), 400, "bad_request")
    assert "snapshot.elements" in err["message"]
    brain.choose = lambda ctx: ToolCall("ask_user", {}, text="Which one?")
    step(rid)
    later = {**SPEC_SNAPSHOT, "timestamp": SPEC_SNAPSHOT["timestamp"] + 1000}
    assert "answer" in assert_error(step(rid, later), 409, "conflict")["message"]


# ---------------------------------------------------------------- POST /agent/run/:runId/answer

def test_answer_approved(brain):
    brain.choose = lambda ctx: ToolCall("ask_user", {}, text="Proceed?")
    rid = start()
    for _ in range(5):
        brain.choose = lambda ctx: ToolCall("scroll", {"direction": "down"})
        step(rid, {**SPEC_SNAPSHOT, "visibleText": f"more {_}"})
    brain.choose = lambda ctx: ToolCall("ask_user", {}, text="Proceed?")
    assert step(rid).json()["state"] == {"status": "waiting_user", "currentStep": 6, "maxSteps": 150}
    r = api("POST", f"/agent/run/{rid}/answer", {"approved": True, "answer": "optional text answer"})
    assert r.status == 200
    body = r.json()
    assert set(body) == {"action", "tool", "state"}
    assert body == {"action": "execute_tool", "tool": {"name": "observe", "parameters": {}},
                    "state": {"status": "running", "currentStep": 7, "maxSteps": 150}}
    # "Call /step again to continue execution"
    brain.choose = lambda ctx: ToolCall("finish", {}, text=f"done: {ctx.answers[-1]}")
    after = {**SPEC_SNAPSHOT, "timestamp": SPEC_SNAPSHOT["timestamp"] + 9000}
    assert step(rid, after, {"success": True, "message": "Observed"}).json()["result"] == "done: optional text answer"


def test_answer_not_approved_cancels(brain):
    brain.choose = lambda ctx: ToolCall("ask_user", {}, text="Proceed?")
    rid = start()
    step(rid)
    r = api("POST", f"/agent/run/{rid}/answer", {"approved": False})
    assert r.status == 200 and r.json()["state"]["status"] == "cancelled"
    assert api("GET", f"/agent/run/{rid}").json()["state"]["status"] == "cancelled"


def test_answer_400_404_409(brain):
    assert_error(api("POST", "/agent/run/nope/answer", {"approved": True}), 404, "not_found")
    rid = start()
    assert "approved" in assert_error(api("POST", f"/agent/run/{rid}/answer", {}), 400, "bad_request")["message"]
    assert_error(api("POST", f"/agent/run/{rid}/answer", {"approved": "perhaps"}), 400, "bad_request")
    assert "not waiting" in assert_error(api("POST", f"/agent/run/{rid}/answer", {"approved": True}), 409,
                                         "conflict")["message"]


# ---------------------------------------------------------------- POST /agent/run/:runId/cancel

def test_cancel_200_404_and_end_state_409(brain):
    rid = start()
    step(rid)
    r = call(runs_app.handler, "POST", f"/agent/run/{rid}/cancel", headers=H)  # empty body
    assert r.status == 200 and r.json() == {"success": True}
    assert_error(call(runs_app.handler, "POST", "/agent/run/nope/cancel", headers=H), 404, "not_found")
    assert_error(call(runs_app.handler, "POST", f"/agent/run/{rid}/cancel", headers=H), 409, "conflict")
    assert_error(step(rid), 409, "conflict")  # even the very request answered before the cancel


# ---------------------------------------------------------------- GET /agent/run/:runId

def test_get_run(brain):
    decisions = iter([ToolCall("observe", {}), ToolCall("click", {"id": "agent-1"})]
                     + [ToolCall("scroll", {"direction": "down"})] * 3)
    brain.choose = lambda ctx: next(decisions)
    rid = start(task="Find contact information")
    step(rid, result=None)
    for i in range(4):
        step(rid, {**SPEC_SNAPSHOT, "visibleText": f"page {i}", "timestamp": 1737292801000 + i})
    r = api("GET", f"/agent/run/{rid}")
    assert r.status == 200
    body = r.json()
    assert set(body) == {"success", "state"} and body["success"] is True
    state = body["state"]
    assert set(state) == {"runId", "task", "mode", "status", "currentStep", "maxSteps", "history", "reflections",
                          "currentSnapshot", "createdAt", "updatedAt"}
    assert (state["runId"], state["task"], state["mode"], state["status"], state["currentStep"],
            state["maxSteps"]) == (rid, "Find contact information", "autonomous", "running", 5, 150)
    assert [h["stepNumber"] for h in state["history"]] == [1, 2, 3, 4, 5]
    for h in state["history"]:
        assert set(h) == {"stepNumber", "action", "observation", "timestamp"}
        assert h["action"] in TOOLS and isinstance(h["observation"], str) and isinstance(h["timestamp"], int)
    assert state["history"][0]["action"] == "observe" and state["history"][0]["observation"] == "Clicked successfully"
    assert state["history"][1]["action"] == "click"
    [refl] = state["reflections"]
    assert set(refl) == {"stepNumber", "stepsAnalyzed", "efficiency", "issues", "suggestions", "shouldAdjust",
                         "timestamp"}
    assert refl["stepNumber"] == 5 and refl["stepsAnalyzed"] == 5 and refl["efficiency"] in ("high", "medium", "low")
    assert isinstance(refl["issues"], list) and isinstance(refl["suggestions"], list)
    assert isinstance(refl["shouldAdjust"], bool) and isinstance(refl["timestamp"], int)
    snap = state["currentSnapshot"]
    assert snap["url"] == "https://example.com" and snap["visibleText"] == "page 3"
    assert snap["elements"] == SPEC_SNAPSHOT["elements"] and snap["timestamp"] == 1737292801003
    assert isinstance(state["createdAt"], int) and state["createdAt"] <= state["updatedAt"]


def test_get_run_before_any_snapshot_and_404(brain):
    rid = start()
    state = api("GET", f"/agent/run/{rid}").json()["state"]
    assert state["currentSnapshot"] is None and state["history"] == [] and state["reflections"] == []
    assert_state({k: state[k] for k in STATE_KEYS}, "created", 0)
    assert "nope" in assert_error(api("GET", "/agent/run/nope"), 404, "not_found")["message"]


# ---------------------------------------------------------------- 500, data types, status set

def test_server_error_500_in_the_error_shape(brain):
    def broken(ctx):
        raise RuntimeError("the LLM API failed")

    brain.choose = broken
    rid = start()
    r = step(rid)
    body = assert_error(r, 500, "internal_error")
    assert "LLM API failed" not in body["message"]  # no internals leak


def test_every_element_info_field_is_accepted_and_kept(brain):
    brain.choose = lambda ctx: ToolCall("type", {"id": "agent-7", "text": "green tea"})
    rid = start()
    assert step(rid, {**SPEC_SNAPSHOT, "elements": [FULL_ELEMENT]}).status == 200
    el = api("GET", f"/agent/run/{rid}").json()["state"]["currentSnapshot"]["elements"][0]
    assert el == {k: v for k, v in FULL_ELEMENT.items() if v is not None}


def test_statuses_are_the_spec_run_statuses(brain):
    seen = set()
    brain.choose = lambda ctx: ToolCall("ask_user", {}, text="?")
    rid = start()
    seen.add(api("GET", f"/agent/run/{rid}").json()["state"]["status"])
    seen.add(step(rid).json()["state"]["status"])
    seen.add(api("POST", f"/agent/run/{rid}/answer", {"approved": True}).json()["state"]["status"])
    brain.choose = lambda ctx: ToolCall("finish", {}, text="ok")
    seen.add(step(rid, {**SPEC_SNAPSHOT, "timestamp": 1}).json()["state"]["status"])
    rid = start(maxSteps=1)
    brain.choose = lambda ctx: ToolCall("scroll", {"direction": "down"})
    step(rid)
    seen.add(step(rid, {**SPEC_SNAPSHOT, "visibleText": "other"}).json()["state"]["status"])
    rid = start()
    api("POST", f"/agent/run/{rid}/cancel")
    seen.add(api("GET", f"/agent/run/{rid}").json()["state"]["status"])
    assert seen == STATUSES


# ---------------------------------------------------------------- the spec's example flow, real brain

def test_spec_example_flow_with_the_real_brain(aws, monkeypatch):
    from runs.agent_adapter import AgentBrain

    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    monkeypatch.setattr(runs_app, "_brain", AgentBrain())
    pages = {
        "https://shop.test/": {"title": "Shop", "visibleText": "Welcome to the tea shop",
                               "elements": [{"id": "agent-1", "tag": "a", "text": "Pricing",
                                             "href": "https://shop.test/pricing"},
                                            {"id": "agent-2", "tag": "a", "text": "About us",
                                             "href": "https://shop.test/about"}]},
        "https://shop.test/pricing": {"title": "Pricing", "visibleText": "Pricing\nGreen tea $4.50 per 100 g",
                                      "elements": [{"id": "agent-1", "tag": "a", "text": "Home",
                                                    "href": "https://shop.test/"}]},
    }
    url = "https://shop.test/"
    visited = [url]
    rid = api("POST", "/agent/run/start", {"task": "Find pricing information", "mode": "autonomous"}).json()["runId"]
    last = None
    for _ in range(10):
        snap = {"url": url, **pages[url], "timestamp": 1737292800000}
        r = api("POST", f"/agent/run/{rid}/step", {"snapshot": snap, "lastActionResult": last})
        assert r.status == 200, r.text
        out = r.json()
        assert out["state"]["status"] in STATUSES
        if out["action"] == "execute_tool":
            tool = out["tool"]
            assert tool["name"] in TOOLS
            if tool["name"] == "click":
                el = next(e for e in pages[url]["elements"] if e["id"] == tool["parameters"]["id"])
                url = el["href"]
                visited.append(url)
            last = {"success": True, "message": "Clicked successfully"}
            continue
        assert out["action"] == "finish", out
        break
    assert "https://shop.test/pricing" in visited
    assert api("GET", f"/agent/run/{rid}").json()["state"]["status"] == "completed"
