"""A botocore hook on every DynamoDB client a test's calls may use: a store picks its client by the time its
call has left (one cached client per timeout pair, :mod:`agenthost.dynamo`), so the hook goes on every
DynamoDB client, those made so far and those made while the block runs. (To count operations,
``tests.support.usage.DynamoCalls``.)"""

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
