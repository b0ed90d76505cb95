import re

from runs.app import handler

from tests.support.apigw import call


def test_health_shape_as_spec(monkeypatch):
    r = call(handler, "GET", "/health")
    assert r.status == 200
    body = r.json()
    assert set(body) == {"status", "model", "baseUrl", "timestamp"}
    assert body["status"] == "ok"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["timestamp"])


def test_health_reports_configured_llm(monkeypatch):
    from agenthost import config

    monkeypatch.setenv("AGENTHOST_LLM", "openai:anthropic/claude-3.5-sonnet")
    monkeypatch.setenv("AGENTHOST_LLM_BASE_URL", "https://openrouter.ai/api/v1")
    config.reset()
    body = call(handler, "GET", "/health").json()
    assert body["model"] == "anthropic/claude-3.5-sonnet"
    assert body["baseUrl"] == "https://openrouter.ai/api/v1"


def test_health_wrong_method():
    r = call(handler, "POST", "/health")
    assert r.status == 405 and r.json()["error"] == "method_not_allowed"


def test_a_cold_health_check_loads_none_of_the_agent_routes_and_the_first_agent_request_does():
    """A fresh container answering ``/health`` imports neither the ``/agent`` routes' models nor what FastAPI
    imports to build their fields (``pydantic.v1``); the first ``/agent`` request loads them and is answered as
    ever (here: 401 without the API key, the same 404 for an unknown path)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = """
import json, sys
from runs.app import handler
from tests.support.apigw import call
health = call(handler, "GET", "/health").status
loaded = sorted(m for m in ("runs.models", "runs.routes", "runs.engine", "pydantic.v1") if m in sys.modules)
start = call(handler, "POST", "/agent/run/start", json_body={"task": "t"}, headers={"x-api-key": "wrong"}).status
missing = call(handler, "GET", "/agent/nothing").status
print(json.dumps([health, loaded, start, missing, "runs.routes" in sys.modules]))
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "functions"), str(root / "layers/core")]),
           "AGENTHOST_RUNS_API_KEY": "the-right-key-0123456789"}
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [200, [], 401, 404, True]
