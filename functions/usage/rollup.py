"""The usage rollup: the table's DynamoDB Stream into the per-agent, per-day counters ``GET /usage`` reads.

Handler ``usage.rollup.handler`` (``UsageRollupFunction``), invoked by an event source mapping on the
table's stream (``template.yaml``: batches of up to ``BatchSize`` records, gathered for up to
``MaximumBatchingWindowInSeconds``; the filter passes only records whose new image carries a ``usage``
attribute, so Lambda is not invoked for the rest). Each turn's usage rides on the item it wrote
(:mod:`agenthost.metering.carry`); a write that carries none removes the attribute (``agenthost.store``),
so every new image that has it carries it for the first time. The stream carries old images too: a write
whose answer was lost after it applied, sent again and applied again (an update that adds to a counter changes
the item a second time), leaves a record whose old image has the same usage id, and that record is skipped.

The turns' CloudWatch metrics are written here too, one EMF record per protocol and agent in a batch
(:func:`agenthost.metering.emf.emit_turns`), once the batch's usage is added: a batch delivered again writes
no metrics again. A batch is added with one ``TransactWriteItems``: a mark ``ROLLUP#<batch>`` (its records'
event ids hashed; written only if absent, kept two days, longer than the stream keeps records) and one ``ADD``
per usage item the batch touches (summed over its records; ``rolled_at`` set to the newest write time, ``at``,
of the usage it adds, which budget checks read). Lambda re-delivers the very same batch after an error or a
timeout; its mark is then there, the transaction is refused as a whole and nothing is counted twice. More than
99 usage items in one batch are written in parts of 99, each with its own mark. A transaction that conflicts
with a concurrent write to a usage item is tried again; one that still fails raises, so Lambda delivers the
batch again.

Do not enable ``BisectBatchOnFunctionError`` or partial batch responses on the mapping: a re-delivered
part of a batch has other event ids than the batch that may have been added, and would count again.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Mapping
from typing import Any

from agenthost import aws
from agenthost.items import keys, unmarshal
from agenthost.metering.carry import counters as entry_counters
from agenthost.metering.carry import decode
from agenthost.metering.emf import emit_turns
from agenthost.metering.usage import USAGE_ATTR, USAGE_TTL_S
from agenthost.store import ConditionFailed, Store

#: usage items per transaction (DynamoDB takes 100 writes in one; one is the batch's mark)
PART = 99
MARK_TTL_S = 2 * 86400
TRIES = 5


def handler(event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
    return roll_up(event.get("Records") or [], Store())


def _usage(image: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not image or USAGE_ATTR not in image:
        return None
    try:
        return decode(unmarshal({USAGE_ATTR: image[USAGE_ATTR]})[USAGE_ATTR])
    except Exception:  # noqa: BLE001 - an attribute we cannot read carries nothing we can add
        return None


#: what an entry says besides its counters, and the usage item's attribute it sets
_ATTRS = {"day": "day", "agent": "agent", "protocol": "protocol", "arch": "arch", "mb": "memory_mb",
          "model": "model"}


def totals(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The usage the records carry, summed per usage item: ``(pk, sk) -> {"set", "add", "rolled_at",
    "turns", "reasons"}`` (``turns``: each turn's counters as its first write carried them, for the metrics)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        ddb = record.get("dynamodb") or {}
        new, old = _usage(ddb.get("NewImage")), _usage(ddb.get("OldImage"))
        if new is None or (old is not None and old.get("id") == new.get("id")):
            continue
        at = float(new.get("at") or 0)
        for entry in new.get("e") or []:
            if not isinstance(entry, dict) or not entry.get("day") or not entry.get("agent"):
                continue
            key = keys.usage(str(entry["day"]), str(entry["agent"]), str(entry.get("protocol")))
            found = out.setdefault((key["pk"], key["sk"]), {"set": {}, "add": {}, "rolled_at": 0.0, "turns": [],
                                                            "reasons": {}})
            found["set"].update({_ATTRS[k]: v for k, v in entry.items() if k in _ATTRS and v is not None})
            counted = entry_counters(entry)
            for name, value in [*counted.items(), *entry_counters(entry, "t").items()]:
                found["add"][name] = found["add"].get(name, 0) + value
            if counted.get("invocations"):  # a turn's first write: its values for the metrics
                found["turns"].append(counted)
                if entry.get("why"):
                    found["reasons"][entry["why"]] = found["reasons"].get(entry["why"], 0) + 1
            found["rolled_at"] = max(found["rolled_at"], at)
    return out


def batch_id(records: Iterable[Mapping[str, Any]]) -> str:
    """The batch's identity: its records' event ids, in order (the same batch delivered again has the same)."""
    ids = "\n".join(str(r.get("eventID", "")) for r in records)
    return hashlib.sha256(ids.encode()).hexdigest()[:40]


def roll_up(records: list[Mapping[str, Any]], store: Store) -> dict[str, Any]:
    """Add the usage ``records`` carry to the daily usage items, once per batch; returns what was done."""
    found = totals(records)
    if not found:
        return {"records": len(records), "items": 0, "added": 0, "replayed": 0}
    batch = batch_id(records)
    ordered = sorted(found.items())
    added = replayed = 0
    for part, start in enumerate(range(0, len(ordered), PART)):
        chunk = ordered[start:start + PART]
        writes = [store.put_entry({**keys.rollup(f"{batch}#{part}"), "items": len(chunk),
                                   "records": len(records)}, ttl_s=MARK_TTL_S, if_absent=True)]
        for (pk, sk), usage in chunk:
            writes.append(store.update_entry(pk, sk, set_={**usage["set"], "rolled_at": usage["rolled_at"]},
                                             add=usage["add"], ttl_s=USAGE_TTL_S))
        if _apply(store, writes):
            added += len(chunk)
            for _, usage in chunk:  # the turns' metrics, once: a part added again emits nothing again
                if usage["turns"]:
                    emit_turns(str(usage["set"].get("protocol")), str(usage["set"].get("agent")), usage["turns"],
                               usage["reasons"])
        else:
            replayed += len(chunk)
    return {"records": len(records), "items": len(ordered), "added": added, "replayed": replayed}


def _apply(store: Store, writes: list[Any]) -> bool:
    """One part's transaction: True when added, False when its mark says it was added before."""
    for attempt in range(TRIES):
        try:
            store.transact(writes)
            return True
        except ConditionFailed as refused:
            if refused.index == 0:
                return False  # the mark is there: this part of this batch was added already
            raise
        except Exception as exc:
            reasons = aws.response_of(exc).get("CancellationReasons") or []
            conflict = aws.error_code(exc) == "TransactionConflictException" or any(
                r.get("Code") == "TransactionConflict" for r in reasons)
            if not conflict or attempt == TRIES - 1:
                raise
            time.sleep(0.02 * 2 ** attempt)
    return False  # pragma: no cover - the loop returns or raises
