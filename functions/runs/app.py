"""Proxy Server API (``specs/agent-proxy-server-api.md``): runs for a browser extension.

Handler: ``runs.app.handler``. Routes are declared in ``template.yaml`` (HttpApi events, ``ANY`` so the
app answers 405 and CORS preflights itself) and here: ``/health``, and the ``/agent`` routes of :mod:`runs.routes`,
added by the first request to another path (a health check neither imports their models nor builds their
fields). ``/agent/*`` needs the API key when deployed (:mod:`runs.security`); ``/health`` stays open.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from agenthost.config import settings
from agenthost.webapp import create_app, make_handler
from runs import security

if TYPE_CHECKING:  # the engine, brain, store and metering are imported by the first /agent request that needs
    from runs.engine import RunEngine  # them: /health and a cold start pay only for what they use

app = create_app("runs", max_body_bytes=security.max_body_bytes())
app.add_middleware(security.CorsMiddleware)

_routes_lock = threading.Lock()
_routes_loaded = False


def load_routes() -> None:
    """Add the ``/agent`` routes (:mod:`runs.routes`) to the app, once."""
    global _routes_loaded
    with _routes_lock:
        if not _routes_loaded:
            from runs.routes import router

            app.include_router(router)
            _routes_loaded = True


class _AgentRoutes:
    """Pure ASGI middleware: the first request that is not ``/health`` loads the ``/agent`` routes before the app
    routes it (so a wrong method or path there gets the same 405/404 as ever)."""

    def __init__(self, inner: Any):
        self.inner = inner

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if not _routes_loaded and scope.get("type") == "http" and scope.get("path") != "/health":
            load_routes()
        await self.inner(scope, receive, send)


app.add_middleware(_AgentRoutes)

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


@app.get("/health", response_model=None)
def health() -> dict[str, str]:
    """Whether the server runs, and which model and base URL it is configured with (``runs.models.Health``'s
    fields; a plain dict, so a health check builds no model field)."""
    cfg = settings()
    return {"status": "ok", "model": cfg.llm_model, "baseUrl": cfg.llm_endpoint, "timestamp": _iso_now()}


def _other_events(event: dict, context: Any) -> Any:
    """Asynchronous invocations: one step of a hosted run (see :mod:`runs.hosted`; metered there, as a
    turn of the ``runs`` protocol, once the step is claimed)."""
    from runs import hosted

    if hosted.is_hosted_event(event):
        return hosted.step(event, make_engine())
    return {"ignored": True}


handler = make_handler(app, other_events=_other_events, budget_s=lambda: settings().runs_budget_s)
