"""Hosted runs, one step per invocation, with a fake browser function and the self-invocation captured."""

from __future__ import annotations

import pytest
import runs.hosted as hosted
from runs.brain import Decision
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
    brain = ScriptedBrain(choose=lambda ctx: Decision("type", {"id": "agent-1", "text": "M"})
                          if ctx.step == 1 else Decision("finish", {}, text="bought"))
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
