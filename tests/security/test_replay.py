"""Replays: what a captured, correctly signed request can still do. AI Olympics: the window holds for the
signed body's timestamp (a fresh header does not revive an old body, a header that disagrees is refused),
and a body replayed within the window gets the answer already given without a second memory write."""

from __future__ import annotations

import time

import pytest
from olympics.app import handler as olympics
from olympics.memory import task_hash

from agenthost.items import keys
from tests.support.apigw import call
from tests.support.olympics import SECRET, signed, turn_body


@pytest.fixture
def store(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)
    return aws


NAME_FORM = '- heading "Contact"\n- textbox "Name"\n- button "Send"'


def post(raw: bytes, headers: dict[str, str]):
    return call(olympics, "POST", "/olympics/turn", body=raw, headers=headers)


def memory_item(store, body):
    from olympics.memory import stored

    item = store.get(**keys.task("agent-1", task_hash(body["task"]["taskPrompt"], body["pageState"]["url"])))
    return stored(item) if item else None


def test_fresh_header_on_an_old_body_is_401(store):
    captured = int((time.time() - 6 * 60) * 1000)
    raw, headers = signed(turn_body(ts_ms=captured), ts_ms=captured)
    assert post(raw, headers).status == 401
    headers["X-AI-Olympics-Timestamp"] = str(int(time.time() * 1000))  # the replayer refreshes the header
    r = post(raw, headers)
    assert r.status == 401 and r.json() == {"error": "timestamp outside the replay window"}


def test_header_and_body_disagreeing_is_401(store):
    now = int(time.time() * 1000)
    raw, headers = signed(turn_body(ts_ms=now), ts_ms=now - 120_000)  # both inside the window, 2 min apart
    r = post(raw, headers)
    assert r.status == 401 and "disagrees" in r.json()["error"]
    assert memory_item(store, turn_body()) is None  # nothing was played


@pytest.mark.parametrize("turn", [1, 3])
def test_the_same_turn_twice_gets_the_same_answer_and_one_write(store, turn):
    body = turn_body(turn, tree=NAME_FORM, prompt="Type the name Ada Lovelace into the form and send it.")
    raw, headers = signed(body)
    first = post(raw, headers)
    assert first.status == 200 and first.json()["actions"]
    from tests.support.usage import DynamoCalls

    item = memory_item(store, body)
    assert item["last_turn"] == turn
    with DynamoCalls() as calls:
        again = post(raw, headers)
    assert again.status == 200 and again.json() == first.json()
    assert not [pk for pk in calls.written if pk.startswith("TASK#")]  # no second memory write
    assert memory_item(store, body) == item
    # the next turn plays normally and keeps the memory of the first
    nxt = turn_body(turn + 1, tree=NAME_FORM, prompt=body["task"]["taskPrompt"],
                    previous=[{"turn": turn, "actions": first.json()["actions"]}])
    assert post(*signed(nxt)).status == 200
    item = memory_item(store, nxt)
    assert item["turns"][-1]["n"] == turn + 1 and len(item["answers"]) == 2  # the first body is still known
    # the first body again, now a turn back: kept as a mark, so an idle turn, still no decision and no write
    with DynamoCalls() as calls:
        late = post(raw, headers)
    assert late.status == 200 and late.json()["actions"] == [] and late.json()["done"] is False
    assert not [pk for pk in calls.written if pk.startswith("TASK#")]
    assert memory_item(store, nxt) == item


def test_a_replayed_answer_that_typed_a_password_is_not_stored_in_clear(store):
    tree = '- heading "Sign in"\n- textbox "Password"\n- button "Sign in"'
    body = turn_body(2, tree=tree, prompt="Sign in with the password Hunter2-secret.")
    raw, headers = signed(body)
    first = post(raw, headers).json()
    typed = [a for a in first["actions"] if a["tool"] == "type"]
    item = memory_item(store, body)
    assert "Hunter2-secret" not in repr(item)
    assert "Hunter2-secret" in repr(typed)
    again = post(raw, headers).json()
    assert again["actions"] == [] and again["done"] is False  # an idle turn: the secret was not kept


def test_a_repeated_werewolf_body_gets_the_stored_answer_without_a_write(aws, monkeypatch):
    import json

    import werewolf.app as werewolf_app

    from agenthost import signing
    from tests.support.werewolf import turn as ww_turn

    monkeypatch.setenv("AGENTHOST_WEREWOLF_API_KEY", "ww-replay-key")
    monkeypatch.setattr(werewolf_app, "_store", None)
    raw = json.dumps(ww_turn("vote", rnd=2, chat=[("柯南", "我觉得4号很可疑")], game_id="g-replay")).encode()
    headers = {"content-type": "application/json", "X-Werewolf-Signature": signing.sign("ww-replay-key", raw)}

    def send():
        return call(werewolf_app.handler, "POST", "/werewolf/turn", body=raw.decode(), headers=headers)

    import werewolf.player as player

    decisions = []
    real_decide = player.decide
    monkeypatch.setattr(player, "decide", lambda *a, **k: decisions.append(1) or real_decide(*a, **k))
    first = send()
    assert first.status == 200 and first.json().get("target") and len(decisions) == 1
    item = aws.get(**keys.game("g-replay", "3"))
    assert item is not None
    for _ in range(3):
        again = send()
        assert again.status == 200 and again.json() == first.json()
    assert len(decisions) == 1  # not decided again
    assert aws.get(**keys.game("g-replay", "3")) == item  # answered from memory: nothing written again


def _task_items(store) -> list[dict]:
    items = store.client.scan(TableName=store.table_name)["Items"]
    return [i for i in items if i["pk"]["S"].startswith("TASK#")]


def _count_decisions(monkeypatch) -> list[int]:
    from olympics import agent_adapter

    decisions: list[int] = []
    real = agent_adapter.deterministic
    monkeypatch.setattr(agent_adapter, "deterministic", lambda inp: decisions.append(1) or real(inp))
    return decisions


@pytest.mark.parametrize("body_id", ["agent-1", None])
def test_a_replay_with_another_agent_id_header_is_still_a_replay(store, monkeypatch, body_id):
    """``X-AI-Olympics-Agent-Id`` is not signed: the same signed bytes resent under any other id (or none)
    get the answer already given, with no second decision, no second task item and no turn metered to
    the id the replayer chose."""
    decisions = _count_decisions(monkeypatch)
    body = turn_body(2, tree=NAME_FORM, prompt="Type the name Ada Lovelace into the form and send it.")
    if body_id is None:
        del body["agentId"]  # the header is then the only id there is: it must not key the replay either
    raw, headers = signed(body)
    first = post(raw, headers)
    assert first.status == 200 and first.json()["actions"] and len(decisions) == 1
    items = _task_items(store)
    assert len(items) == 1
    for other in ("agent-2", "someone-else", "default", "AGENT-1", " agent-1 ", ""):
        altered = {**headers, "X-AI-Olympics-Agent-Id": other}
        again = post(raw, altered)
        assert again.status in (200, 401), other
        if again.status == 200:
            assert again.json() == first.json(), other
    assert len(decisions) == 1  # never decided again
    assert _task_items(store) == items  # no new task item, the first one not written again
    usage = [i for i in store.client.scan(TableName=store.table_name)["Items"] if i["pk"]["S"].startswith("USAGE#")]
    metered_to = {i["sk"]["S"].split("#")[0] for i in usage}
    assert metered_to <= {"agent-1", "default"}, metered_to  # no turn metered to an id the replayer picked


def test_an_unlisted_agent_id_does_not_take_the_default_secret_when_agents_are_configured(store, monkeypatch):
    """With ``AGENTHOST_OLYMPICS_AGENTS`` set, only the listed ids are agents: a body signed with the
    default secret under an id nobody listed is refused, whichever header accompanies it."""
    monkeypatch.setenv("AGENTHOST_OLYMPICS_AGENTS", "agent-2=OLYMPICS_SECRET_AGENT2")
    monkeypatch.setenv("OLYMPICS_SECRET_AGENT2", "whs_" + "77" * 32)
    for body_id, header_id in (("agent-9", "agent-9"), ("agent-9", None), ("agent-9", "agent-2")):
        r = post(*signed(turn_body(agent_id=body_id), SECRET, agent_id=header_id))
        assert r.status == 401, (body_id, header_id)
    assert _task_items(store) == []


def test_a_replayed_give_up_is_the_same_answer(store, monkeypatch):
    """A give-up is sent with the spec's ``done`` tool (success false) beside ``done``/``result``; its replay
    is that same answer, not one with a second ``done`` tool."""
    from olympics import agent_adapter

    from agenthost.agent import Decision as BrainDecision

    monkeypatch.setattr(agent_adapter, "deterministic", lambda inp: BrainDecision(
        done=True, success=False, result="Not completed: nothing left to try"))
    raw, headers = signed(turn_body(4, tree=NAME_FORM, prompt="Type the name Ada Lovelace into the form and send it."))
    first = post(raw, headers).json()
    assert [a["tool"] for a in first["actions"]] == ["done"] and first["result"]["success"] is False
    assert post(raw, headers).json() == first
