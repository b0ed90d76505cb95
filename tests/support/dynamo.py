"""Watching every DynamoDB call a test makes: a store picks its client by the time its call has left (one
cached client per timeout pair, :mod:`agenthost.store`), so a botocore hook goes on every DynamoDB client,
those made so far and those made while the block runs."""

from __future__ import annotations

import contextlib
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


class Operations:
    """The DynamoDB operations sent while :meth:`watching` (``before-call``), in order."""

    def __init__(self) -> None:
        self.ops: list[str] = []

    def _seen(self, model: Any = None, **_: Any) -> None:
        self.ops.append(model.name)

    def watching(self) -> contextlib.AbstractContextManager[None]:
        return on_every_client("before-call.dynamodb", self._seen)
