"""LLM providers: OpenAI-compatible over real loopback HTTP (tests/support/fake_llm.py), Bedrock via Stubber."""

from __future__ import annotations

import threading
import time

import boto3
import pytest
from botocore.stub import Stubber

from agenthost import config, llm
from agenthost.llm import LlmError, LlmInvalid, LlmTimeout, parse_json
from agenthost.llm.bedrock import BedrockProvider
from agenthost.llm.openai import OpenAIProvider
from tests.support.fake_llm import FakeLLM
from tests.support.timing import waited, within

#: how long a server or client that never answers in time takes (what a deadline must cut short)
HANG_S = 30.0

SCHEMA = {"type": "object", "properties": {"actions": {"type": "array"}, "done": {"type": "boolean"}},
          "required": ["actions", "done"]}
MSGS = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Go."}]
ANSWER = {"actions": [{"tool": "click", "args": {"element": "OK"}}], "done": False}


@pytest.fixture
def fake():
    with FakeLLM() as f:
        yield f


def deadline(s=5.0):
    return time.monotonic() + s


def test_openai_json_schema_answer_usage_and_key(fake):
    fake.reply(ANSWER, usage=(321, 45))
    p = OpenAIProvider("m-1", base_url=fake.base_url, api_key="sk-test-123")
    before = llm.totals().input_tokens
    obj, usage = p.complete_json(MSGS, SCHEMA, deadline())
    assert obj == ANSWER
    assert (usage.input_tokens, usage.output_tokens, usage.calls) == (321, 45, 1)
    assert llm.totals().input_tokens - before == 321
    req = fake.requests[0]
    assert req["model"] == "m-1" and req["response_format"]["type"] == "json_schema"
    assert req["response_format"]["json_schema"]["schema"] == SCHEMA
    assert fake.headers[0]["authorization"] == "Bearer sk-test-123"


def test_openai_falls_back_to_json_object_mode_and_parses_chatty_fenced_text(fake):
    fake.reject_json_schema = True
    fake.reply('Sure! Here it is:\n```json\n{"actions": [], "done": true,}\n```\nHope that helps.')
    p = OpenAIProvider("m", base_url=fake.base_url)
    obj, _ = p.complete_json(MSGS, SCHEMA, deadline())
    assert obj == {"actions": [], "done": True}
    assert [r["response_format"]["type"] for r in fake.requests] == ["json_schema", "json_object"]
    assert "JSON schema" in fake.requests[1]["messages"][-1]["content"]
    fake.reply(ANSWER)
    p.complete_json(MSGS, SCHEMA, deadline())  # remembered: goes straight to json_object
    assert fake.requests[-1]["response_format"]["type"] == "json_object"


def test_openai_slow_server_times_out_at_the_deadline(fake):
    fake.reply(ANSWER, delay=HANG_S)
    p = OpenAIProvider("m", base_url=fake.base_url)
    t = time.monotonic()
    with pytest.raises(LlmTimeout):
        p.complete_json(MSGS, SCHEMA, time.monotonic() + 1.0)
    assert time.monotonic() - t < within(1.0, before=HANG_S)


def test_openai_retries_once_after_a_server_error(fake):
    fake.reply(status=503).reply(ANSWER)
    obj, usage = OpenAIProvider("m", base_url=fake.base_url).complete_json(MSGS, SCHEMA, deadline())
    assert obj == ANSWER and usage.calls == 1 and len(fake.requests) == 2
    fake.reply(status=500).reply(status=500).reply(ANSWER)
    with pytest.raises(LlmError) as err:
        OpenAIProvider("m", base_url=fake.base_url, api_key="sk-secret-xyz").complete_json(MSGS, SCHEMA, deadline())
    assert "500" in str(err.value) and "sk-secret" not in str(err.value)


def test_openai_garbage_or_wrong_shape_is_invalid(fake):
    fake.reply("I cannot help with that.").reply("still no json")
    with pytest.raises(LlmInvalid):
        OpenAIProvider("m", base_url=fake.base_url).complete_json(MSGS, SCHEMA, deadline())
    fake.reply({"done": "yes"}).reply({"done": "yes"})
    with pytest.raises(LlmInvalid):
        OpenAIProvider("m", base_url=fake.base_url).complete_json(MSGS, SCHEMA, deadline())
    fake.reply(raw_body=b"<html>oops</html>").reply(raw_body=b"<html>oops</html>")
    with pytest.raises(LlmInvalid):
        OpenAIProvider("m", base_url=fake.base_url).complete_json(MSGS, SCHEMA, deadline())


def test_openai_unreachable_endpoint_is_an_error_not_a_hang():
    p = OpenAIProvider("m", base_url="http://127.0.0.1:9/v1")
    t = time.monotonic()
    with pytest.raises(LlmError):
        p.complete_json(MSGS, SCHEMA, deadline(HANG_S))
    assert time.monotonic() - t < within(0.5, before=HANG_S)  # refused at once, not waited out


def test_parse_json_tolerance():
    assert parse_json('{"a": 1}') == {"a": 1}
    assert parse_json('Answer: {"a": {"b": "}"}} thanks') == {"a": {"b": "}"}}
    with pytest.raises(LlmInvalid):
        parse_json("[1, 2]")


def _bedrock():
    client = boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="x",
                          aws_secret_access_key="y")  # noqa: S106
    return client, Stubber(client)


def _converse_response(content, usage=(50, 7)):
    return {"output": {"message": {"role": "assistant", "content": content}}, "stopReason": "tool_use",
            "usage": {"inputTokens": usage[0], "outputTokens": usage[1], "totalTokens": sum(usage)},
            "metrics": {"latencyMs": 10}}


def test_bedrock_forces_the_tool_and_reads_its_input():
    client, stub = _bedrock()
    p = BedrockProvider("anthropic.claude-3-haiku", client=client)
    expected = p.request(MSGS, SCHEMA)
    assert expected["toolConfig"]["toolChoice"] == {"tool": {"name": "respond"}}
    assert expected["system"] == [{"text": "You are terse."}]
    assert expected["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"] == SCHEMA
    stub.add_response("converse", _converse_response(
        [{"toolUse": {"toolUseId": "t1", "name": "respond", "input": ANSWER}}]), expected)
    with stub:
        obj, usage = p.complete_json(MSGS, SCHEMA, deadline())
    assert obj == ANSWER and (usage.input_tokens, usage.output_tokens) == (50, 7)
    stub.assert_no_pending_responses()


def test_bedrock_retries_throttling_once_and_parses_text_answers():
    client, stub = _bedrock()
    p = BedrockProvider("m", client=client)
    stub.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429)
    stub.add_response("converse", _converse_response([{"text": 'Here: ```json\n{"actions": [], "done": true}\n```'}]))
    with stub:
        obj, _ = p.complete_json(MSGS, SCHEMA, deadline())
    assert obj == {"actions": [], "done": True}
    stub.add_client_error("converse", service_error_code="AccessDeniedException", http_status_code=403)
    with stub, pytest.raises(LlmError) as err:
        p.complete_json(MSGS, SCHEMA, deadline())
    assert "AccessDenied" in str(err.value)


def test_bedrock_never_waits_past_the_deadline_and_a_late_answer_is_still_counted():
    release = threading.Event()  # the model answers when the test says so, never during a later test

    class Slow:
        def converse(self, **kw):
            release.wait(HANG_S)
            return _converse_response([], usage=(50, 7))

    before = llm.totals()
    t = time.monotonic()
    try:
        with pytest.raises(LlmTimeout):
            BedrockProvider("m", client=Slow()).complete_json(MSGS, SCHEMA, time.monotonic() + 0.8)
        assert time.monotonic() - t < within(0.8, before=HANG_S)
        assert llm.totals().input_tokens == before.input_tokens  # nothing answered yet
    finally:
        release.set()
    counted = time.monotonic() + waited(0.1)
    while llm.totals().input_tokens == before.input_tokens and time.monotonic() < counted:
        time.sleep(0.01)
    after = llm.totals()  # the abandoned call's answer arrived later, and was billed: it counts
    assert (after.input_tokens - before.input_tokens, after.output_tokens - before.output_tokens) == (50, 7)


def test_bedrock_clients_come_from_the_one_shared_boto3_session(monkeypatch):
    """Each timeout bucket gets its own cached client, but all from the process's one boto3 session (a
    session per client loads the service models again: megabytes per client in a 128 MB function)."""
    from agenthost import aws

    made = []
    real = boto3.session.Session

    def counting(*a, **kw):
        made.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(boto3.session, "Session", counting)
    aws.client("dynamodb")
    p = BedrockProvider("m", endpoint_url="http://127.0.0.1:9", region="eu-west-1")
    c3, c7 = p.client(3.2), p.client(7.9)
    assert len(made) == 1
    assert c3 is p.client(3.0) and c3 is not c7
    assert (c3.meta.config.read_timeout, c7.meta.config.read_timeout) == (3, 7)
    assert c3.meta.region_name == "eu-west-1"
    assert BedrockProvider("m", endpoint_url="http://127.0.0.1:9").client(3).meta.region_name == \
        config.settings().region


def test_provider_selection_from_settings(monkeypatch, fake):
    llm.reset()
    assert llm.provider_from_settings() is None
    with pytest.raises(LlmError):
        llm.complete_json(MSGS, SCHEMA, deadline())
    monkeypatch.setenv("AGENTHOST_LLM", "openai:gpt-test")
    monkeypatch.setenv("AGENTHOST_LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("AGENTHOST_LLM_API_KEY", "sk-from-env")
    config.reset()
    llm.reset()
    p = llm.provider_from_settings()
    assert (p.name, p.model, p.base_url) == ("openai", "gpt-test", fake.base_url)
    assert (config.settings().llm_model, config.settings().llm_endpoint) == ("gpt-test", fake.base_url)
    fake.reply(ANSWER)
    assert llm.complete_json(MSGS, SCHEMA, deadline())[0] == ANSWER
    assert fake.headers[-1]["authorization"] == "Bearer sk-from-env"
    monkeypatch.setenv("AGENTHOST_LLM", "bedrock:anthropic.claude-x")
    config.reset()
    llm.reset()
    p = llm.provider_from_settings()
    assert p.name == "bedrock" and p.model == "anthropic.claude-x"
    llm.reset()


def test_openai_usage_of_invalid_replies_is_kept(fake):
    fake.reply("no json here", usage=(100, 10)).reply(ANSWER, usage=(50, 5))
    p = OpenAIProvider("m", base_url=fake.base_url)
    before = llm.totals()
    obj, usage = p.complete_json(MSGS, SCHEMA, deadline())
    assert obj == ANSWER
    assert (usage.input_tokens, usage.output_tokens, usage.calls) == (150, 15, 2)  # both replies were billed
    after = llm.totals()
    assert (after.input_tokens - before.input_tokens, after.output_tokens - before.output_tokens) == (150, 15)
    fake.reply({"done": "yes"}, usage=(70, 7)).reply("still not json", usage=(30, 3))
    with pytest.raises(LlmInvalid) as err:
        p.complete_json(MSGS, SCHEMA, deadline())
    assert (err.value.usage.input_tokens, err.value.usage.output_tokens, err.value.usage.calls) == (100, 10, 2)
    # a server error after an invalid reply: the error still carries the first reply's tokens
    fake.reply("nope", usage=(40, 4)).reply(status=500)
    with pytest.raises(LlmError) as err:
        p.complete_json(MSGS, SCHEMA, deadline())
    assert (err.value.usage.input_tokens, err.value.usage.output_tokens) == (40, 4)


def test_openai_reuses_one_http_client_with_per_request_timeouts(fake):
    p = OpenAIProvider("m", base_url=fake.base_url)
    fake.reply(ANSWER).reply(ANSWER, delay=HANG_S).reply(ANSWER)
    p.complete_json(MSGS, SCHEMA, deadline())
    client = p.http
    t = time.monotonic()
    with pytest.raises(LlmTimeout):
        p.complete_json(MSGS, SCHEMA, time.monotonic() + 0.8)  # this request's own (shorter) timeout
    assert time.monotonic() - t < within(0.8, before=HANG_S)
    assert p.complete_json(MSGS, SCHEMA, deadline())[0] == ANSWER
    assert p.http is client and len(fake.requests) == 3
    p.close()


def test_bedrock_usage_of_an_invalid_first_reply_is_kept():
    client, stub = _bedrock()
    p = BedrockProvider("m", client=client)
    stub.add_response("converse", _converse_response([{"text": "I would rather not."}], usage=(80, 8)))
    stub.add_response("converse", _converse_response(
        [{"toolUse": {"toolUseId": "t1", "name": "respond", "input": ANSWER}}], usage=(60, 6)))
    with stub:
        obj, usage = p.complete_json(MSGS, SCHEMA, deadline())
    assert obj == ANSWER and (usage.input_tokens, usage.output_tokens, usage.calls) == (140, 14, 2)
    stub.add_response("converse", _converse_response([{"text": "no"}], usage=(11, 1)))
    stub.add_response("converse", _converse_response([{"text": "still no"}], usage=(12, 2)))
    with stub, pytest.raises(LlmInvalid) as err:
        p.complete_json(MSGS, SCHEMA, deadline())
    assert (err.value.usage.input_tokens, err.value.usage.output_tokens) == (23, 3)


def test_metering_records_the_tokens_of_a_retried_call(aws, fake, monkeypatch):
    from agenthost import metering

    monkeypatch.setenv("AGENTHOST_LLM", "openai:fake-model")
    monkeypatch.setenv("AGENTHOST_LLM_BASE_URL", fake.base_url)
    config.reset()
    llm.reset()
    fake.reply("garbage", usage=(100, 10)).reply(ANSWER, usage=(50, 5))
    with metering.turn("olympics", "agent-u") as t:
        llm.complete_json(MSGS, SCHEMA, deadline())
    assert (t.counters["tokens_in"], t.counters["tokens_out"], t.counters["llm_calls"]) == (150, 15, 2)
    llm.reset()
