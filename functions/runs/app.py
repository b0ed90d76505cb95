"""Proxy Server API (``specs/agent-proxy-server-api.md``): runs for a browser extension.

Handler: ``runs.app.handler``. Routes are declared in ``template.yaml`` (HttpApi events, ``ANY`` so the
app answers 405 and CORS preflights itself) and here. ``/agent/*`` needs the API key when deployed
(:mod:`runs.security`); ``/health`` stays open.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from fastapi import Body, Depends
from fastapi.responses import JSONResponse

from agenthost.config import settings
from agenthost.webapp import ApiError, create_app, make_handler
from runs import security
from runs.models import (
    AnswerRequest,
    CancelResponse,
    Health,
    RunStateResponse,
    StartRequest,
    StartResponse,
    StepRequest,
    StepResponse,
)

if TYPE_CHECKING:  # the engine, brain, store and metering are imported by the first /agent request that needs
    from runs.engine import RunEngine  # them: /health and a cold start pay only for what they use

app = create_app("runs", max_body_bytes=security.max_body_bytes())
app.add_middleware(security.CorsMiddleware)

_brain: Any = None


def _shared_brain() -> Any:
    global _brain
    if _brain is None:
        from runs.agent_adapter import AgentBrain  # the shared brain (agenthost.agent) behind runs.brain.Brain

        _brain = AgentBrain()
    return _brain


def make_engine() -> RunEngine:
    """The engine for one request (cheap: the boto3 client and the brain are shared per container)."""
    from agenthost.store import Store
    from runs.engine import RunEngine
    from runs.repo import RunRepo

    return RunEngine(
        RunRepo(Store()), _shared_brain,
        ttl_s=settings().runs_ttl_s,
        default_max_steps=settings().runs_max_steps,
        hosted_stall_s=settings().runs_hosted_stall_s,
    )


def engine() -> RunEngine:
    return make_engine()


def _iso_now() -> str:
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


@app.get("/health", response_model=Health)
def health() -> Health:
    """Whether the server runs, and which model and base URL it is configured with."""
    cfg = settings()
    return Health(status="ok", model=cfg.llm_model, baseUrl=cfg.llm_endpoint, timestamp=_iso_now())


_auth = [Depends(security.require_api_key)]


def _metering_agent() -> str:
    return settings().runs_agent_id.strip() or "proxy"


@app.post("/agent/run/start", response_model=StartResponse, dependencies=_auth, response_model_exclude_none=True)
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


@app.post("/agent/run/{run_id}/step", response_model=StepResponse, dependencies=_auth, response_model_exclude_none=True)
def step(run_id: str, req: StepRequest | None = Body(default=None), eng: RunEngine = Depends(engine)) -> Any:
    """The next decision for the extension's current page (``snapshot`` may be null at first)."""
    from agenthost import metering

    with metering.turn("runs", _metering_agent(), decides=True):
        return eng.step(run_id, req or StepRequest())


@app.post("/agent/run/{run_id}/answer", response_model=StepResponse, dependencies=_auth,
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


@app.post("/agent/run/{run_id}/cancel", response_model=CancelResponse, dependencies=_auth,
          response_model_exclude_none=True)
def cancel(run_id: str, eng: RunEngine = Depends(engine)) -> Any:
    return eng.cancel(run_id)


@app.get("/agent/run/{run_id}", response_model=RunStateResponse, dependencies=_auth)
def get_run(run_id: str, eng: RunEngine = Depends(engine)) -> Any:
    """The run's full state; ``currentSnapshot`` is null until the extension sent one."""
    out = RunStateResponse.model_validate(eng.get(run_id)).model_dump(mode="json", exclude_none=True)
    out["state"].setdefault("currentSnapshot", None)
    return JSONResponse(out)


def _other_events(event: dict, context: Any) -> Any:
    """Asynchronous invocations: one step of a hosted run (see :mod:`runs.hosted`; metered there, as a
    turn of the ``runs`` protocol, once the step is claimed)."""
    from runs import hosted

    if hosted.is_hosted_event(event):
        return hosted.step(event, make_engine())
    return {"ignored": True}


handler = make_handler(app, other_events=_other_events, budget_s=lambda: settings().runs_budget_s)
