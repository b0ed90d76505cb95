"""What evaluation clients answer: results and errors (over the WebSocket or ``POST /evals/results``), judged
and recorded, answers after their attempt kept as ``late``, progress (``status``), and a 1009 close failing
what was in flight on the connection. Each recorded answer frees its slot and the scheduler sends the next."""

from __future__ import annotations

from typing import Any

from agenthost.items import keys
from agenthost.store import ConditionFailed
from evals.common import MAX_ECHO, ST, Context, clip, echo, log_warning
from evals.definitions import Evaluation
from evals.judging import judge
from evals.outbox import Outbox
from evals.registry import Registry
from evals.scheduler import Scheduler


class Results:
    def __init__(self, ctx: Context, out: Outbox, registry: Registry, scheduler: Scheduler):
        self.ctx = ctx
        self.out = out
        self.registry = registry
        self.scheduler = scheduler

    def record_response(self, client_id: str, message: dict[str, Any], meta: dict[str, Any] | None,
                        evals: list[dict[str, Any]], expired: int) -> tuple[dict[str, Any] | None, bool]:
        """Record a client's JSON-RPC response (over the WebSocket or ``POST /evals/results``) read with
        ``meta``/``evals``, then dispatch. Returns the evaluation it answers as stored after recording (None
        when no evaluation was ever sent with its id) and whether it came late (kept apart, not counted)."""
        rpc_id = message.get("id")
        ev = next((e for e in evals if rpc_id in (e.get("rpcIds") or [])), None)
        if ev is None:
            if expired:
                self.scheduler.dispatch(client_id, (meta, evals))
            return None, False
        if ev.get("status") == "running" and ev.get("rpcId") == rpc_id:
            done = self._finish(client_id, ev, message, meta)
            if done is not None and meta is not None:
                # continue from what we know instead of reading the client again
                evals = [done if e["evalId"] == ev["evalId"] else e for e in evals]
                meta = {**meta, "inflight": max(0, int(meta.get("inflight", 0)) - 1)}
                self.scheduler.dispatch(client_id, (meta, evals), fresh=False)
                return done, False
            if done is not None:
                self.scheduler.dispatch(client_id)
                return done, False
        return self._record_late(client_id, ev, message), True

    def _finish(self, client_id: str, ev: dict[str, Any], message: dict[str, Any],
                meta: dict[str, Any] | None) -> dict[str, Any] | None:
        """Close the running attempt with the client's error, or its result as judged. None when the attempt
        was closed meanwhile (its deadline, another invocation)."""
        error = message.get("error")
        if error is not None:
            err = error if isinstance(error, dict) else {"code": -32000, "message": str(error)}
            return self.scheduler.finish_attempt(client_id, ev, "failed", {"error": err, "result": None}, meta)
        result = message.get("result")
        res = result if isinstance(result, dict) else {"status": "success", "output": result}
        verdict = judge(Evaluation.model_validate(ev["def"]), res, js_runner=self.ctx.js_runner,
                        llm_judge=self.ctx.llm_judge, pages_url=self.ctx.options.pages_url)
        duration_ms = int((self.ctx.clock() - float(ev.get("sentAt", 0))) * 1000)
        return self.scheduler.finish_attempt(
            client_id, ev, "completed",
            {"result": clip(res), "verdict": verdict, "passed": verdict["passed"], "progress": 1.0,
             "score": verdict["score"], "error": None, "durationMs": duration_ms},
            meta)

    def _record_late(self, client_id: str, ev: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        """An answer for an attempt that is no longer the running one: kept apart as ``late``, not counted."""
        result = message.get("result")
        late = list(ev.get("late", []))[-10:] + [{"rpcId": message.get("id"), "at": self.ctx.store.now(),
                                                   "result": clip(result) if result is not None else None,
                                                   "error": message.get("error")}]
        stored = self.ctx.store.update(**keys.evaluation(client_id, ev["evalId"]), set_={"late": late})
        self.scheduler.dispatch(client_id)
        return stored or {**ev, "late": late}

    def upload_result(self, client_id: str, message: Any) -> dict[str, Any]:
        """A result sent over HTTP (``POST /evals/results``, already authenticated): recorded exactly as if it
        had come over the client's connection. Raises ValueError (bad body) or LookupError (unknown client or
        id). Returns ``{evaluationId, status, late}``."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or \
                not isinstance(message.get("id"), str) or ("result" in message) == ("error" in message):
            raise ValueError("the body must be the JSON-RPC response you would send on the WebSocket: "
                             "jsonrpc '2.0', the evaluate request's string id, and result or error")
        meta, evals, expired = self.scheduler.read(client_id)
        if meta is None:
            raise LookupError(f"unknown client {echo(client_id)}")
        ev, late = self.record_response(client_id, message, meta, evals, expired)
        if ev is None:
            raise LookupError(f"no evaluation was sent to this client with id {echo(message['id'])}")
        return {"evaluationId": ev["evalId"], "status": ev.get("status"), "late": late}

    def on_status(self, connection_id: str, message: dict[str, Any]) -> None:
        """A client's progress on a running evaluation (late progress is dropped)."""
        client_id = self.registry.conn_client(connection_id)
        eval_id = message.get("evaluationId")
        if client_id is None or not isinstance(eval_id, str):
            self.out.notice(connection_id, "invalid_status", "status needs a registered connection and an evaluationId")
            return
        try:
            progress = float(message.get("progress", 0) or 0)
        except (TypeError, ValueError):
            progress = 0.0
        key = keys.evaluation(client_id, eval_id[:MAX_ECHO])
        try:
            ev = self.ctx.store.update(**key, set_={"progress": max(0.0, min(1.0, progress)),
                                                    "statusMessage": str(message.get("message", ""))[:500],
                                                    "clientStatus": str(message.get("status", ""))[:40],
                                                    "statusAt": self.ctx.clock()},
                                       condition="#st = :running", names=ST, values={":running": "running"})
        except ConditionFailed:
            # progress for an evaluation that is not running (late: nothing to record), or for none at all
            if self.ctx.store.get(**key) is None:
                self.out.notice(connection_id, "unknown_request",
                                f"status ignored: no evaluation {echo(eval_id)} is assigned to this client")
            return
        if float(ev.get("deadline", 0)) <= self.ctx.clock() * 1000:
            # the lazy check, from the item the update returned: past its deadline, progress or not
            if self.scheduler.expire(client_id, ev) is not None:
                self.scheduler.dispatch(client_id)

    def on_frame_too_big(self, connection_id: str, client_id: str, reason: str = "") -> int:
        """API Gateway closed the connection with 1009: a frame over 32 KB (or a message over 128 KB) came
        in. The client cannot send that result on this connection, so every evaluation in flight on it fails
        now, with the reason, instead of waiting for its deadline (no retry: the same result would hit the same
        limit). Returns how many evaluations failed."""
        meta, evals, _ = self.scheduler.read(client_id)
        failed = 0
        why = f" ({reason[:100]})" if reason else ""
        err = {"code": -32005, "message": "Resource error: the connection was closed with 1009"
               f"{why} while this evaluation was in flight: a message frame over API Gateway's 32 KB limit "
               "(128 KB per message). Send results over 32 KB as continuation frames of at most 32 KB, or "
               "POST them to /evals/results."}
        for ev in evals:
            if ev.get("status") == "running" and ev.get("sentConn") == connection_id:
                if self.scheduler.finish_attempt(client_id, {**ev, "attempts": 99}, "failed", {"error": err}, meta):
                    failed += 1
        if failed:
            log_warning("evaluations failed: their connection was closed for a frame over 32 KB",
                        clientId=client_id, connectionId=connection_id, failed=failed)
        return failed
