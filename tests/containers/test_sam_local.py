"""``sam local invoke`` of every function as ``make build`` built it (zip functions with the core layer on
the Lambda Python 3.12 image; the browser image), each with its sample event from ``infra/events``, against
the local stack's DynamoDB (a stack bound to Docker's bridge gateway, endpoints in an ``env.json``). Each
answer is checked: signed webhook turns, a Proxy API run and its first step, agents.json calls, an
evaluation ``$connect``, the cost report, a browser action on a local page. And ``sam local start-api``
answers ``/health`` and a signed webhook turn."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agenthost import signing
from infra.local.defaults import LOCAL_SECRETS
from tests.support.brain_pages import PageServer
from tests.support.containers import (
    BUILT_TEMPLATE,
    FAKE_AWS,
    ROOT,
    docker_gateway,
    free_port,
    sam_env_file,
    sam_local_invoke,
)
from tests.support.stack import start_stack

pytestmark = [pytest.mark.containers]
EVENTS = Path(__file__).resolve().parents[2] / "infra" / "events"


def stored(name: str) -> dict:
    return json.loads((EVENTS / f"{name}.json").read_text())


def signed_werewolf(event: dict) -> dict:
    key = LOCAL_SECRETS["AGENTHOST_WEREWOLF_API_KEY"].encode()
    event = dict(event)
    event["headers"] = {**event["headers"], "x-werewolf-signature": signing.sign(key, event["body"].encode())}
    return event


def cases(page_url: str) -> dict[str, tuple[str, dict]]:
    from infra.events.__main__ import olympics_turn

    return {
        "runs-health": ("RunsFunction", stored("runs-health")),
        "runs-start": ("RunsFunction", stored("runs-start")),
        "agents-json": ("AgentsApiFunction", stored("agents-json")),
        "agents-search": ("AgentsApiFunction", stored("agents-search")),
        # signed right before its invocation (a 5-minute replay window)
        "olympics-turn": ("OlympicsFunction", olympics_turn),
        "olympics-turn-url": ("OlympicsFunction", lambda: olympics_turn(via_url=True)),
        "werewolf-turn": ("WerewolfFunction", signed_werewolf(stored("werewolf-turn"))),
        "werewolf-unsigned": ("WerewolfFunction", stored("werewolf-turn")),
        "evals-connect": ("EvalsFunction", stored("evals-connect")),
        "evals-ping": ("EvalsFunction", stored("evals-ping")),
        "usage": ("UsageFunction", stored("usage")),
        "browser": ("BrowserFunction", {"session": {"id": "sam-local"},
                                        "actions": [{"tool": "navigate", "url": f"{page_url}/form.html"},
                                                    {"tool": "type", "element": "First Name", "text": "Ann"}],
                                        "observe": {"elements": True, "text": True}}),
    }


def invoke(fn, event, env, work):
    return sam_local_invoke(fn, event() if callable(event) else event, env, work)


@pytest.fixture(scope="module")
def bridge_stack(built):
    """The local stack bound to Docker's bridge gateway, so that sam local's containers reach its DynamoDB."""
    stack = start_stack({"AGENTHOST_HOST": docker_gateway()})
    yield stack
    stack.stop()


@pytest.fixture(scope="module")
def answers(bridge_stack, tmp_path_factory):
    gateway = docker_gateway()
    site = PageServer(gateway).start()
    work = tmp_path_factory.mktemp("sam-local")
    env = sam_env_file(bridge_stack, work / "env.json", AGENTHOST_NETGUARD_ALLOW=gateway,
                       AGENTHOST_NETGUARD_ALLOW_PRIVATE="false")
    todo = cases(site.url)
    try:
        with ThreadPoolExecutor(1) as pool:
            futures = {name: pool.submit(invoke, fn, event, env, work) for name, (fn, event) in todo.items()}
            out = {name: f.result() for name, f in futures.items()}
        started = out["runs-start"][0] or {}
        run_id = json.loads(started.get("body") or "{}").get("runId")
        if run_id:  # the run's first step, in a new container: the run was saved to the table
            step = json.loads(json.dumps(stored("runs-step")).replace("sample-run", run_id))
            out["runs-step"] = sam_local_invoke("RunsFunction", step, env, work)
    finally:
        site.stop()
    return out


def http(answers, name):
    answer, _, log = answers[name]
    assert answer is not None, f"{name}: no answer from sam local invoke:\n{log[-3000:]}"
    body = answer.get("body") or ""
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = body
    return int(answer.get("statusCode", 200)), parsed


def test_runs_health_and_a_run_start(answers):
    status, body = http(answers, "runs-health")
    assert status == 200 and body["status"] == "ok", body
    status, body = http(answers, "runs-start")
    assert status == 200 and body.get("runId"), body
    status, step = http(answers, "runs-step")
    assert status == 200 and step["action"] == "execute_tool" and step["state"]["currentStep"] == 1, step


def test_agents_json_manifest_and_a_search_of_the_seeded_catalog(answers):
    status, body = http(answers, "agents-json")
    assert status == 200 and body, body
    status, body = http(answers, "agents-search")
    assert status == 200, body


def test_signed_webhook_turns_are_answered(answers):
    for name in ("olympics-turn", "olympics-turn-url"):
        status, body = http(answers, name)
        assert status == 200 and isinstance(body.get("actions"), list), (name, body)
    status, body = http(answers, "werewolf-turn")
    assert status == 200 and body, body


def test_an_unsigned_werewolf_turn_is_refused_when_a_key_is_configured(answers):
    status, _ = http(answers, "werewolf-unsigned")
    assert status == 401


def test_an_evaluation_connect_and_ping(answers):
    status, _ = http(answers, "evals-connect")
    assert status == 200
    status, _ = http(answers, "evals-ping")
    assert status == 200


def test_the_usage_report(answers):
    status, body = http(answers, "usage")
    assert status == 200, body


def test_a_browser_action_on_a_local_page(answers):
    answer, _, log = answers["browser"]
    assert answer is not None, log[-3000:]
    assert answer["results"] == [{"ok": True}, {"ok": True}], answer
    assert any(e.get("label") == "First Name" and e.get("value") == "Ann" for e in answer["observation"]["elements"])


def test_sam_local_start_api_answers_health_and_a_signed_webhook_turn(bridge_stack, tmp_path):
    env = sam_env_file(bridge_stack, tmp_path / "env.json")
    port = free_port()
    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "sam"), "local", "start-api", "-t", str(BUILT_TEMPLATE),
                             "--env-vars", str(env), "--skip-pull-image", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=ROOT, env={**os.environ, "SAM_CLI_TELEMETRY": "0", **FAKE_AWS},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "sam local start-api did not start"
                time.sleep(0.5)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=180) as resp:  # noqa: S310
            assert resp.status == 200 and json.loads(resp.read())["status"] == "ok"
        raw = stored("werewolf-turn")["body"].encode()
        sig = signing.sign(LOCAL_SECRETS["AGENTHOST_WEREWOLF_API_KEY"].encode(), raw)
        req = urllib.request.Request(f"http://127.0.0.1:{port}/werewolf/turn", data=raw, method="POST",
                                     headers={"content-type": "application/json", "x-werewolf-signature": sig})
        with urllib.request.urlopen(req, timeout=180) as resp:  # noqa: S310
            assert resp.status == 200
            answer = json.loads(resp.read())
        assert answer and "error" not in answer, answer
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
