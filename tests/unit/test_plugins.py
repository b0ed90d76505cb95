"""A user's own agent (``AGENTHOST_AGENT``) through the real handlers: one that answers well, one that
raises, one that sleeps past the deadline, one that answers an invalid target; for the AI Olympics
webhook (a web protocol), the Proxy API and Werewolf. Whatever it does, the turn is answered (200, a
valid answer), the reason is logged and metered, and no secret leaks."""

from __future__ import annotations

import json
import time

import pytest

from agenthost import config, metering, plugins
from agenthost.agent import Action, Decision, DeterministicPolicy
from agenthost.agent import page as pages
from agenthost.agent.aria import from_aria
from tests.support.apigw import call
from tests.support.olympics import SECRET, signed, turn_body
from tests.support.timing import waited, within
from tests.support.user_agents import OVERSLEEP_S, SECRET_IN_ERROR
from tests.support.werewolf import turn as ww_turn

AGENTS = "tests.support.user_agents:"


_ROLLUP: list = []  # this test's usage rollup (when it uses the table)
_ROLLED: list[dict] = []  # the metrics records the rollup wrote, one per turn (rolled up after each)


@pytest.fixture(autouse=True)
def _fresh(monkeypatch, request):
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")  # the EMF record says why a turn fell back
    monkeypatch.delenv("AGENTHOST_WEREWOLF_API_KEY", raising=False)
    plugins.reset()
    metering.reset()
    _ROLLUP[:] = [request.getfixturevalue("rollup")] if "aws" in request.fixturenames else []
    _ROLLED.clear()
    yield
    plugins.reset()
    metering.reset()


def _roll() -> None:
    """Add the last turn's usage as the stream does; the rollup writes its metrics (one record per turn here)."""
    import io
    from contextlib import redirect_stdout

    for rollup in _ROLLUP:
        written = io.StringIO()
        with redirect_stdout(written):
            rollup()
        for line in written.getvalue().splitlines():
            if line.startswith('{"_aws"'):
                rec = json.loads(line)
                rec["fallback_reason"] = next(iter(rec.get("fallback_reasons") or {}), None)
                _ROLLED.append(rec)


def _emf(out: str) -> list[dict]:
    """The turns' metrics records, each saying why its turn fell back (``fallback_reason``), oldest first."""
    _roll()
    return list(_ROLLED)


def ours(out: dict) -> bool:
    """Our deterministic policy's answer to the registration turn (it selects the country the task names)."""
    return {"tool": "select", "args": {"element": "Country", "option": "Germany"}} in out["actions"]


def _fallback_logs(caplog) -> list:
    return [r for r in caplog.records if getattr(r, "agent_fallback", None)]


# ------------------------------------------------------------------------------------------ AI Olympics

def olympics(monkeypatch, agent: str, *, turn: int = 1, previous=None, **env: str):
    from olympics import app

    monkeypatch.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)
    monkeypatch.setenv("AGENTHOST_AGENT", AGENTS + agent)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    config.reset()  # settings are read once: read them again with this test's environment
    monkeypatch.setattr(app, "_cold", False)
    raw, headers = signed(turn_body(turn, previous=previous))
    t0 = time.monotonic()
    resp = call(app.handler, "POST", "/olympics/turn", body=raw, headers=headers)
    elapsed = time.monotonic() - t0
    assert resp.status == 200
    _roll()
    return resp.json(), elapsed


def test_olympics_good_agent_plays_and_keeps_its_memory(aws, monkeypatch, capsys):
    out, _ = olympics(monkeypatch, "good")
    assert out["actions"] == [{"tool": "type", "args": {"element": "First Name", "text": "hello from the user agent"}}]
    assert out["thinking"] == "user agent turn 1"
    out2, _ = olympics(monkeypatch, "good", turn=2, previous=[{"tool": "type", "args": out["actions"][0]["args"]}])
    assert out2["thinking"] == "user agent turn 2"  # its memory came back
    emf = _emf(capsys.readouterr().out)
    assert len(emf) == 2 and all(r["fallback_reason"] is None and r["Fallback"] == [0.0] for r in emf)


def test_olympics_raising_agent_falls_back_without_leaking(aws, monkeypatch, capsys, caplog):
    out, _ = olympics(monkeypatch, "raising")
    # our deterministic policy answered: it fills the registration form from the task
    assert ours(out)
    text = capsys.readouterr().out
    assert SECRET_IN_ERROR not in text and SECRET_IN_ERROR not in json.dumps(out)
    [rec] = _emf(text)
    assert rec["fallback_reason"] == "agent_error" and rec["Fallback"] == [1.0]
    [log] = _fallback_logs(caplog)
    assert log.agent_fallback == "error" and "RuntimeError at user_agents.py" in log.getMessage()
    assert SECRET_IN_ERROR not in caplog.text


def test_olympics_sleeping_agent_is_abandoned_at_the_deadline(aws, monkeypatch, capsys):
    # a 6 s turn: 3 s kept for the fallback and the memory write, 1.5 s more for the guard's fallback
    out, elapsed = olympics(monkeypatch, "sleeping", AGENTHOST_OLYMPICS_BUDGET_S="6")
    assert elapsed < within(1.5, before=1.5 + OVERSLEEP_S)  # the agent's 1.5 s, not its sleep
    assert ours(out)
    [rec] = _emf(capsys.readouterr().out)
    assert rec["fallback_reason"] == "agent_timeout"


def test_agent_time_limit_setting_bounds_the_agent(aws, monkeypatch, capsys):
    out, elapsed = olympics(monkeypatch, "sleeping", AGENTHOST_AGENT_TIMEOUT_S="1")
    assert elapsed < within(1.0, before=1.0 + OVERSLEEP_S)
    assert out["actions"]
    assert _emf(capsys.readouterr().out)[0]["fallback_reason"] == "agent_timeout"


def test_olympics_invalid_target_falls_back(aws, monkeypatch, capsys, caplog):
    out, _ = olympics(monkeypatch, "invalid")
    assert all("not on this page" not in json.dumps(a) for a in out["actions"])
    assert ours(out)
    text = capsys.readouterr().out
    assert _emf(text)[0]["fallback_reason"] == "agent_invalid"
    [log] = _fallback_logs(caplog)
    assert "A button that is not on this page" in log.getMessage()  # the reason names the missing target


def test_unloadable_agent_meters_every_turn_and_our_policy_answers(aws, monkeypatch, capsys):
    out, _ = olympics(monkeypatch, "no_such_factory")
    assert ours(out)
    assert _emf(capsys.readouterr().out)[0]["fallback_reason"] == "agent_load"


# ------------------------------------------------------------------------------------------ the guard itself

TREE = """- textbox "Email"
- textbox "Password"
- button "Sign in"
- link "Docs":
  - /url: https://docs.example.com/"""


def _guarded(answer, *, careful=False, memory=None, **kw):
    class Agent:
        def decide_web(self, turn):
            return answer(turn) if callable(answer) else answer

    page = from_aria(TREE, url="https://shop.example.com/login", title="Sign in")
    policy = plugins.GuardedWebPolicy(Agent(), DeterministicPolicy())
    return policy.decide("Sign in with a@example.com and password Hunter22!", page, [], memory or {}, None,
                         time.monotonic() + 10, careful=careful, **kw)


def test_guard_resolves_targets_itself_and_classifies_risk():
    d = _guarded(Decision(actions=[Action("type", {"element": "Password", "text": "Hunter22!"}),
                                   Action("click", {"element": "Sign in"})],
                          thinking="typing Hunter22! then signing in", memory={"k": "Hunter22!"}), careful=True)
    assert d.source == "agent"
    assert [a.resolved.name for a in d.actions] == ["Password", "Sign in"]
    assert d.actions[0].risk == "credential" and d.needs_approval  # careful mode: ours to ask
    # what was typed into the password field is masked in what is shown and stored
    assert "Hunter22!" not in d.thinking and "Hunter22!" not in json.dumps(d.memory)


def test_guard_refuses_metadata_navigation_and_avoided_actions():
    d = _guarded(Decision(actions=[Action("navigate", {"url": "http://169.254.169.254/latest/meta-data/"})]))
    assert d.source == "agent+fallback"
    assert all(a.args.get("url", "").find("169.254") < 0 for a in d.actions)
    d = _guarded(Decision(actions=[Action("click", {"element": "Sign in"})]), avoid=[("click", "Sign in")])
    assert d.source == "agent+fallback"


def test_guard_refuses_wrong_types_and_keeps_the_agents_memory_on_fallback():
    d = _guarded("not a decision", memory={"agent": {"notes": ["kept"]}})
    assert d.source == "agent+fallback" and d.memory["agent"] == {"notes": ["kept"]}
    d = _guarded(Decision(actions=[Action("click", {"element": "Sign in"})], memory={"x": object()}))
    assert d.source == "agent+fallback"  # memory that cannot be stored


def test_the_agent_sees_its_memory_not_ours_and_cannot_spoof_resolution():
    seen = {}

    def answer(turn):
        seen["memory"] = turn.memory
        fake = pages.Element(ref="x", role="button", name="Pay now")
        return Decision(actions=[Action("click", {"element": "Sign in"}, resolved=fake, risk=None)], memory={"n": 1})

    d = _guarded(answer, memory={"agent": {"n": 0}, "loops": {"k": 1}})
    assert seen["memory"] == {"n": 0}
    assert d.actions[0].resolved.name == "Sign in" and d.memory["agent"] == {"n": 1} and "loops" in d.memory


def test_the_agents_deadline_leaves_the_named_reserve_for_our_fallback(monkeypatch):
    seen = []

    class Agent:
        def decide_web(self, turn):
            seen.append(turn.deadline)
            return Decision(actions=[Action("click", {"element": "Sign in"})])

    page = from_aria(TREE, url="https://shop.example.com/login", title="Sign in")
    turn_deadline = time.monotonic() + 30
    for reserve in (None, "4"):
        if reserve:
            monkeypatch.setenv("AGENTHOST_AGENT_RESERVE_S", reserve)
        d = plugins.GuardedWebPolicy(Agent(), DeterministicPolicy()).decide("Sign in", page, [], {}, None,
                                                                            turn_deadline)
        assert d.source == "agent"
    assert seen == [pytest.approx(turn_deadline - 1.5), pytest.approx(turn_deadline - 4.0)]  # 1.5 s by default


def test_stuck_calls_are_bounded(monkeypatch):
    import threading

    release = threading.Event()
    wait_until = time.monotonic() + waited(OVERSLEEP_S + 2)  # sleepers of earlier tests may still run: let them end
    while plugins.stuck() and time.monotonic() < wait_until:
        time.sleep(0.05)
    base = plugins.stuck()
    monkeypatch.setattr(plugins.calls, "MAX_STUCK", base + 2)
    try:
        for _ in range(2):
            with pytest.raises(plugins.Refused) as e:
                plugins.call_with_deadline(release.wait, 5, deadline=time.monotonic() + 0.2)
            assert e.value.reason == "timeout"
        with pytest.raises(plugins.Refused) as e:
            plugins.call_with_deadline(lambda: 1, deadline=time.monotonic() + 1)
        assert e.value.reason == "busy"
    finally:
        release.set()
    deadline = time.monotonic() + waited(0.1)
    while plugins.stuck() > base and time.monotonic() < deadline:
        time.sleep(0.01)
    assert plugins.call_with_deadline(lambda: 1, deadline=time.monotonic() + 1) == 1


# ------------------------------------------------------------------------------------------ Werewolf

def werewolf(monkeypatch, agent: str, action: str = "vote", **env: str):
    from werewolf import app

    monkeypatch.setenv("AGENTHOST_AGENT", AGENTS + agent)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    config.reset()  # settings are read once: read them again with this test's environment
    body = json.dumps(ww_turn(action), ensure_ascii=False).encode()
    t0 = time.monotonic()
    resp = call(app.handler, "POST", "/werewolf/turn", body=body, headers={"content-type": "application/json"})
    elapsed = time.monotonic() - t0
    assert resp.status == 200
    _roll()
    return resp.json(), elapsed


def test_werewolf_good_agent_answers_and_keeps_its_memory(aws, monkeypatch, capsys):
    out, _ = werewolf(monkeypatch, "good", "vote")
    assert out == {"target": "鸣人"}
    out, _ = werewolf(monkeypatch, "good", "speak")
    assert out == {"message": "user agent speaking, turn 2."}
    out, _ = werewolf(monkeypatch, "good", "seer_check")  # not handled by the agent: our strategy answers
    assert out["target"] in {"柯南", "路飞", "小丸子", "银时", "鸣人"}
    recs = _emf(capsys.readouterr().out)
    assert [r.get("fallback_reason") for r in recs] == [None, None, "agent_declined"]


def test_werewolf_raising_agent(aws, monkeypatch, capsys, caplog):
    out, _ = werewolf(monkeypatch, "raising")
    assert out["target"] in {"柯南", "路飞", "小丸子", "银时", "鸣人"}
    text = capsys.readouterr().out
    assert SECRET_IN_ERROR not in text and SECRET_IN_ERROR not in caplog.text
    assert _emf(text)[0]["fallback_reason"] == "agent_error"


def test_werewolf_sleeping_agent(aws, monkeypatch, capsys):
    # a 6 s turn: the decision is due 3 s in, the agent's 1.5 s before
    out, elapsed = werewolf(monkeypatch, "sleeping", AGENTHOST_WEREWOLF_BUDGET_S="6")
    assert elapsed < within(1.5, before=1.5 + OVERSLEEP_S)
    assert out["target"] in {"柯南", "路飞", "小丸子", "银时", "鸣人"}
    assert _emf(capsys.readouterr().out)[0]["fallback_reason"] == "agent_timeout"


def test_werewolf_invalid_target(aws, monkeypatch, capsys, caplog):
    out, _ = werewolf(monkeypatch, "invalid")
    assert out["target"] != "Nobody-at-this-table" and "message" not in out
    text = capsys.readouterr().out
    assert _emf(text)[0]["fallback_reason"] == "agent_invalid"
    assert any("not an alive player" in str(getattr(r, "reason", "")) for r in caplog.records)


# ------------------------------------------------------------------------------------------ Proxy API

def proxy(monkeypatch, agent: str):
    import runs.app as runs_app
    from runs.agent_adapter import AgentBrain

    from tests.unit.runs_support import API_KEY

    monkeypatch.setenv("AGENTHOST_AGENT", AGENTS + agent)
    monkeypatch.setenv("AGENTHOST_RUNS_API_KEY", API_KEY)
    monkeypatch.setattr(runs_app, "_brain", AgentBrain())


CHECKOUT = {"url": "https://shop.test/checkout", "title": "Checkout", "timestamp": 1,
            "visibleText": "Checkout\nOrder total: $49.99\nNote",
            "elements": [{"id": "agent-1", "tag": "input", "type": "text", "text": "", "label": "Note"},
                         {"id": "agent-2", "tag": "button", "text": "Pay now"}]}


def test_proxy_api_user_agent_steps_and_careful_mode_still_asks(aws, monkeypatch):
    from tests.unit.runs_support import start_run, step_run

    proxy(monkeypatch, "good")
    r = step_run(start_run("Leave a note", "autonomous"), CHECKOUT, None).json()
    assert r["action"] == "execute_tool"
    assert r["tool"] == {"name": "type", "parameters": {"id": "agent-1", "text": "hello from the user agent"}}
    plugins.reset()
    proxy(monkeypatch, "payer")
    r = step_run(start_run("Buy it", "careful"), CHECKOUT, None).json()
    # the user's agent chose to pay; careful mode's approval is ours and still applies
    assert r["action"] == "ask_user" and "Pay now" in r["question"] and "$49.99" in r["question"]


@pytest.mark.parametrize("agent", ["raising", "invalid"])
def test_proxy_api_failing_user_agent_still_gets_a_step(aws, monkeypatch, capsys, agent):
    from tests.unit.runs_support import start_run, step_run

    proxy(monkeypatch, agent)
    resp = step_run(start_run("Leave the note 'hi'", "autonomous"), CHECKOUT, None)
    assert resp.status == 200 and resp.json()["action"] in ("execute_tool", "ask_user", "finish")
    reason = "agent_error" if agent == "raising" else "agent_invalid"
    assert _emf(capsys.readouterr().out)[-1]["fallback_reason"] == reason


def test_the_agent_gets_the_skills():
    seen = {}

    def answer(turn):
        seen["skills"] = sorted(turn.skills)
        seen["solved"] = turn.solve("What is 17 * 3?")
        return Decision(actions=[Action("type", {"element": "Email", "text": seen["solved"].answer})])

    d = _guarded(answer)
    assert d.source == "agent" and d.actions[0].args["text"] == "51"
    assert seen["skills"] and all(callable(getattr(plugins.skills()[n], "call", None)) for n in seen["skills"])


def test_the_agents_own_http_calls_go_through_netguard():
    from agenthost import netguard

    def answer(turn):
        with turn.http() as client:
            client.get("http://169.254.169.254/latest/meta-data/")
        return Decision(actions=[Action("click", {"element": "Sign in"})])

    with pytest.raises(netguard.Blocked):
        answer(plugins.WebTurn(task="", page=pages.Page(), history=(), memory={}, tools=(),
                               deadline=time.monotonic() + 5))
    assert _guarded(answer).source == "agent+fallback"  # the agent raised: ours answered
