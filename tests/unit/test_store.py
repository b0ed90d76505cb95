import threading

import pytest

from agenthost.items import keys, marshal
from agenthost.store import ConditionFailed, Store, VersionConflict


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


def test_a_refused_write_carries_the_stored_item_and_an_expired_one_counts_as_absent(aws):
    clock = [1_000_000.0]
    store = Store(clock=lambda: clock[0])
    store.put({**keys.session("s"), "cart": {"mug": 2}}, ttl_s=60)
    with pytest.raises(ConditionFailed) as refused:
        store.update("SESSION#s", "META", add={"n": 1}, condition="attribute_not_exists(pk)")
    assert refused.value.item is not None and refused.value.item["cart"] == {"mug": 2}
    with pytest.raises(ConditionFailed) as put_refused:
        store.put({**keys.session("s"), "cart": {}}, if_absent=True)
    assert put_refused.value.item["cart"] == {"mug": 2}
    with pytest.raises(ConditionFailed) as gone:
        store.update("SESSION#x", "META", add={"n": 1}, condition="attribute_exists(pk)")
    assert gone.value.item is None  # there was none
    clock[0] += 61  # expired but not yet deleted by TTL: absent for the refusal too
    with pytest.raises(ConditionFailed) as expired:
        store.delete("SESSION#s", "META", condition="expires_at > :now", values={":now": store.now()})
    assert expired.value.item is None


def test_update_expression_remove_and_nested_map_paths(aws):
    aws.put({**keys.session("m"), "cart": {}, "rl#1": 3})
    after = aws.update("SESSION#m", "META", expression="SET #c.#i = if_not_exists(#c.#i, :zero) + :q",
                       names={"#c": "cart", "#i": "mug"}, values={":zero": 0, ":q": 2})
    assert after["cart"] == {"mug": 2}
    after = aws.update("SESSION#m", "META", remove=["rl#1"], set_={"seen": True})
    assert "rl#1" not in after and after["seen"] is True
    with pytest.raises(ValueError):
        aws.update("SESSION#m", "META", expression="REMOVE seen", set_={"x": 1})


def test_a_transaction_writes_all_or_nothing_and_says_which_entry_refused(aws):
    store = Store()
    store.transact([store.put_entry({**keys.rollup("b1"), "n": 1}, if_absent=True),
                    store.update_entry(**keys.usage("d", "a", "p"), add={"turns": 2}, set_={"agent": "a"})])
    assert store.get(**keys.usage("d", "a", "p"))["turns"] == 2
    with pytest.raises(ConditionFailed) as refused:
        store.transact([store.put_entry({**keys.rollup("b1"), "n": 2}, if_absent=True),
                        store.update_entry(**keys.usage("d", "a", "p"), add={"turns": 2})])
    assert refused.value.index == 0 and refused.value.item["n"] == 1
    assert store.get(**keys.usage("d", "a", "p"))["turns"] == 2  # nothing of the refused transaction applied


def test_a_rider_rides_on_puts_and_updates_and_never_shows_in_reads(aws, monkeypatch):
    from agenthost import riders as riders_mod

    settled = []

    class Rider:
        name = "extra"

        def __init__(self, value):
            self.value = value

        def settled(self, applied):
            settled.append((self.value, applied))

    riders = iter([Rider("a"), Rider("b"), Rider("c"), Rider("d")])
    monkeypatch.setattr(riders_mod, "_riders", [lambda: next(riders)])
    monkeypatch.setattr(riders_mod, "hidden", {"extra"})
    aws.put({**keys.task("t", "1"), "v": 1})
    aws.update(**keys.task("t", "1"), expression="SET v = :v REMOVE w", values={":v": 2})
    with pytest.raises(ConditionFailed):
        aws.put({**keys.task("t", "1"), "v": 3}, if_absent=True)
    assert aws.update(**keys.task("t", "1"), add={"n": 1}) == {**keys.task("t", "1"), "v": 2, "n": 1}
    raw = aws.client.get_item(TableName=aws.table_name, Key=marshal(keys.task("t", "1")))["Item"]
    assert raw["extra"] == {"S": "d"}  # on the item as stored...
    assert aws.get(**keys.task("t", "1")) == {**keys.task("t", "1"), "v": 2, "n": 1}  # ...never in what is read
    assert settled == [("a", True), ("b", True), ("c", False), ("d", True)]


def test_query_reads_only_the_projected_attributes(aws):
    aws.put({**keys.run("p"), "status": "running", "big": "x" * 1000})
    (item,) = aws.query("RUN#p", attributes=("pk", "sk", "status"))
    assert item == {**keys.run("p"), "status": "running"}


def test_nothing_outside_the_store_module_talks_to_the_table_client():
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2]
    reaching = re.compile(r"store\.client\b|\.client\.(put_item|update_item|delete_item|get_item|query|"
                          r"transact_write_items|batch_write_item)\(")
    offenders = [str(p.relative_to(root)) for base in ("layers", "functions") for p in (root / base).rglob("*.py")
                 if p.name != "store.py" and reaching.search(p.read_text())]
    assert offenders == []


def test_a_value_packed_with_a_dictionary_reads_back_and_plain_zlib_still_reads():
    """A packing's dictionary makes a small value smaller; its tag says which dictionary reads it back."""
    import json
    import zlib

    from agenthost.items import Packing, packed, unpacked

    value = {"turns": [{"tool": "click", "args": {"element": "Submit"}}], "notes": ["a note"], "n": 3}
    packing = Packing(3, b'{"turns":[{"tool":"click","args":{"element":"","notes":["')
    data = packed(value, packing)
    assert data[0] == 3 and len(data) < len(packed(value))
    assert unpacked(data, packing) == value
    assert unpacked(data) is None and unpacked(data, Packing(4, b"other")) is None  # its dictionary is needed
    assert unpacked(zlib.compress(json.dumps(value).encode()), packing) == value  # written before
    with pytest.raises(ValueError):
        Packing(8, b"")  # a zlib stream may start with 8


def test_an_update_once_resent_after_it_applied_counts_once_also_across_a_slot_boundary(aws):
    """The store resends a write whose answer was lost, and the first attempt may already be applied. An update
    with a once-mark is refused on its resend and answers the item as its first attempt left it; a resend in the
    next slot is still recognised, the slot before last is dropped, and a different write still applies."""
    from botocore.exceptions import ReadTimeoutError

    from agenthost.store import Once
    from tests.support.dynamo import on_every_client

    clock = [1_000_000.0]  # a multiple of 10: the slot just began
    store = Store(clock=lambda: clock[0])
    key = keys.rate("ip:192.0.2.1", 0)
    lost: list[str] = []

    def lose_answers_and_move_the_clock(model=None, parsed=None, **_):
        if model.name == "UpdateItem" and "Attributes" in (parsed or {}) and len(lost) < 1:
            lost.append("applied, answer lost")
            clock[0] += 10  # the resend is sent in the next slot
            raise ReadTimeoutError(endpoint_url="http://dynamodb.test")

    def hit(request_id: str | None = None):
        return store.update(**key, expression="ADD #c :one", names={"#c": "count"}, values={":one": 1},
                            once=Once.at("ids#", int(clock[0]), 10, request_id))

    with on_every_client("after-call.dynamodb", lose_answers_and_move_the_clock):
        first = hit("r1")
    assert lost and first["count"] == 1 and store.get(**key)["count"] == 1
    assert hit("r1")["count"] == 1  # the same request again within the next slot: already counted
    assert hit()["count"] == 2  # another request counts
    clock[0] += 20  # two slots on: r1's slot is dropped by the next write, and r1 would count again
    assert hit()["count"] == 3
    assert "ids#100000" not in store.get(**key)
