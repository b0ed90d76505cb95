"""Each invocation logs its own function's identity, also when several functions share one process (the
local stack) and run at the same time: no line of one function carries another's ``function`` or
``function_name``."""

from __future__ import annotations

import io
import json
import logging
import threading

import pytest

from agenthost.webapp import logger
from infra.local.events import LambdaContext, http_event, http_response
from tests.security.routes import WEREWOLF_KEY, prepare


@pytest.fixture
def info_logs(aws, monkeypatch, tmp_path):
    """The JSON lines the functions' logger writes (its own formatter, at INFO), as a list of dicts."""
    prepare(monkeypatch, tmp_path)
    level = logger.log_level
    buffer = io.StringIO()
    capture = logging.StreamHandler(buffer)
    capture.setFormatter(logger.registered_formatter)
    logger.setLevel(logging.INFO)
    logger._logger.addHandler(capture)

    def read() -> list[dict]:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return [json.loads(line) for line in text.splitlines() if line.startswith("{")]

    yield read
    logger._logger.removeHandler(capture)
    logger.setLevel(level)


def invoke(module: str, function_name: str, method: str, path: str, body: str = "", headers=None) -> int:
    import importlib

    handler = importlib.import_module(module).handler
    event = http_event(method, path, body=body, headers=headers or {"content-type": "application/json"})
    status, _, _ = http_response(handler(event, LambdaContext(function_name)))
    return status


def test_concurrent_functions_each_log_their_own_identity(info_logs):
    calls = [
        ("werewolf.app", "agenthost-WerewolfFunction", "POST", "/werewolf/turn", "{}",
         {"X-Werewolf-Signature": "sha256=" + "0" * 64}),  # 401: a warning line
        ("olympics.app", "agenthost-OlympicsFunction", "POST", "/olympics/turn", "{}", {}),  # 401: an info line
        ("runs.app", "agenthost-RunsFunction", "GET", "/health", "", None),
        ("agents_api.app", "agenthost-AgentsApiFunction", "GET", "/.well-known/agents.json", "", None),
        ("evals.app", "agenthost-EvalsFunction", "GET", "/evals/report", "", None),
        ("usage.app", "agenthost-UsageFunction", "GET", "/usage", "", None),
    ]
    for call in calls:  # imports (cold starts) first, so the threads below overlap in their handlers
        invoke(*call)
    info_logs()
    errors: list[BaseException] = []

    def worker(call):
        try:
            for _ in range(5):
                invoke(*call)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(c,)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    logged = info_logs()
    assert logged
    expected = {"agenthost-WerewolfFunction": "werewolf", "agenthost-OlympicsFunction": "olympics",
                "agenthost-RunsFunction": "runs", "agenthost-AgentsApiFunction": "agents_api",
                "agenthost-EvalsFunction": "evals-admin", "agenthost-UsageFunction": "usage"}
    seen = set()
    for line in logged:
        assert line.get("function_name") in expected, line
        assert line.get("function") == expected[line["function_name"]], line
        if line.get("path"):
            assert ("werewolf" in line["path"]) == (line["function"] == "werewolf"), line
        seen.add(line["function_name"])
    assert {"agenthost-WerewolfFunction", "agenthost-OlympicsFunction", "agenthost-RunsFunction"} <= seen
    werewolf = [x for x in logged if x["message"] == "werewolf signature rejected"]
    assert len(werewolf) == 5 and all(x["function"] == "werewolf" for x in werewolf)
    assert WEREWOLF_KEY not in json.dumps(logged)
