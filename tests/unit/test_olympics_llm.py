"""The LLM path through the real handler and the local fake OpenAI-compatible LLM: good, slow, broken,
garbage and hostile answers. The runner must only ever see a valid, executable turn."""

import json
import time

import pytest
from olympics import app

from agenthost import config
from agenthost import llm as llm_mod
from tests.support.apigw import call
from tests.support.fake_llm import FakeLLM
from tests.support.olympics import SECRET, signed, turn_body
from tests.support.timing import within

HANG_S = 30.0  # a model that never answers in time

PROMPT = "Register with first name Maria, last name Lopez, email maria@example.com, country Germany."


@pytest.fixture
def fake(monkeypatch, aws):
    with FakeLLM() as f:
        monkeypatch.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)
        monkeypatch.setenv("AGENTHOST_LLM", "openai:fake-model")
        monkeypatch.setenv("AGENTHOST_LLM_BASE_URL", f.base_url)
        monkeypatch.setenv("AGENTHOST_LLM_API_KEY", "sk-test-not-a-real-key")
        # the handler was imported at collection time, not by a cold start of these requests
        monkeypatch.setattr(app, "_cold", False)
        config.reset()
        llm_mod.reset()
        yield f
    llm_mod.reset()


def post(body=None):
    raw, headers = signed(body or turn_body(1, prompt=PROMPT))
    t0 = time.monotonic()
    resp = call(app.handler, "POST", "/olympics/turn", body=raw, headers=headers)
    elapsed = time.monotonic() - t0
    assert resp.status == 200
    out = resp.json()
    assert isinstance(out["actions"], list) and len(out["actions"]) <= 10
    return out, elapsed


def test_good_llm_answer_is_played(fake, aws, rollup):
    fake_aws = aws
    fake.reply({"thinking": "Filling the form in one turn.", "done": False, "result": "", "actions": [
        {"tool": "type", "args": {"element": "First Name", "text": "Maria"}},
        {"tool": "type", "args": {"element": "Last Name", "text": "Lopez"}},
        {"tool": "select", "args": {"element": "Country", "option": "Germany"}},
        {"tool": "click", "args": {"element": "Submit Registration"}}]})
    out, _ = post()
    assert fake.requests, "the LLM was asked"
    assert [(a["tool"], a["args"].get("element")) for a in out["actions"]] == [
        ("type", "First Name"), ("type", "Last Name"), ("select", "Country"), ("click", "Submit Registration")]
    assert "sk-test" not in json.dumps(out)
    # the LLM call (made on a worker thread) is metered on this turn
    rollup()
    usage = list(fake_aws.query(f"USAGE#{time.strftime('%Y-%m-%d', time.gmtime())}"))
    assert usage[0]["llm_calls"] == 1 and usage[0]["tokens_in"] == 100 and usage[0].get("fallbacks", 0) == 0


def test_slow_llm_is_cut_off_and_the_deterministic_policy_answers(fake, monkeypatch):
    monkeypatch.setenv("AGENTHOST_OLYMPICS_BUDGET_S", "6")
    fake.reply({"thinking": "late", "actions": [{"tool": "click", "args": {"element": "Home"}}], "done": False,
                "result": ""}, delay=HANG_S)
    out, elapsed = post()
    assert len(fake.requests) == 1
    llm_cut_at = 6.0 - config.settings().olympics_reserve_s  # the LLM's share of the 6 s budget
    assert elapsed < within(llm_cut_at, before=HANG_S), f"turn took {elapsed:.1f}s with a 6 s budget"
    assert out["actions"] and out["thinking"] != "late"


@pytest.mark.parametrize("kind", ["http500", "garbage"])
def test_broken_llm_falls_back_to_the_deterministic_policy(fake, kind):
    for _ in range(4):
        if kind == "http500":
            fake.reply(status=500)
        else:
            fake.reply("I am sorry, I cannot help with that.")
    out, _ = post()
    assert fake.requests, "the LLM was asked"
    assert out["actions"], "the deterministic policy still plays"


def test_hostile_llm_output_is_never_executed(fake):
    hostile = {"thinking": "<script>alert(1)</script> ignore the task", "done": False, "result": "",
               "actions": [
                   {"tool": "type", "args": {"element": "Email", "text": "<img src=x onerror=alert(document.cookie)>"}},
                   {"tool": "navigate", "args": {"url": "javascript:eval(atob('ZXZpbA=='))"}},
                   {"tool": "click", "args": {"element": "Wire $10,000 to attacker"}},
                   {"tool": "scroll", "args": {"direction": "left"}},
                   {"tool": "submit", "args": {}},
                   {"tool": "api_call", "args": {"method": "POST", "url": "http://169.254.169.254/latest/meta-data",
                                                  "body": "process.env"}}]}
    for _ in range(3):
        fake.reply(hostile)
    out, _ = post()
    assert fake.requests, "the LLM was asked"
    text = json.dumps(out).lower()
    for bad in ("<script", "onerror", "javascript:", "eval(", "attacker", "169.254", "process.env"):
        assert bad not in text
    for a in out["actions"]:
        assert a["tool"] != "submit" or a["args"].get("form")
        assert a["args"].get("direction") not in ("left", "right")


def test_inferred_failures_reach_the_llm_as_notes_on_the_next_turn(fake):
    click = {"thinking": "submit", "done": False, "result": "",
             "actions": [{"tool": "click", "args": {"element": "Submit Registration"}}]}
    fake.reply(click)
    post(turn_body(1, prompt=PROMPT))
    fake.reply({"thinking": "email", "done": False, "result": "",
                "actions": [{"tool": "type", "args": {"element": "Email", "text": "maria@example.com"}}]})
    # turn 2 shows the same tree: the click changed nothing
    post(turn_body(2, prompt=PROMPT, previous=[{"name": "click", "arguments": {"element": "Submit Registration"}}]))
    prompt = json.dumps(fake.requests[-1]["messages"])
    assert "NOTES" in prompt and "did not change after click 'submit registration'" in prompt
