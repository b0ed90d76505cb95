"""What rides on the table's writes: one attribute a provider adds to every ``Put``/``Update`` sent through
:mod:`agenthost.store` (:mod:`agenthost.metering` registers one: the usage of the turn that writes, which the
table's stream carries to the usage rollup), told afterwards whether its write applied. Reads never show it.

Hand-written: a hook around our own write path; nothing in boto3 adds an attribute to every write.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from agenthost.items import attribute


class Rider(Protocol):
    """One attribute that rides on one write (see :func:`ride_on_writes`)."""

    name: str
    value: Any

    def settled(self, applied: bool) -> None:
        """Called once the write is over: ``applied`` when the item holds ``value`` now, or may (the request
        went out and no answer came: sending ``value`` again could count it twice)."""


_riders: list[Callable[[], Rider | None]] = []
hidden: set[str] = set()


def ride_on_writes(provider: Callable[[], Rider | None], attribute: str) -> None:
    """Have ``provider()`` asked before every ``Put``/``Update``: the :class:`Rider` it returns (None: nothing
    to add) puts its attribute ``attribute`` on the written item. Reads never show ``attribute``."""
    if provider not in _riders:
        _riders.append(provider)
    hidden.add(attribute)


def current() -> Rider | None:
    for provider in _riders:
        try:
            rider = provider()
        except Exception:  # noqa: BLE001 - what rides along must never stop the write
            rider = None
        if rider is not None:
            return rider
    return None


def settle(rider: Rider | None, applied: bool) -> None:
    if rider is not None:
        try:
            rider.settled(applied)
        except Exception:  # noqa: BLE001, S110 - nor its bookkeeping fail the write
            pass


def with_action(expression: str, action: str, clause: str) -> str:
    """``expression`` with ``clause`` (``#n = :v`` for SET, ``#n`` for REMOVE) added to its ``action`` (one
    made when it has none; our expressions write action keywords in capitals, names as placeholders)."""
    keyword = re.compile(rf"(?<![#:\w]){action}\s")
    if keyword.search(expression):
        return keyword.sub(lambda m: f"{action} {clause}, ", expression, count=1)
    return f"{action} {clause} {expression}"


def carrying(kind: str, body: dict[str, Any], rider: Rider) -> dict[str, Any]:
    """``body`` with ``rider``'s attribute written too: on the item of a put, as a SET of an update."""
    value = attribute(rider.value)
    if kind == "Put":
        return {**body, "Item": {**body["Item"], rider.name: value}}
    names = {**body.get("ExpressionAttributeNames", {}), "#agenthost_rider": rider.name}
    values = {**body.get("ExpressionAttributeValues", {}), ":agenthost_rider": value}
    expression = with_action(body["UpdateExpression"], "SET", "#agenthost_rider = :agenthost_rider")
    return {**body, "UpdateExpression": expression, "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values}


def dropping(body: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """An update that carries no rider removes what an earlier one left on the item: its stream record must
    not look as if it carried it again (a put replaces the whole item, so only updates need this)."""
    attrs = {f"#agenthost_drop{i}": name for i, name in enumerate(sorted(names))}
    expression = body["UpdateExpression"]
    for placeholder in attrs:
        expression = with_action(expression, "REMOVE", placeholder)
    return {**body, "UpdateExpression": expression,
            "ExpressionAttributeNames": {**body.get("ExpressionAttributeNames", {}), **attrs}}
