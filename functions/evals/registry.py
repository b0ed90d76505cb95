"""Registration of evaluation clients and the connections they are bound to.

``register`` in both shapes (``secretKey`` at once, or ``auth_required`` with an HMAC challenge and then
``auth_verify``), the optional disclosing handshake for unmodified DevTools builds, the client's record and
its assigned evaluations, a re-registration replacing the older connection, and the per-container cache of
which client a registered connection belongs to.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from agenthost import limits
from agenthost.items import keys
from agenthost.store import ConditionFailed
from agenthost.webapp import logger
from evals.common import (
    CLIENT_ID_RE,
    CLIENT_INDEX_PK,
    CONN_TTL_S,
    MAX_ECHO,
    Context,
    disclosure_mode,
    log_warning,
)
from evals.definitions import Catalog, ClientFile, Evaluation
from evals.outbox import Outbox

_REGISTERED: dict[str, str] = {}  # connection id -> client id, for registered connections


def _remember(connection_id: str, client_id: str) -> str:
    if len(_REGISTERED) > 10_000:
        _REGISTERED.clear()
    _REGISTERED[connection_id] = client_id
    return client_id


def forget_connection(connection_id: str) -> None:
    """Drop a closed connection from this container's cache."""
    _REGISTERED.pop(connection_id, None)


class Registry:
    def __init__(self, ctx: Context, out: Outbox):
        self.ctx = ctx
        self.out = out

    def conn_client(self, connection_id: str) -> str | None:
        """The client a registered connection belongs to (None when it has not registered)."""
        # A registered connection never changes client (ids are never reused): cached per container.
        cached = _REGISTERED.get(connection_id)
        if cached is not None:
            return cached
        conn = self.ctx.store.get(**keys.connection(connection_id))
        if not conn or conn.get("state") != "registered":
            return None
        return _remember(connection_id, str(conn["clientId"]))

    def _ack(self, connection_id: str, client_id: str, status: str, message: str, **extra: Any) -> None:
        self.out.reply(connection_id, {"type": "registration_ack", "clientId": client_id, "status": status,
                                       "message": message, **extra})

    def _reject(self, connection_id: str, client_id: str, reason: str, close: bool = True, **extra: Any) -> None:
        self._ack(connection_id, client_id, "rejected", reason, reason=reason, **extra)
        _REGISTERED.pop(connection_id, None)
        if close:
            self.ctx.store.delete(**keys.connection(connection_id))
            self.ctx.close(connection_id)

    def client_secret(self, client_id: str) -> str:
        """The secret a client proves: its client file's ``secret_key``, else the server's secret ("" when
        neither is set: such a server asks no proof)."""
        return self._secret(self.ctx.catalog(client_id).clients.get(client_id))

    def _secret(self, cf: ClientFile | None) -> str:
        return (cf.client.secret_key if cf and cf.client.secret_key else "") or self.ctx.options.secret

    def _capabilities(self, raw: Any) -> dict[str, Any]:
        """What is kept of a client's ``capabilities``: tool names, version, ``maxConcurrency`` clamped to
        1..the server's cap (absent or unreadable: the default); nothing else reaches the table."""
        caps = raw if isinstance(raw, dict) else {}
        tools = caps.get("tools")
        out: dict[str, Any] = {
            "tools": [str(t)[:MAX_ECHO] for t in tools[:50]] if isinstance(tools, list) else [],
            "version": str(caps.get("version", ""))[:40],
        }
        opts = self.ctx.options
        if caps.get("maxConcurrency"):
            out["maxConcurrency"] = limits.bounded_int(caps["maxConcurrency"], 1, opts.max_concurrency,
                                                       opts.default_concurrency)
        return out

    def on_register(self, connection_id: str, message: dict[str, Any]) -> None:
        client_id = message.get("clientId")
        if not isinstance(client_id, str) or not CLIENT_ID_RE.match(client_id):
            self._ack(connection_id, str(client_id)[:MAX_ECHO] if client_id is not None else "", "rejected",
                      "clientId must be a string of letters, digits and . _ : - (a UUID)",
                      reason="invalid clientId")
            return
        caps = self._capabilities(message.get("capabilities"))
        catalog = self.ctx.catalog(client_id)
        cf = catalog.clients.get(client_id)
        meta = self.ctx.store.get(**keys.client(client_id))
        if meta is None and cf is None and not self.ctx.options.auto_create:
            self._reject(connection_id, client_id, "unknown client id (not configured on this server)")
            return
        secret = self._secret(cf)
        offered = message.get("secretKey")
        if not secret:
            self._accept(connection_id, client_id, caps, catalog, meta)
        elif isinstance(offered, str) and offered:
            if hmac.compare_digest(offered.encode(), secret.encode()):
                self._accept(connection_id, client_id, caps, catalog, meta)
            else:
                self._reject(connection_id, client_id, "Invalid secret key")
        else:
            self._challenge(connection_id, client_id, caps, cf, secret)

    def _challenge(self, connection_id: str, client_id: str, caps: dict[str, Any], cf: ClientFile | None,
                   secret: str) -> None:
        """``auth_required`` with a fresh challenge; the pending registration waits for ``auth_verify``."""
        nonce = secrets.token_hex(16)
        disclosed = self._disclosable(client_id, cf, secret)
        self.ctx.store.put({**keys.connection(connection_id), "clientId": client_id, "capabilities": caps,
                            "state": "pending_auth", "nonce": nonce, "disclosed": bool(disclosed)},
                           ttl_s=CONN_TTL_S)
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
        mode = disclosure_mode(self.ctx.options.disclose_secret)
        if mode == "all":
            return secret
        if mode == "registered":
            if cf is not None and cf.client.secret_key:
                return cf.client.secret_key
            log_warning("secret not disclosed: the client id has no client file with its own secret_key",
                        clientId=client_id)
        return ""

    def on_auth_verify(self, connection_id: str, message: dict[str, Any]) -> None:
        client_id = str(message.get("clientId") or "")[:MAX_ECHO]
        conn = self.ctx.store.get(**keys.connection(connection_id))
        if not conn or conn.get("state") != "pending_auth" or conn.get("clientId") != client_id:
            self._reject(connection_id, client_id, "auth_verify without a pending registration for this client",
                         close=False)
            return
        catalog = self.ctx.catalog(client_id)
        secret = self._secret(catalog.clients.get(client_id))
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
        meta = self.ctx.store.get(**keys.client(client_id))
        self._accept(connection_id, client_id, conn.get("capabilities") or {}, catalog, meta)

    def _client_attrs(self, connection_id: str, client_id: str, caps: dict[str, Any],
                      cf: ClientFile | None) -> dict[str, Any]:
        """The client record a registration writes: concurrency clamped by the server's cap and the client
        file's own limit, tools, version, retry policy."""
        opts = self.ctx.options
        wanted = limits.bounded_int(caps.get("maxConcurrency") or opts.default_concurrency, 1,
                                    opts.max_concurrency, opts.default_concurrency)
        if cf and cf.settings.max_concurrent_evaluations:
            wanted = min(wanted, cf.settings.max_concurrent_evaluations)
        tools = [str(t) for t in caps.get("tools", [])] if isinstance(caps.get("tools"), list) else []
        return {"clientId": client_id, "connectionId": connection_id, "ready": False,
                "maxConcurrency": max(1, min(wanted, opts.max_concurrency)), "tools": tools[:50],
                "version": str(caps.get("version", ""))[:40], "registeredAt": self.ctx.store.now(),
                "retryPolicy": cf.settings.retry_policy.model_dump() if cf else {},
                "name": cf.client.name if cf else ""}

    def _accept(self, connection_id: str, client_id: str, caps: dict[str, Any], catalog: Catalog,
                meta: dict[str, Any] | None) -> None:
        store = self.ctx.store
        cf = catalog.clients.get(client_id)
        attrs = self._client_attrs(connection_id, client_id, caps, cf)
        previous = str((meta or {}).get("connectionId") or "")
        if meta is None:
            try:
                store.put({**keys.client(client_id), **attrs, "inflight": 0, "createdAt": attrs["registeredAt"]},
                          if_absent=True)
                store.put({"pk": CLIENT_INDEX_PK, "sk": client_id, "createdAt": attrs["registeredAt"],
                           "auto": cf is None})
            except ConditionFailed:
                store.update(**keys.client(client_id), set_=attrs)
        else:
            store.update(**keys.client(client_id), set_=attrs)
        store.put({**keys.connection(connection_id), "clientId": client_id, "state": "registered"},
                  ttl_s=CONN_TTL_S)
        _remember(connection_id, client_id)  # what conn_client would read next: no read for it in this container
        if previous and previous != connection_id:
            self._replace(previous, client_id)
        existing = {e["evalId"] for e in store.query(f"CLIENT#{client_id}", "EVAL#")}
        new = [self.eval_item(client_id, ev) for ev in catalog.assigned(client_id) if ev.id not in existing]
        if new:  # only ids the query did not find: one batch write (25 per request) instead of a put each
            store.batch_put(new)
        count = len(existing | {e.id for e in catalog.assigned(client_id)})
        self._ack(connection_id, client_id, "accepted", "Client registered successfully", evaluationsCount=count)

    def _replace(self, old_connection: str, client_id: str) -> None:
        """The same client id registered on another connection: the newer registration wins. The older
        connection is told (``replaced`` notice), forgotten and closed; anything it still sends is ignored
        (see :meth:`evals.server.Server.on_rpc`). Its evaluations in flight are sent again on the new
        connection's ``ready``."""
        logger.info("evaluation client registered again: the older connection is replaced and closed",
                    extra={"clientId": client_id, "connectionId": old_connection})
        self.out.notice(old_connection, "replaced", "this client id registered again on another connection: "
                        "this connection is closed and results sent on it are ignored")
        _REGISTERED.pop(old_connection, None)
        self.ctx.store.delete(**keys.connection(old_connection))
        self.ctx.close(old_connection)

    def eval_item(self, client_id: str, ev: Evaluation) -> dict[str, Any]:
        """A new evaluation's item: the definition's snapshot, pending."""
        return {**keys.evaluation(client_id, ev.id), "evalId": ev.id, "name": ev.name, "category": ev.category,
                "tool": ev.tool, "def": ev.doc(), "status": "pending", "attempts": 0, "rpcIds": [],
                "history": [], "createdAt": self.ctx.store.now(), "notBefore": 0}

    def create_eval(self, client_id: str, ev: Evaluation, reset: bool = False) -> None:
        try:
            self.ctx.store.put(self.eval_item(client_id, ev), if_absent=not reset)
        except ConditionFailed:
            pass
