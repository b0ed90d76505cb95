"""What the run engine (:mod:`runs.engine`) stands on: its settings and brain, and the run's record in
DynamoDB (:mod:`runs.repo`). A run is loaded (404 when unknown or expired), and every change is committed
once: masked of the run's secrets (:mod:`runs.masking`), with the answer kept so that a retried identical
request replays it, under the optimistic ``version`` (a request that lost a race gets the winner's answer
or a 409). Also the masking of the snapshot and of the decision's parameters a step stores, and the
``state`` every answer carries.
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from agenthost.replay import KeptAnswers
from agenthost.store import VersionConflict
from agenthost.webapp import ApiError
from runs.brain import Brain, ToolCall
from runs.masking import RunSecrets
from runs.models import MASK, PageSnapshot
from runs.repo import RunRepo

#: run and step attributes never masked: the user's own inputs (the policy reads them; GET masks them),
#: the fingerprints themselves, request and page hashes, ids
UNMASKED = frozenset({"task", "answers", "secrets", "hash", "fp", "runId", "pk", "sk", "id"})


def request_hash(op: str, body: Any) -> str:
    """Identity of a request for retry detection: the operation and its canonical JSON body."""
    raw = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{op}\n{raw}".encode()).hexdigest()[:32]


class EngineBase:
    def __init__(self, repo: RunRepo, brain: Brain | Callable[[], Brain], *, ttl_s: int = 86_400,
                 default_max_steps: int = 150, clock_ms: Callable[[], int] | None = None,
                 hosted_stall_s: float = 120.0):
        self.repo = repo
        self._brain = brain
        self.ttl_s = ttl_s
        self.default_max_steps = default_max_steps
        #: a hosted run without progress for this long is ended with an error (its step died)
        self.hosted_stall_s = hosted_stall_s
        self.clock_ms = clock_ms or (lambda: int(time.time() * 1000))
        #: the run item as last loaded or written by this engine
        self.last_meta: dict[str, Any] | None = None

    @property
    def brain(self) -> Brain:
        if callable(self._brain) and not hasattr(self._brain, "decide"):
            self._brain = self._brain()
        return self._brain  # type: ignore[return-value]

    # ------------------------------------------------------------------ plumbing

    def _load(self, run_id: str) -> dict[str, Any]:
        meta = self.repo.load(run_id)
        if meta is None:
            raise ApiError(404, f"run {run_id} not found (unknown or expired)")
        self.last_meta = meta
        return meta

    @staticmethod
    def _replay(meta: dict[str, Any], rhash: str) -> dict[str, Any] | None:
        """The answer kept for the request ``rhash`` (the run's last answer, :class:`agenthost.replay.KeptAnswers`
        of one), or None."""
        last = meta.get("last") or {}
        if "hash" in last:  # as runs stored it before KeptAnswers: {"hash", "response"}
            last = {last["hash"]: last.get("response")}
        found = KeptAnswers(last, 1).find(rhash)
        return copy.deepcopy(found) if found is not None else None

    def _commit(self, before: dict[str, Any], meta: dict[str, Any], response: dict[str, Any], rhash: str,
                secrets: RunSecrets) -> dict[str, Any]:
        # nothing is written or answered with a secret of the run in it, but the tool the client must run
        for key in list(meta):
            if key not in UNMASKED and key != "snap_z":
                meta[key] = secrets.mask_all(meta[key], UNMASKED)
        if secrets:
            meta["secrets"] = secrets.save()
        kept_steps = {e["step"] for e in meta["recent"]}
        # the steps this write lets go of: the history block they open is written with it (runs.repo)
        dropped = secrets.mask_all([e for e in before["recent"] if e["step"] not in kept_steps], UNMASKED)
        kept = secrets.mask_all(response, UNMASKED)
        if kept.get("tool") != response.get("tool"):
            # a tool carrying a secret (text typed into a password field) is not kept to replay: a retry of
            # this request gets an observe, and the next step types it again
            kept["tool"] = {"name": "observe", "parameters": {}}
        if "tool" in response:
            response = {**kept, "tool": response["tool"]}
        else:
            response = kept
        answers = KeptAnswers({}, 1)
        answers.keep(rhash, kept)
        meta["last"] = answers.kept
        meta["version"] = before["version"]
        try:
            self.repo.save(meta, dropped)
        except VersionConflict:
            fresh = self.repo.load(meta["runId"])
            if fresh is not None:
                replay = self._replay(fresh, rhash)
                if replay is not None:
                    return replay
            raise ApiError(409, f"run {meta['runId']} was advanced by another request at the same time; "
                                "send the next step with a fresh snapshot") from None
        return response

    def _end(self, meta: dict[str, Any], status: str, *, result: str | None = None, error: str | None = None) -> None:
        meta["status"] = status
        meta["pending"] = None
        if result is not None:
            meta["result"] = result[:4000]
        if error is not None:
            meta["error"] = error

    @staticmethod
    def _response(meta: dict[str, Any], action: str, **fields: Any) -> dict[str, Any]:
        return {"action": action, **fields, "state": _state(meta)}


def _state(meta: dict[str, Any]) -> dict[str, Any]:
    return {"status": meta["status"], "currentStep": meta["current_step"], "maxSteps": meta["max_steps"]}


def _masked_snapshot(snap: PageSnapshot | None, secrets: RunSecrets) -> PageSnapshot | None:
    """``snap`` with the run's secrets masked: those it typed on earlier pages, and the values its secret
    fields hold now (added to the run's secrets: a later page may echo them)."""
    if snap is None:
        return None
    for e in snap.elements:
        secrets.add(e._masked)
    if not secrets:
        return snap
    return PageSnapshot.model_validate(secrets.mask_all(snap.model_dump(mode="json", exclude_none=True), UNMASKED))


def _masked_parameters(decision: ToolCall, snap: PageSnapshot | None) -> dict[str, Any]:
    """The decision's parameters as stored for display: text typed into a secret field is masked (the
    extension still gets it in the response)."""
    p = decision.parameters
    if decision.tool != "type" or snap is None or not p.get("text"):
        return p
    target = str(p.get("id", ""))
    el = next((e for e in snap.elements if e.id == target), None)
    if el is None or not el.secret:
        return p
    return {**p, "text": MASK}
