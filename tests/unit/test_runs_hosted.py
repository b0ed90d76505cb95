"""Hosted runs, one step per invocation, with a fake browser function and the self-invocation captured."""

from __future__ import annotations

import pytest
import runs.hosted as hosted
from runs.brain import ToolCall
from runs.engine import RunEngine
from runs.models import StartRequest
from runs.repo import RunRepo

from agenthost.store import Store
from tests.unit.runs_support import ScriptedBrain

PAGE = {"url": "http://shop.test/", "title": "Shop", "text": "Pick a size",
        "elements": [{"id": "agent-1", "tag": "select", "options": ["S", "M"]},
                     {"id": "agent-2", "tag": "button", "text": "Buy"}]}


class FakeBrowser:
    def __init__(self, fail=False):
        self.calls = []
        self.fail = fail

    def run(self, session_id, actions, url=None, observe=None):
        from agenthost.browser import BrowserError

        self.calls.append((session_id, actions, url))
        if self.fail:
            raise BrowserError("cannot invoke the browser function (EndpointConnectionError)")
        return {"results": [{"ok": True} for _ in actions], "observation": dict(PAGE)}


@pytest.fixture
def env(aws, monkeypatch):
    sent = []
    monkeypatch.setattr(hosted, "_invoke_next", lambda event: sent.append(event))
    brain = ScriptedBrain(choose=lambda ctx: ToolCall("type", {"id": "agent-1", "text": "M"})
                          if ctx.step == 1 else ToolCall("finish", {}, text="bought"))
    eng = RunEngine(RunRepo(Store()), brain)
    rid = eng.start(StartRequest(task="buy size M", browser="hosted", startUrl="http://shop.test/"))["runId"]
    return eng, rid, sent


def test_each_invocation_is_one_step_and_chains_the_next(env):
    eng, rid, sent = env
    browser = FakeBrowser()
    report = hosted.step({"kind": hosted.EVENT_KIND, "runId": rid, "expect": 0, "tool": None}, eng, browser)
    assert report["action"] == "execute_tool" and report["step"] == 1
    assert browser.calls == [(rid, [], "http://shop.test/")]
    assert sent[-1]["expect"] == 1
    assert sent[-1]["tool"] == {"name": "type", "parameters": {"id": "agent-1", "text": "M"}}
    report = hosted.step(sent[-1], eng, browser)
    # "type" on a select element becomes the browser's select
    assert browser.calls[-1][1] == [{"tool": "select", "element": "agent-1", "option": "M"}]
    assert report["action"] == "finish"
    state = eng.get(rid)["state"]
    assert state["status"] == "completed" and state["history"][0]["observation"] == "Done"
    assert len(sent) == 1  # nothing chained after the finish


def test_duplicate_or_stale_event_does_nothing(env):
    eng, rid, sent = env
    browser = FakeBrowser()
    first = {"kind": hosted.EVENT_KIND, "runId": rid, "expect": 0, "tool": None}
    hosted.step(first, eng, browser)
    again = hosted.step(first, eng, browser)  # Lambda retried the same async event
    assert "skipped" in again and len(browser.calls) == 1
    assert eng.get(rid)["state"]["currentStep"] == 1


def test_browser_failure_ends_run_with_clear_error(env):
    eng, rid, sent = env
    hosted.step({"kind": hosted.EVENT_KIND, "runId": rid, "expect": 0, "tool": None}, eng, FakeBrowser(fail=True))
    state = eng.get(rid)["state"]
    assert state["status"] == "error" and "hosted browser failed" in state["error"] and not sent


def test_two_copies_of_one_event_act_once(env):
    """Asynchronous delivery is at least once: two copies of the same event that both read the run before
    either acted still run the browser action once (the claim is a conditional write)."""
    import threading

    eng, rid, sent = env
    hosted.step({"kind": hosted.EVENT_KIND, "runId": rid, "expect": 0, "tool": None}, eng, FakeBrowser())
    event = dict(sent[-1])
    gate = threading.Barrier(2)
    real_load = eng.repo.load

    class Repo:
        """Both copies read the run, then wait for each other before claiming."""

        def __getattr__(self, name):
            return getattr(eng.repo, name)

        def load(self, run_id):
            meta = real_load(run_id)
            me = threading.current_thread()
            if me.name.startswith("copy") and not getattr(me, "waited", False):
                me.waited = True  # only the first read (the claim's)
                try:
                    gate.wait(5)
                except threading.BrokenBarrierError:
                    pass
            return meta

    browsers, reports = [], []

    def copy():
        from runs.engine import RunEngine

        e = RunEngine(Repo(), eng.brain)
        b = FakeBrowser()
        browsers.append(b)
        reports.append(hosted.step(dict(event), e, b))

    threads = [threading.Thread(target=copy, name=f"copy-{i}") for i in range(2)]
    [t.start() for t in threads]
    [t.join(10) for t in threads]
    acted = [b for b in browsers if b.calls]
    assert len(acted) == 1 and acted[0].calls[0][1] == [{"tool": "select", "element": "agent-1", "option": "M"}]
    assert sorted("skipped" in r for r in reports) == [False, True]
    state = eng.get(rid)["state"]
    assert state["status"] == "completed" and state["currentStep"] == 2


def test_a_step_that_raises_ends_the_run_with_its_error(env, monkeypatch):
    eng, rid, sent = env

    def broken(ctx):
        raise RuntimeError("policy exploded")

    monkeypatch.setattr(eng.brain, "choose", broken)
    report = hosted.step({"kind": hosted.EVENT_KIND, "runId": rid, "expect": 0, "tool": None}, eng, FakeBrowser())
    assert "error" in report
    state = eng.get(rid)["state"]
    assert state["status"] == "error" and "policy exploded" in state["error"] and "step 1" in state["error"]
    assert not sent


def test_failing_self_invocation_ends_the_run(env, monkeypatch):
    eng, rid, sent = env

    def no_lambda(event):
        raise ConnectionError("lambda endpoint unreachable")

    monkeypatch.setattr(hosted, "_invoke_next", no_lambda)
    hosted.step({"kind": hosted.EVENT_KIND, "runId": rid, "expect": 0, "tool": None}, eng, FakeBrowser())
    state = eng.get(rid)["state"]
    assert state["status"] == "error" and "could not schedule hosted step 2" in state["error"]


def test_a_step_that_died_silently_is_reported_by_get(aws, monkeypatch):
    sent = []
    monkeypatch.setattr(hosted, "_invoke_next", lambda event: sent.append(event))
    clock = [1_000_000]
    eng = RunEngine(RunRepo(Store()), ScriptedBrain(), clock_ms=lambda: clock[0], hosted_stall_s=120)
    rid = eng.start(StartRequest(task="t", browser="hosted", startUrl="http://shop.test/"))["runId"]
    eng.claim_hosted(rid, 0)  # the invocation claimed step 0, then its Lambda timed out
    clock[0] += 60_000
    assert eng.get(rid)["state"]["status"] == "created"
    clock[0] += 61_000
    state = eng.get(rid)["state"]
    assert state["status"] == "error" and "no progress for 121 s" in state["error"]
    assert eng.get(rid)["state"]["status"] == "error"


def test_hosted_step_is_a_metered_turn(env, rollup, monkeypatch):
    from datetime import UTC, datetime

    monkeypatch.setenv("AGENTHOST_RUNS_AGENT_ID", "my-extension-agent")
    eng, rid, sent = env
    hosted.step({"kind": hosted.EVENT_KIND, "runId": rid, "expect": 0, "tool": None}, eng, FakeBrowser())
    hosted.step({"kind": hosted.EVENT_KIND, "runId": rid, "expect": 0, "tool": None}, eng, FakeBrowser())  # dup
    rollup()
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    usage = Store().get(f"USAGE#{day}", "my-extension-agent#runs")
    assert usage is not None and usage["turns"] == 1  # the skipped duplicate is no turn
    assert usage["fallbacks"] == 1  # decided without an LLM


def test_a_start_url_netguard_refuses_ends_the_run_at_once(aws, monkeypatch):
    """Through the API: the run is created and ended in ``error`` with the reason; no browsing starts."""
    from tests.unit.runs_support import api, install_brain

    install_brain(monkeypatch)
    sent = []
    monkeypatch.setattr(hosted, "_invoke_next", lambda event: sent.append(event))
    monkeypatch.setattr(hosted, "available", lambda: True)
    monkeypatch.setenv("AGENTHOST_NETGUARD_ALLOW_PRIVATE", "false")
    from agenthost import config

    config.reset()
    for url, why in (("http://169.254.169.254/latest/meta-data/", "metadata"), ("http://127.0.0.1:9/", "loopback"),
                     ("file:///etc/passwd", "scheme")):
        r = api("POST", "/agent/run/start", {"task": "read it", "browser": "hosted", "startUrl": url})
        assert r.status == 200, r.text
        doc = r.json()
        assert doc["state"]["status"] == "error" and why in doc["error"]
        got = api("GET", f"/agent/run/{doc['runId']}").json()["state"]
        assert got["status"] == "error" and got["error"].startswith("startUrl refused") and why in got["error"]
    assert not sent  # no hosted step was started


def test_a_hosted_step_refuses_a_start_url_that_now_points_inside(env, monkeypatch):
    eng, rid, sent = env
    monkeypatch.setenv("AGENTHOST_NETGUARD_ALLOW_PRIVATE", "false")
    from agenthost import config, netguard

    config.reset()
    monkeypatch.setattr(netguard, "_system_resolver", lambda host, port: ["10.0.0.7"])
    browser = FakeBrowser()
    report = hosted.step({"kind": hosted.EVENT_KIND, "runId": rid, "expect": 0, "tool": None}, eng, browser)
    assert "startUrl refused" in report["error"] and not browser.calls and not sent
    meta = eng.repo.load(rid)
    assert meta["status"] == "error" and "10.0.0.7" in meta["error"]
