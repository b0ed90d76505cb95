"""Proxy Server API (``specs/agent-proxy-server-api.md``): runs for a browser extension.

Handler: ``runs.app.handler``. Routes are declared in ``template.yaml`` (HttpApi events) and here.
"""

from __future__ import annotations

from datetime import UTC, datetime

from agenthost.config import settings
from agenthost.http import create_app, make_handler
from runs.models import Health

app = create_app("runs")


def _iso_now() -> str:
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


@app.get("/health", response_model=Health)
def health() -> Health:
    """Whether the server runs, and which model and base URL it is configured with."""
    cfg = settings()
    return Health(status="ok", model=cfg.llm_model, baseUrl=cfg.llm_endpoint, timestamp=_iso_now())


handler = make_handler(app)
