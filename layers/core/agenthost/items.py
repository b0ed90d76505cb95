"""What an item of the single table is: its key builders (``keys``), the DynamoDB attribute codec (``marshal``,
``unmarshal``), its size as DynamoDB counts it (``item_bytes``) and the compressed form of large values
(``Packing``, ``packed``, ``unpacked``).

Apart from :mod:`agenthost.store` (which sends the requests) so that code building keys or measuring items
does not load the table's client; boto3's own TypeSerializer/TypeDeserializer do the attribute coding.
"""

from __future__ import annotations

import json
import threading
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypedDict

Item = dict[str, Any]


class Key(TypedDict):
    """An item's primary key: a typed dict, so ``store.get(**keys.run(id))`` type-checks as ``pk``/``sk``."""

    pk: str
    sk: str


class keys:  # noqa: N801 - a namespace of key builders, used as ``keys.run(id)``
    """Key builders per entity (see ARCHITECTURE.md, "Data")."""

    @staticmethod
    def run(run_id: str) -> Key:
        return {"pk": f"RUN#{run_id}", "sk": "META"}

    @staticmethod
    def run_step(run_id: str, n: int) -> Key:
        return {"pk": f"RUN#{run_id}", "sk": f"STEP#{n:06d}"}

    @staticmethod
    def task(agent: str, task_hash: str) -> Key:
        return {"pk": f"TASK#{agent}#{task_hash}", "sk": "META"}

    @staticmethod
    def game(game_id: str, seat: str | int) -> Key:
        return {"pk": f"GAME#{game_id}#{seat}", "sk": "META"}

    @staticmethod
    def session(token_hash: str) -> Key:
        return {"pk": f"SESSION#{token_hash}", "sk": "META"}

    @staticmethod
    def product(product_id: str) -> Key:
        return {"pk": f"PRODUCT#{product_id}", "sk": "META"}

    @staticmethod
    def rate(key: str, window: int) -> Key:
        return {"pk": f"RATE#{key}#{window}", "sk": "META"}

    @staticmethod
    def client(client_id: str) -> Key:
        return {"pk": f"CLIENT#{client_id}", "sk": "META"}

    @staticmethod
    def connection(connection_id: str) -> Key:
        return {"pk": f"CONN#{connection_id}", "sk": "META"}

    @staticmethod
    def evaluation(client_id: str, eval_id: str) -> Key:
        return {"pk": f"CLIENT#{client_id}", "sk": f"EVAL#{eval_id}"}

    @staticmethod
    def idempotency(scope: str, key: str) -> Key:
        return {"pk": f"IDEMP#{scope}#{key}", "sk": "META"}

    @staticmethod
    def turn_usage(turn_id: str) -> Key:
        """A turn's own usage item, when the turn wrote nothing else to carry it (read from the stream)."""
        return {"pk": f"TURNUSAGE#{turn_id}", "sk": "META"}

    @staticmethod
    def rollup(batch: str) -> Key:
        """The mark that one stream batch's usage was added (the rollup's idempotency)."""
        return {"pk": f"ROLLUP#{batch}", "sk": "META"}

    @staticmethod
    def usage(day: str, agent: str, protocol: str) -> Key:
        """One agent's usage of one protocol on one UTC day (a day's report is one Query)."""
        return {"pk": f"USAGE#{day}", "sk": f"{agent}#{protocol}"}


# --- (de)serialization ------------------------------------------------------------------------

def _to_dynamo(value: Any) -> Any:
    """Python -> DynamoDB-safe Python (floats become Decimal, tuples lists)."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, int, Decimal, bytes)):
        return value
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, Mapping):
        return {str(k): _to_dynamo(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_dynamo(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return {_to_dynamo(v) for v in value}
    raise TypeError(f"cannot store {type(value).__name__} in DynamoDB")


def _from_dynamo(value: Any) -> Any:
    """DynamoDB -> plain Python (Decimal becomes int or float)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: _from_dynamo(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_dynamo(v) for v in value]
    if isinstance(value, set):
        return {_from_dynamo(v) for v in value}
    return value


_ser_lock = threading.Lock()
_serializer: Any = None
_deserializer: Any = None


def _codecs() -> tuple[Any, Any]:
    global _serializer, _deserializer
    if _serializer is None:
        with _ser_lock:
            from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

            _serializer, _deserializer = TypeSerializer(), TypeDeserializer()
    return _serializer, _deserializer


def marshal(item: Mapping[str, Any]) -> dict[str, Any]:
    ser, _ = _codecs()
    return {k: ser.serialize(_to_dynamo(v)) for k, v in item.items()}


def unmarshal(raw: Mapping[str, Any]) -> Item:
    _, de = _codecs()
    return {k: _from_dynamo(de.deserialize(v)) for k, v in raw.items()}


def _value_bytes(v: Mapping[str, Any]) -> int:
    (kind, x), = v.items()
    if kind == "S":
        return len(x.encode())
    if kind == "N":
        digits = len(x.lstrip("-").replace(".", "").strip("0")) or 1
        return (digits + 1) // 2 + 1 + int(x.startswith("-"))
    if kind == "B":
        return len(bytes(getattr(x, "value", x)))
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(k.encode()) + _value_bytes(e) + 1 for k, e in x.items())
    if kind == "L":
        return 3 + sum(_value_bytes(e) + 1 for e in x)
    if kind in ("SS", "NS", "BS"):
        return sum(_value_bytes({kind[0]: e}) for e in x)
    return 0


def item_bytes(raw: Mapping[str, Any]) -> int:
    """The size DynamoDB bills for an item in its low-level form (:func:`marshal`'s): names plus values
    (a write costs one unit per started KB of it)."""
    return sum(len(k.encode()) + _value_bytes(v) for k, v in raw.items())


@dataclass(frozen=True)
class Packing:
    """A preset dictionary for :func:`packed`: text the packed values of one kind usually contain (their JSON
    keys, recurring phrases). A small value deflated against it is much smaller (a task memory of ~2 KB of JSON:
    ~30 % fewer bytes) than deflated alone, whose first mention of each key is stored in full. ``tag`` (1-7)
    names the dictionary in the packed bytes, so a value is read back with the dictionary it was packed with:
    change a dictionary only under a new tag, and keep the old one readable as long as its items live."""

    tag: int
    dictionary: bytes

    def __post_init__(self) -> None:
        if not 1 <= self.tag <= 7:  # a zlib stream starts with 0x08..0x78 (low nibble 8): never 1-7
            raise ValueError("a packing's tag is 1..7")


def packed(value: Any, packing: Packing | None = None) -> bytes:
    """``value`` as one compact binary attribute: zlib-compressed JSON, or with ``packing``: its tag byte and
    the JSON deflated against its dictionary. A memory item kept this way stays within one write unit (1 KB)
    far longer than one attribute per field."""
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")
    if packing is None:
        return zlib.compress(raw, 9)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, zdict=packing.dictionary)
    return bytes((packing.tag,)) + deflate.compress(raw) + deflate.flush()


def unpacked(stored: Any, *packings: Packing) -> Any:
    """What :func:`packed` stored (bytes, or boto3's ``Binary`` as read): plain zlib, or packed with one of
    ``packings`` (known by its tag); None when it cannot be read."""
    try:
        data = bytes(getattr(stored, "value", stored))
        if data[:1] and data[0] <= 7:
            packing = next(p for p in packings if p.tag == data[0])
            inflate = zlib.decompressobj(-15, zdict=packing.dictionary)
            text = inflate.decompress(data[1:]) + inflate.flush()
        else:
            text = zlib.decompress(data)
        return json.loads(text.decode("utf-8"))
    except (TypeError, ValueError, StopIteration, zlib.error):
        return None


def plain(value: Any) -> Any:
    """``value`` as a read gives it back (numbers as int/float)."""
    return _from_dynamo(_to_dynamo(value))


def attribute(value: Any) -> dict[str, Any]:
    """``value`` as one DynamoDB attribute (``{"N": "3"}``)."""
    return _codecs()[0].serialize(_to_dynamo(value))
