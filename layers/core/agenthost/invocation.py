"""What is known of the current Lambda invocation before any turn opens: whether its request came through a
Lambda function URL (``requestContext.domainName`` ``<id>.lambda-url.<region>.on.aws``; no API Gateway
request is billed for it). Every HTTP entry point calls :func:`arrived` for every event; metering reads
:func:`via_function_url` when a turn opens (its ``url_turns``).

A module of its own so the web app factory (:mod:`agenthost.webapp`) can note it without importing metering:
a path that meters nothing (``/health``) does not pay for loading it.
"""

from __future__ import annotations

import contextvars
from typing import Any

_via_url: contextvars.ContextVar[bool] = contextvars.ContextVar("agenthost_via_function_url", default=False)


def arrived(event: Any) -> None:
    """Note how the current invocation's request arrived (through a function URL or not)."""
    ctx = event.get("requestContext") if isinstance(event, dict) else None
    domain = ctx.get("domainName") if isinstance(ctx, dict) else None
    _via_url.set(isinstance(domain, str) and ".lambda-url." in domain)


def via_function_url() -> bool:
    """Whether the current invocation's request came through a Lambda function URL."""
    return _via_url.get()
