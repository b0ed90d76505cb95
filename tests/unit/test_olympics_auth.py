"""Signature and replay checks of POST /olympics/turn, through the real handler."""

import json
import time

import pytest
from olympics.app import handler

from tests.support.apigw import call
from tests.support.olympics import SECRET, signed, turn_body


@pytest.fixture(autouse=True)
def _secret(monkeypatch, aws):
    monkeypatch.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)


def post(raw: bytes, headers: dict[str, str]):
    return call(handler, "POST", "/olympics/turn", body=raw, headers=headers)


def assert_valid_turn(resp):
    assert resp.status == 200
    body = resp.json()
    assert isinstance(body["actions"], list) and isinstance(body["done"], bool)
    return body


def test_valid_signature_answers_a_turn():
    assert_valid_turn(post(*signed(turn_body())))


def test_tampered_body_is_401_with_json_error():
    raw, headers = signed(turn_body())
    resp = post(raw.replace(b"Maria", b"Mario"), headers)
    assert resp.status == 401
    assert resp.json() == {"error": "invalid signature"}


def test_wrong_secret_is_401():
    resp = post(*signed(turn_body(), secret="whs_" + "00" * 32))
    assert resp.status == 401 and resp.json()["error"] == "invalid signature"


def test_missing_signature_is_401():
    raw, headers = signed(turn_body())
    del headers["X-AI-Olympics-Signature"]
    resp = post(raw, headers)
    assert resp.status == 401 and "signature" in resp.json()["error"].lower()


def test_stale_timestamp_header_is_401():
    old = int((time.time() - 6 * 60) * 1000)
    resp = post(*signed(turn_body(ts_ms=old), ts_ms=old))
    assert resp.status == 401 and resp.json()["error"] == "timestamp outside the replay window"


def test_the_signed_body_timestamp_decides_and_the_header_must_agree():
    old = int((time.time() - 10 * 60) * 1000)
    resp = post(*signed(turn_body(ts_ms=old)))  # a captured body with a fresh header: still old
    assert resp.status == 401 and resp.json()["error"] == "timestamp outside the replay window"
    resp = post(*signed(turn_body(), ts_ms=old))  # header stale, body fresh: they disagree
    assert resp.status == 401 and "disagrees" in resp.json()["error"]
    resp = post(*signed(turn_body(), ts_ms=int(time.time() * 1000) + 60_000))  # within the window, yet not the body's
    assert resp.status == 401 and "disagrees" in resp.json()["error"]
    resp = post(*signed(turn_body(), ts_ms="yesterday"))  # type: ignore[arg-type]
    assert resp.status == 401


def test_a_body_without_timestamp_falls_back_to_the_header():
    body = turn_body()
    del body["timestamp"]
    assert_valid_turn(post(*signed(body)))
    assert post(*signed(body, ts_ms=int((time.time() - 6 * 60) * 1000))).status == 401
    assert post(*signed(body, timestamp_header=False)).status == 401


def test_missing_timestamp_header_falls_back_to_signed_body_timestamp():
    assert_valid_turn(post(*signed(turn_body(), timestamp_header=False, agent_id=None)))
    old = int((time.time() - 6 * 60) * 1000)
    resp = post(*signed(turn_body(ts_ms=old), timestamp_header=False, agent_id=None))
    assert resp.status == 401


def test_dashboard_test_ping_gets_a_normal_answer():
    # Test pings: only the signature and X-AI-Olympics-Test; availableTools is [].
    ping = turn_body(tools=[], tree='- heading "Example Domain" [level=1]\n- link "More information..."',
                     prompt="Test task", url="https://example.com/")
    raw, headers = signed(ping, timestamp_header=False, agent_id=None, test=True)
    body = assert_valid_turn(post(raw, headers))
    assert body["done"] in (True, False) and len(body["actions"]) <= 10


@pytest.mark.parametrize(("tree", "prompt", "expected"), [
    ('button "Submit"', "Test webhook", [{"tool": "click", "args": {"element": "Submit"}}]),
    ('[sandbox] button "Start" | input "answer" | heading "What is 12 + 30?"', "What is 12 + 30?",
     [{"tool": "type", "args": {"element": "answer", "text": "42"}}, {"tool": "click", "args": {"element": "Start"}}]),
    ('[sandbox] button "Start" | input "answer" | heading "Describe your favourite colour"', "Describe it",
     [{"tool": "click", "args": {"element": "Start"}}]),
])
def test_test_webhook_and_sandbox_pings_get_a_first_action_on_their_one_line_form(tree, prompt, expected):
    """The dashboard's test-webhook and sandbox pings send a one-line tree, no timestamp or agent-id header and
    no tools: the answer acts on that form (the answer when a skill can work it out, then its button) and
    does not claim to be done."""
    ping = turn_body(tools=[], tree=tree, prompt=prompt, url="about:blank")
    raw, headers = signed(ping, timestamp_header=False, agent_id=None, test=True)
    body = assert_valid_turn(post(raw, headers))
    assert body["actions"] == expected and body["done"] is False


@pytest.mark.parametrize("path", ["/", "/olympics", "/hooks/ai-olympics"])
def test_the_function_url_answers_a_signed_turn_on_any_path(path):
    """The dashboard POSTs to the URL it was given and a function URL delivers every path to the function:
    each one is the webhook, behind the same signature check."""
    raw, headers = signed(turn_body())
    assert_valid_turn(call(handler, "POST", path, body=raw, headers=headers, via_url=True))
    bad = call(handler, "POST", path, body=raw.replace(b"Maria", b"Mario"), headers=headers, via_url=True)
    assert bad.status == 401


def test_several_agents_each_with_its_own_secret(monkeypatch):
    other = "whs_" + "77" * 32
    monkeypatch.setenv("AGENTHOST_OLYMPICS_AGENTS", "agent-2=OLYMPICS_SECRET_AGENT2")
    monkeypatch.setenv("OLYMPICS_SECRET_AGENT2", other)
    # chosen by header
    assert post(*signed(turn_body(agent_id="agent-2"), other, agent_id="agent-2")).status == 200
    # chosen by body agentId when the header is missing
    assert post(*signed(turn_body(agent_id="agent-2"), other, agent_id=None)).status == 200
    # agent-2 with the default secret is refused; so is agent-1, which the list does not name
    assert post(*signed(turn_body(agent_id="agent-2"), SECRET, agent_id="agent-2")).status == 401
    refused = post(*signed(turn_body(agent_id="agent-1"), SECRET, agent_id="agent-1"))
    assert refused.status == 401 and refused.json() == {"error": "this agent id is not configured on this webhook"}
    # listed with the default secret's setting, agent-1 keeps it, and so do its dashboard test pings
    monkeypatch.setenv("AGENTHOST_OLYMPICS_AGENTS", "agent-2=OLYMPICS_SECRET_AGENT2,agent-1=AGENTHOST_OLYMPICS_SECRET")
    assert post(*signed(turn_body(agent_id="agent-1"), SECRET, agent_id="agent-1")).status == 200
    ping = turn_body(tools=[], tree='button "Submit"', prompt="Test webhook", url="about:blank", agent_id="agent-1")
    assert_valid_turn(post(*signed(ping, SECRET, timestamp_header=False, agent_id=None, test=True)))
    assert post(*signed(ping, other, timestamp_header=False, agent_id=None, test=True)).status == 401


def test_agents_may_name_their_ssm_or_secrets_manager_secret_directly(monkeypatch):
    """Deployed, ``AGENTHOST_OLYMPICS_AGENTS`` may hold the parameter names themselves (no env variable per
    agent); the ``<SETTING>`` form keeps working beside them."""
    import boto3
    from olympics import auth

    third, fourth, fifth = ("whs_" + c * 64 for c in "345")
    boto3.client("ssm").put_parameter(Name="/agenthost/olympics/agent-3", Value=third, Type="SecureString")
    sm = boto3.client("secretsmanager")
    sm.create_secret(Name="agenthost/olympics/agent-4", SecretString=fourth)
    arn = sm.create_secret(Name="agenthost/olympics/agent-5", SecretString=fifth)["ARN"]
    monkeypatch.setenv("AGENTHOST_OLYMPICS_AGENTS", "agent-2=OLYMPICS_SECRET_AGENT2, "
                       "agent-3=/agenthost/olympics/agent-3,"
                       f"agent-4=secretsmanager:agenthost/olympics/agent-4,agent-5={arn}")
    monkeypatch.setenv("OLYMPICS_SECRET_AGENT2", "whs_" + "77" * 32)
    for agent, key in (("agent-2", "whs_" + "77" * 32), ("agent-3", third), ("agent-4", fourth), ("agent-5", fifth)):
        assert post(*signed(turn_body(agent_id=agent), key, agent_id=agent)).status == 200, agent
        assert post(*signed(turn_body(agent_id=agent), SECRET, agent_id=agent)).status == 401, agent
    assert post(*signed(turn_body(agent_id="agent-3"), fourth, agent_id="agent-3")).status == 401
    assert auth.is_parameter_ref("/agenthost/x") and not auth.is_parameter_ref("OLYMPICS_SECRET_AGENT2")


def test_no_secret_configured_is_401(monkeypatch):
    monkeypatch.delenv("AGENTHOST_OLYMPICS_SECRET")
    resp = post(*signed(turn_body()))
    assert resp.status == 401 and "no webhook secret" in resp.json()["error"]


def test_base64_encoded_body_is_verified_over_decoded_bytes():
    from infra.local.events import LambdaContext, http_event, http_response

    raw, headers = signed(turn_body())
    headers["content-type"] = "application/octet-stream"  # makes the event builder base64-encode the body
    event = http_event("POST", "/olympics/turn", body=raw, headers=headers)
    assert event["isBase64Encoded"]
    status, _, out = http_response(handler(event, LambdaContext("olympics")))
    assert status == 200 and "actions" in json.loads(out)


def test_signature_and_secret_never_appear_in_the_answer_or_logs(capsys, every_log_level):
    raw, headers = signed(turn_body())
    resp = post(raw.replace(b"Maria", b"Mario"), headers)
    out = capsys.readouterr()
    assert "olympics request rejected" in out.out  # the log was written, and read here
    sig = headers["X-AI-Olympics-Signature"]
    for text in (resp.text, out.out, out.err):
        assert SECRET not in text and sig[7:] not in text


def test_valid_signature_but_not_json_still_answers_200():
    raw, headers = signed(b"this is not json")
    body = assert_valid_turn(post(raw, headers))
    assert body["actions"] == [] and body["done"] is False


def test_a_non_post_request_gets_an_idle_200_turn():
    for method in ("GET", "PUT", "DELETE"):
        resp = call(handler, method, "/olympics/turn")
        assert resp.status == 200, method
        body = resp.json()
        assert body["actions"] == [] and body["done"] is False and "POST" in body["thinking"]


def test_generated_sample_event_is_accepted():
    from infra.arena.event import event
    from infra.local.events import LambdaContext, http_response

    status, _, out = http_response(handler(event(SECRET), LambdaContext("olympics")))
    assert status == 200 and json.loads(out)["actions"]


def test_undecodable_base64_body_is_401_not_an_idle_turn():
    from infra.local.events import LambdaContext, http_event, http_response

    raw, headers = signed(turn_body())
    event = http_event("POST", "/olympics/turn", body=raw, headers=headers)
    event["body"], event["isBase64Encoded"] = "%%% not base64 %%%", True
    status, _, out = http_response(handler(event, LambdaContext("olympics")))
    assert status == 401 and json.loads(out)["error"] == "invalid signature"


def test_an_agents_parameter_goes_through_the_one_secret_resolver(aws, monkeypatch):
    """Named by its SSM path, an agent's secret shares every secret's cache and short-timeout client: a
    refresh that fails after the cache expired keeps serving the last value instead of failing the turn."""
    import boto3
    from olympics import auth

    from agenthost import secrets

    key = "whs_" + "9" * 64
    ssm = boto3.client("ssm")
    ssm.put_parameter(Name="/agenthost/olympics/agent-9", Value=key, Type="SecureString")
    monkeypatch.setenv("AGENTHOST_OLYMPICS_AGENTS", "agent-9=/agenthost/olympics/agent-9")
    clock = [1000.0]
    monkeypatch.setattr(secrets, "_now", lambda: clock[0])
    assert auth.secret_for("agent-9") == key
    assert secrets._providers["ssm"][0].meta.config.read_timeout == secrets.SECRET_READ_TIMEOUT_S
    ssm.delete_parameter(Name="/agenthost/olympics/agent-9")
    clock[0] += auth.REF_MAX_AGE_S + 1
    assert auth.secret_for("agent-9") == key
