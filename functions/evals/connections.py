"""Posting to WebSocket clients through the API Gateway ``@connections`` management API."""

from __future__ import annotations

import json
from typing import Any

from agenthost import aws
from agenthost.config import settings
from agenthost.errors import BadInput, NotFound, Unavailable

# API Gateway WebSocket limits: 128 KB per message, 32 KB per frame; messages are billed in 32 KB units.
MAX_MESSAGE_BYTES = 128 * 1024
FRAME_BYTES = 32 * 1024


def billed_units(size: int) -> int:
    """How many billed WebSocket messages one message of ``size`` bytes counts as (at least 1)."""
    return max(1, -(-int(size) // FRAME_BYTES))


class Gone(NotFound):
    """The connection is not (or no longer) open."""


class TooLarge(BadInput, ValueError):
    """The message exceeds API Gateway's 128 KB WebSocket message limit (nothing was sent)."""


class SendFailed(Unavailable):
    """The post failed for another reason (timeout, throttling, 5xx): delivery is unknown."""


def _client() -> Any:
    endpoint = settings().ws_endpoint or None
    return aws.client("apigatewaymanagementapi", endpoint_url=endpoint, total_max_attempts=2)


def post(connection_id: str, message: dict[str, Any] | str) -> int:
    """Send one message; returns its size in bytes. Raises :class:`Gone` when the socket is not open (410)."""
    data = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"))
    raw = data.encode()
    if len(raw) > MAX_MESSAGE_BYTES:
        raise TooLarge(f"message of {len(raw)} bytes exceeds the {MAX_MESSAGE_BYTES}-byte limit")
    client = _client()
    try:
        client.post_to_connection(ConnectionId=connection_id, Data=raw)
    except client.exceptions.GoneException:
        raise Gone(connection_id) from None
    except Exception as exc:  # noqa: BLE001 - botocore timeouts, throttling, 5xx: the caller decides
        raise SendFailed(type(exc).__name__) from None
    return len(raw)


def close(connection_id: str) -> None:
    client = _client()
    try:
        client.delete_connection(ConnectionId=connection_id)
    except client.exceptions.GoneException:
        pass
