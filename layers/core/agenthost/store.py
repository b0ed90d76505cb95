"""The single DynamoDB table: key builders, typed get/put/update/query, conditional writes,
optimistic ``version`` and TTL.

Every item has string ``pk``/``sk``; ephemeral items carry ``expires_at`` (epoch seconds) which is
the table's TTL attribute. TTL deletion is lazy, so an expired item counts as absent everywhere: reads skip
it, ``if_absent`` writes may replace it, and the item a refused write reports (:attr:`ConditionFailed.item`)
is ``None`` for it (:meth:`Store.live` is the one place that decides).

This module is the only one that talks to the boto3 client of the table. A conditional write that is
refused raises :class:`ConditionFailed` carrying the item as it was stored (DynamoDB returns it with the
refusal, ``ReturnValuesOnConditionCheckFailure=ALL_OLD``), so a caller tells "not there" from "over the
limit" or "already done" without another read. :meth:`Store.transact` writes several items all or nothing.

A *rider* (:func:`ride_on_writes`; :mod:`agenthost.metering` registers one) may add one attribute to every
``Put``/``Update`` sent through this module: the usage of the turn that writes, which the table's stream
carries to the usage rollup. The rider learns whether its write applied; reads never return its attribute,
and an update that carries no rider removes the one an earlier write left (so every stream record whose new
image has it carries it for the first time).

Example::

    >>> from agenthost.items import keys
    >>> from agenthost.store import Store
    >>> s = Store()
    >>> s.put({**keys.run("r1"), "status": "created"}, ttl_s=86400, if_absent=True)  # doctest: +SKIP
    >>> s.get(**keys.run("r1"))["status"]  # doctest: +SKIP
    'created'
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agenthost import aws, riders
from agenthost.config import settings
from agenthost.dynamo import Caller, CallLimits
from agenthost.errors import Conflict
from agenthost.items import Item, marshal, plain, unmarshal


class ConditionFailed(Conflict):
    """A conditional write did not apply (item exists, is missing, or its ``version`` moved on).

    ``item`` is the item as stored when the condition refused the write (``None``: there was none, or it had
    expired). ``retried`` is True when the SDK had sent the request more than once (the first answer timed
    out or was a throttle/5xx): the first attempt may then have been applied, and the refusal be against
    that very write. Callers whose write must not be lost check for their own mark on the item (see the
    evaluation server's ``_guarded``), or give :meth:`Store.update` a :class:`Once` that does it."""

    def __init__(self, message: str = "", retried: bool = False, item: Item | None = None):
        super().__init__(message)
        self.retried = retried
        self.item = item
        #: which write of a :meth:`Store.transact` was refused (None for a single write)
        self.index: int | None = None


class VersionConflict(ConditionFailed):
    """An optimistic ``version`` check failed: somebody else wrote the item first."""


def _sent_unanswered(exc: BaseException) -> bool:
    """Whether a write that raised ``exc`` may have been applied all the same: a request of it went out and no
    answer came back (a read timeout, a connection closed mid-answer, DynamoDB's own internal error). A
    connection that was never made, or a refusal DynamoDB answered (throttling, validation, a missing
    table), means it was not (``agenthost.aws.Fault.maybe_applied``, over every attempt of the call)."""
    return isinstance(exc, aws.AwsFailure) and exc.maybe_applied


def _is_condition_failure(exc: Exception) -> bool:
    return aws.error_code(exc) in ("ConditionalCheckFailedException", "TransactionCanceledException")


def _old_item(exc: Exception) -> Item | None:
    """The stored item DynamoDB sent back with a refused condition (``ALL_OLD``), if any (the failed entry's,
    for a cancelled transaction)."""
    response = aws.response_of(exc)
    raw = response.get("Item")
    if raw is None:
        reasons = response.get("CancellationReasons") or []
        raw = next((r.get("Item") for r in reasons if r.get("Code") == "ConditionalCheckFailed"), None)
    return unmarshal(raw) if raw else None


def _retried(exc: Exception) -> bool:
    """Whether the failed call's request went out more than once (an earlier attempt may have applied)."""
    return isinstance(exc, aws.AwsFailure) and exc.retried


def _cancelled_at(exc: Exception) -> int | None:
    """Which entry of a cancelled transaction failed its condition (None: not a condition failure)."""
    reasons = aws.response_of(exc).get("CancellationReasons") or []
    return next((i for i, r in enumerate(reasons) if r.get("Code") == "ConditionalCheckFailed"), None)


@dataclass(frozen=True)
class Write:
    """One write of a :meth:`Store.transact` (made by :meth:`Store.put_entry`, :meth:`Store.update_entry`)."""

    kind: str  # Put | Update
    body: dict[str, Any]


@dataclass(frozen=True)
class Once:
    """What makes an update count once although it may be sent more than once: the store resends a write whose
    answer was lost (a read timeout, a dropped connection), and the first attempt may already be applied. The
    update then also adds ``request_id`` to an id set on the item, under the condition that the set does not
    hold it yet; a resend is refused, and :meth:`Store.update` recognises its own id on the refused item and
    answers that item, as the applied update's answer.

    The ids live in sets per time slot (``<prefix><slot>``): the current and the previous slot's sets are
    checked, the four before are removed in passing, so an item written often keeps one to two slots' ids (one
    written after a longer pause may keep an older set until the item expires), and a resend up to a slot
    after the first attempt is recognised. A slot must be longer than one write call may last (its
    attempts are bound by :class:`agenthost.dynamo.CallLimits` and the work's deadline, well under 30 s), or
    than a client may take to retry with the same ``request_id`` (see the cart's ``Idempotency-Key``)."""

    request_id: str
    prefix: str
    slot: int

    @classmethod
    def at(cls, prefix: str, now: int, slot_s: int, request_id: str | None = None) -> Once:
        """The once-mark of a write at epoch second ``now`` (``request_id``: a random one when not given)."""
        return cls(request_id or secrets.token_hex(4), prefix, now // slot_s)

    @property
    def checked(self) -> tuple[str, str]:
        """The id sets a resend is looked for in: this slot's (written) and the previous one's."""
        return f"{self.prefix}{self.slot}", f"{self.prefix}{self.slot - 1}"

    def holds(self, item: Mapping[str, Any] | None) -> bool:
        """Whether ``item`` shows this write already applied."""
        return item is not None and any(self.request_id in (item.get(a) or ()) for a in self.checked)

    def apply(self, expression: str, condition: str | None, names: dict[str, str],
              values: dict[str, Any]) -> tuple[str, str]:
        """``expression`` and ``condition`` with the id added and looked for (placeholders into ``names`` and
        ``values``)."""
        names.update({"#once_ids": self.checked[0], "#once_before": self.checked[1]})
        values.update({":once_id": {self.request_id}, ":once_rid": self.request_id})
        expression = riders.with_action(expression, "ADD", "#once_ids :once_id")
        for back in range(2, 6):
            names[f"#once_old{back}"] = f"{self.prefix}{self.slot - back}"
            expression = riders.with_action(expression, "REMOVE", f"#once_old{back}")
        fresh = "NOT contains(#once_ids, :once_rid) AND NOT contains(#once_before, :once_rid)"
        return expression, f"({condition}) AND {fresh}" if condition else fresh


# --- the table --------------------------------------------------------------------------------

_OPS = {"Put": "put_item", "Update": "update_item", "Delete": "delete_item"}


class Store:
    """Access to the single table. Cheap to construct; the boto3 clients are shared and lazy.

    ``calls`` counts DynamoDB round trips made through this instance (metering and benchmarks).
    ``clock`` is injectable for TTL tests. ``reads``/``writes``: the most one read or write call may wait
    (:class:`agenthost.dynamo.CallLimits`); every request goes through :class:`agenthost.dynamo.Caller`, so a
    deadline bound to the work (:func:`agenthost.deadline.bound`) cuts its timeouts, retries and pauses to the
    time left. Every failure is raised as one of :mod:`agenthost.errors`' kinds (a timeout, a dropped
    connection, a throttle or a missing table is an ``Unavailable``), a refused condition as
    :class:`ConditionFailed`.
    """

    def __init__(self, table_name: str | None = None, clock: Any = time.time, *,
                 reads: CallLimits | None = None, writes: CallLimits | None = None):
        self.table_name = table_name or settings().table_name
        self.clock = clock
        self.calls = 0
        self.caller = Caller(reads, writes)

    @property
    def client(self) -> Any:
        """The client for requests with the longest timeouts the write limits allow."""
        return self.caller.client(self.caller.writes)

    def warm(self) -> None:
        """Create every client this store may use now (metering instruments the clients that exist when a turn
        opens)."""
        self.caller.warm()

    def _call(self, op: str, **kwargs: Any) -> Any:
        self.calls += 1
        return self.caller.send(op, {"TableName": self.table_name, **kwargs})

    def now(self) -> int:
        return int(self.clock())

    def live(self, item: Item | None) -> Item | None:
        """``item`` unless it is missing or past its ``expires_at`` (the one place TTL liveness is decided),
        without the attributes riders put on it (:func:`ride_on_writes`)."""
        if not item:
            return None
        exp = item.get("expires_at")
        if exp is not None and int(exp) <= self.now():
            return None
        for name in riders.hidden:
            item.pop(name, None)
        return item

    # reads
    def get(self, pk: str, sk: str, *, consistent: bool = True) -> Item | None:
        """The item, or None when missing or expired."""
        resp = self._call("get_item", Key=marshal({"pk": pk, "sk": sk}), ConsistentRead=consistent)
        raw = resp.get("Item")
        return self.live(unmarshal(raw)) if raw else None

    def batch_get(self, item_keys: Sequence[Mapping[str, str]], *, consistent: bool = True) -> list[Item]:
        """The live items among ``item_keys`` (any order; missing ones left out), 100 keys a request, keys
        DynamoDB left unprocessed asked again (up to 8 requests a batch)."""
        found: list[Item] = []
        for start in range(0, len(item_keys), 100):
            batch = [marshal({"pk": k["pk"], "sk": k["sk"]}) for k in item_keys[start:start + 100]]
            pending: dict[str, Any] = {self.table_name: {"Keys": batch, "ConsistentRead": consistent}}
            for _attempt in range(8):
                self.calls += 1
                resp = self.caller.send("batch_get_item", {"RequestItems": pending})
                for raw in resp.get("Responses", {}).get(self.table_name, []):
                    item = self.live(unmarshal(raw))
                    if item is not None:
                        found.append(item)
                pending = resp.get("UnprocessedKeys") or {}
                if not pending:
                    break
        return found

    def query(
        self,
        pk: str,
        sk_prefix: str | None = None,
        *,
        limit: int | None = None,
        forward: bool = True,
        consistent: bool = True,
        attributes: Sequence[str] | None = None,
    ) -> Iterator[Item]:
        """Live items under ``pk`` (optionally whose ``sk`` starts with ``sk_prefix``), all pages.
        ``attributes``: read only these (a projection; include ``expires_at`` to keep the TTL check)."""
        expr = "pk = :pk"
        values: dict[str, Any] = {":pk": pk}
        if sk_prefix:
            expr += " AND begins_with(sk, :sk)"
            values[":sk"] = sk_prefix
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": expr,
            "ExpressionAttributeValues": marshal(values),
            "ScanIndexForward": forward,
            "ConsistentRead": consistent,
        }
        if attributes:
            names = {f"#p{i}": a for i, a in enumerate(attributes)}
            kwargs["ProjectionExpression"] = ", ".join(names)
            kwargs["ExpressionAttributeNames"] = names
        if limit:
            kwargs["Limit"] = limit
        yielded = 0
        while True:
            resp = self._call("query", **kwargs)
            for raw in resp.get("Items", []):
                item = self.live(unmarshal(raw))
                if item is not None:
                    yield item
                    yielded += 1
                    if limit and yielded >= limit:
                        return
            last = resp.get("LastEvaluatedKey")
            if not last:
                return
            kwargs["ExclusiveStartKey"] = last

    # writes
    def _write(self, kind: str, body: dict[str, Any],
               refused: type[ConditionFailed] = ConditionFailed) -> dict[str, Any]:
        """One write of ``kind`` (``Put``/``Update``/``Delete``) with low-level ``body`` (no table name), a
        rider's attribute added (:func:`ride_on_writes`); returns the operation's response. A refused
        condition raises ``refused`` carrying the live stored item."""
        if body.get("ConditionExpression"):
            body = {**body, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
        rider = riders.current() if kind != "Delete" else None
        if rider is not None:
            body = riders.carrying(kind, body, rider)
        elif kind == "Update" and riders.hidden:
            body = riders.dropping(body, riders.hidden)
        try:
            response = dict(self._call(_OPS[kind], **body))
        except aws.AwsFailure as exc:
            if not _is_condition_failure(exc):
                # an outcome nobody knows counts as applied: what rode on it is never sent twice (it could be
                # lost with a write that failed after it went out; DynamoDB nearly always applied those)
                riders.settle(rider, _sent_unanswered(exc))
                raise
            old = _old_item(exc)
            # a retried request refused by its own first attempt (applied, its answer lost) did carry the rider
            riders.settle(rider, old is not None and rider is not None and old.get(rider.name) == plain(rider.value))
            key = unmarshal(body["Key"]) if "Key" in body else unmarshal(body.get("Item", {}))
            raise refused(f"conditional {kind.lower()} failed for {key.get('pk')}/{key.get('sk')}",
                          _retried(exc), self.live(old)) from None
        riders.settle(rider, True)
        return response

    def put(
        self,
        item: Mapping[str, Any],
        *,
        ttl_s: int | None = None,
        if_absent: bool = False,
        expected_version: int | None = None,
        condition: str | None = None,
        values: Mapping[str, Any] | None = None,
        names: Mapping[str, str] | None = None,
    ) -> Item:
        """Write ``item``. ``ttl_s`` sets ``expires_at``; ``if_absent`` refuses to overwrite a live item;
        ``expected_version`` is the optimistic check (the stored ``version`` must equal it; 0 means new)
        and the written item gets ``version = expected_version + 1``; or ``condition`` is a raw
        ConditionExpression over ``values``/``names`` (as in :meth:`update`). Returns what was written.
        Raises :class:`ConditionFailed` (:class:`VersionConflict` for a version check) with the stored item."""
        body: Item = dict(item)
        if ttl_s is not None:
            body["expires_at"] = self.now() + int(ttl_s)
        kwargs: dict[str, Any] = {}
        if expected_version is not None:
            body["version"] = expected_version + 1
            if expected_version == 0:
                kwargs["ConditionExpression"] = "attribute_not_exists(pk) OR expires_at <= :now"
                kwargs["ExpressionAttributeValues"] = marshal({":now": self.now()})
            else:
                kwargs["ConditionExpression"] = "version = :v"
                kwargs["ExpressionAttributeValues"] = marshal({":v": expected_version})
        elif if_absent:
            kwargs["ConditionExpression"] = "attribute_not_exists(pk) OR expires_at <= :now"
            kwargs["ExpressionAttributeValues"] = marshal({":now": self.now()})
        if condition:
            if kwargs:
                raise ValueError("put takes either condition or if_absent/expected_version")
            kwargs["ConditionExpression"] = condition
            if values:
                kwargs["ExpressionAttributeValues"] = marshal(values)
            if names:
                kwargs["ExpressionAttributeNames"] = dict(names)
        refused = VersionConflict if expected_version is not None else ConditionFailed
        self._write("Put", {"Item": marshal(body), **kwargs}, refused)
        return body

    def update(
        self,
        pk: str,
        sk: str,
        *,
        set_: Mapping[str, Any] | None = None,
        add: Mapping[str, int | float] | None = None,
        remove: Sequence[str] = (),
        ttl_s: int | None = None,
        expression: str | None = None,
        condition: str | None = None,
        values: Mapping[str, Any] | None = None,
        names: Mapping[str, str] | None = None,
        once: Once | None = None,
    ) -> Item:
        """Atomic update: ``set_`` assigns attributes, ``add`` increments numbers (atomic counters),
        ``remove`` deletes attributes; or ``expression`` is a raw UpdateExpression (nested map paths,
        ``if_not_exists``...) instead of those three. ``condition`` is a raw ConditionExpression over
        ``values`` (``:name`` placeholders) and ``names`` (``#name`` placeholders, e.g. for reserved words
        such as ``status`` or map keys). ``once``: the update counts once although the store may send it
        again (:class:`Once`). Returns the item as stored after the update (for a write found applied by an
        earlier attempt, as stored when its resend was refused). Raises :class:`ConditionFailed` when the
        condition is false, carrying the stored item."""
        attr_names: dict[str, str] = dict(names or {})
        vals: dict[str, Any] = dict(values or {})
        if expression is not None:
            if set_ or add or remove or ttl_s is not None:
                raise ValueError("update takes either expression or set_/add/remove/ttl_s")
            update_expression = expression
        else:
            update_expression = self._update_expression(attr_names, vals, set_, add, remove, ttl_s)
        if once is not None:
            update_expression, condition = once.apply(update_expression, condition, attr_names, vals)
        kwargs: dict[str, Any] = {
            "Key": marshal({"pk": pk, "sk": sk}),
            "UpdateExpression": update_expression,
            "ReturnValues": "ALL_NEW",
        }
        if attr_names:
            kwargs["ExpressionAttributeNames"] = attr_names
        if vals:
            kwargs["ExpressionAttributeValues"] = marshal(vals)
        if condition:
            kwargs["ConditionExpression"] = condition
        try:
            resp = self._write("Update", kwargs)
        except ConditionFailed as refused:
            if once is not None and once.holds(refused.item):
                return refused.item or {}  # applied by an attempt whose answer was lost
            raise
        return self.live(unmarshal(resp.get("Attributes", {}))) or {}

    def _update_expression(self, attr_names: dict[str, str], vals: dict[str, Any],
                           set_: Mapping[str, Any] | None, add: Mapping[str, int | float] | None,
                           remove: Sequence[str], ttl_s: int | None) -> str:
        """SET/ADD/REMOVE clauses with generated placeholders (added to ``attr_names`` and ``vals``)."""
        sets, adds, removes = [], [], []
        for i, (k, v) in enumerate((set_ or {}).items()):
            attr_names[f"#s{i}"] = k
            vals[f":s{i}"] = v
            sets.append(f"#s{i} = :s{i}")
        if ttl_s is not None:
            attr_names["#exp"] = "expires_at"
            vals[":exp"] = self.now() + int(ttl_s)
            sets.append("#exp = :exp")
        for i, (k, v) in enumerate((add or {}).items()):
            attr_names[f"#a{i}"] = k
            vals[f":a{i}"] = v
            adds.append(f"#a{i} :a{i}")
        for i, k in enumerate(remove):
            attr_names[f"#r{i}"] = k
            removes.append(f"#r{i}")
        parts = []
        if sets:
            parts.append("SET " + ", ".join(sets))
        if adds:
            parts.append("ADD " + ", ".join(adds))
        if removes:
            parts.append("REMOVE " + ", ".join(removes))
        if not parts:
            raise ValueError("update needs set_, add, remove, ttl_s or expression")
        return " ".join(parts)

    def delete(self, pk: str, sk: str, *, condition: str | None = None,
               values: Mapping[str, Any] | None = None, names: Mapping[str, str] | None = None) -> None:
        """Delete the item (``condition`` as in :meth:`update`). Raises :class:`ConditionFailed` carrying
        the stored item."""
        kwargs: dict[str, Any] = {"Key": marshal({"pk": pk, "sk": sk})}
        if condition:
            kwargs["ConditionExpression"] = condition
            if values:
                kwargs["ExpressionAttributeValues"] = marshal(values)
            if names:
                kwargs["ExpressionAttributeNames"] = dict(names)
        self._write("Delete", kwargs)

    def transact(self, writes: Sequence[Write]) -> None:
        """Write ``writes`` (:meth:`put_entry`, :meth:`update_entry`) all or nothing, in one
        ``TransactWriteItems`` (DynamoDB bills 2 WRU per KB of each item). A refused condition raises
        :class:`ConditionFailed` whose ``item`` is the refused entry's stored item and ``index`` its place."""
        entries = [{w.kind: {"TableName": self.table_name, **w.body}} for w in writes]
        self.calls += 1
        try:
            self.caller.send("transact_write_items", {"TransactItems": entries})
        except aws.AwsFailure as exc:
            at = _cancelled_at(exc) if _is_condition_failure(exc) else None
            if at is None:
                raise
            failed = ConditionFailed(f"transaction refused by its entry {at}", _retried(exc),
                                     self.live(_old_item(exc)))
            failed.index = at
            raise failed from None

    def put_entry(self, item: Mapping[str, Any], *, ttl_s: int | None = None, if_absent: bool = False) -> Write:
        """A put for :meth:`transact` (``if_absent``: refused over a live item, with the stored item sent back)."""
        body: Item = dict(item)
        if ttl_s is not None:
            body["expires_at"] = self.now() + int(ttl_s)
        kwargs: dict[str, Any] = {"Item": marshal(body)}
        if if_absent:
            kwargs.update(ConditionExpression="attribute_not_exists(pk) OR expires_at <= :now",
                          ExpressionAttributeValues=marshal({":now": self.now()}),
                          ReturnValuesOnConditionCheckFailure="ALL_OLD")
        return Write("Put", kwargs)

    def update_entry(self, pk: str, sk: str, *, set_: Mapping[str, Any] | None = None,
                     add: Mapping[str, int | float] | None = None, ttl_s: int | None = None) -> Write:
        """An update for :meth:`transact` (``set_``, ``add``, ``ttl_s`` as in :meth:`update`)."""
        names: dict[str, str] = {}
        vals: dict[str, Any] = {}
        expression = self._update_expression(names, vals, set_, add, (), ttl_s)
        body: dict[str, Any] = {"Key": marshal({"pk": pk, "sk": sk}), "UpdateExpression": expression,
                                "ExpressionAttributeNames": names}
        if vals:
            body["ExpressionAttributeValues"] = marshal(vals)
        return Write("Update", body)

    def batch_put(self, items: Sequence[Mapping[str, Any]]) -> None:
        """Unconditional bulk write (seed data), 25 per request, retrying unprocessed items."""
        for start in range(0, len(items), 25):
            requests = [{"PutRequest": {"Item": marshal(i)}} for i in items[start:start + 25]]
            pending: dict[str, Any] = {self.table_name: requests}
            for _attempt in range(8):
                self.calls += 1
                resp = self.caller.send("batch_write_item", {"RequestItems": pending})
                pending = resp.get("UnprocessedItems") or {}
                if not pending:
                    break
                time.sleep(0.05)
            if pending:
                raise RuntimeError("batch write left unprocessed items")
