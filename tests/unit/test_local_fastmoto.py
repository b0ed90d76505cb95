"""The embedded DynamoDB's tuning (infra/local/fastmoto.py) keeps DynamoDB's answers: queries, pagination,
transactions (all-or-nothing), binary and set values, control-plane calls, and atomic conditional writes
under concurrency. Runs against a real moto server over HTTP, as the local stack does."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import boto3
import pytest
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from infra.local import fastmoto


@pytest.fixture(scope="module")
def table():
    from moto.server import ThreadedMotoServer

    fastmoto.tune()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{server.get_host_and_port()[1]}"
    ddb = boto3.resource("dynamodb", endpoint_url=url, region_name="us-east-1",
                         aws_access_key_id="local", aws_secret_access_key="local")
    t = ddb.create_table(TableName="fast", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                    {"AttributeName": "sk", "KeyType": "RANGE"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                               {"AttributeName": "sk", "AttributeType": "S"}])
    for i in range(60):  # other partitions the queries must not see
        t.put_item(Item={"pk": f"OTHER#{i % 7}", "sk": f"S#{i:03d}", "n": i})
    for sk, n in (("B", 2), ("A", 1), ("D", 4), ("C", 3), ("X#1", 9)):
        t.put_item(Item={"pk": "P", "sk": sk, "n": n, "doc": {"tags": ["a", "b"], "deep": {"x": Decimal("1.5")}}})
    yield t
    server.stop()


def test_query_reads_the_partition_in_order_with_paging_filters_and_projection(table):
    items = table.query(KeyConditionExpression=Key("pk").eq("P"))["Items"]
    assert [i["sk"] for i in items] == ["A", "B", "C", "D", "X#1"]
    assert items[0]["doc"] == {"tags": ["a", "b"], "deep": {"x": Decimal("1.5")}}
    back = table.query(KeyConditionExpression=Key("pk").eq("P"), ScanIndexForward=False)["Items"]
    assert [i["sk"] for i in back] == ["X#1", "D", "C", "B", "A"]
    page = table.query(KeyConditionExpression=Key("pk").eq("P"), Limit=2)
    assert [i["sk"] for i in page["Items"]] == ["A", "B"] and page["LastEvaluatedKey"] == {"pk": "P", "sk": "B"}
    rest = table.query(KeyConditionExpression=Key("pk").eq("P"), ExclusiveStartKey=page["LastEvaluatedKey"])
    assert [i["sk"] for i in rest["Items"]] == ["C", "D", "X#1"] and "LastEvaluatedKey" not in rest
    pre = table.query(KeyConditionExpression=Key("pk").eq("P") & Key("sk").begins_with("X#"))["Items"]
    assert [i["sk"] for i in pre] == ["X#1"]
    filtered = table.query(KeyConditionExpression=Key("pk").eq("P"), FilterExpression=Attr("n").gt(2),
                           ProjectionExpression="sk")
    assert filtered["Items"] == [{"sk": "C"}, {"sk": "D"}, {"sk": "X#1"}] and filtered["ScannedCount"] == 5
    assert table.query(KeyConditionExpression=Key("pk").eq("NOBODY"))["Items"] == []
    assert len(table.scan()["Items"]) == 65  # scans still see every partition


def test_a_cancelled_transaction_changes_nothing_and_a_good_one_applies_everything(table):
    client = table.meta.client
    table.put_item(Item={"pk": "T", "sk": "existing", "v": 1})

    def transact(check_value: int) -> None:
        client.transact_write_items(TransactItems=[
            {"Put": {"TableName": "fast", "Item": {"pk": "T", "sk": "new", "v": 1}}},
            {"Update": {"TableName": "fast", "Key": {"pk": "T", "sk": "existing"},
                        "UpdateExpression": "SET v = v + :one", "ExpressionAttributeValues": {":one": 1}}},
            {"Delete": {"TableName": "fast", "Key": {"pk": "P", "sk": "A"}}},
            {"ConditionCheck": {"TableName": "fast", "Key": {"pk": "P", "sk": "B"},
                                "ConditionExpression": "n = :n", "ExpressionAttributeValues": {":n": check_value}}},
        ])

    with pytest.raises(ClientError) as err:
        transact(check_value=99)
    assert err.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert "Item" not in table.get_item(Key={"pk": "T", "sk": "new"})
    assert table.get_item(Key={"pk": "T", "sk": "existing"})["Item"]["v"] == 1
    assert table.get_item(Key={"pk": "P", "sk": "A"})["Item"]["n"] == 1
    transact(check_value=2)
    assert table.get_item(Key={"pk": "T", "sk": "new"})["Item"]["v"] == 1
    assert table.get_item(Key={"pk": "T", "sk": "existing"})["Item"]["v"] == 2
    assert "Item" not in table.get_item(Key={"pk": "P", "sk": "A"})
    table.put_item(Item={"pk": "P", "sk": "A", "n": 1, "doc": {"tags": ["a", "b"], "deep": {"x": Decimal("1.5")}}})
    # the same item twice in one transaction is refused as a whole
    with pytest.raises(ClientError):
        client.transact_write_items(TransactItems=[
            {"Put": {"TableName": "fast", "Item": {"pk": "T", "sk": "twice", "v": 1}}},
            {"Put": {"TableName": "fast", "Item": {"pk": "T", "sk": "twice", "v": 2}}},
        ])
    assert "Item" not in table.get_item(Key={"pk": "T", "sk": "twice"})


def test_binary_sets_and_control_plane_answers(table):
    table.put_item(Item={"pk": "V", "sk": "1", "blob": b"\x00\x01\xffbin", "tags": {"x", "y"},
                         "nums": {Decimal(1), Decimal(2)}, "none": None, "flag": True})
    item = table.get_item(Key={"pk": "V", "sk": "1"})["Item"]
    assert item["blob"].value == b"\x00\x01\xffbin"
    assert item["tags"] == {"x", "y"} and item["nums"] == {Decimal(1), Decimal(2)}
    assert item["none"] is None and item["flag"] is True
    desc = table.meta.client.describe_table(TableName="fast")["Table"]
    assert desc["TableName"] == "fast" and desc["CreationDateTime"].year >= 2024


def test_conditional_counters_stay_exact_under_concurrent_writers(table):
    table.put_item(Item={"pk": "C", "sk": "slots", "used": 0})

    def claim(_i: int) -> bool:
        try:
            table.update_item(Key={"pk": "C", "sk": "slots"}, UpdateExpression="ADD used :one",
                              ConditionExpression="used < :max", ExpressionAttributeValues={":one": 1, ":max": 25})
            return True
        except ClientError:
            return False

    with ThreadPoolExecutor(16) as pool:
        granted = sum(pool.map(claim, range(80)))
    assert granted == 25
    assert table.get_item(Key={"pk": "C", "sk": "slots"})["Item"]["used"] == 25


def test_an_update_returns_its_own_new_item_while_another_writer_waits(table, monkeypatch):
    """ReturnValues=ALL_NEW shows this write's result, not a later writer's: moto serializes the new item after
    its backend call, so the write lock must cover the whole request (two concurrent cart adds once both
    answered 4 and none 3). Writer A pauses while its answer is being written; writer B must not get in."""
    import threading

    from moto.dynamodb.models.dynamo_type import Item

    table.put_item(Item={"pk": "R", "sk": "n", "n": 0})
    b_done, a_paused = threading.Event(), threading.Event()
    original = Item.to_json

    def slow_to_json(self):
        # the first answer showing n == 1 is A's new item: hold it while B tries to write
        if self.hash_key.value == "R" and self.attrs["n"].value == "1" and not a_paused.is_set():
            a_paused.set()
            b_done.wait(1.0)
        return original(self)

    monkeypatch.setattr(Item, "to_json", slow_to_json)
    answers: dict[str, int] = {}

    def add(name: str) -> None:
        new = table.update_item(Key={"pk": "R", "sk": "n"}, UpdateExpression="ADD n :one",
                                ExpressionAttributeValues={":one": 1}, ReturnValues="ALL_NEW")
        answers[name] = int(new["Attributes"]["n"])
        if name == "B":
            b_done.set()

    a = threading.Thread(target=add, args=("A",))
    a.start()
    assert a_paused.wait(10)
    b = threading.Thread(target=add, args=("B",))
    b.start()
    a.join(10)
    b.join(10)
    assert answers == {"A": 1, "B": 2}
