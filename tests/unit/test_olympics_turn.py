"""One turn end to end in the handler: task memory, the turn budget, the LLM path with its fallbacks, and
failures that must still answer a valid 200 turn."""

import json
import threading
import time

import pytest
from olympics import agent_adapter, app
from olympics.memory import MemoryStore, stored, task_hash
from olympics.models import TurnRequest, TurnResponse
from olympics.turn import play

from agenthost.agent import Action, Decision
from agenthost.config import settings
from agenthost.deadline import Deadline
from agenthost.items import keys
from tests.support.apigw import call
from tests.support.logs import every_level
from tests.support.olympics import FORM_TREE, SECRET, signed, turn_body
from tests.support.timing import within

URL = "http://127.0.0.1:8000/registration/index.html"
PROMPT = "Register with first name Maria, last name Lopez, email maria@example.com, country Germany."


@pytest.fixture
def secret(monkeypatch):
    monkeypatch.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)


def post(body):
    resp = call(app.handler, "POST", "/olympics/turn", body=signed(body)[0], headers=signed(body)[1])
    assert resp.status == 200
    out = resp.json()
    assert set(out) <= {"thinking", "actions", "done", "result"} and isinstance(out["actions"], list)
    assert len(out["actions"]) <= 10
    return out


def test_turn_reads_once_writes_once_and_remembers(aws, secret):
    out = post(turn_body(1, prompt=PROMPT))
    item = stored(aws.get(**keys.task("agent-1", task_hash(PROMPT, URL))))
    assert item["last_turn"] == 1 and item["first_url"].endswith("/registration/index.html")
    raw = aws.get(**keys.task("agent-1", task_hash(PROMPT, URL)))
    packed = bytes(getattr(raw["data_z"], "value", raw["data_z"]))
    assert 86_000 < raw["expires_at"] - time.time() <= 86_400 and len(packed) < 1024  # one write unit
    sent_pw = [a["args"]["text"] for a in out["actions"] if a["args"].get("element") == "Password"]
    assert sent_pw and len(sent_pw[0]) >= 12  # a generated password is sent to the page...
    kept = [a for a in item["turns"][0]["actions"]]
    assert kept == [dict(a, args={**a["args"], "text": "••••••"}) if a["args"].get("element") == "Password"
                    else a for a in out["actions"]]
    assert sent_pw[0] not in json.dumps(item, ensure_ascii=False)  # ...but never stored
    # turn 2 on the same tree: the actions of turn 1 changed nothing, which becomes a note
    previous = [{"name": a["tool"], "arguments": a["args"]} for a in out["actions"]]
    post(turn_body(2, prompt=PROMPT, previous=previous))
    fp_one = item["turns"][0]["fp"]
    item = stored(aws.get(**keys.task("agent-1", task_hash(PROMPT, URL))))
    assert item["last_turn"] == 2 and len(item["turns"]) == 1  # the previous turn is all a turn compares with
    assert item["turns"][0]["fp"] == fp_one and item["turns"][0]["n"] == 2
    assert any("the page did not change after" in n and "'password'" in n for n in item["notes"])
    assert item["brain"], "the brain's memory is kept for the next turn"


def test_one_dynamodb_read_and_one_write_per_turn(aws):
    store = MemoryStore()
    req = TurnRequest.model_validate(turn_body(1, prompt=PROMPT))
    _, stats = play(req, "agent-1", memory_store=store, deterministic=agent_adapter.deterministic)
    assert stats.dynamodb_calls == 2
    store = MemoryStore()
    _, stats = play(TurnRequest.model_validate(turn_body(2, prompt=PROMPT)), "agent-1", memory_store=store,
                    deterministic=agent_adapter.deterministic)
    assert stats.dynamodb_calls == 2


def test_turn_one_starts_afresh(aws, secret):
    post(turn_body(1, prompt=PROMPT))
    post(turn_body(2, prompt=PROMPT))
    post(turn_body(1, prompt=PROMPT, url="http://127.0.0.1:8000/other.html"))
    item = stored(aws.get(**keys.task("agent-1", task_hash(PROMPT, URL))))
    assert item["last_turn"] == 1 and len(item["turns"]) == 1 and item["notes"] == []
    assert item["first_url"] == "http://127.0.0.1:8000/other.html"


def test_the_same_prompt_on_two_sites_keeps_two_records(aws, secret):
    other = "https://shop.example/registration"
    post(turn_body(1, prompt=PROMPT))
    post(turn_body(1, prompt=PROMPT, url=other))
    post(turn_body(2, prompt=PROMPT))
    here = stored(aws.get(**keys.task("agent-1", task_hash(PROMPT, URL))))
    there = stored(aws.get(**keys.task("agent-1", task_hash(PROMPT, other))))
    # turn 2 continued turn 1's record: both turns' bodies are kept (turn 1's as a mark)
    assert here["last_turn"] == 2 and len(here["answers"]) == 2 and here["first_url"] == URL
    assert there["last_turn"] == 1 and there["first_url"] == other
    assert task_hash(PROMPT, URL) == task_hash(PROMPT, "http://127.0.0.1:8000/somewhere/else?x=1")


def test_agents_do_not_share_memory(aws, secret):
    post(turn_body(1, prompt=PROMPT, agent_id="agent-1"))
    assert aws.get(**keys.task("agent-2", task_hash(PROMPT, URL))) is None


def test_dynamodb_down_still_answers_a_valid_turn(secret, monkeypatch):
    # no moto: DynamoDB is an endpoint that refuses connections
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:9")
    out = post(turn_body(1, prompt=PROMPT))
    assert out["actions"], "the deterministic policy still plays without memory"


def test_internal_error_still_answers_200(aws, secret, monkeypatch):
    def boom(_inp):
        raise RuntimeError("policy exploded")

    monkeypatch.setattr(agent_adapter, "deterministic", boom)
    out = post(turn_body(1, prompt=PROMPT))
    assert out["actions"] == [] and out["done"] is False and "exploded" not in out["thinking"]


# --- the LLM path: a late, failing or invalid LLM hands the turn to the deterministic policy -------------

def _det(_inp):
    return Decision(thinking="deterministic", actions=[Action("type", {"element": "Email", "text": "a@b.c"})])


def _play(llm, budget_s=20.0):
    req = TurnRequest.model_validate(turn_body(1, prompt=PROMPT))
    return play(req, "agent-1", memory_store=None, deterministic=_det, llm=llm, deadline=Deadline.after(budget_s))


def test_good_llm_answer_is_used():
    def good(_inp):
        return Decision(thinking="filling the form", source="llm", actions=[
            Action("type", {"element": "First Name", "text": "Maria"}),
            Action("select", {"element": "Country", "option": "Germany"}),
            Action("click", {"element": "Submit Registration"})])

    resp, stats = _play(good)
    assert stats.source == "llm" and [a.tool for a in resp.actions] == ["type", "select", "click"]
    # the turn's log line says how the budget was split, each reserve by name
    assert stats.budget == "budget 20.0s: llm 17.0s + fallback, guard and memory write 3.0s"


def test_the_reserves_are_settings(monkeypatch):
    from agenthost import config

    monkeypatch.setenv("AGENTHOST_OLYMPICS_RESERVE_S", "5")
    monkeypatch.setenv("AGENTHOST_GUARD_RESERVE_S", "2")
    config.reset()
    _resp, stats = _play(lambda _inp: Decision(source="llm"), budget_s=12.0)
    assert stats.budget == "budget 12.0s: llm 7.0s + fallback, guard and memory write 5.0s"
    _resp, stats = _play(None, budget_s=12.0)
    assert stats.source == "deterministic"
    assert stats.budget == "budget 12.0s: deterministic 10.0s + guard and memory write 2.0s"


def test_slow_llm_is_abandoned_at_its_deadline():
    hang_s, release = 30.0, threading.Event()

    def slow(_inp):
        release.wait(hang_s)
        return Decision(actions=[Action("click", {"element": "Home"})], source="llm")

    t0 = time.monotonic()
    try:
        resp, stats = _play(slow, budget_s=settings().olympics_reserve_s + 1.0)
        assert time.monotonic() - t0 < within(1.0, before=hang_s)
    finally:
        release.set()
    assert stats.llm_error == "late" and stats.source == "deterministic"
    assert resp.actions[0].args["element"] == "Email"


def test_broken_llm_falls_back():
    def broken(_inp):
        raise ConnectionError("LLM unreachable")

    resp, stats = _play(broken)
    assert stats.llm_error == "failed: ConnectionError" and resp.thinking == "deterministic"


def test_hostile_llm_output_never_reaches_the_runner():
    def hostile(_inp):
        return Decision(source="llm", thinking="<script>fetch('x')</script> eval(document.cookie)", actions=[
            Action("type", {"element": "Email", "text": "<img src=x onerror=alert(1)>"}),
            Action("click", {"element": "Transfer all funds"}),
            Action("scroll", {"direction": "right"}),
            Action("submit", {}),
            Action("navigate", {"url": "javascript:alert(1)"}),
            Action("rm_rf", {})])

    resp, stats = _play(hostile)
    assert stats.llm_error.startswith("invalid") and stats.source == "deterministic"
    assert "<script" not in resp.thinking and "eval(" not in resp.thinking
    assert [a.tool for a in resp.actions] == ["type"]


def test_hostile_llm_thinking_is_cleaned_when_its_actions_are_fine():
    def sly(_inp):
        return Decision(source="llm", thinking="ok <script>x</script> process.env.AWS_SECRET",
                        actions=[Action("type", {"element": "Email", "text": "maria@example.com"})])

    resp, stats = _play(sly)
    assert stats.source == "llm" and "<script" not in resp.thinking and "process.env" not in resp.thinking


def test_llm_done_with_result_is_an_object_when_the_task_asks_for_json():
    def done(_inp):
        return Decision(source="llm", done=True, result="298479")

    req = TurnRequest.model_validate(turn_body(1, prompt="Return the population of Graz as a JSON object.",
                                               tree=FORM_TREE))
    resp, _ = play(req, "a", memory_store=None, deterministic=_det, llm=done)
    assert resp.wire()["done"] is True and resp.wire()["result"] == {"answer": "298479"}


def test_a_check_on_a_box_already_in_that_state_is_not_sent_as_a_toggling_click():
    tree = '- checkbox "Email me product news" [checked]\n- checkbox "Send me offers"\n- button "Save settings"'

    def ticks(inp):
        news, offers = inp.page.elements[0], inp.page.elements[1]
        return Decision(actions=[Action("check", {"element": news.name, "checked": True}, resolved=news),
                                 Action("check", {"element": offers.name, "checked": True}, resolved=offers),
                                 Action("check", {"element": news.name, "checked": False}, resolved=news)])

    req = TurnRequest.model_validate(turn_body(1, tree=tree))
    resp, _ = play(req, "a", memory_store=None, deterministic=ticks)
    assert resp.wire()["actions"] == [{"tool": "click", "args": {"element": "Send me offers"}},
                                      {"tool": "click", "args": {"element": "Email me product news"}}]


def test_a_reported_page_error_becomes_a_note(aws, secret):
    body = turn_body(2, prompt=PROMPT)
    body["pageState"]["error"] = "Element 'Sumbit' not found"
    post(turn_body(1, prompt=PROMPT))
    post(body)
    item = stored(aws.get(**keys.task("agent-1", task_hash(PROMPT, URL))))
    assert any("Element 'Sumbit' not found" in n for n in item["notes"])


def test_a_turn_is_one_read_and_one_write_with_its_usage_riding_on_the_memory_write(aws, secret, rollup):
    """A whole turn is one DynamoDB read and the task memory's one write, which carries the turn's usage to
    the stream (no counter write of its own); a replayed body is its read and the turn's own usage item."""
    from agenthost import metering
    from tests.support.usage import DynamoCalls

    with DynamoCalls() as calls:
        for n in (1, 2):
            calls.ops.clear()
            post(turn_body(n, prompt=PROMPT))
            assert calls.ops == ["GetItem", "PutItem"]
        calls.ops.clear()
        replayed = turn_body(3, prompt=PROMPT)
        post(replayed)
        calls.ops.clear()
        post(replayed)  # the same signed body again: its first answer, no second decision
        assert calls.ops == ["GetItem", "PutItem"]
    rollup()
    [item] = aws.query(f"USAGE#{metering.day_of(time.time())}")
    assert (item["turns"], item["agent"], item["ddb_calls"]) == (4, "agent-1", 8)


def test_typed_passwords_never_reach_the_task_memory(aws, secret):
    """The runner shows typed values in the tree and sends them back in previousActions; the stored task
    memory (turns, notes of what failed, the brain's loop keys) keeps them masked."""
    password = "Winter2024!"
    prompt = f"Sign in with username jdoe and password {password}."
    tree = '- textbox "Username"\n- textbox "Password"\n- button "Sign in"'
    out = post(turn_body(1, prompt=prompt, tree=tree))
    assert {"tool": "type", "args": {"element": "Password", "text": password, "clear": True}} in out["actions"]
    previous = [{"name": a["tool"], "arguments": a["args"]} for a in out["actions"]]
    post(turn_body(2, prompt=prompt, tree=tree, previous=previous))  # unchanged page: a note of what failed
    item = stored(aws.get(**keys.task("agent-1", task_hash(prompt, URL))))
    text = json.dumps(item, ensure_ascii=False)
    assert item["notes"] and "jdoe" in text and password not in text


# --- a give-up stays a give-up whatever page text its reason quotes -----------------------------------------

#: text a hostile page can get quoted in a policy's reason: each is script-like to the runner's scan
SCRIPTY_QUOTES = ["click javascript:void(0)", "<script>alert(1)</script>", "eval(atob('c3RlYWw='))",
                  '<img src=x onerror="steal()">', "process.env.AWS_SECRET", "document.cookie",
                  "new Function('return 1')()", "Q" * 130]


@pytest.mark.parametrize("quote", SCRIPTY_QUOTES)
@pytest.mark.parametrize("how", ["give-up", "stop"])
@pytest.mark.parametrize("prompt", [PROMPT, "Report the order total as a JSON object."])
def test_a_give_up_quoting_script_like_page_text_is_never_turned_into_success(quote, how, prompt):
    """The policy's outcome decides a result's success: a give-up (success false, or loop detection's stop)
    whose reason quotes script-like page text is sent as a give-up with the text withheld, never as
    ``{"success": true}``; no script-like text reaches the runner either way."""
    from olympics import executable

    from agenthost.agent import Decision as BrainDecision

    def gives_up(inp):
        reason = f"Not completed: the page offers only {quote}"
        d = (BrainDecision(done=True, success=False, result=reason) if how == "give-up"
             else BrainDecision(done=True, stop=True, result=reason))
        return d

    req = TurnRequest.model_validate(turn_body(3, prompt=prompt))
    resp, _ = play(req, "agent-1", memory_store=None, deterministic=gives_up)
    wire = resp.wire()
    assert wire["done"] is True and wire["result"]["success"] is False, wire["result"]
    assert not executable.scripty(wire), wire
    done_tools = [a for a in wire["actions"] if a["tool"] == "done"]
    assert done_tools and done_tools[0]["args"]["success"] is False


@pytest.mark.parametrize("quote", SCRIPTY_QUOTES[:3])
def test_a_claimed_result_keeps_the_policys_outcome_when_its_text_is_withheld(quote):
    """Withholding unsafe text never changes who won: a success stays a success, and a result whose own
    ``success`` disagrees with the policy's outcome is corrected to the outcome."""
    from agenthost.agent import Decision as BrainDecision

    def achieved(inp):
        return BrainDecision(done=True, success=True, result=f"Done; the page said {quote}")

    def claims_but_gave_up(inp):
        return BrainDecision(done=True, success=False, result='{"success": true, "total": 5}')

    req = TurnRequest.model_validate(turn_body(3, prompt=PROMPT))
    ok, _ = play(req, "agent-1", memory_store=None, deterministic=achieved)
    assert ok.wire()["result"]["success"] is True
    lost, _ = play(req, "agent-1", memory_store=None, deterministic=claims_but_gave_up)
    assert lost.wire()["result"]["success"] is False


def _item_bytes(aws, prompt: str, url: str = URL) -> int:
    """The task memory item's billed size as stored, the usage riding on it included."""
    from agenthost.items import item_bytes, marshal

    raw = aws.client.get_item(TableName=aws.table_name, Key=marshal(keys.task("agent-1", task_hash(prompt, url))))
    return item_bytes(raw["Item"])


LONG_FORM = "\n".join(
    [f'- textbox "{label} (write it as the form\'s hint describes, in full)"' for label in
     ("First name", "Last name", "Email address", "Phone number", "Street address", "Postcode", "City", "Company")]
    + ['- button "Save profile"'])


def test_the_task_memory_and_its_usage_stay_within_one_write_unit_over_a_long_task(aws, secret):
    """A write unit per KB: 20 turns of a form with long labels and typed values, each turn's item (memory,
    kept answers and the usage riding on it) stays under 1 KB, and the memory still carries what the next
    turn needs."""
    prompt = ("Fill the profile: first name Maria, last name Lopez, email maria.lopez@example.com, phone "
              "+49 30 1234567, street Elm Street 4, postcode 21073, city Hamburg, company Lopez GmbH, then save.")
    sizes, previous = [], []
    for n in range(1, 21):
        out = post(turn_body(n, tree=LONG_FORM, prompt=prompt, previous=previous))
        previous = [{"name": a["tool"], "arguments": a["args"]} for a in out["actions"]]
        sizes.append(_item_bytes(aws, prompt))
    assert max(sizes) < 1024, sizes
    item = stored(aws.get(**keys.task("agent-1", task_hash(prompt, URL))))
    assert item["last_turn"] == 20 and item["brain"] and item["turns"][-1]["n"] == 20


def test_an_answer_too_big_for_the_write_unit_is_kept_as_a_mark_and_its_replay_is_idle(aws, secret):
    """A long answer (an LLM's thinking) is not kept in full when the item would pass one write unit: the item
    stays under 1 KB, and that body replayed gets an idle turn, without a second decision or write."""
    import random

    from tests.support.usage import DynamoCalls

    rng = random.Random(7)
    thinking = " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8)) for _ in range(150))

    def wordy(inp):
        return Decision(thinking=thinking, actions=[Action("click", {"element": "Submit Registration"})],
                        source="deterministic")

    body = turn_body(2, prompt=PROMPT)
    raw, headers = signed(body)
    resp = call(app.handler, "POST", "/olympics/turn", body=raw, headers=headers)
    assert resp.status == 200
    # the same turn through play() with the wordy policy, so its answer is long
    aws.client.delete_item(TableName=aws.table_name, Key={"pk": {"S": f"TASK#agent-1#{task_hash(PROMPT, URL)}"},
                                                          "sk": {"S": "META"}})
    digest = __import__("hashlib").sha256(raw).hexdigest()[:32]
    req = TurnRequest.model_validate(body)
    first, _ = play(req, "agent-1", memory_store=MemoryStore(), deterministic=wordy, llm=None, digest=digest)
    assert len(first.thinking) > 1000
    assert _item_bytes(aws, PROMPT) < 1024
    with DynamoCalls() as calls:
        again = call(app.handler, "POST", "/olympics/turn", body=raw, headers=headers)
    assert again.status == 200 and again.json()["actions"] == [] and again.json()["done"] is False
    assert not [pk for pk in calls.written if pk.startswith("TASK#")]


def test_a_task_memory_written_before_is_still_read_and_replayed(aws, secret):
    """Items written before this encoding (plain zlib, three turns, answers in full under 32-character
    digests) are read: the turn continues them, and a body kept there is answered as then."""
    import hashlib
    import zlib

    from agenthost.items import marshal

    body = turn_body(3, prompt=PROMPT)
    raw, headers = signed(body)
    answer = {"thinking": "as then", "actions": [{"tool": "scroll", "args": {"direction": "down"}}], "done": False}
    old = {"first_url": URL, "started_at": time.time(), "last_turn": 3,
           "turns": [{"n": n, "url": URL, "fp": "f" * 16, "actions": []} for n in (1, 2, 3)], "notes": ["kept note"],
           "brain": {"visited": [URL]}, "answers": {hashlib.sha256(raw).hexdigest()[:32]: answer}}
    aws.client.put_item(TableName=aws.table_name, Item=marshal({
        **keys.task("agent-1", task_hash(PROMPT, URL)), "expires_at": int(time.time()) + 3600,
        "data_z": zlib.compress(json.dumps(old).encode(), 9)}))
    again = call(app.handler, "POST", "/olympics/turn", body=raw, headers=headers)
    assert again.json() == answer
    post(turn_body(4, prompt=PROMPT))
    item = stored(aws.get(**keys.task("agent-1", task_hash(PROMPT, URL))))
    assert item["last_turn"] == 4 and "kept note" in item["notes"] and URL in item["brain"]["visited"]


def test_a_turns_log_line_says_only_what_this_turn_has_to_say(aws, secret, capsys):
    """CloudWatch bills a turn's line by the byte: a warm deterministic turn writes no empty fields, no code
    location and not the budget's usual split; a turn with something to say (an LLM's budget, an error) does."""
    post(turn_body(1, prompt=PROMPT))
    capsys.readouterr()
    with every_level():
        post(turn_body(2, prompt=PROMPT))
    [line] = [json.loads(x) for x in capsys.readouterr().out.splitlines()
              if x.startswith("{") and '"olympics turn"' in x]
    assert "location" not in line and "budget" not in line
    assert not [k for k, v in line.items() if v in ("", [], None, False) and k not in ("cold_start", "done")], line
    assert (line["agent"], line["turn"], line["source"]) == ("agent-1", 2, "deterministic")
    assert len(json.dumps(line)) < 440
    from olympics.turn import TurnStats

    stats = TurnStats(source="llm", llm_error="late", budget="budget 20.0s: llm 17.0s + fallback 3.0s")
    said = app._line(app.Caller("agent-1", False), TurnRequest.model_validate(turn_body(3)),
                     TurnResponse(thinking="", actions=[], done=False), stats, time.monotonic())
    assert said["budget"].startswith("budget 20.0s: llm") and said["llm_error"] == "late" and "test_ping" not in said
