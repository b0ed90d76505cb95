"""Posting to evaluation clients: requests whose delivery matters, replies the protocol can do without, JSON-RPC
errors and notices, each post counted (messages and the 32 KB units API Gateway bills)."""

from __future__ import annotations

from typing import Any

from evals import connections
from evals.common import MAX_TEXT, Context, echo_id, log_warning, now_iso


class Outbox:
    def __init__(self, ctx: Context):
        self.ctx = ctx
        #: messages posted to clients, and the billed units they make (API Gateway meters 32 KB increments)
        self.messages_sent = 0
        self.billed_sent = 0

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        """Post one message. False when the connection is gone; raises :class:`connections.TooLarge` (nothing
        sent) and :class:`connections.SendFailed` (delivery unknown). ``send`` may return the number of bytes
        it posted instead of True (the Lambda's poster does), which the billed units count."""
        ok = self.ctx.send(connection_id, message)
        if ok:
            self.messages_sent += 1
            self.billed_sent += connections.billed_units(ok if type(ok) is int else 1)
        return bool(ok)

    def reply(self, connection_id: str, message: dict[str, Any]) -> bool:
        """A reply the protocol can do without (ack, pong, notice): a failed post is logged, not raised."""
        try:
            return self.send(connection_id, message)
        except (connections.SendFailed, connections.TooLarge) as exc:
            log_warning("reply not delivered", kind=str(message.get("type") or "rpc-error"),
                        error=type(exc).__name__)
            return False

    def rpc_error(self, connection_id: str, code: int, message: str, rpc_id: Any = None) -> None:
        """A JSON-RPC error reply. ``id`` is the request's (only a short string or a number is echoed: anything
        else could make the reply exceed the frame limit) or null, as JSON-RPC 2.0 requires when the request's
        id could not be determined (-32700, -32600)."""
        self.reply(connection_id, {"jsonrpc": "2.0", "id": echo_id(rpc_id),
                                   "error": {"code": code, "message": message[:MAX_TEXT]}})

    def notice(self, connection_id: str, code: str, message: str) -> None:
        """A non-JSON-RPC error notice (never carries ``id``, so clients cannot take it for a reply)."""
        self.reply(connection_id, {"type": "error", "error": code, "message": message[:MAX_TEXT],
                                   "timestamp": now_iso(self.ctx.clock)})
