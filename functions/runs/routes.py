"""The Proxy API's ``/agent`` routes (``specs/agent-proxy-server-api.md``), loaded by :mod:`runs.app` on the first
request that is not ``/health``: their models, and the FastAPI route fields built from them, are not a health
check's cost (a cold ``/health`` pays only for the app; issue 26: its init within 1.2x a bare FastAPI app)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends
from fastapi.responses import JSONResponse

from agenthost.config import settings
from agenthost.webapp import ApiError
from runs import security
from runs.app import engine
from runs.engine import RunEngine
from runs.models import (
    AnswerRequest,
    CancelResponse,
    RunStateResponse,
    StartRequest,
    StartResponse,
    StepRequest,
    StepResponse,
)

router = APIRouter()
_auth = [Depends(security.require_api_key)]


def _metering_agent() -> str:
    return settings().runs_agent_id.strip() or "proxy"


@router.post("/agent/run/start", response_model=StartResponse, dependencies=_auth,
             response_model_exclude_none=True)
def start(req: StartRequest, eng: RunEngine = Depends(engine)) -> Any:
    """Start a run (``task``, ``mode``; beyond the spec ``maxSteps``, ``browser``, ``startUrl``)."""
    if req.browser == "hosted":
        from runs import hosted

        hosted.check_available()
        if not req.startUrl:
            raise ApiError(400, "startUrl is required with \"browser\": \"hosted\"")
    result = eng.start(req)
    if req.browser == "hosted":
        why = hosted.refused(str(req.startUrl))
        if why:
            error = f"startUrl refused: {why}"
            ended = eng.fail_hosted(result["runId"], error)
            state = dict(result["state"], status=ended["status"] if ended else "error")
            return {**result, "state": state, "error": error}
        try:
            hosted.launch(result["runId"], req)
        except Exception as exc:  # noqa: BLE001 - the run must not sit in "created" forever
            eng.fail_hosted(result["runId"], f"could not start the hosted browsing loop ({type(exc).__name__})")
            raise ApiError(500, f"could not start the hosted browsing loop for run {result['runId']} "
                                f"({type(exc).__name__}); the run was ended") from None
    return result


@router.post("/agent/run/{run_id}/step", response_model=StepResponse, dependencies=_auth,
             response_model_exclude_none=True)
def step(run_id: str, req: StepRequest | None = Body(default=None), eng: RunEngine = Depends(engine)) -> Any:
    """The next decision for the extension's current page (``snapshot`` may be null at first)."""
    from agenthost import metering

    with metering.turn("runs", _metering_agent(), decides=True):
        return eng.step(run_id, req or StepRequest())


@router.post("/agent/run/{run_id}/answer", response_model=StepResponse, dependencies=_auth,
          response_model_exclude_none=True)
def answer(run_id: str, req: AnswerRequest, eng: RunEngine = Depends(engine)) -> Any:
    """The user's answer to an ``ask_user``; ``approved: false`` cancels the run."""
    from agenthost import metering

    with metering.turn("runs", _metering_agent()):
        result = eng.answer(run_id, req)
    if eng.last_meta is not None and eng.last_meta.get("browser") == "hosted" \
            and result["state"]["status"] == "running":
        from runs import hosted

        try:
            hosted.resume(run_id, result["state"]["currentStep"])
        except Exception as exc:  # noqa: BLE001 - the run must not sit in "running" forever
            eng.fail_hosted(run_id, f"could not resume the hosted browsing loop ({type(exc).__name__})")
            raise ApiError(500, f"could not resume the hosted browsing loop of run {run_id} "
                                f"({type(exc).__name__}); the run was ended") from None
    return result


@router.post("/agent/run/{run_id}/cancel", response_model=CancelResponse, dependencies=_auth,
          response_model_exclude_none=True)
def cancel(run_id: str, eng: RunEngine = Depends(engine)) -> Any:
    return eng.cancel(run_id)


@router.get("/agent/run/{run_id}", response_model=RunStateResponse, dependencies=_auth)
def get_run(run_id: str, eng: RunEngine = Depends(engine)) -> Any:
    """The run's full state; ``currentSnapshot`` is null until the extension sent one."""
    out = RunStateResponse.model_validate(eng.get(run_id)).model_dump(mode="json", exclude_none=True)
    out["state"].setdefault("currentSnapshot", None)
    return JSONResponse(out)


