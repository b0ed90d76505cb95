"""Runs the template's zip functions in this process, like warm Lambda containers.

Each function's handler module is imported once on first use (its cold start) from ``functions/``
with the layer on the path. Invocations run on a thread pool so the gateways stay responsive and
concurrent requests really run concurrently, as separate Lambda containers would.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from infra.local.events import LambdaContext
from infra.local.template import Function, Template


class FunctionNotFound(LookupError):
    pass


class FunctionError(Exception):
    """The handler raised: ``payload`` is Lambda's error document."""

    def __init__(self, payload: dict[str, Any]):
        super().__init__(payload.get("errorMessage", "error"))
        self.payload = payload


class Runtime:
    def __init__(self, template: Template, *, max_workers: int = 64, log: Callable[[str], None] = print):
        self.template = template
        self.log = log
        self.pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="lambda")
        self._handlers: dict[str, Callable[[Any, Any], Any]] = {}
        self._lock = threading.Lock()
        self._by_name: dict[str, Function] = {}
        for fn in template.functions.values():
            for name in fn.names:
                self._by_name[name] = fn

    def resolve(self, name: str) -> Function:
        """Accept a logical id, a FunctionName, or an ARN (with or without qualifier)."""
        bare = name
        if bare.startswith("arn:"):
            parts = bare.split(":")
            bare = parts[6] if len(parts) > 6 else bare
        bare = bare.split(":", 1)[0]
        fn = self._by_name.get(bare)
        if fn is None:
            raise FunctionNotFound(f"Function not found: {name}")
        return fn

    def handler(self, fn: Function) -> Callable[[Any, Any], Any]:
        found = self._handlers.get(fn.logical_id)
        if found is not None:
            return found
        with self._lock:
            found = self._handlers.get(fn.logical_id)
            if found is None:
                if fn.package_type != "Zip" and not fn.handler:
                    raise FunctionNotFound(f"{fn.logical_id} is an image function without a local handler")
                module_name, attr = fn.handler.rsplit(".", 1)
                started = time.perf_counter()
                module = importlib.import_module(module_name)
                found = getattr(module, attr)
                self.log(f"  cold start {fn.logical_id} ({fn.handler}) "
                         f"{(time.perf_counter() - started) * 1000:.0f} ms")
                self._handlers[fn.logical_id] = found
        return found

    def invoke_sync(self, name: str, event: Any) -> Any:
        """Run the function in the calling thread; raise :class:`FunctionError` when it raises."""
        fn = self.resolve(name)
        handler = self.handler(fn)
        context = LambdaContext(next(iter(sorted(fn.names - {fn.logical_id})), fn.logical_id),
                                fn.timeout, fn.memory)
        from agenthost import metering

        try:
            with metering.isolated():  # one process runs every function here: each invocation meters its own
                return handler(event, context)
        except Exception as exc:  # noqa: BLE001 - reported like Lambda reports an unhandled error
            self.log(f"  {fn.logical_id} raised {type(exc).__name__}: {exc}")
            raise FunctionError({
                "errorMessage": str(exc),
                "errorType": type(exc).__name__,
                "stackTrace": traceback.format_tb(exc.__traceback__),
            }) from None

    async def invoke(self, name: str, event: Any) -> Any:
        """Run the function on the pool and await its result."""
        import asyncio

        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, self.invoke_sync, name, event)

    def invoke_async(self, name: str, event: Any) -> None:
        """Fire and forget (InvocationType=Event). Errors are logged, never raised to the caller."""
        self.resolve(name)

        def run() -> None:
            try:
                self.invoke_sync(name, event)
            except FunctionError:
                pass
            except Exception as exc:  # noqa: BLE001
                self.log(f"  async invoke of {name} failed: {exc}")

        self.pool.submit(run)


def apply_environment(template: Template, essentials: dict[str, str]) -> list[str]:
    """Put the functions' environment into this process.

    All functions share one process, so their template variables are merged; a variable that two
    functions set differently is reported (keep function-specific settings under distinct names).
    Precedence: template values < the user's environment (.env, shell) < ``essentials`` (endpoints).
    Returns warnings.
    """
    merged: dict[str, str] = {}
    owners: dict[str, str] = {}
    warnings: list[str] = []
    for fn in template.functions.values():
        for k, v in fn.environment.items():
            if k in merged and merged[k] != v and k not in essentials and k not in os.environ:
                warnings.append(f"{k} differs between {owners[k]} and {fn.logical_id}; using {owners[k]}'s")
                continue
            merged.setdefault(k, v)
            owners.setdefault(k, fn.logical_id)
    for k, v in merged.items():
        os.environ.setdefault(k, v)
    os.environ.update(essentials)
    return warnings
