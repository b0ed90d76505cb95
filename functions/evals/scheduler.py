"""The evaluation server's dispatch scheduler: slots, the queue of pending evaluations, deadlines, retries.

State lives in the client's partition (``CLIENT#<id>``): ``META`` holds ``inflight``, the slots in use,
changed only by conditional atomic updates so ``maxConcurrency`` holds across concurrent invocations; each
``EVAL#<eval>`` holds its status (pending, running, completed, failed, timeout), current JSON-RPC id and
deadline. One query of the partition reads a client and all its evaluations; dispatch and the lazy deadline
check start from that read. Deadlines are one-time timers (``evd-``), retry backoffs and resends are
``evr-``/``evs-`` timers that invoke a dispatch: no invocation ever waits for a client.

A write whose outcome is unknown (every answer lost after DynamoDB may have applied it: a read timeout under
load, a dropped connection, a 5xx, no time left) ends the invocation's dispatch: the scheduler schedules a
*recovery*, an ``evs-`` dispatch a few seconds later (:meth:`Scheduler.recover_later`, backing off while
the database keeps failing). It reads the client afresh, so a slot counter left off by the lost write is
recounted, and when the lost write was on an evaluation's way out (marked running, then never posted) it
names that attempt, which is then sent under the same JSON-RPC id with its deadline restarted. A client's
answer that could not be recorded rides on the recovery and is recorded first. Such an
attempt also gets its deadline timer at once, so it ends with the protocol's timeout even if every
recovery fails.
"""

from __future__ import annotations

import uuid
from typing import Any

from agenthost import errors
from agenthost.items import keys
from agenthost.store import ConditionFailed
from evals import connections
from evals.client_llm import eval_model
from evals.common import ST, Context, log_warning
from evals.definitions import PRIORITY_ORDER, Evaluation
from evals.outbox import Outbox

SEND_RETRY_S = 2.0  # after a post whose delivery is unknown, send the evaluation again this much later
#: after a write whose outcome is unknown: recover ``SEND_RETRY_S`` later, doubling while the database keeps
#: failing, at most this long between tries and this many tries (deadline timers and reads still end the rest)
RECOVER_MAX_S = 60.0
RECOVER_TRIES = 8

Loaded = tuple[dict[str, Any] | None, list[dict[str, Any]]]


def timer_name(rpc_id: str, deadline_ms: float) -> str:
    """The deadline timer's schedule name: unique per JSON-RPC id *and* deadline (at most 64 characters)."""
    return f"evd-{rpc_id}-{int(deadline_ms)}"[:64]


class Unsent(errors.Unavailable):
    """A write on an evaluation's way to the client has no known outcome: the attempt ``rpc_id`` may be marked
    running though it was never posted (or its delivery is unknown)."""

    def __init__(self, eval_id: str, rpc_id: str):
        super().__init__(f"evaluation {eval_id} attempt {rpc_id} not posted: a write's outcome is unknown")
        self.eval_id, self.rpc_id = eval_id, rpc_id


def _rank(ev: dict[str, Any]) -> int:
    pr = str(((ev.get("def") or {}).get("metadata") or {}).get("priority", "normal")).lower()
    return PRIORITY_ORDER.get(pr, 2)


class Scheduler:
    def __init__(self, ctx: Context, out: Outbox):
        self.ctx = ctx
        self.out = out

    # ------------------------------------------------------------------ reading, with the lazy deadline check
    def load(self, client_id: str, dispatch: bool = True) -> Loaded:
        """The client and its evaluations, with overdue deadlines enforced (the lazy check). When that
        expired something, the freed slots are used at once (``dispatch``; callers that dispatch anyway pass
        False) and the state is returned as it is after that dispatch."""
        meta, evals, expired = self.read(client_id)
        if expired and dispatch:
            self.dispatch(client_id, (meta, evals))
            meta, evals, _ = self.read(client_id)
        return meta, evals

    def read(self, client_id: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]], int]:
        """One query of the client's partition, overdue evaluations expired; also returns how many were."""
        store = self.ctx.store
        meta, evals = None, []
        for item in store.query(f"CLIENT#{client_id}"):
            if item["sk"] == "META":
                meta = item
            elif item["sk"].startswith("EVAL#"):
                evals.append(item)
        now_ms = self.ctx.clock() * 1000
        expired = 0
        for i, ev in enumerate(evals):
            if ev.get("status") == "running" and float(ev.get("deadline", 0)) <= now_ms:
                updated = self.expire(client_id, ev, meta)
                if updated is not None:
                    evals[i] = updated
                    expired += 1
        if expired:  # slots were released: read the counter again
            meta = store.get(**keys.client(client_id))
        return meta, evals, expired

    # ------------------------------------------------------------------ slots
    def _release(self, client_id: str) -> None:
        """Give a slot back. The write carries a fresh token and refuses one it already carries, so a resent
        attempt of a release that had landed (see :meth:`guarded`) is not applied twice."""
        token = uuid.uuid4().hex
        try:
            self.ctx.store.update(**keys.client(client_id), add={"inflight": -1}, set_={"releaseId": token},
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
            self.ctx.store.update(**keys.client(client_id), add={"inflight": 1}, set_={"claimId": token},
                                  condition="inflight < :max AND (attribute_not_exists(claimId) OR claimId <> :t)",
                                  values={":max": max_c, ":t": token})
            return True
        except ConditionFailed as refused:  # it carries the item as stored: no second read
            meta = refused.item
            if meta is not None and meta.get("claimId") == token:
                log_warning("slot claim refused on a resent request that had already applied it: counted as "
                            "applied", clientId=client_id)
                return True
            return False

    def _set_client_if(self, client_id: str, sets: dict[str, Any], condition: str, values: dict[str, Any]) -> bool:
        """Set ``sets`` on the client's record if ``condition`` holds; False when it does not."""
        try:
            self.ctx.store.update(**keys.client(client_id), set_=sets, condition=condition, values=values)
            return True
        except ConditionFailed:
            return False

    def _set_inflight(self, client_id: str, old: int, new: int) -> bool:
        """Set the slot counter to ``new`` if it still reads ``old``; False when it moved meanwhile."""
        return self._set_client_if(client_id, {"inflight": new}, "inflight = :old", {":old": old})

    # ------------------------------------------------------------------ attempts: finishing, retrying, expiring
    @staticmethod
    def _retry_delay_s(meta: dict[str, Any] | None, attempts: int) -> float:
        rp = (meta or {}).get("retryPolicy") or {}
        initial = float(rp.get("initial_delay", 0) or 0) / 1000
        mult = float(rp.get("backoff_multiplier", 2) or 2)
        return initial * (mult ** max(0, attempts - 1)) if initial else 0.0

    @staticmethod
    def _max_retries(ev: dict[str, Any], meta: dict[str, Any] | None) -> int:
        rp = (meta or {}).get("retryPolicy") or {}
        if rp.get("max_retries") is not None:
            return int(rp["max_retries"])
        return int(((ev.get("def") or {}).get("metadata") or {}).get("retries", 0) or 0)

    def finish_attempt(self, client_id: str, ev: dict[str, Any], outcome: str, fields: dict[str, Any],
                       meta: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Close the running attempt (conditional on its rpc id). Retries when allowed and not a success."""
        store, clock = self.ctx.store, self.ctx.clock
        rpc = ev.get("rpcId")
        attempts = int(ev.get("attempts", 0))
        history = list(ev.get("history", []))[-20:] + [{"rpcId": rpc, "outcome": outcome, "at": store.now()}]
        retry = outcome != "completed" and attempts <= self._max_retries(ev, meta)
        delay = self._retry_delay_s(meta, attempts) if retry else 0.0
        sets: dict[str, Any] = {**fields, "history": history, "finishedAt": store.now()}
        if retry:
            sets.update({"status": "pending", "notBefore": clock() + delay, "lastOutcome": outcome})
        else:
            sets["status"] = outcome
        updated = self.guarded(client_id, ev["evalId"], "finishId", sets, "#st = :running AND rpcId = :rpc",
                               {":running": "running", ":rpc": rpc})
        if updated is None:
            return None
        self._release(client_id)
        if retry and delay > 0:
            self.ctx.timers.schedule(f"evr-{uuid.uuid4()}", clock() + delay,
                                     {"agenthost": "dispatch", "clientId": client_id})
        return updated

    def guarded(self, client_id: str, eval_id: str, mark: str, sets: dict[str, Any], condition: str,
                values: dict[str, Any]) -> dict[str, Any] | None:
        """A conditional write to an evaluation (``condition`` over ``#st``) that carries a fresh token under
        ``mark``. The item as stored after it, or None when it did not apply.

        A refusal is not always someone else's write: the SDK resends a request whose answer timed out or
        failed (throttling, 5xx), the first attempt may already have been applied, and the resent one then
        fails its condition against our own write. Taken for a refusal, that left an evaluation marked
        running that was never posted (its slot given back), or a finished one whose slot stayed held. So a
        refusal looks at the stored item it brings back: carrying our token, the write did apply."""
        token = uuid.uuid4().hex
        key = keys.evaluation(client_id, eval_id)
        try:
            return self.ctx.store.update(**key, set_={**sets, mark: token}, condition=condition, names=ST,
                                         values=values)
        except ConditionFailed as exc:
            item = exc.item  # the item as stored when the condition refused the write: no second read
            if item is not None and item.get(mark) == token:
                log_warning("conditional write refused on a resent request that had already applied it: "
                            "counted as applied", clientId=client_id, evalId=eval_id, write=mark,
                            retried=bool(getattr(exc, "retried", False)))
                return item
            return None

    def expire(self, client_id: str, ev: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any] | None:
        timeout_ms = int((ev.get("def") or {}).get("timeout", 30000))
        err = {"code": -32001, "message": f"Evaluation exceeded its timeout of {timeout_ms} ms"}
        if meta is None:
            meta = self.ctx.store.get(**keys.client(client_id))
        return self.finish_attempt(client_id, ev, "timeout", {"error": err}, meta)

    # ------------------------------------------------------------------ dispatch
    def dispatch(self, client_id: str, loaded: Loaded | None = None, fresh: bool = True,
                 recovery: dict[str, Any] | None = None) -> int:
        """Send evaluations up to the client's free slots. Returns how many were sent. ``loaded`` is a
        :meth:`load` result the caller already has (saves a query); ``fresh=False`` when the caller derived it
        from an earlier read and its own writes (other invocations may have moved on since). ``recovery``: the
        payload of a recovery timer (see :meth:`recover_later`). A write whose outcome is unknown ends the
        dispatch and schedules a recovery."""
        recovery = recovery or {}
        try:
            ready_conn = recovery.get("readyConn")
            if ready_conn:  # the ready whose write was lost: applied now (once more, or for the first time)
                self.mark_ready(client_id, str(ready_conn))
            return self._dispatch(client_id, loaded, fresh, recovery.get("unsent"))
        except Unsent as exc:
            self.recover_later(client_id, exc, recovery, unsent={"evalId": exc.eval_id, "rpcId": exc.rpc_id})
        except errors.Unavailable as exc:
            self.recover_later(client_id, exc, recovery, unsent=recovery.get("unsent"))
        return 0

    def mark_ready(self, client_id: str, connection_id: str) -> bool:
        """The client is ready on ``connection_id``; False when it is bound to another connection."""
        return self._set_client_if(client_id, {"ready": True}, "connectionId = :c", {":c": connection_id})

    def recover_later(self, client_id: str, exc: Exception, recovery: dict[str, Any] | None = None,
                      unsent: dict[str, Any] | None = None, ready_conn: str = "",
                      response: dict[str, Any] | None = None) -> bool:
        """A write's outcome is unknown (``exc``): schedule a recovery dispatch (``evs-``), which reads the client
        afresh (recounting its slots), applies the ``ready`` of ``ready_conn`` again, sends the ``unsent``
        attempt (``{evalId, rpcId}``) under its own id if it is marked running, then dispatches. ``recovery``
        is the payload of the recovery that failed, if this is one: the next waits twice as long, and after
        ``RECOVER_TRIES`` none is scheduled (deadline timers and reads still end what is left). ``response``: a
        client's answer that may not have been recorded (``{connectionId, message}``), carried to the recovery,
        which records it first (:meth:`evals.server.Server.on_dispatch`)."""
        tries = int((recovery or {}).get("tries", 0))
        ready_conn = ready_conn or str((recovery or {}).get("readyConn") or "")
        response = response or (recovery or {}).get("response")
        if tries >= RECOVER_TRIES:
            log_warning("database still failing: no more recovery dispatches", clientId=client_id,
                        error=type(exc).__name__)
            return False
        delay = min(SEND_RETRY_S * 2 ** tries, RECOVER_MAX_S)
        payload: dict[str, Any] = {"agenthost": "dispatch", "clientId": client_id, "tries": tries + 1}
        if unsent:
            payload["unsent"] = {"evalId": str(unsent["evalId"]), "rpcId": str(unsent["rpcId"])}
        if ready_conn:
            payload["readyConn"] = ready_conn
        if response:
            payload["response"] = response
        log_warning("a database write's outcome is unknown: recovering shortly", clientId=client_id,
                    error=type(exc).__name__, inSeconds=delay, unsent=bool(unsent))
        return self.ctx.timers.schedule(f"evs-{uuid.uuid4()}", self.ctx.clock() + delay, payload)

    def _dispatch(self, client_id: str, loaded: Loaded | None, fresh: bool, unsent: dict[str, Any] | None) -> int:
        meta, evals = loaded if loaded is not None else self.load(client_id, dispatch=False)
        if not meta:
            return 0
        running = [e for e in evals if e.get("status") == "running"]
        inflight = int(meta.get("inflight", 0))
        idle = not any(e.get("status") == "pending" for e in evals)
        # Self-heal a counter left behind by a crashed invocation, from a view read as one query. A derived
        # view may still count an evaluation another invocation has finished since: setting the counter from
        # it would hold a slot for good. (Should it have moved meanwhile, the conditional claims still hold.)
        if fresh and inflight != len(running) and self._set_inflight(client_id, inflight, len(running)):
            inflight = len(running)
        if not meta.get("ready") or not meta.get("connectionId"):
            if idle:  # the client's last result is often handled after its $disconnect
                self._heal_idle(client_id)
            return 0
        conn = str(meta["connectionId"])
        llm = meta.get("llm") if isinstance(meta.get("llm"), dict) else None  # the client's configure_llm
        unsent_ids = (unsent or {}).get("evalId"), (unsent or {}).get("rpcId")
        for ev in running:  # reconnection, or an attempt never posted: re-send it (same id) on this connection
            if ev.get("sentConn") != conn or (ev.get("evalId"), ev.get("rpcId")) == unsent_ids:
                self._send_eval(client_id, conn, ev, ev["rpcId"], resend=True, llm=llm)
        max_c = int(meta.get("maxConcurrency", self.ctx.options.default_concurrency))
        sent = self._send_pending(client_id, conn, evals, inflight, max_c, llm)
        if idle and sent == 0:
            # Nothing left to send: recount from a fresh read (one query, only for a batch's last results),
            # so a slot leaked by a twice-applied claim or a stale view never stays held.
            self._heal_idle(client_id)
        return sent

    def _send_pending(self, client_id: str, conn: str, evals: list[dict[str, Any]], inflight: int, max_c: int,
                      llm: dict[str, Any] | None) -> int:
        """Claim a slot and send the next pending evaluation (by priority, then age) while slots are free.
        Returns how many were sent."""
        now = self.ctx.clock()
        pending = [e for e in evals if e.get("status") == "pending" and float(e.get("notBefore", 0)) <= now]
        pending.sort(key=lambda e: (_rank(e), int(e.get("createdAt", 0)), e["evalId"]))
        sent = 0
        for ev in pending:
            if inflight >= max_c or not self._claim(client_id, max_c):
                break
            inflight += 1
            outcome = self._send_eval(client_id, conn, ev, str(uuid.uuid4()), llm=llm)
            if outcome in ("gone", "failed"):
                break
            if outcome == "sent":
                sent += 1
            else:
                inflight -= 1  # the slot was given back (taken by someone else, or failed to send)
        return sent

    def _heal_idle(self, client_id: str) -> None:
        """Nothing is left to send but the counter says more slots are taken than evaluations run: a slot
        leaked (a claim retried after a timeout is applied twice), or two results finished at once and each saw
        the other still running, so neither healed. Count again from a fresh read. With nothing pending no one
        can claim meanwhile, and a release racing this one stops at zero (should the counter move meanwhile,
        a later invocation sees the new value)."""
        meta, evals, _ = self.read(client_id)
        if meta is None or any(e.get("status") == "pending" for e in evals):
            return
        running = sum(1 for e in evals if e.get("status") == "running")
        held = int(meta.get("inflight", 0))
        if held > running:
            self._set_inflight(client_id, held, running)

    # ------------------------------------------------------------------ sending one evaluation
    def _send_eval(self, client_id: str, conn: str, ev: dict[str, Any], rpc: str, resend: bool = False,
                   llm: dict[str, Any] | None = None) -> str:
        """``sent``, ``released`` (slot given back), ``gone`` (the connection is closed) or ``failed`` (the post
        failed: the evaluation is pending again and a dispatch is scheduled)."""
        d = ev.get("def") or {}
        timeout_ms = int(d.get("timeout", 30000))
        deadline = self.ctx.clock() * 1000 + timeout_ms
        try:
            marked = self._mark_running(client_id, conn, ev, rpc, deadline, resend)
        except errors.Unavailable as exc:
            # Perhaps marked running, never posted: its deadline timer (the attempt ends with the protocol's
            # timeout even if nothing else recovers it), and a recovery that sends it under this id.
            self._deadline_timer(client_id, ev["evalId"], rpc, deadline)
            raise Unsent(ev["evalId"], rpc) from exc
        if not marked:
            return "released"
        # The deadline timer before the post: an invocation that ends between the two (its time spent) still
        # leaves the attempt one. A post that fails puts the evaluation back, and the timer then finds nothing.
        self._deadline_timer(client_id, ev["evalId"], rpc, deadline)
        ev = {**ev, "rpcId": rpc, "attempts": int(ev.get("attempts", 0)) + (0 if resend else 1)}
        try:
            return self._post(client_id, conn, ev, rpc, llm)
        except errors.Unavailable as exc:  # a write after a post that did not go out: send it again later
            raise Unsent(ev["evalId"], rpc) from exc

    def _post(self, client_id: str, conn: str, ev: dict[str, Any], rpc: str, llm: dict[str, Any] | None) -> str:
        """Post the attempt ``rpc`` marked running (see :meth:`_send_eval`)."""
        d = ev.get("def") or {}
        timeout_ms = int(d.get("timeout", 30000))
        try:
            ok = self._post_evaluate(conn, d, rpc, timeout_ms, llm)
        except connections.TooLarge as exc:
            err = {"code": -32005, "message": "evaluate request not sent: it exceeds API Gateway's 128 KB "
                   f"WebSocket message limit ({exc})"}
            self.finish_attempt(client_id, {**ev, "attempts": 99}, "failed", {"error": err})
            return "released"
        except connections.SendFailed as exc:
            # Delivery unknown (timeout, throttling): take the evaluation back and send it again shortly with a
            # new id. Should the first copy have arrived after all, its answer is recorded as late.
            log_warning("evaluate not delivered; retrying shortly", error=str(exc))
            retry_at = self.ctx.clock() + SEND_RETRY_S
            self._put_back(client_id, ev["evalId"], rpc, {"notBefore": retry_at})
            self.ctx.timers.schedule(f"evs-{uuid.uuid4()}", retry_at, {"agenthost": "dispatch", "clientId": client_id})
            return "failed"
        if not ok:
            # the connection is gone: put the evaluation back and wait for the client to come back
            self._put_back(client_id, ev["evalId"], rpc, {})
            self._set_client_if(client_id, {"ready": False}, "connectionId = :c", {":c": conn})
            return "gone"
        return "sent"

    def _deadline_timer(self, client_id: str, eval_id: str, rpc: str, deadline: float) -> None:
        # One timer per deadline: a re-send restarts the deadline under the same JSON-RPC id, and Scheduler
        # refuses a second schedule with a name still in use, so the name carries the deadline too. The
        # earlier timer then finds the deadline moved and does nothing.
        self.ctx.timers.schedule(timer_name(rpc, deadline), deadline / 1000,
                                 {"agenthost": "deadline", "clientId": client_id, "evalId": eval_id, "rpcId": rpc})

    def _mark_running(self, client_id: str, conn: str, ev: dict[str, Any], rpc: str, deadline: float,
                      resend: bool) -> bool:
        """Mark the evaluation running under ``rpc`` before posting it (a resend restarts the deadline of the
        attempt in flight). False when it was not ours to send: a fresh attempt's claimed slot is given back."""
        if resend:
            return self.guarded(client_id, ev["evalId"], "sendId",
                                {"status": "running", "deadline": deadline, "sentConn": conn},
                                "#st = :running AND rpcId = :rpc", {":running": "running", ":rpc": rpc}) is not None
        claimed = self.guarded(client_id, ev["evalId"], "sendId",
                               {"status": "running", "rpcId": rpc, "deadline": deadline,
                                "sentConn": conn, "sentAt": self.ctx.clock(),
                                "rpcIds": (list(ev.get("rpcIds", [])) + [rpc])[-20:],
                                "attempts": int(ev.get("attempts", 0)) + 1,
                                "progress": 0, "statusMessage": ""},
                               "#st = :pending", {":pending": "pending"})
        if claimed is None:
            self._release(client_id)  # somebody else took it; keep dispatching the rest
            return False
        return True

    def _post_evaluate(self, conn: str, d: dict[str, Any], rpc: str, timeout_ms: int,
                       llm: dict[str, Any] | None) -> bool:
        """The ``evaluate`` request for definition ``d``, posted (see :meth:`Outbox.send`)."""
        evaluation = Evaluation.model_validate(d)
        params: dict[str, Any] = {"evaluationId": evaluation.id, "name": evaluation.name,
                                  "url": evaluation.url(self.ctx.options.pages_url), "tool": evaluation.tool,
                                  "input": evaluation.input, "timeout": timeout_ms,
                                  "model": eval_model(evaluation.model, llm),
                                  "metadata": evaluation.metadata.model_dump(mode="json", exclude_none=True)}
        return self.out.send(conn, {"jsonrpc": "2.0", "method": "evaluate", "params": params, "id": rpc})

    def _put_back(self, client_id: str, eval_id: str, rpc: str, extra: dict[str, Any]) -> None:
        """An attempt that was not delivered goes back to pending (if still running under ``rpc``) and gives
        its slot back."""
        back = {"status": "pending", "rpcId": "", "sentConn": "", **extra}
        if self.guarded(client_id, eval_id, "backId", back, "#st = :running AND rpcId = :rpc",
                        {":running": "running", ":rpc": rpc}) is not None:
            self._release(client_id)
