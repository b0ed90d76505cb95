"""The evaluation server's protocol logic, independent of Lambda (dependencies passed in).

State lives in the single table, keyed by client id (a connection id only points at its client):

* ``CLIENT#<id>``/``META``: connectionId, ready, capabilities, ``inflight`` (slots in use, changed
  only by conditional atomic updates so ``maxConcurrency`` holds across concurrent invocations);
* ``CLIENT#<id>``/``EVAL#<eval>``: the evaluation's definition snapshot, status (pending, running,
  completed, failed, timeout), current JSON-RPC id and deadline, progress, result, verdict, history,
  late results;
* ``CONN#<id>``/``META``: which client a connection belongs to and its handshake state;
* ``EVALCLIENTS``/``<id>``: the index of known clients (the admin API lists it);
* ``EVALDEFS``/``DEF#<id>`` and ``CLIENTFILE#<id>``: definitions uploaded through the admin API.

One query of ``CLIENT#<id>`` reads a client and all its evaluations; dispatch, result handling and
the lazy deadline check all start from that read.

Reconnection: a client that registers again with the same id is rebound to its new connection; on its
next ``ready`` every evaluation still in flight is re-sent (same JSON-RPC id, deadline restarted).
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agenthost import limits
from agenthost.http import logger
from agenthost.store import ConditionFailed, Store, keys
from evals import connections
from evals.definitions import Catalog, ClientFile, DefinitionError, Evaluation, parse_document
from evals.judging import JsRunner, LlmJudge, judge

CLIENT_INDEX_PK = "EVALCLIENTS"
DEFS_PK = "EVALDEFS"
CONN_TTL_S = 3 * 3600  # API Gateway closes a connection after 2 h
CLIENT_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
FINAL = ("completed", "failed", "timeout")
SEND_RETRY_S = 2.0  # after a post whose delivery is unknown, send the evaluation again this much later
#: client-supplied values (ids, methods, types) echoed in replies are cut to this many characters, so no reply
#: can come near API Gateway's 32 KB frame / 128 KB message limits whatever the client sent
MAX_ECHO = 128
MAX_TEXT = 1000  # longest message text in an error reply or notice
ST = {"#st": "status"}  # "status" is a DynamoDB reserved word
_REGISTERED: dict[str, str] = {}  # connection id -> client id, for registered connections

# False (or 0) when the connection is gone, else True or the bytes posted; raises TooLarge / SendFailed
Send = Callable[[str, dict[str, Any]], bool | int]


def now_iso(clock: Callable[[], float] = time.time) -> str:
    return datetime.fromtimestamp(clock(), UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Options:
    """Server behaviour; :meth:`from_env` reads it from the environment."""

    secret: str = field(default="", repr=False)
    #: the reference server's handshake, which sends a secret in ``auth_required`` for unmodified DevTools
    #: builds: "" (never), "registered" (only to client ids with a client file, and only that file's own
    #: ``secret_key``), "all" (the server secret to anyone; ``True`` means the same)
    disclose_secret: str | bool = ""
    auto_create: bool = True
    default_concurrency: int = 3
    max_concurrency: int = 20
    server_id: str = "agenthost-evals"
    pages_url: str = ""

    @classmethod
    def from_env(cls) -> Options:
        from agenthost.config import secret, settings

        cfg = settings()
        return cls(
            secret=secret("AGENTHOST_EVALS_SECRET"),
            disclose_secret=disclosure_mode(cfg.evals_disclose_secret),
            auto_create=bool(cfg.evals_auto_create),
            default_concurrency=cfg.evals_default_concurrency,
            max_concurrency=cfg.evals_max_concurrency,
            server_id=cfg.evals_server_id,
            pages_url=cfg.evals_pages_url,
        )


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
    #: messages posted to clients, and the billed units they make (API Gateway meters 32 KB increments)
    messages_sent: int = 0
    billed_sent: int = 0

    # ------------------------------------------------------------------ sending
    def _send(self, connection_id: str, message: dict[str, Any]) -> bool:
        """Post one message. False when the connection is gone; raises :class:`connections.TooLarge` (nothing
        sent) and :class:`connections.SendFailed` (delivery unknown). ``send`` may return the number of bytes
        it posted instead of True (the Lambda's poster does), which the billed units count."""
        ok = self.send(connection_id, message)
        if ok:
            self.messages_sent += 1
            self.billed_sent += connections.billed_units(ok if type(ok) is int else 1)
        return bool(ok)

    def _reply(self, connection_id: str, message: dict[str, Any]) -> bool:
        """A reply the protocol can do without (ack, pong, notice): a failed post is logged, not raised."""
        try:
            return self._send(connection_id, message)
        except (connections.SendFailed, connections.TooLarge) as exc:
            _log_warning("reply not delivered", kind=str(message.get("type") or "rpc-error"),
                         error=type(exc).__name__)
            return False

    def _rpc_error(self, connection_id: str, code: int, message: str, rpc_id: Any = None) -> None:
        """A JSON-RPC error reply. ``id`` is the request's (only a short string or a number is echoed: anything
        else could make the reply exceed the frame limit) or null, as JSON-RPC 2.0 requires when the request's
        id could not be determined (-32700, -32600)."""
        if not (isinstance(rpc_id, str) and len(rpc_id) <= MAX_ECHO) and \
                not (isinstance(rpc_id, int | float) and not isinstance(rpc_id, bool)):
            rpc_id = None
        self._reply(connection_id, {"jsonrpc": "2.0", "id": rpc_id,
                                    "error": {"code": code, "message": message[:MAX_TEXT]}})

    def _notice(self, connection_id: str, code: str, message: str) -> None:
        """A non-JSON-RPC error notice (never carries ``id``, so clients cannot take it for a reply)."""
        self._reply(connection_id, {"type": "error", "error": code, "message": message[:MAX_TEXT],
                                   "timestamp": now_iso(self.clock)})

    # ------------------------------------------------------------------ entry point
    def on_message(self, connection_id: str, raw: str) -> None:
        try:
            message = limits.loads(raw)
        except limits.TooDeep as exc:
            self._rpc_error(connection_id, -32600, f"Invalid Request: {exc.message}")
            return
        except ValueError as exc:
            self._rpc_error(connection_id, -32700, f"Parse error: {exc}")
            return
        if not isinstance(message, dict):
            self._rpc_error(connection_id, -32600, "Invalid Request: expected a JSON object")
            return
        # every number a client sends is brought into DynamoDB's range before anything can store it (1e308
        # or a 40-digit integer cannot be stored at all); counts are clamped to their own bounds where used
        message = limits.storable_numbers(message)
        if "jsonrpc" in message or ("id" in message and ("result" in message or "error" in message)):
            self.on_rpc(connection_id, message)
            return
        kind = message.get("type")
        handlers = {"ping": self.on_ping, "register": self.on_register, "auth_verify": self.on_auth_verify,
                    "ready": self.on_ready, "status": self.on_status}
        if not isinstance(kind, str):
            self._rpc_error(connection_id, -32600, "Invalid Request: a message needs a string 'type' or 'jsonrpc'")
            return
        fn = handlers.get(kind)
        if fn is None:
            # A protocol message of a type this server does not know (a newer client, say) is not JSON-RPC:
            # answer with a notice, never with an id/error pair a DevTools client could take for a reply.
            self._notice(connection_id, "unknown_type", f"unknown message type {_echo(kind)}; expected one of "
                         f"{', '.join(sorted(handlers))}")
            return
        fn(connection_id, message)

    def on_ping(self, connection_id: str, _message: dict[str, Any]) -> None:
        self._reply(connection_id, {"type": "pong", "timestamp": now_iso(self.clock)})
        # Clients ping every 30 s: the lazy deadline check then runs at least that often even if a timer was
        # lost (one query; a cached registration needs no other read).
        client_id = self._conn_client(connection_id)
        if client_id is not None:
            self.load(client_id)

    # ------------------------------------------------------------------ registration
    def _ack(self, connection_id: str, client_id: str, status: str, message: str, **extra: Any) -> None:
        self._reply(connection_id, {"type": "registration_ack", "clientId": client_id, "status": status,
                                   "message": message, **extra})

    def _reject(self, connection_id: str, client_id: str, reason: str, close: bool = True, **extra: Any) -> None:
        self._ack(connection_id, client_id, "rejected", reason, reason=reason, **extra)
        _REGISTERED.pop(connection_id, None)
        if close:
            self.store.delete(**keys.connection(connection_id))
            self.close(connection_id)

    def client_secret(self, client_id: str) -> str:
        """The secret a client proves: its client file's ``secret_key``, else the server's secret ("" when
        neither is set: such a server asks no proof)."""
        cf = self._client_file(client_id, self.catalog(client_id))
        return (cf.client.secret_key if cf and cf.client.secret_key else "") or self.options.secret

    def _client_file(self, client_id: str, catalog: Catalog) -> ClientFile | None:
        cf = catalog.clients.get(client_id)
        return cf

    def _capabilities(self, raw: Any) -> dict[str, Any]:
        """What is kept of a client's ``capabilities``: tool names, version, ``maxConcurrency`` clamped to
        1..the server's cap (absent or unreadable: the default); nothing else reaches the table."""
        caps = raw if isinstance(raw, dict) else {}
        tools = caps.get("tools")
        out: dict[str, Any] = {
            "tools": [str(t)[:MAX_ECHO] for t in tools[:50]] if isinstance(tools, list) else [],
            "version": str(caps.get("version", ""))[:40],
        }
        if caps.get("maxConcurrency"):
            out["maxConcurrency"] = limits.bounded_int(caps["maxConcurrency"], 1, self.options.max_concurrency,
                                                       self.options.default_concurrency)
        return out

    def on_register(self, connection_id: str, message: dict[str, Any]) -> None:
        client_id = message.get("clientId")
        if not isinstance(client_id, str) or not CLIENT_ID_RE.match(client_id):
            self._ack(connection_id, str(client_id)[:MAX_ECHO] if client_id is not None else "", "rejected",
                      "clientId must be a string of letters, digits and . _ : - (a UUID)",
                      reason="invalid clientId")
            return
        caps = self._capabilities(message.get("capabilities"))
        catalog = self.catalog(client_id)
        cf = self._client_file(client_id, catalog)
        meta = self.store.get(**keys.client(client_id))
        if meta is None and cf is None and not self.options.auto_create:
            self._reject(connection_id, client_id, "unknown client id (not configured on this server)")
            return
        secret = (cf.client.secret_key if cf and cf.client.secret_key else "") or self.options.secret
        offered = message.get("secretKey")
        pending = {"clientId": client_id, "capabilities": caps, "state": "pending_auth"}
        if not secret:
            self._accept(connection_id, client_id, caps, catalog, meta)
        elif isinstance(offered, str) and offered:
            if hmac.compare_digest(offered.encode(), secret.encode()):
                self._accept(connection_id, client_id, caps, catalog, meta)
            else:
                self._reject(connection_id, client_id, "Invalid secret key")
        else:
            nonce = secrets.token_hex(16)
            disclosed = self._disclosable(client_id, cf, secret)
            self.store.put({**keys.connection(connection_id), **pending, "nonce": nonce,
                            "disclosed": bool(disclosed)}, ttl_s=CONN_TTL_S)
            extra: dict[str, Any] = {"challenge": nonce}
            text = ("Authentication required: reply with auth_verify carrying secretKey, or proof = "
                    "hex HMAC-SHA256(secret, challenge)")
            if disclosed:
                # The reference server's handshake for unmodified DevTools builds (operator opt-in only).
                extra["serverSecretKey"] = disclosed
                text = "Authentication required: verify the server secret"
            self._ack(connection_id, client_id, "auth_required", text, **extra)

    def _disclosable(self, client_id: str, cf: ClientFile | None, secret: str) -> str:
        """The secret the disclosing handshake may send this client ("" for none): under "registered" only a
        pre-registered client's own ``secret_key`` (never the shared server secret, never to an auto-created
        id); under "all" the secret it must prove, to anyone."""
        mode = disclosure_mode(self.options.disclose_secret)
        if mode == "all":
            return secret
        if mode == "registered":
            if cf is not None and cf.client.secret_key:
                return cf.client.secret_key
            _log_warning("secret not disclosed: the client id has no client file with its own secret_key",
                         clientId=client_id)
        return ""

    def on_auth_verify(self, connection_id: str, message: dict[str, Any]) -> None:
        client_id = str(message.get("clientId") or "")[:MAX_ECHO]
        conn = self.store.get(**keys.connection(connection_id))
        if not conn or conn.get("state") != "pending_auth" or conn.get("clientId") != client_id:
            self._reject(connection_id, client_id, "auth_verify without a pending registration for this client",
                         close=False)
            return
        catalog = self.catalog(client_id)
        cf = self._client_file(client_id, catalog)
        secret = (cf.client.secret_key if cf and cf.client.secret_key else "") or self.options.secret
        offered, proof = message.get("secretKey"), message.get("proof")
        proven = False
        if isinstance(offered, str) and offered:
            proven = hmac.compare_digest(offered.encode(), secret.encode())
        elif isinstance(proof, str) and proof:
            want = hmac.new(secret.encode(), str(conn.get("nonce", "")).encode(), "sha256").hexdigest()
            proven = hmac.compare_digest(proof.lower().encode(), want.encode())
        elif conn.get("disclosed"):
            proven = message.get("verified") is True  # it was sent the secret this connection must hold
        if not proven:
            self._reject(connection_id, client_id, "Invalid secret key")
            return
        meta = self.store.get(**keys.client(client_id))
        self._accept(connection_id, client_id, conn.get("capabilities") or {}, catalog, meta)

    def _accept(self, connection_id: str, client_id: str, caps: dict[str, Any], catalog: Catalog,
                meta: dict[str, Any] | None) -> None:
        cf = catalog.clients.get(client_id)
        wanted = limits.bounded_int(caps.get("maxConcurrency") or self.options.default_concurrency, 1,
                                    self.options.max_concurrency, self.options.default_concurrency)
        if cf and cf.settings.max_concurrent_evaluations:
            wanted = min(wanted, cf.settings.max_concurrent_evaluations)
        max_c = max(1, min(wanted, self.options.max_concurrency))
        tools = [str(t) for t in caps.get("tools", [])] if isinstance(caps.get("tools"), list) else []
        retry = cf.settings.retry_policy.model_dump() if cf else {}
        now = self.store.now()
        attrs = {"clientId": client_id, "connectionId": connection_id, "ready": False, "maxConcurrency": max_c,
                 "tools": tools[:50], "version": str(caps.get("version", ""))[:40], "registeredAt": now,
                 "retryPolicy": retry, "name": cf.client.name if cf else ""}
        previous = str((meta or {}).get("connectionId") or "")
        if meta is None:
            try:
                self.store.put({**keys.client(client_id), **attrs, "inflight": 0, "createdAt": now}, if_absent=True)
                self.store.put({"pk": CLIENT_INDEX_PK, "sk": client_id, "createdAt": now,
                                "auto": cf is None})
            except ConditionFailed:
                self.store.update(**keys.client(client_id), set_=attrs)
        else:
            self.store.update(**keys.client(client_id), set_=attrs)
        self.store.put({**keys.connection(connection_id), "clientId": client_id, "state": "registered"},
                       ttl_s=CONN_TTL_S)
        if previous and previous != connection_id:
            self._replace(previous, client_id)
        existing = {e["evalId"] for e in self.store.query(f"CLIENT#{client_id}", "EVAL#")}
        new = [self._eval_item(client_id, ev) for ev in catalog.assigned(client_id) if ev.id not in existing]
        if new:  # only ids the query did not find: one batch write (25 per request) instead of a put each
            self.store.batch_put(new)
        count = len(existing | {e.id for e in catalog.assigned(client_id)})
        self._ack(connection_id, client_id, "accepted", "Client registered successfully", evaluationsCount=count)

    def _replace(self, old_connection: str, client_id: str) -> None:
        """The same client id registered on another connection: the newer registration wins. The older
        connection is told (``replaced`` notice), forgotten and closed; anything it still sends is ignored
        (see :meth:`on_rpc`). Its evaluations in flight are sent again on the new connection's ``ready``."""
        logger.info("evaluation client registered again: the older connection is replaced and closed",
                    extra={"clientId": client_id, "connectionId": old_connection})
        self._notice(old_connection, "replaced", "this client id registered again on another connection: this "
                     "connection is closed and results sent on it are ignored")
        _REGISTERED.pop(old_connection, None)
        self.store.delete(**keys.connection(old_connection))
        self.close(old_connection)

    def _eval_item(self, client_id: str, ev: Evaluation) -> dict[str, Any]:
        return {**keys.evaluation(client_id, ev.id), "evalId": ev.id, "name": ev.name, "category": ev.category,
                "tool": ev.tool, "def": ev.doc(), "status": "pending", "attempts": 0, "rpcIds": [],
                "history": [], "createdAt": self.store.now(), "notBefore": 0}

    def _create_eval(self, client_id: str, ev: Evaluation, reset: bool = False) -> None:
        item = self._eval_item(client_id, ev)
        try:
            self.store.put(item, if_absent=not reset)
        except ConditionFailed:
            pass

    # ------------------------------------------------------------------ ready / dispatch
    def _conn_client(self, connection_id: str) -> str | None:
        # A registered connection never changes client (ids are never reused): cached per container.
        cached = _REGISTERED.get(connection_id)
        if cached is not None:
            return cached
        conn = self.store.get(**keys.connection(connection_id))
        if not conn or conn.get("state") != "registered":
            return None
        if len(_REGISTERED) > 10_000:
            _REGISTERED.clear()
        _REGISTERED[connection_id] = str(conn["clientId"])
        return str(conn["clientId"])

    def on_ready(self, connection_id: str, _message: dict[str, Any]) -> None:
        client_id = self._conn_client(connection_id)
        if client_id is None:
            self._notice(connection_id, "not_registered",
                         "ready refused: register (and complete authentication) before sending ready")
            return
        try:
            self.store.update(**keys.client(client_id), set_={"ready": True}, condition="connectionId = :c",
                              values={":c": connection_id})
        except ConditionFailed:
            self._notice(connection_id, "not_registered", "ready refused: this client is bound to another connection")
            return
        self.dispatch(client_id)

    def load(self, client_id: str, dispatch: bool = True) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """The client and its evaluations, with overdue deadlines enforced (the lazy check). When that
        expired something, the freed slots are used at once (``dispatch``; callers that dispatch anyway pass
        False) and the state is returned as it is after that dispatch."""
        meta, evals, expired = self._read(client_id)
        if expired and dispatch:
            self.dispatch(client_id, (meta, evals))
            meta, evals, _ = self._read(client_id)
        return meta, evals

    def _read(self, client_id: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]], int]:
        """One query of the client's partition, overdue evaluations expired; also returns how many were."""
        meta, evals = None, []
        for item in self.store.query(f"CLIENT#{client_id}"):
            if item["sk"] == "META":
                meta = item
            elif item["sk"].startswith("EVAL#"):
                evals.append(item)
        now_ms = self.clock() * 1000
        expired = 0
        for i, ev in enumerate(evals):
            if ev.get("status") == "running" and float(ev.get("deadline", 0)) <= now_ms:
                updated = self._expire(client_id, ev, meta)
                if updated is not None:
                    evals[i] = updated
                    expired += 1
        if expired:  # slots were released: read the counter again
            meta = self.store.get(**keys.client(client_id))
        return meta, evals, expired

    def _release(self, client_id: str) -> None:
        """Give a slot back. The write carries a fresh token and refuses one it already carries, so a resent
        attempt of a release that had landed (see :meth:`_guarded`) is not applied twice."""
        token = uuid.uuid4().hex
        try:
            self.store.update(**keys.client(client_id), add={"inflight": -1}, set_={"releaseId": token},
                              condition="inflight > :z AND (attribute_not_exists(releaseId) OR releaseId <> :t)",
                              values={":z": 0, ":t": token})
        except ConditionFailed:
            pass

    def _claim(self, client_id: str, max_c: int) -> bool:
        """Take a slot when fewer than ``max_c`` are in use. Like :meth:`_release` the write carries a fresh
        token and refuses one it already carries: a resent attempt of a claim that had landed is refused
        rather than applied twice, and the refusal is recognised as our own claim by the token (taken for a
        full counter, the slot stayed held with nothing sent on it)."""
        token = uuid.uuid4().hex
        try:
            self.store.update(**keys.client(client_id), add={"inflight": 1}, set_={"claimId": token},
                              condition="inflight < :max AND (attribute_not_exists(claimId) OR claimId <> :t)",
                              values={":max": max_c, ":t": token})
            return True
        except ConditionFailed:
            meta = self.store.get(**keys.client(client_id))
            if meta is not None and meta.get("claimId") == token:
                _log_warning("slot claim refused on a resent request that had already applied it: counted as "
                             "applied", clientId=client_id)
                return True
            return False

    def _retry_delay_s(self, meta: dict[str, Any] | None, attempts: int) -> float:
        rp = (meta or {}).get("retryPolicy") or {}
        initial = float(rp.get("initial_delay", 0) or 0) / 1000
        mult = float(rp.get("backoff_multiplier", 2) or 2)
        return initial * (mult ** max(0, attempts - 1)) if initial else 0.0

    def _max_retries(self, ev: dict[str, Any], meta: dict[str, Any] | None) -> int:
        rp = (meta or {}).get("retryPolicy") or {}
        if rp.get("max_retries") is not None:
            return int(rp["max_retries"])
        return int(((ev.get("def") or {}).get("metadata") or {}).get("retries", 0) or 0)

    def _finish_attempt(self, client_id: str, ev: dict[str, Any], outcome: str, fields: dict[str, Any],
                        meta: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Close the running attempt (conditional on its rpc id). Retries when allowed and not a success."""
        rpc = ev.get("rpcId")
        attempts = int(ev.get("attempts", 0))
        history = list(ev.get("history", []))[-20:] + [{"rpcId": rpc, "outcome": outcome, "at": self.store.now()}]
        retry = outcome != "completed" and attempts <= self._max_retries(ev, meta)
        delay = self._retry_delay_s(meta, attempts) if retry else 0.0
        sets: dict[str, Any] = {**fields, "history": history, "finishedAt": self.store.now()}
        if retry:
            sets.update({"status": "pending", "notBefore": self.clock() + delay, "lastOutcome": outcome})
        else:
            sets["status"] = outcome
        updated = self._guarded(client_id, ev["evalId"], "finishId", sets, "#st = :running AND rpcId = :rpc",
                                {":running": "running", ":rpc": rpc})
        if updated is None:
            return None
        self._release(client_id)
        if retry and delay > 0:
            self.timers.schedule(f"evr-{uuid.uuid4()}", self.clock() + delay,
                                 {"agenthost": "dispatch", "clientId": client_id})
        return updated

    def _guarded(self, client_id: str, eval_id: str, mark: str, sets: dict[str, Any], condition: str,
                 values: dict[str, Any]) -> dict[str, Any] | None:
        """A conditional write to an evaluation (``condition`` over ``#st``) that carries a fresh token under
        ``mark``. The item as stored after it, or None when it did not apply.

        A refusal is not always someone else's write: the SDK resends a request whose answer timed out or
        failed (throttling, 5xx), the first attempt may already have been applied, and the resent one then
        fails its condition against our own write. Taken for a refusal, that left an evaluation marked
        running that was never posted (its slot given back), or a finished one whose slot stayed held. So a
        refusal reads the item once: carrying our token, the write did apply."""
        token = uuid.uuid4().hex
        key = keys.evaluation(client_id, eval_id)
        try:
            return self.store.update(**key, set_={**sets, mark: token}, condition=condition, names=ST,
                                     values=values)
        except ConditionFailed as exc:
            item = self.store.get(**key)
            if item is not None and item.get(mark) == token:
                _log_warning("conditional write refused on a resent request that had already applied it: "
                             "counted as applied", clientId=client_id, evalId=eval_id, write=mark,
                             retried=bool(getattr(exc, "retried", False)))
                return item
            return None

    def _expire(self, client_id: str, ev: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any] | None:
        timeout_ms = int((ev.get("def") or {}).get("timeout", 30000))
        err = {"code": -32001, "message": f"Evaluation exceeded its timeout of {timeout_ms} ms"}
        if meta is None:
            meta = self.store.get(**keys.client(client_id))
        return self._finish_attempt(client_id, ev, "timeout", {"error": err}, meta)

    def dispatch(self, client_id: str,
                 loaded: tuple[dict[str, Any] | None, list[dict[str, Any]]] | None = None,
                 fresh: bool = True) -> int:
        """Send evaluations up to the client's free slots. Returns how many were sent. ``loaded`` is a
        :meth:`load` result the caller already has (saves a query); ``fresh=False`` when the caller derived it
        from an earlier read and its own writes (other invocations may have moved on since)."""
        meta, evals = loaded if loaded is not None else self.load(client_id, dispatch=False)
        if not meta:
            return 0
        running = [e for e in evals if e.get("status") == "running"]
        inflight = int(meta.get("inflight", 0))
        max_c = int(meta.get("maxConcurrency", self.options.default_concurrency))
        idle = not any(e.get("status") == "pending" for e in evals)
        # Self-heal a counter left behind by a crashed invocation, from a view read as one query. A derived
        # view may still count an evaluation another invocation has finished since: setting the counter from
        # it would hold a slot for good.
        if fresh and inflight != len(running):
            try:
                self.store.update(**keys.client(client_id), set_={"inflight": len(running)},
                                  condition="inflight = :old", values={":old": inflight})
                inflight = len(running)
            except ConditionFailed:
                pass  # moved meanwhile (another invocation): the conditional claims below still hold
        if not meta.get("ready") or not meta.get("connectionId"):
            if idle:  # the client's last result is often handled after its $disconnect
                self._heal_idle(client_id)
            return 0
        conn = str(meta["connectionId"])
        llm = meta.get("llm") if isinstance(meta.get("llm"), dict) else None  # the client's configure_llm
        for ev in running:  # reconnection: re-send in-flight evaluations to the new connection
            if ev.get("sentConn") != conn:
                self._send_eval(client_id, conn, ev, ev["rpcId"], resend=True, llm=llm)
        now = self.clock()
        pending = [e for e in evals if e.get("status") == "pending" and float(e.get("notBefore", 0)) <= now]
        pending.sort(key=lambda e: (_rank(e), int(e.get("createdAt", 0)), e["evalId"]))
        sent = 0
        for ev in pending:
            if inflight >= max_c:
                break
            if not self._claim(client_id, max_c):
                break
            inflight += 1
            rpc = str(uuid.uuid4())
            outcome = self._send_eval(client_id, conn, ev, rpc, llm=llm)
            if outcome in ("gone", "failed"):
                break
            if outcome == "sent":
                sent += 1
            else:
                inflight -= 1  # the slot was given back (taken by someone else, or failed to send)
        if idle and sent == 0:
            # Nothing left to send: recount from a fresh read (one query, only for a batch's last results),
            # so a slot leaked by a twice-applied claim or a stale view never stays held.
            self._heal_idle(client_id)
        return sent

    def _heal_idle(self, client_id: str) -> None:
        """Nothing is left to send but the counter says more slots are taken than evaluations run: a slot
        leaked (a claim retried after a timeout is applied twice), or two results finished at once and each saw
        the other still running, so neither healed. Count again from a fresh read. With nothing pending no one
        can claim meanwhile, and a release racing this one stops at zero."""
        meta, evals, _ = self._read(client_id)
        if meta is None or any(e.get("status") == "pending" for e in evals):
            return
        running = sum(1 for e in evals if e.get("status") == "running")
        held = int(meta.get("inflight", 0))
        if held > running:
            try:
                self.store.update(**keys.client(client_id), set_={"inflight": running},
                                  condition="inflight = :old", values={":old": held})
            except ConditionFailed:
                pass  # it moved: a later invocation sees the new value

    def _send_eval(self, client_id: str, conn: str, ev: dict[str, Any], rpc: str, resend: bool = False,
                   llm: dict[str, Any] | None = None) -> str:
        """``sent``, ``released`` (slot given back), ``gone`` (the connection is closed) or ``failed`` (the post
        failed: the evaluation is pending again and a dispatch is scheduled)."""
        d = ev.get("def") or {}
        timeout_ms = int(d.get("timeout", 30000))
        deadline = self.clock() * 1000 + timeout_ms
        if resend:
            if self._guarded(client_id, ev["evalId"], "sendId",
                             {"status": "running", "deadline": deadline, "sentConn": conn},
                             "#st = :running AND rpcId = :rpc", {":running": "running", ":rpc": rpc}) is None:
                return "released"
        else:
            claimed = self._guarded(client_id, ev["evalId"], "sendId",
                                    {"status": "running", "rpcId": rpc, "deadline": deadline,
                                     "sentConn": conn, "sentAt": self.clock(),
                                     "rpcIds": (list(ev.get("rpcIds", [])) + [rpc])[-20:],
                                     "attempts": int(ev.get("attempts", 0)) + 1,
                                     "progress": 0, "statusMessage": ""},
                                    "#st = :pending", {":pending": "pending"})
            if claimed is None:
                self._release(client_id)
                return "released"  # somebody else took it; keep dispatching the rest
        ev = {**ev, "rpcId": rpc, "attempts": int(ev.get("attempts", 0)) + (0 if resend else 1)}
        try:
            evaluation = Evaluation.model_validate(d)
            params: dict[str, Any] = {"evaluationId": evaluation.id, "name": evaluation.name,
                                      "url": evaluation.url(self.options.pages_url), "tool": evaluation.tool,
                                      "input": evaluation.input, "timeout": timeout_ms,
                                      "model": eval_model(evaluation.model, llm),
                                      "metadata": evaluation.metadata.model_dump(mode="json", exclude_none=True)}
            ok = self._send(conn, {"jsonrpc": "2.0", "method": "evaluate", "params": params, "id": rpc})
        except connections.TooLarge as exc:
            err = {"code": -32005, "message": "evaluate request not sent: it exceeds API Gateway's 128 KB "
                   f"WebSocket message limit ({exc})"}
            self._finish_attempt(client_id, {**ev, "attempts": 99}, "failed", {"error": err})
            return "released"
        except connections.SendFailed as exc:
            # Delivery unknown (timeout, throttling): take the evaluation back and send it again shortly with a
            # new id. Should the first copy have arrived after all, its answer is recorded as late.
            _log_warning("evaluate not delivered; retrying shortly", error=str(exc))
            back = {"status": "pending", "rpcId": "", "sentConn": "", "notBefore": self.clock() + SEND_RETRY_S}
            if self._guarded(client_id, ev["evalId"], "backId", back,
                             "#st = :running AND rpcId = :rpc", {":running": "running", ":rpc": rpc}) is not None:
                self._release(client_id)
            self.timers.schedule(f"evs-{uuid.uuid4()}", self.clock() + SEND_RETRY_S,
                                 {"agenthost": "dispatch", "clientId": client_id})
            return "failed"
        if not ok:
            # the connection is gone: put the evaluation back and wait for the client to come back
            if self._guarded(client_id, ev["evalId"], "backId", {"status": "pending", "rpcId": "", "sentConn": ""},
                             "#st = :running AND rpcId = :rpc", {":running": "running", ":rpc": rpc}) is not None:
                self._release(client_id)
            try:
                self.store.update(**keys.client(client_id), set_={"ready": False}, condition="connectionId = :c",
                                  values={":c": conn})
            except ConditionFailed:
                pass
            return "gone"
        # One timer per deadline: a re-send restarts the deadline under the same JSON-RPC id, and Scheduler
        # refuses a second schedule with a name still in use, so the name carries the deadline too. The
        # earlier timer then finds the deadline moved and does nothing.
        self.timers.schedule(timer_name(rpc, deadline), deadline / 1000,
                             {"agenthost": "deadline", "clientId": client_id, "evalId": ev["evalId"], "rpcId": rpc})
        return "sent"

    # ------------------------------------------------------------------ results and progress
    def on_rpc(self, connection_id: str, message: dict[str, Any]) -> None:
        rpc_id = message.get("id")
        if "method" in message:
            if message["method"] == "configure_llm":
                self.on_configure_llm(connection_id, message.get("params"), rpc_id)
            elif rpc_id is not None:
                self._rpc_error(connection_id, -32601, f"Method not found: {_echo(message['method'])}", rpc_id)
            return
        if message.get("jsonrpc") != "2.0" or not isinstance(rpc_id, str) or \
                ("result" in message) == ("error" in message):
            self._rpc_error(connection_id, -32600,
                            "Invalid Request: a response needs jsonrpc '2.0', a string id and result or error")
            return
        client_id = self._conn_client(connection_id)
        if client_id is None:
            _log_warning("result from a connection that is not registered (or was replaced) ignored",
                         connectionId=connection_id, rpcId=_echo(rpc_id))
            self._notice(connection_id, "not_registered", "result ignored: this connection has not registered")
            return
        meta, evals, expired = self._read(client_id)  # the paths below dispatch from this read
        bound = str((meta or {}).get("connectionId") or "")
        if bound and bound != connection_id:
            # the client registered again elsewhere (another container may still have cached this connection)
            _log_warning("result from a replaced connection ignored", clientId=client_id,
                         connectionId=connection_id, rpcId=_echo(rpc_id))
            if expired:
                self.dispatch(client_id, (meta, evals))
            return
        if self._record_response(client_id, message, meta, evals, expired)[0] is None:
            self._notice(connection_id, "unknown_request", f"no evaluation was sent with id {_echo(rpc_id)}")

    def _record_response(self, client_id: str, message: dict[str, Any], meta: dict[str, Any] | None,
                         evals: list[dict[str, Any]], expired: int) -> tuple[dict[str, Any] | None, bool]:
        """Record a client's JSON-RPC response (over the WebSocket or ``POST /evals/results``) read with
        ``meta``/``evals``, then dispatch. Returns the evaluation it answers as stored after recording (None
        when no evaluation was ever sent with its id) and whether it came late (kept apart, not counted)."""
        rpc_id = message.get("id")
        ev = next((e for e in evals if rpc_id in (e.get("rpcIds") or [])), None)
        if ev is None:
            if expired:
                self.dispatch(client_id, (meta, evals))
            return None, False
        result = message.get("result")
        error = message.get("error")
        current = ev.get("status") == "running" and ev.get("rpcId") == rpc_id
        if current:
            if error is not None:
                err = error if isinstance(error, dict) else {"code": -32000, "message": str(error)}
                done = self._finish_attempt(client_id, ev, "failed", {"error": err, "result": None}, meta)
            else:
                res = result if isinstance(result, dict) else {"status": "success", "output": result}
                verdict = judge(Evaluation.model_validate(ev["def"]), res, js_runner=self.js_runner,
                                llm_judge=self.llm_judge, pages_url=self.options.pages_url)
                duration_ms = int((self.clock() - float(ev.get("sentAt", 0))) * 1000)
                done = self._finish_attempt(client_id, ev, "completed",
                                            {"result": _clip(res), "verdict": verdict, "passed": verdict["passed"],
                                             "progress": 1.0,
                                             "score": verdict["score"], "error": None,
                                             "durationMs": duration_ms},
                                            meta)
            if done is None:
                current = False
            elif meta is not None:
                # continue from what we know instead of reading the client again
                evals = [done if e["evalId"] == ev["evalId"] else e for e in evals]
                meta = {**meta, "inflight": max(0, int(meta.get("inflight", 0)) - 1)}
                self.dispatch(client_id, (meta, evals), fresh=False)
                return done, False
            else:
                self.dispatch(client_id)
                return done, False
        late = list(ev.get("late", []))[-10:] + [{"rpcId": rpc_id, "at": self.store.now(),
                                                   "result": _clip(result) if result is not None else None,
                                                   "error": error}]
        stored = self.store.update(**keys.evaluation(client_id, ev["evalId"]), set_={"late": late})
        self.dispatch(client_id)
        return (stored or {**ev, "late": late}), True

    def upload_result(self, client_id: str, message: Any) -> dict[str, Any]:
        """A result sent over HTTP (``POST /evals/results``, already authenticated): recorded exactly as if it
        had come over the client's connection. Raises ValueError (bad body) or LookupError (unknown client or
        id). Returns ``{evaluationId, status, late}``."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or \
                not isinstance(message.get("id"), str) or ("result" in message) == ("error" in message):
            raise ValueError("the body must be the JSON-RPC response you would send on the WebSocket: "
                             "jsonrpc '2.0', the evaluate request's string id, and result or error")
        meta, evals, expired = self._read(client_id)
        if meta is None:
            raise LookupError(f"unknown client {_echo(client_id)}")
        ev, late = self._record_response(client_id, message, meta, evals, expired)
        if ev is None:
            raise LookupError(f"no evaluation was sent to this client with id {_echo(message['id'])}")
        return {"evaluationId": ev["evalId"], "status": ev.get("status"), "late": late}

    def on_configure_llm(self, connection_id: str, params: Any, rpc_id: Any) -> None:
        """JSON-RPC ``configure_llm`` (``{provider, apiKey?, endpoint?, models: {main, mini?, nano?},
        partial?}``): stored for this client and sent back as ``model`` with each of its evaluations (a
        definition's own ``model`` wins). ``apiKey`` is accepted and never stored or echoed: the client keeps
        its own key. A notification (no ``id``) is applied without a reply."""
        client_id = self._conn_client(connection_id)
        if client_id is None:
            if rpc_id is not None:
                self._rpc_error(connection_id, -32002, "Authentication error: register (and complete "
                                "authentication) before configure_llm", rpc_id)
            return
        try:
            meta = self.store.get(**keys.client(client_id)) or {}
            config = llm_config(params, meta.get("llm") if isinstance(meta.get("llm"), dict) else None)
        except ValueError as exc:
            if rpc_id is not None:
                self._rpc_error(connection_id, -32602, f"Invalid params: {exc}", rpc_id)
            return
        self.store.update(**keys.client(client_id), set_={"llm": config})
        if rpc_id is not None:
            main = config.get("main_model", "")
            applied = {"provider": config.get("provider", ""),
                       "models": {"main": main, "mini": config.get("mini_model") or main,
                                  "nano": config.get("nano_model") or config.get("mini_model") or main}}
            self._reply(connection_id, {"jsonrpc": "2.0", "id": _echo_id(rpc_id), "result": {
                "status": "success", "message": "LLM configuration stored for this client; it is sent as "
                "'model' with each of its evaluations", "appliedConfig": applied}})

    def on_status(self, connection_id: str, message: dict[str, Any]) -> None:
        client_id = self._conn_client(connection_id)
        eval_id = message.get("evaluationId")
        if client_id is None or not isinstance(eval_id, str):
            self._notice(connection_id, "invalid_status", "status needs a registered connection and an evaluationId")
            return
        try:
            progress = float(message.get("progress", 0) or 0)
        except (TypeError, ValueError):
            progress = 0.0
        try:
            ev = self.store.update(**keys.evaluation(client_id, eval_id[:MAX_ECHO]),
                                   set_={"progress": max(0.0, min(1.0, progress)),
                                         "statusMessage": str(message.get("message", ""))[:500],
                                         "clientStatus": str(message.get("status", ""))[:40],
                                         "statusAt": self.clock()},
                                   condition="#st = :running", names=ST, values={":running": "running"})
        except ConditionFailed:
            # progress for an evaluation that is not running (late: nothing to record), or for none at all
            if self.store.get(**keys.evaluation(client_id, eval_id[:MAX_ECHO])) is None:
                self._notice(connection_id, "unknown_request",
                             f"status ignored: no evaluation {_echo(eval_id)} is assigned to this client")
            return
        if float(ev.get("deadline", 0)) <= self.clock() * 1000:
            # the lazy check, from the item the update returned: past its deadline, progress or not
            if self._expire(client_id, ev) is not None:
                self.dispatch(client_id)

    def on_frame_too_big(self, connection_id: str, client_id: str, reason: str = "") -> int:
        """API Gateway closed the connection with 1009: a frame over 32 KB (or a message over 128 KB) came
        in. The client cannot send that result on this connection, so every evaluation in flight on it fails
        now, with the reason, instead of waiting for its deadline (no retry: the same result would hit the same
        limit). Returns how many evaluations failed."""
        meta, evals, _ = self._read(client_id)
        failed = 0
        why = f" ({reason[:100]})" if reason else ""
        err = {"code": -32005, "message": "Resource error: the connection was closed with 1009"
               f"{why} while this evaluation was in flight: a message frame over API Gateway's 32 KB limit "
               "(128 KB per message). Send results over 32 KB as continuation frames of at most 32 KB, or "
               "POST them to /evals/results."}
        for ev in evals:
            if ev.get("status") == "running" and ev.get("sentConn") == connection_id:
                if self._finish_attempt(client_id, {**ev, "attempts": 99}, "failed", {"error": err}, meta):
                    failed += 1
        if failed:
            _log_warning("evaluations failed: their connection was closed for a frame over 32 KB",
                         clientId=client_id, connectionId=connection_id, failed=failed)
        return failed

    # ------------------------------------------------------------------ timers and admin
    def on_deadline(self, client_id: str, eval_id: str, rpc_id: str) -> bool:
        ev = self.store.get(**keys.evaluation(client_id, eval_id))
        if not ev or ev.get("status") != "running" or ev.get("rpcId") != rpc_id:
            return False
        if float(ev.get("deadline", 0)) > self.clock() * 1000:
            return False  # deadline was restarted (reconnection): a newer timer covers it
        expired = self._expire(client_id, ev) is not None
        self.dispatch(client_id)
        return expired

    def trigger(self, client_id: str, eval_id: str | None = None) -> int:
        """Reset finished evaluations (one or all) to pending and dispatch. Returns how many were reset."""
        catalog = self.catalog(client_id)
        meta = self.store.get(**keys.client(client_id))
        if meta is None:
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
                self._create_eval(client_id, definition)
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


LLM_PROVIDERS_MAX = 40
LLM_FIELD_MAX = 200


def disclosure_mode(value: Any) -> str:
    """``AGENTHOST_EVALS_DISCLOSE_SECRET`` read: "registered", "all" (also true/yes/1/on), else "" (off)."""
    if value is True:
        return "all"
    raw = str(value or "").strip().lower()
    if raw == "registered":
        return "registered"
    return "all" if raw in ("all", "true", "1", "yes", "on") else ""


def llm_config(params: Any, current: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stored form of ``configure_llm`` params (``{provider, main_model, mini_model?, nano_model?,
    endpoint?}``); with ``partial: true`` it is merged into ``current``. Raises ValueError naming the field."""
    if not isinstance(params, dict):
        raise ValueError("params must be an object with provider and models")
    partial = params.get("partial") is True
    out: dict[str, Any] = dict(current or {}) if partial else {}
    provider = params.get("provider")
    if provider is not None or not partial:
        if not isinstance(provider, str) or not provider.strip() or len(provider) > LLM_PROVIDERS_MAX:
            raise ValueError(f"provider must be a non-empty string of at most {LLM_PROVIDERS_MAX} characters")
        out["provider"] = provider.strip()
    models = params.get("models")
    if models is None and not partial:
        raise ValueError("models.main is required")
    if models is not None and not isinstance(models, dict):
        raise ValueError("models must be an object {main, mini?, nano?}")
    for name in ("main", "mini", "nano"):
        value = (models or {}).get(name)
        if value is None:
            if name == "main" and not partial:
                raise ValueError("models.main is required")
            continue
        if not isinstance(value, str) or not value.strip() or len(value) > LLM_FIELD_MAX:
            raise ValueError(f"models.{name} must be a non-empty string of at most {LLM_FIELD_MAX} characters")
        out[f"{name}_model"] = value.strip()
    endpoint = params.get("endpoint")
    if endpoint is not None:
        if not isinstance(endpoint, str) or not endpoint.startswith(("http://", "https://")) or \
                len(endpoint) > LLM_FIELD_MAX:
            raise ValueError("endpoint must be an http(s) URL")
        out["endpoint"] = endpoint
    return out


def eval_model(definition_model: Any, llm: dict[str, Any] | None) -> dict[str, Any]:
    """``params.model`` of an ``evaluate`` request, always present as the reference server sends it: the
    definition's own ``model`` (a name means the main model), else the client's ``configure_llm`` settings,
    else ``{}`` (the client keeps its own configuration)."""
    if isinstance(definition_model, dict):
        return dict(definition_model)
    if isinstance(definition_model, str) and definition_model.strip():
        return {"main_model": definition_model.strip()}
    return dict(llm or {})


def _echo_id(rpc_id: Any) -> Any:
    """A request's id for its reply: a short string or a number, else null (see ``Server._rpc_error``)."""
    if (isinstance(rpc_id, str) and len(rpc_id) <= MAX_ECHO) or \
            (isinstance(rpc_id, int | float) and not isinstance(rpc_id, bool)):
        return rpc_id
    return None


def timer_name(rpc_id: str, deadline_ms: float) -> str:
    """The deadline timer's schedule name: unique per JSON-RPC id *and* deadline (at most 64 characters)."""
    return f"evd-{rpc_id}-{int(deadline_ms)}"[:64]


def _echo(value: Any) -> str:
    """A client-supplied value, quoted and cut to :data:`MAX_ECHO` characters, for a reply's message text."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)[:MAX_ECHO + 1]
    return repr(text[:MAX_ECHO]) + ("..." if len(text) > MAX_ECHO else "")


def _log_warning(message: str, **extra: Any) -> None:
    logger.warning(message, extra=extra)


def forget_connection(connection_id: str) -> None:
    """Drop a closed connection from this container's cache."""
    _REGISTERED.pop(connection_id, None)


def _rank(ev: dict[str, Any]) -> int:
    from evals.definitions import PRIORITY_ORDER

    pr = str(((ev.get("def") or {}).get("metadata") or {}).get("priority", "normal")).lower()
    return PRIORITY_ORDER.get(pr, 2)


def _clip(value: Any, limit: int = 300_000) -> Any:
    """Keep stored results under DynamoDB's 400 KB item limit."""
    text = json.dumps(value, default=str)
    if len(text) <= limit:
        return value
    return {"truncated": True, "bytes": len(text), "preview": text[:2000]}


def stored_catalog(store: Store, base: Catalog, client_id: str | None = None) -> Catalog:
    """Packaged definitions plus those uploaded through the admin API (uploads win). With ``client_id``,
    only the uploaded global evaluations and that client's file are read (two requests)."""
    cat = Catalog(dict(base.evaluations), dict(base.clients), list(base.errors))
    if client_id is None:
        items = list(store.query(DEFS_PK))
    else:
        items = list(store.query(DEFS_PK, "DEF#"))
        own = store.get(DEFS_PK, f"CLIENTFILE#{client_id}")
        if own is not None:
            items.append(own)
    for item in items:
        try:
            part = parse_document(item.get("doc"), f"upload:{item['sk']}", str(item.get("category", "default")))
        except DefinitionError as exc:
            cat.errors.extend(exc.errors)
            continue
        cat.merge(part)
    return cat
