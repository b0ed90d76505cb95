"""The usage rollup for tests on moto (the ``aws`` fixture): read what the table's stream holds since the
last call and hand it to ``usage.rollup`` as Lambda would, so a test sees ``USAGE#`` items as deployed."""

from __future__ import annotations

import time
from typing import Any

from agenthost import aws
from agenthost.store import Store
from infra.local.streams import StreamReader, matcher, streams_client
from infra.local.template import parse


class Rollup:
    """``rollup()`` adds what was written since the previous call (records the template's filter passes),
    as one batch; ``last`` is that batch, to deliver again."""

    def __init__(self, store: Store | None = None):
        self.store = store or Store()
        self.reader = StreamReader(aws.client("dynamodb"), streams_client(), self.store.table_name)
        [mapping] = [m for m in parse().stream_mappings if m.function == "UsageRollupFunction"]
        self.passes = matcher(mapping.patterns)
        self.last: list[dict[str, Any]] = []

    def __call__(self) -> dict[str, Any]:
        from usage.rollup import handler

        self.last = [r for r in self.reader.read() if self.passes(r)]
        return handler({"Records": self.last})

    def again(self) -> dict[str, Any]:
        """Deliver the last batch again (Lambda does after a lost success)."""
        from usage.rollup import handler

        return handler({"Records": self.last})


class DynamoCalls:
    """Every DynamoDB operation this process sends, by name (``ops``; ``written``: the partition key of each
    item a put or update wrote), counted at botocore's edge: what a turn costs, seen from outside the code
    that makes the calls, and the time spent in them (``seconds``). Use as a context manager."""

    def __init__(self) -> None:
        self.ops: list[str] = []
        self.written: list[str] = []
        self.seconds = 0.0  # spent inside those calls
        self._real: Any = None

    def __enter__(self) -> DynamoCalls:
        import botocore.client

        real = self._real = botocore.client.BaseClient._make_api_call
        ops, written = self.ops, self.written

        def counting(client: Any, operation: str, params: Any) -> Any:
            if client.meta.service_model.service_name == "dynamodb":
                ops.append(operation)
                key = (params.get("Item") or params.get("Key") or {}).get("pk", {})
                if operation in ("PutItem", "UpdateItem") and isinstance(key, dict):
                    written.append(str(key.get("S", "")))
                started = time.perf_counter()
                try:
                    return real(client, operation, params)
                finally:
                    self.seconds += time.perf_counter() - started
            return real(client, operation, params)

        botocore.client.BaseClient._make_api_call = counting  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: Any) -> None:
        import botocore.client

        botocore.client.BaseClient._make_api_call = self._real  # type: ignore[method-assign]
