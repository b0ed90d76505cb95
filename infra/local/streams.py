"""The table's DynamoDB Stream delivered to functions, as Lambda's event source mappings do it.

For each ``Type: DynamoDB`` event in the template (:class:`infra.local.template.StreamMapping`) a
:class:`StreamPoller` thread reads the stream through the DynamoDB Streams API (the embedded moto server,
or whatever ``AWS_ENDPOINT_URL_DYNAMODB_STREAMS`` names) four times a second, keeps the records the
mapping's ``FilterCriteria`` pass (the same pattern language as EventBridge, matched with moto's
implementation of it), and invokes the function with ``{"Records": [...]}`` once ``BatchSize`` records are
gathered or the first has waited ``MaximumBatchingWindowInSeconds``. Records are in Lambda's form: binary
values base64, ``ApproximateCreationDateTime`` in epoch seconds, ``eventSourceARN`` set. A batch whose
function raises is delivered again, the same records, until it succeeds (Lambda's default for streams).

``AGENTHOST_LOCAL_STREAM_REDELIVER=<n>`` (local stack only; tests): every n-th batch is delivered a second
time after it succeeded, as Lambda does when a success is lost (a timeout after the work was done).

:class:`StreamReader` is the reading alone (tests use it to hand the stream to a function directly).
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from infra.local.template import StreamMapping

POLL_S = 0.25  # Lambda polls a stream's shards four times a second
RETRY_S = 0.5


def _lambda_form(value: Any) -> Any:
    """What botocore parsed back into Lambda's JSON form (binary as base64, dates as epoch seconds)."""
    if isinstance(value, dict):
        return {k: _lambda_form(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lambda_form(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, datetime):
        return value.timestamp()
    return value


def streams_client() -> Any:
    """A DynamoDB Streams client at the configured endpoint (botocore's account-based endpoints would
    send stream calls past moto's routing: they are turned off; an explicit endpoint is used as it is)."""
    from agenthost import aws

    return aws.client("dynamodbstreams", account_id_endpoint_mode="disabled")


class _RawRecords:
    """``GetRecords`` signed with botocore's SigV4 signer but read as plain JSON: the records come exactly as
    Lambda hands them on (binary as base64, dates as epoch seconds), and parsing them costs a ``json.loads``
    instead of botocore's walk over every attribute value (four times the server's own time here)."""

    def __init__(self, streams: Any):
        import boto3

        self.url = streams.meta.endpoint_url
        self.region = streams.meta.region_name
        self.credentials = boto3.session.Session().get_credentials()

    def __call__(self, iterator: str, limit: int) -> dict[str, Any]:
        import httpx
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest

        request = AWSRequest(method="POST", url=self.url, data=json.dumps({"ShardIterator": iterator, "Limit": limit}),
                             headers={"Content-Type": "application/x-amz-json-1.0",
                                      "X-Amz-Target": "DynamoDBStreams_20120810.GetRecords"})
        SigV4Auth(self.credentials.get_frozen_credentials(), "dynamodb", self.region).add_auth(request)
        answer = httpx.post(self.url, content=request.body, headers=dict(request.headers.items()), timeout=30)
        if answer.status_code != 200:
            raise RuntimeError(f"GetRecords answered {answer.status_code}: {answer.text[:200]}")
        found: dict[str, Any] = answer.json()
        return found


class StreamReader:
    """Reads a table's stream on from where it last stopped: every shard followed by its next iterator, a
    shard first seen at the start read from ``TRIM_HORIZON`` or ``LATEST`` (``from_start``), one that
    appears later from its start. ``raw``: records read as plain JSON over HTTP (:class:`_RawRecords`; the
    local stack), else through the client (tests on ``moto.mock_aws``, which intercepts botocore only)."""

    def __init__(self, dynamodb: Any, streams: Any, table: str, *, from_start: bool = True, raw: bool = False):
        self.streams = streams
        if raw:
            self.get_records: Callable[[str, int], dict[str, Any]] = _RawRecords(streams)
        else:
            self.get_records = lambda iterator, limit: _lambda_form(
                streams.get_records(ShardIterator=iterator, Limit=limit))
        self.arn = dynamodb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
        self.iterators: dict[str, str | None] = {}  # shard id -> next iterator (None: the shard is closed)
        self.after: dict[str, str] = {}  # shard id -> sequence number of the last record read
        first = "TRIM_HORIZON" if from_start else "LATEST"
        for sid in self._shards():
            self.iterators[sid] = self._iterator(sid, first)

    def _shards(self) -> list[str]:
        described = self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"]
        return [str(s["ShardId"]) for s in described.get("Shards", [])]

    def _iterator(self, shard: str, kind: str) -> str:
        kwargs: dict[str, Any] = {"ShardIteratorType": kind}
        if kind == "AFTER_SEQUENCE_NUMBER":
            kwargs["SequenceNumber"] = self.after[shard]
        return str(self.streams.get_shard_iterator(StreamArn=self.arn, ShardId=shard, **kwargs)["ShardIterator"])

    def read(self, limit: int = 1000) -> list[dict[str, Any]]:
        """Every record written since the last read (up to ``limit`` per shard and call), in Lambda's form."""
        for sid in self._shards():
            if sid not in self.iterators:
                self.iterators[sid] = self._iterator(sid, "TRIM_HORIZON")
        out: list[dict[str, Any]] = []
        for sid, iterator in list(self.iterators.items()):
            if iterator is None:
                continue
            try:
                got = self.get_records(iterator, limit)
            except Exception:  # noqa: BLE001 - expired, or used by a resent request: go on from the last record
                kind = "AFTER_SEQUENCE_NUMBER" if sid in self.after else "TRIM_HORIZON"
                got = self.get_records(self._iterator(sid, kind), limit)
            self.iterators[sid] = got.get("NextShardIterator")
            for raw in got.get("Records", []):
                self.after[sid] = raw["dynamodb"]["SequenceNumber"]
                out.append({**raw, "eventSourceARN": self.arn})
        return out


def matcher(patterns: list[str]) -> Callable[[dict[str, Any]], bool]:
    """Whether a record passes a mapping's filter patterns (any of them; none: every record)."""
    if not patterns:
        return lambda record: True
    from moto.events.models import EventPattern

    loaded = [EventPattern.load(p) for p in patterns]
    return lambda record: any(p.matches_event(record) for p in loaded)


class StreamPoller(threading.Thread):
    """One event source mapping: reads, filters, batches and delivers (see the module docstring)."""

    def __init__(self, mapping: StreamMapping, reader: StreamReader, invoke: Callable[[str, Any], Any], *,
                 redeliver_every: int = 0, log: Callable[[str], None] = print):
        super().__init__(name=f"stream-{mapping.function}", daemon=True)
        self.mapping = mapping
        self.reader = reader
        self.invoke = invoke
        self.redeliver_every = redeliver_every
        self.log = log
        self.passes = matcher(mapping.patterns)
        self.stopping = threading.Event()
        self.delivered = 0  # batches delivered (re-deliveries not counted)
        self.redelivered = 0
        self.idle = threading.Event()  # set while nothing read is waiting to be delivered

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        waiting: list[dict[str, Any]] = []
        first_at = 0.0
        while not self.stopping.is_set():
            try:
                fresh = [r for r in self.reader.read(max(self.mapping.batch_size, 100)) if self.passes(r)]
            except Exception as exc:  # noqa: BLE001 - the database may be restarting: try again
                self.log(f"  stream read for {self.mapping.function} failed: {type(exc).__name__}: {exc}")
                fresh = []
            if fresh and not waiting:
                first_at = time.monotonic()
            waiting += fresh
            due = waiting and (len(waiting) >= self.mapping.batch_size
                               or time.monotonic() - first_at >= self.mapping.window_s)
            if due:
                batch, waiting = waiting[:self.mapping.batch_size], waiting[self.mapping.batch_size:]
                self._deliver(batch)
                first_at = time.monotonic()
                continue
            if waiting:
                self.idle.clear()
            else:
                self.idle.set()
            self.stopping.wait(POLL_S)

    def _deliver(self, batch: list[dict[str, Any]]) -> None:
        self.idle.clear()
        event = json.loads(json.dumps({"Records": batch}))
        while not self.stopping.is_set():
            try:
                self.invoke(self.mapping.function, event)
                break
            except Exception as exc:  # noqa: BLE001 - Lambda delivers the same batch again until it succeeds
                self.log(f"  {self.mapping.function} failed on a stream batch ({type(exc).__name__}); "
                         "delivering it again")
                self.stopping.wait(RETRY_S)
        self.delivered += 1
        if self.redeliver_every and self.delivered % self.redeliver_every == 0:
            self.redelivered += 1
            self.log(f"  stream batch of {len(batch)} delivered again to {self.mapping.function} "
                     "(AGENTHOST_LOCAL_STREAM_REDELIVER)")
            try:
                self.invoke(self.mapping.function, event)
            except Exception as exc:  # noqa: BLE001
                self.log(f"  re-delivered stream batch failed: {type(exc).__name__}")
