import threading

import pytest

from agenthost.store import ConditionFailed, Store, VersionConflict, keys


def test_put_get_roundtrip_with_types(aws):
    item = {**keys.run("r1"), "status": "created", "n": 3, "ratio": 0.25, "tags": ["a", "b"],
            "nested": {"ok": True, "none": None}}
    aws.put(item)
    got = aws.get(**keys.run("r1"))
    assert got == item
    assert isinstance(got["n"], int) and isinstance(got["ratio"], float)


def test_missing_item_is_none(aws):
    assert aws.get(**keys.run("nope")) is None


def test_ttl_expired_items_are_absent_before_deletion(aws):
    clock = [1_000_000.0]
    store = Store(clock=lambda: clock[0])
    store.put({**keys.session("h"), "v": 1}, ttl_s=60)
    assert store.get(**keys.session("h"))["expires_at"] == 1_000_060
    clock[0] += 61
    assert store.get(**keys.session("h")) is None
    assert list(store.query("SESSION#h")) == []
    # and an expired item may be replaced by an if_absent write
    store.put({**keys.session("h"), "v": 2}, ttl_s=60, if_absent=True)
    assert store.get(**keys.session("h"))["v"] == 2


def test_if_absent_refuses_live_item(aws):
    aws.put({**keys.client("c"), "v": 1}, if_absent=True)
    with pytest.raises(ConditionFailed):
        aws.put({**keys.client("c"), "v": 2}, if_absent=True)
    assert aws.get(**keys.client("c"))["v"] == 1


def test_optimistic_version(aws):
    first = aws.put({**keys.run("r"), "step": 0}, expected_version=0)
    assert first["version"] == 1
    aws.put({**keys.run("r"), "step": 1}, expected_version=1)
    with pytest.raises(VersionConflict):
        aws.put({**keys.run("r"), "step": 99}, expected_version=1)
    got = aws.get(**keys.run("r"))
    assert (got["step"], got["version"]) == (1, 2)


def test_concurrent_version_writers_only_one_wins(aws):
    aws.put({**keys.run("race"), "step": 0}, expected_version=0)
    wins, losses = [], []

    def writer(i: int) -> None:
        try:
            Store().put({**keys.run("race"), "step": i}, expected_version=1)
            wins.append(i)
        except VersionConflict:
            losses.append(i)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wins) == 1 and len(losses) == 7


def test_update_counters_and_condition(aws):
    aws.update("USAGE#a", "DAY#1", add={"turns": 1, "tokens": 10}, set_={"agent": "a"})
    after = aws.update("USAGE#a", "DAY#1", add={"turns": 2})
    assert after["turns"] == 3 and after["tokens"] == 10 and after["agent"] == "a"
    with pytest.raises(ConditionFailed):
        aws.update("USAGE#a", "DAY#1", add={"turns": 1}, condition="turns < :max", values={":max": 3})


def test_query_prefix_order_and_pagination(aws):
    for n in range(30):
        aws.put({**keys.run_step("q", n), "n": n, "pad": "x" * 40_000})
    aws.put({**keys.run("q"), "status": "running"})
    steps = list(aws.query("RUN#q", "STEP#"))
    assert [s["n"] for s in steps] == list(range(30))  # crosses the 1 MB page boundary
    assert [s["n"] for s in aws.query("RUN#q", "STEP#", forward=False, limit=3)] == [29, 28, 27]


def test_delete_and_calls_counted(aws):
    store = Store()
    store.put({**keys.product("p"), "name": "x"})
    store.delete(**keys.product("p"))
    assert store.get(**keys.product("p")) is None
    assert store.calls == 3


def test_batch_put(aws):
    aws.batch_put([{**keys.product(str(i)), "i": i} for i in range(60)])
    assert aws.get(**keys.product("59"))["i"] == 59
