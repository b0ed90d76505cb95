"""Each invocation's log identity, kept per invocation rather than in the logger's shared state.

Powertools' ``append_keys`` and ``inject_lambda_context`` write into the one formatter every ``Logger`` of the
same service shares. Deployed, that is harmless (one function per process, one invocation at a time); in the
local stack every function runs in one process on a thread pool, so a Werewolf error could be logged with the
``function`` another function had set. :func:`bind` clears and sets *thread-local* keys (a context variable
Powertools merges over the shared ones) at the start of every invocation: the function's own name (``function``,
the protocol's service name, and ``function_name`` from the Lambda context), the request id and whether this
was the function's cold start - the same lines locally as deployed.
"""

from __future__ import annotations

import threading
from typing import Any

#: keys Powertools adds that repeat what a line already says (CloudWatch Logs bills every byte ingested, $0.50/GB:
#: ~1 KB a turn is $0.50 per 1M turns): the ARN and memory size (fixed per function), its own request id
#: (``request_id`` is the same id) and the code location (errors carry their traceback). Every logger that writes a
#: line per request drops them (:func:`trimmed`).
REPEATED_KEYS = ["function_arn", "function_memory_size", "function_request_id", "location"]

_started: set[str] = set()


def trimmed(logger: Any) -> Any:
    """``logger`` without :data:`REPEATED_KEYS` on its lines."""
    logger.remove_keys(REPEATED_KEYS)
    return logger
_lock = threading.Lock()


def bind(logger: Any, service: str, context: Any = None, **extra: Any) -> None:
    """Start this invocation's log keys: ``function=service``, ``function_name`` (the Lambda function's),
    ``request_id``, ``cold_start`` (this function's first invocation in the process) and ``extra``."""
    with _lock:
        cold = service not in _started
        _started.add(service)
    logger.thread_safe_clear_keys()
    keys = {"function": service, "function_name": getattr(context, "function_name", None),
            "request_id": getattr(context, "aws_request_id", None), "cold_start": cold, **extra}
    logger.thread_safe_append_keys(**{k: v for k, v in keys.items() if v is not None})


def add(logger: Any, **keys: Any) -> None:
    """Add keys to this invocation's log lines only."""
    logger.thread_safe_append_keys(**keys)
