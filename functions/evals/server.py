"""The evaluation server's protocol logic, independent of Lambda (dependencies passed in): messages parsed
and validated, each method routed to the part that handles it, replies.

State lives in the single table, keyed by client id (a connection id only points at its client):

* ``CLIENT#<id>``/``META``: connectionId, ready, capabilities, ``inflight`` (slots in use, see
  :mod:`evals.scheduler`);
* ``CLIENT#<id>``/``EVAL#<eval>``: the evaluation's definition snapshot, status (pending, running,
  completed, failed, timeout), current JSON-RPC id and deadline, progress, result, verdict, history,
  late results;
* ``CONN#<id>``/``META``: which client a connection belongs to and its handshake state;
* ``EVALCLIENTS``/``<id>``: the index of known clients (the admin API lists it);
* ``EVALDEFS``/``DEF#<id>`` and ``CLIENTFILE#<id>``: definitions uploaded through the admin API.

The parts: :mod:`evals.registry` (registration, connections), :mod:`evals.scheduler` (slots, queue,
deadlines, retries), :mod:`evals.results` (answers, progress), :mod:`evals.outbox` (posting);
:mod:`evals.common` holds what they share.

Reconnection: a client that registers again with the same id is rebound to its new connection; on its
next ``ready`` every evaluation still in flight is re-sent (same JSON-RPC id, deadline restarted).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agenthost import errors, limits
from agenthost.items import keys
from agenthost.store import Store
from evals.client_llm import llm_config
from evals.common import Options, Send, echo, echo_id, log_warning, now_iso
from evals.definitions import Catalog
from evals.judging import JsRunner, LlmJudge
from evals.outbox import Outbox
from evals.registry import Registry
from evals.results import Results
from evals.scheduler import Loaded, Scheduler

__all__ = ["Options", "Send", "Server"]


#: an answer whose write failed rides on the recovery timer's payload when its JSON is at most this long (the
#: Scheduler takes 256 KB of input)
CARRY_MAX_CHARS = 200_000


@dataclass
class Server:
    store: Store
    send: Send
    timers: Any
    #: definitions relevant to one client (its client file and the global ones), or all when None
    catalog: Callable[[str | None], Catalog]
    options: Options = field(default_factory=Options)
    clock: Callable[[], float] = time.time
    js_runner: JsRunner | None = None
    llm_judge: LlmJudge | None = None
    close: Callable[[str], None] = lambda _c: None

    def __post_init__(self) -> None:
        self.out = Outbox(self)
        self.registry = Registry(self, self.out)
        self.scheduler = Scheduler(self, self.out)
        self.results = Results(self, self.out, self.registry, self.scheduler)

    @property
    def messages_sent(self) -> int:
        """Messages posted to clients."""
        return self.out.messages_sent

    @property
    def billed_sent(self) -> int:
        """The billed units the posted messages make (API Gateway meters 32 KB increments)."""
        return self.out.billed_sent

    # ------------------------------------------------------------------ entry point
    def on_message(self, connection_id: str, raw: str) -> None:
        try:
            message = limits.loads(raw)
        except limits.TooDeep as exc:
            self.out.rpc_error(connection_id, -32600, f"Invalid Request: {exc.message}")
            return
        except ValueError as exc:
            self.out.rpc_error(connection_id, -32700, f"Parse error: {exc}")
            return
        if not isinstance(message, dict):
            self.out.rpc_error(connection_id, -32600, "Invalid Request: expected a JSON object")
            return
        # every number a client sends is brought into DynamoDB's range before anything can store it (1e308
        # or a 40-digit integer cannot be stored at all); counts are clamped to their own bounds where used
        message = limits.storable_numbers(message)
        if "jsonrpc" in message or ("id" in message and ("result" in message or "error" in message)):
            self.on_rpc(connection_id, message)
            return
        kind = message.get("type")
        handlers = {"ping": self.on_ping, "register": self.registry.on_register,
                    "auth_verify": self.registry.on_auth_verify, "ready": self.on_ready,
                    "status": self.results.on_status}
        if not isinstance(kind, str):
            self.out.rpc_error(connection_id, -32600, "Invalid Request: a message needs a string 'type' or 'jsonrpc'")
            return
        fn = handlers.get(kind)
        if fn is None:
            # A protocol message of a type this server does not know (a newer client, say) is not JSON-RPC:
            # answer with a notice, never with an id/error pair a DevTools client could take for a reply.
            self.out.notice(connection_id, "unknown_type", f"unknown message type {echo(kind)}; expected one of "
                            f"{', '.join(sorted(handlers))}")
            return
        fn(connection_id, message)

    def on_ping(self, connection_id: str, _message: dict[str, Any]) -> None:
        self.out.reply(connection_id, {"type": "pong", "timestamp": now_iso(self.clock)})
        # Clients ping every 30 s: the lazy deadline check then runs at least that often even if a timer was
        # lost (one query; a cached registration needs no other read).
        client_id = self.registry.conn_client(connection_id)
        if client_id is not None:
            self.load(client_id)

    def on_ready(self, connection_id: str, _message: dict[str, Any]) -> None:
        client_id = self.registry.conn_client(connection_id)
        if client_id is None:
            self.out.notice(connection_id, "not_registered",
                            "ready refused: register (and complete authentication) before sending ready")
            return
        try:
            if not self.scheduler.mark_ready(client_id, connection_id):
                self.out.notice(connection_id, "not_registered",
                                "ready refused: this client is bound to another connection")
                return
        except errors.Unavailable as exc:  # applied or not: the recovery applies it and dispatches
            self.scheduler.recover_later(client_id, exc, ready_conn=connection_id)
            return
        self.dispatch(client_id)

    # ------------------------------------------------------------------ JSON-RPC: results and requests
    def on_rpc(self, connection_id: str, message: dict[str, Any]) -> None:
        rpc_id = message.get("id")
        if "method" in message:
            if message["method"] == "configure_llm":
                self.on_configure_llm(connection_id, message.get("params"), rpc_id)
            elif rpc_id is not None:
                self.out.rpc_error(connection_id, -32601, f"Method not found: {echo(message['method'])}", rpc_id)
            return
        if message.get("jsonrpc") != "2.0" or not isinstance(rpc_id, str) or \
                ("result" in message) == ("error" in message):
            self.out.rpc_error(connection_id, -32600,
                               "Invalid Request: a response needs jsonrpc '2.0', a string id and result or error")
            return
        client_id = self.registry.conn_client(connection_id)
        if client_id is None:
            log_warning("result from a connection that is not registered (or was replaced) ignored",
                        connectionId=connection_id, rpcId=echo(rpc_id))
            self.out.notice(connection_id, "not_registered", "result ignored: this connection has not registered")
            return
        try:
            self._on_response(connection_id, client_id, message)
        except errors.Unavailable as exc:
            # Recorded or not (a write's outcome is unknown): the answer rides on a recovery, which records it
            # unless it already was, recounts the slots and sends what is next. One too large for a timer's
            # payload leaves its attempt running until its deadline timer ends it.
            carried = len(json.dumps(message, default=str)) <= CARRY_MAX_CHARS
            if not carried:
                log_warning("an answer too large to carry to the recovery: its attempt ends at its deadline",
                            clientId=client_id, rpcId=echo(rpc_id))
            self.scheduler.recover_later(
                client_id, exc, response={"connectionId": connection_id, "message": message} if carried else None)

    def _on_response(self, connection_id: str, client_id: str, message: dict[str, Any]) -> None:
        rpc_id = message.get("id")
        meta, evals, expired = self.scheduler.read(client_id)  # the paths below dispatch from this read
        bound = str((meta or {}).get("connectionId") or "")
        if bound and bound != connection_id:
            # the client registered again elsewhere (another container may still have cached this connection)
            log_warning("result from a replaced connection ignored", clientId=client_id,
                        connectionId=connection_id, rpcId=echo(rpc_id))
            if expired:
                self.dispatch(client_id, (meta, evals))
            return
        if self.results.record_response(client_id, message, meta, evals, expired)[0] is None:
            self.out.notice(connection_id, "unknown_request", f"no evaluation was sent with id {echo(rpc_id)}")

    def on_configure_llm(self, connection_id: str, params: Any, rpc_id: Any) -> None:
        """JSON-RPC ``configure_llm`` (``{provider, apiKey?, endpoint?, models: {main, mini?, nano?},
        partial?}``): stored for this client and sent back as ``model`` with each of its evaluations (a
        definition's own ``model`` wins). ``apiKey`` is accepted and never stored or echoed: the client keeps
        its own key. A notification (no ``id``) is applied without a reply."""
        client_id = self.registry.conn_client(connection_id)
        if client_id is None:
            if rpc_id is not None:
                self.out.rpc_error(connection_id, -32002, "Authentication error: register (and complete "
                                   "authentication) before configure_llm", rpc_id)
            return
        try:
            meta = self.store.get(**keys.client(client_id)) or {}
            config = llm_config(params, meta.get("llm") if isinstance(meta.get("llm"), dict) else None)
        except ValueError as exc:
            if rpc_id is not None:
                self.out.rpc_error(connection_id, -32602, f"Invalid params: {exc}", rpc_id)
            return
        self.store.update(**keys.client(client_id), set_={"llm": config})
        if rpc_id is not None:
            main = config.get("main_model", "")
            applied = {"provider": config.get("provider", ""),
                       "models": {"main": main, "mini": config.get("mini_model") or main,
                                  "nano": config.get("nano_model") or config.get("mini_model") or main}}
            self.out.reply(connection_id, {"jsonrpc": "2.0", "id": echo_id(rpc_id), "result": {
                "status": "success", "message": "LLM configuration stored for this client; it is sent as "
                "'model' with each of its evaluations", "appliedConfig": applied}})

    # ------------------------------------------------------------------ the parts' entry points
    def client_secret(self, client_id: str) -> str:
        """See :meth:`Registry.client_secret` (``POST /evals/results`` checks its signature with it)."""
        return self.registry.client_secret(client_id)

    def load(self, client_id: str, dispatch: bool = True) -> Loaded:
        """See :meth:`Scheduler.load`."""
        return self.scheduler.load(client_id, dispatch)

    def dispatch(self, client_id: str, loaded: Loaded | None = None, fresh: bool = True) -> int:
        """See :meth:`Scheduler.dispatch`."""
        return self.scheduler.dispatch(client_id, loaded, fresh)

    def upload_result(self, client_id: str, message: Any) -> dict[str, Any]:
        """See :meth:`Results.upload_result`. A write's unknown outcome is raised (the client may send it
        again: one recorded already is kept as ``late``) after a recovery is scheduled."""
        try:
            return self.results.upload_result(client_id, message)
        except errors.Unavailable as exc:
            self.scheduler.recover_later(client_id, exc)
            raise

    def on_frame_too_big(self, connection_id: str, client_id: str, reason: str = "") -> int:
        """See :meth:`Results.on_frame_too_big`."""
        return self.results.on_frame_too_big(connection_id, client_id, reason)

    # ------------------------------------------------------------------ timers and admin
    def on_dispatch(self, event: dict[str, Any]) -> int:
        """A dispatch timer's invocation (a retry's backoff, a post to send again, a recovery: see
        :meth:`Scheduler.recover_later`). A recovery that carries a client's answer records it first, unless its
        first recording did apply. Returns how many evaluations were sent."""
        client_id, recovery = str(event["clientId"]), event if event.get("tries") else None
        response = (recovery or {}).get("response")
        if recovery and isinstance(response, dict) and isinstance(response.get("message"), dict):
            try:
                self._record_carried(client_id, response["message"])
            except errors.Unavailable as exc:
                self.scheduler.recover_later(client_id, exc, recovery, unsent=recovery.get("unsent"))
                return 0
            recovery = {k: v for k, v in recovery.items() if k != "response"}
        return self.scheduler.dispatch(client_id, recovery=recovery)

    def _record_carried(self, client_id: str, message: dict[str, Any]) -> None:
        """Record an answer a recovery carries: as it would have been on arrival, unless the attempt's history or
        its late answers show it recorded (the write whose outcome was unknown had applied)."""
        meta, evals, expired = self.scheduler.read(client_id)
        rpc_id = message.get("id")
        ev = next((e for e in evals if rpc_id in (e.get("rpcIds") or [])), None)
        if ev is not None and (any(h.get("rpcId") == rpc_id and h.get("outcome") in ("completed", "failed")
                                   for h in ev.get("history") or [])
                               or any(x.get("rpcId") == rpc_id for x in ev.get("late") or [])):
            return
        self.results.record_response(client_id, message, meta, evals, expired)

    def on_deadline(self, client_id: str, eval_id: str, rpc_id: str) -> bool:
        try:
            return self._on_deadline(client_id, eval_id, rpc_id)
        except errors.Unavailable as exc:  # the recovery's fresh read expires what is overdue
            self.scheduler.recover_later(client_id, exc)
            return False

    def _on_deadline(self, client_id: str, eval_id: str, rpc_id: str) -> bool:
        ev = self.store.get(**keys.evaluation(client_id, eval_id))
        if not ev or ev.get("status") != "running" or ev.get("rpcId") != rpc_id:
            return False
        if float(ev.get("deadline", 0)) > self.clock() * 1000:
            return False  # deadline was restarted (reconnection): a newer timer covers it
        expired = self.scheduler.expire(client_id, ev) is not None
        self.dispatch(client_id)
        return expired

    def trigger(self, client_id: str, eval_id: str | None = None) -> int:
        """Reset finished evaluations (one or all) to pending and dispatch. Returns how many were reset."""
        catalog = self.catalog(client_id)
        if self.store.get(**keys.client(client_id)) is None:
            raise LookupError(f"unknown client {client_id}")
        existing = {e["evalId"]: e for e in self.store.query(f"CLIENT#{client_id}", "EVAL#")}
        wanted = [eval_id] if eval_id else sorted(set(existing) | {e.id for e in catalog.assigned(client_id)})
        count = 0
        for eid in wanted:
            ev = existing.get(eid)
            definition = catalog.find(client_id, eid)
            if ev is None:
                if definition is None:
                    raise LookupError(f"unknown evaluation {eid}")
                self.registry.create_eval(client_id, definition)
                count += 1
                continue
            if ev.get("status") == "running":
                continue
            sets = {"status": "pending", "attempts": 0, "notBefore": 0, "progress": 0, "error": None,
                    "result": None, "verdict": None, "passed": None, "score": None}
            if definition is not None:
                sets["def"] = definition.doc()
            self.store.update(**keys.evaluation(client_id, eid), set_=sets)
            count += 1
        self.dispatch(client_id)
        return count
