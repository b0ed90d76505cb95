"""A botocore hook on every DynamoDB client a test's calls may use: a store picks its client by the time its
call has left (one cached client per timeout pair, :mod:`agenthost.dynamo`), so the hook goes on every
DynamoDB client, those made so far and those made while the block runs. (To count operations,
``tests.support.usage.DynamoCalls``.) :class:`LostAnswers` uses it to lose the answers of a write DynamoDB
applied."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

from agenthost import aws


@contextlib.contextmanager
def on_every_client(event: str, handler: Callable[..., Any], *, first: bool = False) -> Iterator[None]:
    """Register ``handler`` for the botocore ``event`` on every DynamoDB client while the block runs."""

    def attach(client: Any) -> None:
        events = client.meta.events
        (events.register_first if first else events.register)(event, handler)

    aws.on_client("dynamodb", attach)
    try:
        yield
    finally:
        aws.off_client("dynamodb", attach)
        for client in aws.clients("dynamodb"):
            client.meta.events.unregister(event, handler)


WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})


class LostAnswers:
    """DynamoDB applies a write and its answer never arrives (a read timeout under load, a connection dropped
    mid-answer): the ``lose``-th write call (0-based, counted from the moment the block starts) is applied, and
    every answer to it is lost, the store's resent attempts of that call included (``every``; with
    ``every=False`` only the first, so a resent attempt answers). The store sees what botocore shows it: a
    ``ReadTimeoutError`` per lost answer. A later call making the same request is a call of its own and is
    answered. ``writes`` names each write call seen (operation and the item's sort key), so a test can say
    which write it lost; ``lost`` counts the answers lost."""

    def __init__(self, lose: int | None, every: bool = True):
        self.lose, self.every = lose, every
        self.writes: list[str] = []
        self.lost = 0
        self._calls = 0  # the store's calls (each may send its request several times)
        self._seen: dict[int, int] = {}  # call -> index of its write

    def _before(self, model: Any = None, params: Any = None, context: Any = None, **_: Any) -> None:
        if model.name not in WRITES or context is None:
            return
        call = self._calls
        resent = call in self._seen
        if not resent:
            self._seen[call] = len(self.writes)
            doc = json.loads(bytes((params or {}).get("body") or b"{}"))
            key = doc.get("Key") or doc.get("Item") or {}
            self.writes.append(f"{model.name} {(key.get('sk') or {}).get('S', '?')}")
        if self._seen[call] == self.lose and (not resent or self.every):
            context["agenthost_lose_answer"] = True

    def _after(self, context: Any = None, **_: Any) -> None:
        if context and context.pop("agenthost_lose_answer", False):
            from botocore.exceptions import ReadTimeoutError

            self.lost += 1
            raise ReadTimeoutError(endpoint_url="http://dynamodb.test")

    @contextlib.contextmanager
    def active(self) -> Iterator[LostAnswers]:
        from agenthost.dynamo import Caller

        send = Caller.send

        def counted(caller: Caller, op: str, kwargs: dict[str, Any]) -> Any:
            self._calls += 1
            return send(caller, op, kwargs)

        Caller.send = counted  # type: ignore[method-assign]
        try:
            with on_every_client("before-call.dynamodb", self._before), \
                    on_every_client("after-call.dynamodb", self._after):
                yield self
        finally:
            Caller.send = send  # type: ignore[method-assign]
