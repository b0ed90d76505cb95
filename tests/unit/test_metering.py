"""Metering: daily counters (usage riding on a turn's own write and rolled up from the stream, exact under
concurrency and re-delivery), budgets, EMF output."""

from __future__ import annotations

import json
import threading
import time

import pytest

from agenthost import metering
from agenthost.items import keys, marshal
from agenthost.store import ConditionFailed, Store

NOW = 1_795_000_000.0  # 2026-11-18 (UTC)
DAY = metering.day_of(NOW)


_ROLLUP: list = []  # this test's usage rollup, when it uses the table


@pytest.fixture(autouse=True)
def _reset_metering(monkeypatch, request):
    for name in ("AGENTHOST_LLM_BUDGET_TOKENS", "AGENTHOST_LLM_BUDGET_USD", "AGENTHOST_LLM_BUDGETS",
                 "AGENTHOST_PRICES", "AGENTHOST_BUDGET_CACHE_S"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENTHOST_MEMORY_MB", "512")
    metering.reset()
    _ROLLUP[:] = [request.getfixturevalue("rollup")] if "aws" in request.fixturenames else []
    yield
    _ROLLUP.clear()
    metering.reset()


def usage(store: Store, agent: str, protocol: str, day: str = DAY) -> dict:
    """The agent's usage item once the rollup has added what the table's stream holds (as deployed)."""
    for rollup in _ROLLUP:
        rollup()
    return store.get(**metering.usage_key(day, agent, protocol)) or {}


def test_a_turn_adds_its_counters_to_the_agents_day(aws):
    with metering.turn("olympics", "agent-1", clock=lambda: NOW) as t:
        aws.get(**keys.task("agent-1", "h"))
        t.llm(tokens_in=800, tokens_out=60, latency_ms=900.0, model="gpt-4o-mini")
    item = usage(aws, "agent-1", "olympics")
    assert item["agent"] == "agent-1" and item["protocol"] == "olympics" and item["day"] == DAY
    assert (item["turns"], item["llm_calls"], item["tokens_in"], item["tokens_out"]) == (1, 1, 800, 60)
    assert item["llm_ms"] == 900 and item["model"] == "gpt-4o-mini"
    assert "fallbacks" not in item and "errors" not in item  # zero counters are not written
    assert item["ddb_calls"] == 2  # the protocol's read and the counter write itself
    assert item["ddb_rru"] >= 0.5 and item["ddb_wru"] >= 1
    assert item["duration_ms"] > 0 and item["mb_ms"] == 512 * -(-item["duration_ms"] // 1)
    assert item["expires_at"] > NOW + 365 * 86400


@pytest.fixture
def atomic_moto(aws, monkeypatch):
    """moto applies ``ADD`` as a Python read-modify-write and loses updates under threads (about 1 in
    100 here); DynamoDB applies each write atomically. Serialize moto's writes like DynamoDB does, so
    the test checks our side: every concurrent turn's counters arrive as ``ADD``s (a metering that read
    and rewrote the item would still lose turns)."""
    from moto.dynamodb.models import DynamoDBBackend

    lock = threading.RLock()
    for name in ("put_item", "update_item", "delete_item", "transact_write_items"):
        original = getattr(DynamoDBBackend, name)

        def locked(self, *args, _original=original, **kwargs):
            with lock:
                return _original(self, *args, **kwargs)

        monkeypatch.setattr(DynamoDBBackend, name, locked)
    return aws


def test_counters_are_exact_under_concurrent_turns(atomic_moto):
    aws = atomic_moto
    threads, per_thread = 8, 25

    def worker(n: int) -> None:
        for i in range(per_thread):
            with metering.turn("werewolf", "wolf", clock=lambda: NOW) as t:
                t.llm(tokens_in=10 + n, tokens_out=3, latency_ms=2.0, model="gpt-4o-mini")
                if i % 5 == 0:
                    t.fallback("llm_error")

    pool = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    item = usage(aws, "wolf", "werewolf")
    assert item["turns"] == threads * per_thread
    assert item["llm_calls"] == threads * per_thread
    assert item["tokens_in"] == sum((10 + n) * per_thread for n in range(threads))
    assert item["tokens_out"] == 3 * threads * per_thread
    assert item["fallbacks"] == threads * 5
    assert item["ddb_calls"] == threads * per_thread  # one counter write per turn, nothing else


def test_counters_ridden_on_concurrent_writes_add_up_exactly(atomic_moto, rollup):
    threads, per_thread = 6, 20

    def worker(n: int) -> None:
        for i in range(per_thread):
            with metering.turn("olympics", f"agent-{n % 3}", clock=lambda: NOW) as t:
                t.llm(tokens_in=7, tokens_out=1, model="gpt-4o-mini")
                atomic_moto.put({**keys.task(f"agent-{n % 3}", f"{n}-{i}"), "v": i})

    pool = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    rollup()
    rows = [usage(atomic_moto, f"agent-{k}", "olympics") for k in range(3)]
    assert [r["turns"] for r in rows] == [2 * per_thread] * 3
    assert sum(r["tokens_in"] for r in rows) == 7 * threads * per_thread
    assert sum(r["ddb_calls"] for r in rows) == threads * per_thread  # each turn's own write, nothing else


def test_a_turns_usage_rides_on_its_own_write_and_the_rollup_adds_it(aws, rollup):
    store = Store()
    with metering.turn("olympics", "a", clock=lambda: NOW) as t:
        t.llm(tokens_in=5, tokens_out=1, model="gpt-4o-mini")
        before = store.calls
        store.put({**keys.task("a", "h1"), "memory": "x"})
    assert store.calls == before + 1  # the protocol's write, and no counter write of metering's own
    assert store.get(**keys.task("a", "h1")) == {**keys.task("a", "h1"), "memory": "x"}  # reads never show it
    assert store.get(**metering.usage_key(DAY, "a", "olympics")) is None  # not before the stream has been read
    assert rollup() == {"records": 1, "items": 1, "added": 1, "replayed": 0}
    item = usage(store, "a", "olympics")
    assert (item["turns"], item["tokens_in"], item["llm_calls"], item["model"]) == (1, 5, 1, "gpt-4o-mini")
    assert item["ddb_calls"] == 1 and item["ddb_wru"] == 1 and item["rolled_at"] > 0


def test_a_redelivered_batch_is_not_counted_twice(aws, rollup):
    for n in range(3):
        with metering.turn("werewolf", "wolf", clock=lambda: NOW) as t:
            t.llm(tokens_in=10, tokens_out=1)
            aws.put({**keys.game("g", n), "data": "{}"})
    assert rollup()["added"] == 1
    assert rollup.again() == {"records": 3, "items": 1, "added": 0, "replayed": 1}
    assert (usage(aws, "wolf", "werewolf")["turns"], usage(aws, "wolf", "werewolf")["tokens_in"]) == (3, 30)


def test_a_write_that_leaves_the_usage_as_it_was_adds_nothing(aws, rollup):
    """An update outside any turn keeps the item's usage attribute: its stream record carries no new usage."""
    with metering.turn("olympics", "a", clock=lambda: NOW):
        aws.put({**keys.task("a", "h4"), "v": 1})
    aws.update(**keys.task("a", "h4"), set_={"v": 2})
    rollup()
    assert usage(aws, "a", "olympics")["turns"] == 1


def test_what_a_turn_records_after_its_last_write_rides_on_the_next_write(aws, rollup):
    with metering.turn("olympics", "a", clock=lambda: NOW):
        aws.put({**keys.task("a", "h5"), "v": 1})
        aws.get(**keys.task("a", "h5"))  # a read after the turn's last write: a cost tail
    rollup()
    assert usage(aws, "a", "olympics")["ddb_calls"] == 1
    with metering.turn("werewolf", "wolf", clock=lambda: NOW):  # another protocol's turn, in the same container
        aws.put({**keys.game("g", 1), "data": "{}"})
    rollup()
    assert usage(aws, "a", "olympics")["ddb_calls"] == 2 and usage(aws, "a", "olympics")["turns"] == 1
    assert usage(aws, "wolf", "werewolf")["ddb_calls"] == 1


def test_the_previous_turns_tail_rides_inside_this_turns_entry_and_is_counted_once(aws, rollup):
    """The usage attribute rides on the turn's own item (a write unit per KB): a cost tail of the same agent and
    protocol is folded into the turn's entry (``t``) instead of repeating its attributes, and still counted."""
    from agenthost.items import unmarshal

    for n in range(2):
        with metering.turn("olympics", "a", clock=lambda: NOW):
            aws.put({**keys.task("a", f"t{n}"), "v": n})
            aws.get(**keys.task("a", f"t{n}"))  # a read after the write: a cost tail for the next write
    raw = aws.client.get_item(TableName=aws.table_name, Key=marshal(keys.task("a", "t1")))["Item"]
    [entry] = metering.carry.decode(unmarshal({"u": raw[metering.USAGE_ATTR]})["u"])["e"]
    tail = metering.carry.counters(entry, "t")
    assert metering.carry.counters(entry)["turns"] == 1 and "turns" not in tail and tail["ddb_calls"] == 1
    rollup()
    item = usage(aws, "a", "olympics")
    assert (item["turns"], item["ddb_calls"]) == (2, 3)  # two writes, and the first turn's read


def test_the_usage_attribute_is_one_short_string_that_reads_back_exactly():
    """The usage rides on the turn's own item, billed per KB: it is one string (about half the bytes of a map of
    named numbers), and reads back to the same entries whatever the agent id or model contains."""
    from agenthost.metering import carry

    entries = [
        {"day": "2026-11-29", "agent": "agent-1", "protocol": "olympics", "arch": "arm64", "mb": 512,
         "c": [1, 0, 0, 0, 0, 0, 0, 1, 0, 8.849, 4608, 1, 2, 0.5, 1], "why": "no_llm",
         "t": [0, 0, 0, 0, 0, 0, 0, 0, 0, 4.185, 2048]},
        {"day": "2026-11-28", "agent": "a|b,c:d%e 名前", "protocol": "runs", "arch": "x86_64", "mb": 128,
         "model": "anthropic.claude-3:0", "c": [1, 0, 2, 1, 812, 64, 930.25, 0, 0, 0.001, 128]},
    ]
    value = carry.encode("0123456789abcdef", 1795937174.89, entries)
    assert isinstance(value, str)
    assert carry.decode(value) == {"id": "0123456789abcdef", "at": 1795937174.89, "e": entries}
    one = carry.encode("0123456789abcdef", 1795937174.89, entries[:1])
    # a webhook turn's usage with the previous turn's tail folded in (a map of the same: ~210 bytes)
    assert len(one) <= 120, one
    assert carry.decode("not|a number") is None and carry.decode("") is None
    # the day a usage belongs to, asked again and again (remembered), and across midnight
    assert [metering.day_of(t) for t in (NOW, NOW + 86_400, NOW, NOW - 1 - NOW % 86_400)] == [
        "2026-11-18", "2026-11-19", "2026-11-18", "2026-11-17"]
    # what the version before wrote (a map) is read as it was
    before = {"id": "x1", "at": 1.5, "e": entries[:1]}
    assert carry.decode(before) == before


def test_usage_written_as_a_map_before_is_still_rolled_up(aws, rollup):
    """Items written by the version before (the usage as a map) still reach the counters."""
    aws.client.put_item(TableName=aws.table_name, Item=marshal({**keys.task("a", "old"), metering.USAGE_ATTR: {
        "id": "before1", "at": NOW, "e": [{"day": metering.day_of(NOW), "agent": "old-agent", "protocol": "olympics",
                                           "arch": "arm64", "mb": 512, "c": [1, 0, 0, 0, 0, 0, 0, 1, 0, 5.0, 2560]}]}}))
    rollup()
    assert usage(aws, "old-agent", "olympics")["turns"] == 1


def test_a_refused_write_carries_nothing_and_the_turn_adds_its_counters_itself(aws, rollup):
    aws.put({**keys.run("r"), "step": 0}, expected_version=0)
    with metering.turn("runs", "ext", clock=lambda: NOW) as t:
        t.llm(tokens_in=11, tokens_out=4)
        with pytest.raises(ConditionFailed):
            aws.put({**keys.run("r"), "step": 9}, expected_version=7)
    assert aws.get(**keys.run("r"))["step"] == 0
    rollup()
    item = usage(aws, "ext", "runs")
    assert (item["turns"], item["tokens_in"], item["tokens_out"]) == (1, 11, 4)
    assert item["ddb_calls"] == 2  # the refused write and metering's own


def test_a_write_whose_answer_was_lost_after_it_applied_counts_once(aws, rollup, monkeypatch):
    """botocore resends a write whose answer timed out; DynamoDB refuses the resend when the first attempt
    applied (here: ``if_absent``) and sends back the stored item, which carries this very write's usage: the
    turn counts it as carried, and writes nothing of its own."""
    from agenthost import riders
    from agenthost.metering.turns import rider as turn_rider

    with metering.turn("olympics", "a", clock=lambda: NOW) as t:
        sent = turn_rider()
        # what the first attempt stored: the item with that write's usage on it
        aws.client.put_item(TableName=aws.table_name, Item=marshal(
            {**keys.task("a", "h6"), "v": 1, metering.USAGE_ATTR: sent.value}))
        monkeypatch.setattr(riders, "current", lambda: sent)  # the resend carries the same usage
        with pytest.raises(ConditionFailed):
            aws.put({**keys.task("a", "h6"), "v": 1}, if_absent=True)
        assert "turns" not in t.uncarried()
    rollup()
    assert usage(aws, "a", "olympics")["turns"] == 1


def test_an_unconditional_write_applied_twice_by_a_resend_counts_once(aws, rollup, monkeypatch):
    """A write with no condition whose answer was lost after it applied is applied again by the resend, and
    the table's stream holds both (an update that adds to a counter changes the item again): the second
    record's old image already carries the same usage, so the rollup adds it once."""
    from agenthost import riders
    from agenthost.metering.turns import rider as turn_rider

    aws.put({**keys.task("a", "h7"), "hits": 0})
    rollup()
    with metering.turn("olympics", "a", clock=lambda: NOW):
        sent = turn_rider()
        monkeypatch.setattr(riders, "current", lambda: sent)  # both attempts carry the same usage
        for _attempt in range(2):  # the first applied, its answer lost; the resend applied again
            aws.update(**keys.task("a", "h7"), add={"hits": 1})
    assert aws.get(**keys.task("a", "h7"))["hits"] == 2
    rollup()
    assert usage(aws, "a", "olympics")["turns"] == 1


def test_a_turn_that_wrote_nothing_leaves_its_counters_for_the_next_write_when_its_answer_is_due(aws, rollup):
    from agenthost.deadline import Deadline

    with metering.turn("olympics", "late", clock=lambda: NOW, deadline=Deadline.after(0.5)) as t:
        t.llm(tokens_in=3)
    assert t.usage_late and usage(aws, "late", "olympics") == {}  # no write of its own: the answer was due
    aws.put({**keys.task("x", "y"), "v": 1})  # the container's next write, any item, in a turn or not
    rollup()
    assert (usage(aws, "late", "olympics")["turns"], usage(aws, "late", "olympics")["tokens_in"]) == (1, 3)


def test_an_exception_counts_as_an_error_and_propagates(aws):
    with pytest.raises(RuntimeError), metering.turn("runs", "ext", clock=lambda: NOW):
        raise RuntimeError("boom")
    assert usage(aws, "ext", "runs")["errors"] == 1


def test_metering_never_fails_a_turn(aws, monkeypatch, capsys):
    """A counter write that fails (here: the table is missing) leaves the turn's own result alone and says
    so in the log."""
    monkeypatch.setenv("AGENTHOST_TABLE", "no-such-table")
    from agenthost import config

    config.reset()
    with metering.turn("olympics", "a", clock=lambda: NOW) as t:
        t.llm(tokens_in=1)
        answer = {"action": "click"}
    assert answer == {"action": "click"}  # reached: the failed write raised nothing out of the turn
    assert "usage item not written" in capsys.readouterr().out
    assert usage(aws, "a", "olympics") == {}


def test_outside_a_turn_current_records_nothing(aws):
    rec = metering.current()
    rec.llm(tokens_in=10)
    rec.fallback()
    assert rec.llm_allowed() is True
    assert list(aws.query(f"USAGE#{metering.day_of(time.time())}")) == []


def test_token_budget_cuts_over_to_the_deterministic_policy(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_LLM_BUDGET_TOKENS", "100")
    metering.reset()
    answered_by = []
    for _ in range(4):
        with metering.turn("olympics", "b", clock=lambda: NOW) as t:
            if t.llm_allowed():
                t.llm(tokens_in=40, tokens_out=20, model="gpt-4o-mini")
                answered_by.append("llm")
            else:
                answered_by.append("deterministic")  # still answered, never refused
    assert answered_by == ["llm", "llm", "deterministic", "deterministic"]
    item = usage(aws, "b", "olympics")
    assert (item["turns"], item["llm_calls"], item["tokens_in"] + item["tokens_out"]) == (4, 2, 120)
    assert (item["fallbacks"], item["budget_fallbacks"]) == (2, 2)
    # another agent has its own budget
    assert metering.budget_allows("someone-else", now=NOW)


def test_budget_counts_every_protocol_and_per_agent_dollar_overrides(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_LLM_BUDGETS", json.dumps({"rich": {"usd": 1.0}, "poor": {"usd": 0.001}}))
    monkeypatch.setenv("AGENTHOST_BUDGET_CACHE_S", "0")
    metering.reset()
    # gpt-4o-mini: $0.15 / 1M in, $0.60 / 1M out -> 5000 in + 1000 out = $0.00135
    for protocol in ("olympics", "werewolf"):
        with metering.turn(protocol, "poor", clock=lambda: NOW) as t:
            assert t.llm_allowed() is (protocol == "olympics")
            if protocol == "olympics":
                t.llm(tokens_in=5000, tokens_out=1000, model="gpt-4o-mini")
    assert metering.spent_today("poor", now=NOW)["usd"] == pytest.approx(0.00135)
    assert usage(aws, "poor", "werewolf")["budget_fallbacks"] == 1
    assert metering.budget_allows("rich", now=NOW) and metering.budget_allows("nobody", now=NOW)


def test_budget_counts_this_containers_turns_before_the_rollup_adds_them_and_once_after(aws, rollup,
                                                                                     monkeypatch):
    monkeypatch.setenv("AGENTHOST_LLM_BUDGET_TOKENS", "100")
    monkeypatch.setenv("AGENTHOST_BUDGET_CACHE_S", "0")
    metering.reset()
    for n in range(2):
        with metering.turn("olympics", "b", clock=time.time) as t:
            assert t.llm_allowed()
            t.llm(tokens_in=40, tokens_out=20, model="gpt-4o-mini")
            aws.put({**keys.task("b", f"h{n}"), "v": n})  # the usage rides here: no counter write of its own
    assert aws.get(**metering.usage_key(metering.day_of(time.time()), "b", "olympics")) is None  # not rolled up
    assert metering.spent_today("b")["tokens"] == 120  # this container's turns in flight
    assert not metering.budget_allows("b")
    rollup()
    assert usage(aws, "b", "olympics", metering.day_of(time.time()))["tokens_in"] == 80
    assert metering.spent_today("b")["tokens"] == 120  # rolled up now, and not counted twice


def test_budget_is_per_utc_day(aws, monkeypatch):
    monkeypatch.setenv("AGENTHOST_LLM_BUDGET_TOKENS", "10")
    metering.reset()
    with metering.turn("olympics", "c", clock=lambda: NOW) as t:
        t.llm(tokens_in=10)
    assert not metering.budget_allows("c", now=NOW)
    assert metering.budget_allows("c", now=NOW + 86400)


def test_bad_budget_configuration_names_the_problem(monkeypatch):
    monkeypatch.setenv("AGENTHOST_LLM_BUDGETS", "{not json")
    metering.reset()
    with pytest.raises(ValueError, match="AGENTHOST_LLM_BUDGETS"):
        metering.config()


def test_the_rollup_emits_one_emf_record_per_protocol_and_agent_with_a_value_per_turn(aws, rollup, monkeypatch,
                                                                                      capsys):
    """A turn writes no metrics line of its own: the rollup writes the turns' metrics, once per batch, with
    both dimension sets and one value per turn (so averages and percentiles are per turn)."""
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    with metering.turn("werewolf", "seat-3", clock=lambda: NOW) as t:
        t.llm(tokens_in=12, tokens_out=3, latency_ms=450.0)
        t.fallback("invalid")
    with metering.turn("werewolf", "seat-3", clock=lambda: NOW, decides=True):
        aws.put({**keys.game("g", 3), "data": "{}"})
    assert not [x for x in capsys.readouterr().out.splitlines() if x.startswith('{"_aws"')]  # none from the turns
    rollup()
    [rec] = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith('{"_aws"')]
    meta = rec["_aws"]["CloudWatchMetrics"][0]
    assert meta["Namespace"] == "agenthost"
    assert ["protocol", "agent"] in meta["Dimensions"]
    assert any(d[:1] == ["protocol"] and "agent" not in d for d in meta["Dimensions"])
    assert (rec["protocol"], rec["agent"]) == ("werewolf", "seat-3")
    assert (rec["Turns"], rec["Fallback"], rec["TokensIn"], rec["TokensOut"], rec["LlmLatency"]) == \
        ([1.0, 1.0], [1.0, 1.0], [12.0], [3.0], [450.0])
    assert rec["DynamoDBCalls"] == [1.0, 1.0]  # the first turn's own usage item, the second turn's write
    assert rec["fallback_reasons"] == {"invalid": 1, "no_llm": 1}
    rollup.again()  # the same batch again: no second record
    assert not [x for x in capsys.readouterr().out.splitlines() if x.startswith('{"_aws"')]


def test_an_invocation_that_is_not_a_turn_counts_its_costs_but_no_turn(aws, rollup, monkeypatch, capsys):
    """A timer or a WebSocket connect: Lambda requests, duration and DynamoDB are paid, but the dashboard
    and the report must not see a turn (turn-based rates would be diluted)."""
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    with metering.turn("evals", "e", clock=lambda: NOW, counts_as_turn=False) as t:
        t.ws(messages=1)
    item = usage(aws, "e", "evals")
    [rec] = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith('{"_aws"')]
    assert rec["Turns"] == [0.0]
    assert item.get("turns", 0) == 0 and item["invocations"] == 1 and item["ws_messages"] == 1


def test_a_turn_whose_answer_was_due_says_so_in_its_own_metrics_line(aws, monkeypatch, capsys):
    from agenthost.deadline import Deadline

    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    with metering.turn("olympics", "late", clock=lambda: NOW, deadline=Deadline.after(0.1)):
        pass
    [rec] = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith('{"_aws"')]
    assert rec["UsageLate"] == [1.0] and (rec["protocol"], rec["agent"]) == ("olympics", "late")


class FakeProvider:
    model = "gpt-4o-mini"

    def __init__(self, fail: bool = False):
        self.fail, self.calls = fail, 0

    def complete_json(self, messages, schema, deadline):
        from agenthost.llm import LlmTimeout, Usage

        self.calls += 1
        if self.fail:
            raise LlmTimeout("late")
        return {"ok": True}, Usage(input_tokens=30, output_tokens=10, calls=1, latency_ms=5)


def test_llm_calls_through_the_configured_provider_are_metered_and_budgeted(aws, monkeypatch):
    from agenthost.llm import LlmError

    monkeypatch.setenv("AGENTHOST_LLM_BUDGET_TOKENS", "40")
    metering.reset()
    inner = FakeProvider()
    provider = metering.metered(inner)
    assert metering.metered(provider) is provider and provider.model == "gpt-4o-mini"
    outcomes = []
    for _ in range(3):
        with metering.turn("olympics", "m", clock=lambda: NOW, decides=True):
            try:
                provider.complete_json([], {}, time.monotonic() + 30)
                outcomes.append("llm")
            except LlmError:
                outcomes.append("deterministic")
    assert outcomes == ["llm", "deterministic", "deterministic"]  # the first call spent the 40 tokens
    assert inner.calls == 1  # past the budget the provider is not called at all
    item = usage(aws, "m", "olympics")
    assert (item["turns"], item["llm_calls"], item["tokens_in"], item["tokens_out"], item["model"]) == \
        (3, 1, 30, 10, "gpt-4o-mini")
    assert (item["fallbacks"], item["budget_fallbacks"]) == (2, 2)


def test_a_deciding_turn_without_a_successful_llm_call_is_a_fallback(aws):
    provider = metering.metered(FakeProvider(fail=True))
    with metering.turn("werewolf", "w", clock=lambda: NOW, decides=True):
        with pytest.raises(Exception, match="late"):
            provider.complete_json([], {}, time.monotonic() + 30)
    with metering.turn("werewolf", "w", clock=lambda: NOW, decides=True):
        pass  # no LLM configured: the deterministic policy answered
    with metering.turn("werewolf", "w", clock=lambda: NOW):
        pass  # a turn no policy answers (e.g. a status read) is not a fallback
    item = usage(aws, "w", "werewolf")
    assert (item["turns"], item["llm_calls"], item["llm_errors"], item["fallbacks"]) == (3, 1, 1, 2)
    assert "budget_fallbacks" not in item


def test_llm_calls_from_a_worker_thread_count_for_the_only_active_turn(aws):
    import concurrent.futures

    provider = metering.metered(FakeProvider())
    with concurrent.futures.ThreadPoolExecutor(1) as pool, \
            metering.turn("olympics", "pool", clock=lambda: NOW, decides=True):
        pool.submit(provider.complete_json, [], {}, 0.0).result()
    item = usage(aws, "pool", "olympics")
    assert (item["llm_calls"], item["tokens_in"]) == (1, 30) and "fallbacks" not in item


def test_tokens_of_a_failed_llm_call_are_metered(aws):
    """Invalid replies are paid for: the provider's error carries their usage and the turn records it."""
    from agenthost.llm import LlmError, Usage

    class Invalid:
        model = "gpt-4o-mini"

        def complete_json(self, messages, schema, deadline):
            err = LlmError("not valid JSON twice")
            err.usage = Usage(input_tokens=300, output_tokens=40, calls=2)
            raise err

    with metering.turn("olympics", "f", clock=lambda: NOW, decides=True):
        with pytest.raises(LlmError):
            metering.metered(Invalid()).complete_json([], {}, time.monotonic() + 30)
    item = usage(aws, "f", "olympics")
    assert (item["llm_calls"], item["llm_errors"], item["tokens_in"], item["tokens_out"]) == (2, 2, 300, 40)
    assert item["fallbacks"] == 1


def test_a_budget_check_that_cannot_finish_before_the_deadline_allows_the_call(aws, monkeypatch):
    """The daily totals are read from DynamoDB; a slow read must not hold the turn past its deadline."""
    monkeypatch.setenv("AGENTHOST_LLM_BUDGET_TOKENS", "1000")
    monkeypatch.setenv("AGENTHOST_BUDGET_CACHE_S", "0")
    metering.reset()
    release = threading.Event()

    class SlowStore:
        def query(self, *a, **k):
            release.wait(10)  # a DynamoDB read that does not come back in time
            return iter(())

    with metering.turn("olympics", "s", store=SlowStore(), clock=lambda: NOW) as t:
        allowed = t.llm_allowed(deadline=time.monotonic() + 0.8)
        answered_before_the_read = not release.is_set()
        release.set()
    assert allowed is True and answered_before_the_read
