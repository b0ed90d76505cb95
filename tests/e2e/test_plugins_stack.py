"""A user's agent loaded by the local stack the way a deployment loads it (``AGENTHOST_AGENT``), through
real signed HTTP: the AI Olympics webhook (its function URL) and the Werewolf webhook, with an agent that
answers well, one that raises, one that sleeps past its deadline and one that names a target that is not
there. Every turn is answered 200 with a valid answer; fallbacks are logged with their reason."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from infra.local.defaults import LOCAL_SECRETS
from infra.werewolf_sim.players import encode
from tests.support.olympics import signed, turn_body
from tests.support.timing import waited, within
from tests.support.user_agents import OVERSLEEP_S, SECRET_IN_ERROR
from tests.support.werewolf import turn as ww_turn

pytestmark = pytest.mark.e2e
OLYMPICS_SECRET = LOCAL_SECRETS["AGENTHOST_OLYMPICS_SECRET"]
WEREWOLF_KEY = LOCAL_SECRETS["AGENTHOST_WEREWOLF_API_KEY"]
OTHERS = {"柯南", "路飞", "小丸子", "银时", "鸣人"}


@pytest.fixture(scope="module")
def agent_stack():
    from tests.support.stack import start_stack

    s = start_stack({"AGENTHOST_AGENT": "tests.support.user_agents:switch", "AGENTHOST_AGENT_TIMEOUT_S": "3"})
    yield s
    s.stop()


def _olympics(stack, case: str, turn: int = 1, previous=None) -> tuple[dict, float]:
    prompt = f"Register Maria Lopez from Germany. [agent:{case}]"
    raw, headers = signed(turn_body(turn, prompt=prompt, previous=previous), OLYMPICS_SECRET)
    url = stack.function_urls["OlympicsFunction"].rstrip("/") + "/olympics/turn"
    t0 = time.monotonic()
    r = httpx.post(url, content=raw, headers=headers, timeout=30)
    assert r.status_code == 200
    return r.json(), time.monotonic() - t0


def _werewolf(stack, case: str, action: str = "vote") -> dict:
    body = encode(ww_turn(action, game_id=f"{case}-{time.monotonic_ns()}"))
    from agenthost import signing

    headers = {"content-type": "application/json", "X-Werewolf-Signature": signing.sign(WEREWOLF_KEY, body)}
    r = httpx.post(stack.http_url + "/werewolf/turn", content=body, timeout=30, headers=headers)
    assert r.status_code == 200
    return r.json()


def _fallback_lines(stack, since: int) -> list[dict]:
    out = []
    for line in stack.output[since:]:
        if '"agent_fallback"' in line:
            out.append(json.loads(line[line.index("{"):]))
    return out


def _ours(out: dict) -> bool:
    return {"tool": "select", "args": {"element": "Country", "option": "Germany"}} in out["actions"]


def _wait_logs(stack, since: int, n: int = 1) -> list[dict]:
    deadline = time.monotonic() + waited(20)  # the stack's output arrives through a pipe: late on a busy machine
    while time.monotonic() < deadline:
        lines = _fallback_lines(stack, since)
        if len(lines) >= n:
            return lines
        time.sleep(0.1)
    return _fallback_lines(stack, since)


def test_olympics_good_agent_through_the_stack(agent_stack):
    out, _ = _olympics(agent_stack, "good")
    assert out["actions"] == [{"tool": "type", "args": {"element": "First Name", "text": "hello from the user agent"}}]
    out, _ = _olympics(agent_stack, "good", 2, previous=[{"tool": "type", "args": out["actions"][0]["args"]}])
    assert out["thinking"] == "user agent turn 2"  # its memory was kept in the embedded table


@pytest.mark.parametrize("case,reason", [("raising", "error"), ("sleeping", "timeout"), ("invalid", "invalid")])
def test_olympics_failing_agents_through_the_stack(agent_stack, case, reason):
    since = len(agent_stack.output)
    out, elapsed = _olympics(agent_stack, case)
    # the turn's budget is 20 s; the agent's 3 s (AGENTHOST_AGENT_TIMEOUT_S), then our policy
    assert _ours(out) and elapsed < within(3.0, before=3.0 + OVERSLEEP_S)
    assert [x["agent_fallback"] for x in _wait_logs(agent_stack, since)] == [reason]
    assert SECRET_IN_ERROR not in agent_stack.log_text()


def test_werewolf_good_agent_through_the_stack(agent_stack):
    assert _werewolf(agent_stack, "good") == {"target": "鸣人"}


@pytest.mark.parametrize("case,reason", [("raising", "error"), ("sleeping", "timeout"), ("invalid", "invalid")])
def test_werewolf_failing_agents_through_the_stack(agent_stack, case, reason):
    since = len(agent_stack.output)
    t0 = time.monotonic()
    out = _werewolf(agent_stack, case)
    assert out["target"] in OTHERS and time.monotonic() - t0 < within(3.0, before=3.0 + OVERSLEEP_S)
    [line] = _wait_logs(agent_stack, since)
    assert line["agent_fallback"] == reason
    if reason == "invalid":  # refused by the player's contract check: the engine would refuse it too
        assert "not an alive player" in line["reason"]
    assert SECRET_IN_ERROR not in agent_stack.log_text()


def test_the_banner_says_which_agent_plays(agent_stack):
    assert "agent: tests.support.user_agents:switch (web and werewolf; ours answers the rest)" in agent_stack.log_text()
