"""The run engine: the status machine, one decision per ``/step``, careful-mode approvals, loop nudges,
reflections and ``maxSteps``, over state in DynamoDB (:mod:`runs.repo`); loading and committing the run, masked
and kept for a retry, is :mod:`runs.engine_base`.

Status machine::

    created --step--> running | waiting_user | completed | error
    running --step--> running | waiting_user | completed | error
    waiting_user --answer(approved)--> running      --answer(declined)--> cancelled
    created | running | waiting_user --cancel--> cancelled
    completed | error | cancelled: end states; nothing but GET is accepted (a second cancel is a 409 too).

Anything else is a 409 that says what the run is waiting for. A retried identical request (same
operation and same body as the last one) returns the stored answer instead of advancing again; when two
different requests race, the optimistic ``version`` lets one win and the other gets a 409.

Careful mode: a risky action waits for the user's approval, which covers one transaction
(:mod:`runs.careful`).

The current snapshot lives on the run's ``META`` item (zlib-compressed JSON, secrets redacted by the
model); ``STEP`` items are small, so ``GET`` is one query over small items.

Secrets (:mod:`runs.masking`): every value the run typed into a secret field, or found in one, becomes a
secret of the run (kept on ``META`` as salted fingerprints only). Each step masks them, and every card
number, in the snapshot before the brain sees it, and in everything written (``META``, the ``STEP`` item,
the stored answer a retry replays) or answered; ``GET`` masks its whole answer again. The task and the
user's answers are kept as given (the policy reads them every step); ``GET`` shows them masked. A retried
``/step`` whose answer typed a secret replays as ``observe``: the secret is not kept to replay it.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from agenthost.store import VersionConflict
from agenthost.webapp import ApiError
from runs import careful, reflect
from runs.brain import StepContext, ToolCall
from runs.engine_base import UNMASKED, EngineBase, _masked_parameters, _masked_snapshot, _state, request_hash
from runs.masking import RunSecrets
from runs.models import (
    END_STATES,
    AnswerRequest,
    PageSnapshot,
    StartRequest,
    StepRequest,
    ToolResult,
    pack_snapshot,
    page_fingerprint,
    unpack_snapshot,
)
from runs.repo import RECENT

#: a (tool, target, url, page) repeated this many times before gets a nudge into the next decision
LOOP_NUDGE = 2
#: ... and ends the run when it is still chosen after this many repeats despite nudges
LOOP_STOP = 4
LOOP_WINDOW = 10
MAX_REFLECTIONS = 40
RISKY_TOOLS = frozenset({"click", "type", "press", "navigate"})
MAX_STEPS_REACHED = "Maximum steps reached"


class RunEngine(EngineBase):
    # ------------------------------------------------------------------ operations

    def start(self, req: StartRequest) -> dict[str, Any]:
        now = self.clock_ms()
        run_id = str(uuid.uuid4())
        sites = careful.task_sites(req.task, req.startUrl)
        meta: dict[str, Any] = {
            "runId": run_id, "task": req.task, "mode": req.mode, "status": "created",
            "current_step": 0, "max_steps": req.maxSteps or self.default_max_steps,
            "created_at": now, "updated_at": now, "expires_at": self.repo.now() + self.ttl_s,
            "browser": req.browser, "recent": [], "reflections": [], "approvals": [], "answers": [],
            "pending": None, "loop": {"nudges": 0}, "last": None,
            # sites credentials may go to without asking: the task's, then the first page's (see _advance)
            "sites": sites, "seeded": False,
        }
        if req.startUrl:
            meta["start_url"] = req.startUrl
        self.repo.create(meta)
        return {"success": True, "runId": run_id, "state": _state(meta)}

    def step(self, run_id: str, req: StepRequest, *, driver: str = "extension") -> dict[str, Any]:
        body = req.model_dump(mode="json", exclude_none=True)
        rhash = request_hash("step", body)
        meta = self._load(run_id)
        replay = self._replay(meta, rhash)
        if replay is not None:
            return replay
        if meta["status"] in END_STATES:
            raise ApiError(409, f"run {run_id} is {meta['status']}; it takes no more steps")
        if meta["status"] == "waiting_user":
            raise ApiError(409, f"run {run_id} is waiting for the user's answer: "
                                f"POST /agent/run/{run_id}/answer before the next step")
        if meta.get("browser") == "hosted" and driver != "hosted":
            raise ApiError(409, f"run {run_id} drives its own hosted browser; follow it with GET /agent/run/{run_id}")
        for entry in meta["recent"]:
            if entry.get("hash") == rhash:
                raise ApiError(409, f"this /step was already processed as step {entry['step']}; "
                                    f"the run is now at step {meta['current_step']}")
        before = copy.deepcopy(meta)
        secrets = RunSecrets(meta.get("secrets"))
        response = self._advance(meta, req, rhash, secrets)
        return self._commit(before, meta, response, rhash, secrets)

    def answer(self, run_id: str, req: AnswerRequest) -> dict[str, Any]:
        rhash = request_hash("answer", req.model_dump(mode="json"))
        meta = self._load(run_id)
        replay = self._replay(meta, rhash)
        if replay is not None:
            return replay
        if meta["status"] != "waiting_user":
            raise ApiError(409, f"run {run_id} is {meta['status']}, not waiting for an answer")
        before = copy.deepcopy(meta)
        now = self.clock_ms()
        pending = meta.get("pending") or {}
        meta["pending"] = None
        meta["updated_at"] = now
        if not req.approved:
            meta["status"] = "cancelled"
            meta["declined"] = True
            meta["error"] = "Cancelled: the user declined" + (f" ({pending['summary']})" if pending.get("summary")
                                                                else "")
            response = self._response(meta, "error", error=meta["error"])
        else:
            if req.answer:
                meta["answers"] = (meta["answers"] + [req.answer[:500]])[-5:]
            if pending.get("kind") == "risk":
                approval = {**pending["risk"], "granted": meta["current_step"], "spent": None}
                meta["approvals"] = (meta.get("approvals", []) + [approval])[-20:]
                if approval.get("category") == "credential" and approval.get("domain"):
                    careful.trust_site(meta, approval["domain"])
            if meta["current_step"] >= meta["max_steps"]:
                self._end(meta, "error", error=MAX_STEPS_REACHED)
                response = self._response(meta, "error", error=MAX_STEPS_REACHED)
            else:
                meta["status"] = "running"
                n = meta["current_step"] = meta["current_step"] + 1
                message = "User approved" + (f": {req.answer[:200]}" if req.answer else "")
                if meta["recent"] and meta["recent"][-1].get("result") is None:  # what came of the question
                    meta["recent"][-1]["result"] = ToolResult(success=True, message=message).describe()
                meta["recent"] = (meta["recent"] + [{"step": n, "tool": "observe", "action": "observe", "t": now,
                                                    "target": "", "fp": None, "url": "", "result": None,
                                                    "ok": None}])[-RECENT:]
                response = self._response(meta, "execute_tool", tool={"name": "observe", "parameters": {}})
        return self._commit(before, meta, response, rhash, RunSecrets(meta.get("secrets")))

    def cancel(self, run_id: str) -> dict[str, Any]:
        meta = self._load(run_id)
        if meta["status"] in END_STATES:
            # the issue: anything after an end state is a 409, a second cancel included
            raise ApiError(409, f"run {run_id} is already {meta['status']}; there is nothing to cancel")
        meta["status"] = "cancelled"
        meta["pending"] = None
        meta["last"] = None  # a late retry of the request answered before the cancel gets the 409 too
        meta["updated_at"] = self.clock_ms()
        try:
            self.repo.save(meta)
        except VersionConflict:
            return self.cancel(run_id)
        return {"success": True}

    def fail_hosted(self, run_id: str, error: str) -> dict[str, Any] | None:
        """End a hosted run with ``error`` (its browser or its step failed). Returns the run as written,
        or None when it had already ended (or does not exist)."""
        for _ in range(3):
            meta = self.repo.load(run_id)
            if meta is None or meta["status"] in END_STATES:
                return None
            self._end(meta, "error", error=RunSecrets(meta.get("secrets")).mask(error[:500]))
            meta["last"] = None
            meta["updated_at"] = self.clock_ms()
            try:
                return self.repo.save(meta)
            except VersionConflict:
                continue
        return None

    def claim_hosted(self, run_id: str, expect: int) -> tuple[dict[str, Any] | None, str]:
        """Claim step ``expect`` of a hosted run for one invocation, with a conditional write, before its
        browser action: a duplicate of the same asynchronous event finds it claimed and does nothing.
        Returns (the run as written, "") or (None, why this invocation must not act)."""
        meta = self.repo.load(run_id)
        if meta is None or meta.get("browser") != "hosted":
            return None, "unknown run"
        if meta["status"] not in ("created", "running") or int(meta["current_step"]) != expect:
            return None, f"run is {meta['status']} at step {meta['current_step']}"
        claimed = meta.get("hosted_claim")
        if claimed is not None and int(claimed) >= expect:
            return None, f"step {expect} is already claimed by another invocation"
        meta["hosted_claim"] = expect
        meta["claimed_at"] = self.clock_ms()
        try:
            return self.repo.save(meta), ""
        except VersionConflict:
            return None, f"step {expect} was claimed by another invocation at the same time"

    def get(self, run_id: str) -> dict[str, Any]:
        meta, steps = self.repo.load_view(run_id)
        if meta is None:
            raise ApiError(404, f"run {run_id} not found (unknown or expired)")
        meta = self._stalled(meta)
        history = [{"stepNumber": int(e["step"]), "action": e.get("action") or e.get("tool") or "",
                    "observation": self._observation(e, last=i == len(steps) - 1, meta=meta),
                    "timestamp": int(e.get("t") or 0)} for i, e in enumerate(steps)]
        state: dict[str, Any] = {
            "runId": meta["runId"], "task": meta["task"], "mode": meta["mode"], "status": meta["status"],
            "currentStep": meta["current_step"], "maxSteps": meta["max_steps"], "history": history,
            "reflections": meta.get("reflections", []), "currentSnapshot": unpack_snapshot(meta.get("snap_z")),
            "createdAt": meta["created_at"], "updatedAt": meta["updated_at"],
        }
        if meta.get("browser") == "hosted":
            state["browser"] = "hosted"
        for key in ("result", "error"):
            if meta.get(key):
                state[key] = meta[key]
        if meta["status"] == "waiting_user" and meta.get("pending"):
            state["question"] = meta["pending"].get("question")
        # stored masked; masked again for what was stored before a secret became known, and for the task
        return {"success": True, "state": RunSecrets(meta.get("secrets")).mask_all(state, skip=frozenset({"id"}))}

    def _stalled(self, meta: dict[str, Any]) -> dict[str, Any]:
        """A hosted run whose step died (a Lambda timeout cannot report itself) is ended here, lazily,
        once nothing moved for ``hosted_stall_s``; the reader sees the error instead of "running"."""
        if meta.get("browser") != "hosted" or meta["status"] not in ("created", "running"):
            return meta
        last = max(int(meta.get("updated_at") or 0), int(meta.get("claimed_at") or 0))
        idle_s = (self.clock_ms() - last) / 1000
        if idle_s <= self.hosted_stall_s:
            return meta
        written = self.fail_hosted(meta["runId"], f"the hosted browser made no progress for {int(idle_s)} s "
                                                  f"(step {int(meta['current_step']) + 1} did not finish)")
        if written is None:
            fresh, _ = self.repo.load_view(meta["runId"])
            return fresh or meta
        return {**meta, **{k: written[k] for k in ("status", "error", "updated_at") if k in written}}

    # ------------------------------------------------------------------ the step

    def _advance(self, meta: dict[str, Any], req: StepRequest, rhash: str, secrets: RunSecrets) -> dict[str, Any]:
        """The step's decision, applied to ``meta`` (its ``recent`` entry is what GET shows of it); the answer."""
        now = self.clock_ms()
        recent: list[dict[str, Any]] = meta["recent"]
        result = req.lastActionResult
        if result is not None and recent and recent[-1].get("result") is None:
            recent[-1]["result"] = result.describe()
            recent[-1]["ok"] = bool(result.success)
        careful.settle_approvals(meta)
        meta["updated_at"] = now
        if meta["status"] == "created":
            meta["status"] = "running"
        if meta["current_step"] >= meta["max_steps"]:
            self._end(meta, "error", error=MAX_STEPS_REACHED)
            return self._response(meta, "error", error=MAX_STEPS_REACHED)
        n = meta["current_step"] + 1
        memory_before = copy.deepcopy(meta.get("memory"))
        snap = _masked_snapshot(req.snapshot, secrets)
        fp = page_fingerprint(snap) if snap is not None else None
        if snap is None:
            decision = ToolCall("observe", {}, thinking="no page snapshot yet: observe the page first")
            stop = None
        else:
            careful.trust_first_page(meta, snap.url)
            known = len(secrets.prints)
            decision, stop = self._decide(meta, snap, fp, n)
            if _masked_parameters(decision, snap) is not decision.parameters:
                secrets.add(str(decision.parameters.get("text", "")))  # typed into a secret field
            # the current snapshot (masked) rides on META: GET reads no step item
            shown = snap.model_dump(mode="json", exclude_none=True)
            meta["snap_z"] = pack_snapshot(secrets.mask_all(shown, UNMASKED) if len(secrets.prints) > known
                                           else shown)
        meta["current_step"] = n
        # what the step chose, and what GET shows of it: its action, when, and (set by the next step) its result
        entry = {"step": n, "tool": decision.tool, "target": decision.target, "url": snap.url if snap else "",
                 "fp": fp, "result": None, "ok": None, "hash": rhash, "action": decision.tool, "t": now}
        if decision.progress:
            entry["progress"] = decision.progress
        if stop is not None:
            self._end(meta, "error", error=stop)
            entry["action"] = "error"
            response = self._response(meta, "error", error=stop)
        elif decision.tool in ("finish", "ask_user"):
            response = self._conclude(meta, decision)
        else:
            response = self._act(meta, decision, snap, n, entry, memory_before)
        meta["recent"] = (recent + [entry])[-RECENT:]
        self._after_step(meta, snap, n, now)
        return response

    def _conclude(self, meta: dict[str, Any], decision: ToolCall) -> dict[str, Any]:
        """A ``finish`` (the run completes with its result) or an ``ask_user`` (it waits for the answer)."""
        if decision.tool == "finish":
            # masked with everything the step stores and answers (_commit)
            text = decision.text or str(decision.parameters.get("result", "")) or "Task finished"
            self._end(meta, "completed", result=text)
            return self._response(meta, "finish", result=text)
        question = decision.text or str(decision.parameters.get("question", "")) or "How should I continue?"
        meta["status"] = "waiting_user"
        meta["pending"] = {"kind": "question", "question": question}
        return self._response(meta, "ask_user", question=question)

    def _act(self, meta: dict[str, Any], decision: ToolCall, snap: PageSnapshot | None, n: int,
             entry: dict[str, Any], memory_before: Any) -> dict[str, Any]:
        """A browser tool: sent to the extension, or, in careful mode, withheld behind the user's approval
        when it is risky and no approval covers it."""
        asked = None
        if meta["mode"] == "careful" and decision.tool in RISKY_TOOLS and snap is not None:
            asked = careful.unapproved_risk(meta, self.brain, decision, self._context(meta, snap, n), n)
        if asked is not None:
            risk, key = asked
            # the action is withheld: the brain must not remember it as done
            meta["memory"] = memory_before
            question = careful.question(risk, decision)
            meta["status"] = "waiting_user"
            meta["pending"] = {"kind": "risk", "question": question, "summary": risk.summary,
                               "risk": {**key, "amount": risk.amount}}
            entry["tool"] = entry["action"] = "ask_user"
            return self._response(meta, "ask_user", question=question)
        meta["status"] = "running"
        return self._response(meta, "execute_tool", tool={"name": decision.tool, "parameters": decision.parameters})

    @staticmethod
    def _after_step(meta: dict[str, Any], snap: PageSnapshot | None, n: int, now: int) -> None:
        """What a step leaves on the run besides its decision: the hosted loop's select ids, and a
        reflection every ``reflect.EVERY`` steps."""
        if meta.get("browser") == "hosted" and snap is not None:
            # the hosted loop turns "type" into the browser's "select" on these
            meta["select_ids"] = [e.id for e in snap.elements if e.tag == "select"][:100]
        if n % reflect.EVERY == 0:
            window = [e for e in meta["recent"] if e["step"] > n - reflect.EVERY]
            meta["reflections"] = (meta["reflections"] + [reflect.reflect(window, n, now)])[-MAX_REFLECTIONS:]

    def _decide(self, meta: dict[str, Any], snap: PageSnapshot, fp: str | None,
                n: int) -> tuple[ToolCall, str | None]:
        """The brain's decision, with loop nudges; returns (decision, error that ends the run or None)."""
        ctx = self._context(meta, snap, n)
        decision = self._remember(meta, self.brain.decide(ctx))
        if decision.stop:
            return decision, decision.stop
        window = meta["recent"][-LOOP_WINDOW:]

        def repeats(d: ToolCall) -> int:
            return sum(1 for e in window if (e.get("tool"), e.get("target"), e.get("url"), e.get("fp"),
                                             e.get("progress", "")) == (d.tool, d.target, snap.url, fp, d.progress))

        count = repeats(decision)
        if decision.tool in ("finish", "ask_user") or count < LOOP_NUDGE:
            return decision, None
        what = f"{decision.tool} {decision.target}".strip()
        ctx.hints.append(f"Loop: you already chose '{what}' {count} times on this unchanged page and it did not "
                         "help. Choose a different action (another element, scroll, navigate, or finish).")
        ctx.avoid.append((decision.tool, decision.target))
        meta["loop"]["nudges"] = int(meta["loop"].get("nudges", 0)) + 1
        retry = self.brain.decide(ctx)
        if retry.stop:
            return self._remember(meta, retry), retry.stop
        if (retry.tool, retry.target) != (decision.tool, decision.target):
            self._remember(meta, retry)
            retry.thinking = (retry.thinking + " (changed course after a loop nudge)").strip()
            return retry, None
        if count >= LOOP_STOP:
            return decision, (f"Stuck in a loop: '{what}' was chosen {count + 1} times on an unchanged page "
                              f"({snap.url}) despite nudges to change course")
        return decision, None

    @staticmethod
    def _remember(meta: dict[str, Any], decision: ToolCall) -> ToolCall:
        if decision.memory is not None:
            meta["memory"] = decision.memory
        return decision

    def _context(self, meta: dict[str, Any], snap: PageSnapshot, n: int) -> StepContext:
        latest = meta["reflections"][-1] if meta.get("reflections") else None
        history = [{k: e.get(k) for k in ("step", "tool", "target", "url", "result", "ok")} for e in meta["recent"]]
        return StepContext(task=meta["task"], mode=meta["mode"], snapshot=snap, history=history, step=n,
                           max_steps=meta["max_steps"], hints=reflect.hints(latest), avoid=[],
                           answers=list(meta.get("answers", [])), reflection=latest,
                           memory=copy.deepcopy(meta.get("memory") or {}))

    @staticmethod
    def _observation(entry: dict[str, Any], *, last: bool, meta: dict[str, Any]) -> str:
        """What came of a step: the run's result or error for the step that ended it, else what the next
        request reported of its action, else what the run is waiting for."""
        action = entry.get("action") or entry.get("tool")
        if action == "finish":
            return str(entry.get("finished") or meta.get("result") or "")
        if action == "error":
            return str(entry.get("failed") or meta.get("error") or "")
        if entry.get("result") is not None:
            return str(entry["result"])
        if action == "ask_user":
            if meta.get("declined") and last:
                return "User declined"
            return "Waiting for the user" if meta["status"] == "waiting_user" else ""
        return "Pending" if meta["status"] in ("running", "created") else ""
