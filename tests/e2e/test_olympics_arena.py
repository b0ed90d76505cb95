"""The arena end to end: real Chromium, our task pages, the platform's request signing and element
resolution; against the webhook on the real local stack (deterministic policy)."""

import json
import time

import boto3
import httpx
import pytest
from boto3.dynamodb.types import TypeDeserializer
from olympics.memory import stored, task_hash

from infra.arena import runner as platform
from infra.arena import suite
from infra.arena.site import Site
from infra.local.defaults import LOCAL_SECRETS
from tests.support.timing import waited

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

FOLDER, TASKS = suite.load()
BASIC = [t for t in TASKS if t.family == "basic"]  # the 13 form and navigation tasks our agent solves today


def test_suite_has_at_least_twelve_tasks_each_with_a_page_side_marker():
    assert len(TASKS) >= 12
    for t in TASKS:
        page = (FOLDER / t.start).parent
        assert t.marker.endswith("_COMPLETE")
        assert any(t.marker in p.read_text() for p in page.glob("*.html")), t.id


def _scripted(turns):
    def send(headers, body, timeout):
        req = json.loads(body)
        n = req["turnNumber"]
        acts = turns[n - 1] if n <= len(turns) else []
        return 200, json.dumps({"thinking": "scripted", "actions": acts, "done": n >= len(turns),
                                "result": {"ok": True}}).encode()
    return send


def test_every_task_is_solvable_with_platform_tools_and_its_check_is_real():
    """A known solution makes the page record success; the same solution minus its last action does not."""
    with Site(FOLDER) as site:
        with platform.Runner(_scripted([]), "unused", pace_s=0, action_timeout_s=2, printer=None, site=site) as r:
            for t in TASKS:
                r.transport = _scripted(t.oracle)
                solved = r.play(t.id, site.url + t.start, t.prompt, t.marker)
                assert solved.success and solved.violations == [], (t.id, solved.end, solved.violations)
                partial = [list(turn) for turn in t.oracle]
                partial[-1] = partial[-1][:-1]
                r.transport = _scripted(partial)
                unsolved = r.play(t.id, site.url + t.start, t.prompt, t.marker)
                assert not unsolved.success, f"{t.id}: marker fired without the final action"
                assert unsolved.false_done, f"{t.id}: the scripted done on an unsolved page is a false done"


def test_arena_plays_the_suite_against_the_local_stack(stack):
    url = stack.http_url + "/olympics/turn"
    secret = stack.env.get("AGENTHOST_OLYMPICS_SECRET") or LOCAL_SECRETS["AGENTHOST_OLYMPICS_SECRET"]
    lines: list[str] = []
    with Site(FOLDER) as site, platform.Runner(platform.http_transport(url), secret, agent_id="e2e-arena",
                                               max_turns=10, pace_s=0, action_timeout_s=2,
                                               printer=lines.append, site=site) as r:
        results = [r.play(t.id, site.url + t.start, t.prompt, t.marker, family=t.family) for t in BASIC]
        first_url = site.url + BASIC[0].start
    print("\n".join(lines))
    for res in results:
        assert res.turns >= 1, res.id
        assert all(turn.status == 200 for turn in res.log), (res.id, res.end)
        # response invariants on every turn, checked on the live page independently of the webhook's guard
        # (a done claiming success on a page that recorded none is one of them: a false done)
        assert res.violations == [], (res.id, res.violations)
        assert not res.false_done, (res.id, res.end)
        assert "no reply" not in res.end and "HTTP" not in res.end and "invalid JSON" not in res.end
        assert all(turn.latency_s < 20 for turn in res.log)
    # the deterministic policy (AGENTHOST_LLM=none on the local stack) solves the suite: issue 4 asks for at
    # least 9 tasks; each result is read from the page's own completion check, not from our "done"
    solved = [res.id for res in results if res.success]
    assert len(solved) >= 9, (solved, [(res.id, res.end) for res in results if not res.success])
    # task memory landed in the stack's DynamoDB
    ddb = boto3.client("dynamodb", endpoint_url=stack.dynamodb_url, region_name="us-east-1",
                       aws_access_key_id="local", aws_secret_access_key="local")
    raw = ddb.get_item(TableName="agenthost", Key={
        "pk": {"S": f"TASK#e2e-arena#{task_hash(BASIC[0].prompt, first_url)}"}, "sk": {"S": "META"}}).get("Item")
    item = stored({k: TypeDeserializer().deserialize(v) for k, v in (raw or {}).items()})
    assert item and int(item["last_turn"]) == results[0].turns


def test_stack_rejects_bad_signatures_with_401_json(stack):
    body = json.dumps({"timestamp": int(time.time() * 1000), "turnNumber": 1}).encode()
    r = httpx.post(stack.http_url + "/olympics/turn", content=body, headers={
        "content-type": "application/json", "X-AI-Olympics-Signature": platform.sign("whs_wrong", body),
        "X-AI-Olympics-Timestamp": str(int(time.time() * 1000))}, timeout=waited(5))
    assert r.status_code == 401 and r.json() == {"error": "invalid signature"}


def test_the_arena_audit_catches_contract_violations_and_the_runner_cap():
    """The per-turn audit is not a rubber stamp: a reply breaking every rule is reported rule by rule."""
    bad = [{"tool": "type", "args": {"element": "Your answer", "text": str(i)}} for i in range(9)] + [
        {"tool": "click", "args": {"element": "No such button"}},
        {"tool": "submit", "args": {}},
        {"tool": "scroll", "args": {"direction": "left"}},
        {"tool": "type", "args": {"element": "Your answer", "text": "<script>alert(1)</script>"}},
        {"tool": "teleport", "args": {}}]

    def send(headers, body, timeout):
        return 200, json.dumps({"actions": bad, "done": True}).encode()

    task = next(t for t in TASKS if t.id == "table")
    with Site(FOLDER) as site, platform.Runner(send, "unused", pace_s=0, action_timeout_s=0.5, printer=None) as r:
        res = r.play(task.id, site.url + task.start, task.prompt, task.marker)
    v = " | ".join(res.violations)
    for expected in ("14 actions (max 10)", "'No such button' not on the page", "submit without form",
                     "scroll left/right", "script-like type", "'teleport' not offered", "done without result",
                     "false done"):
        assert expected in v, expected
    turn = res.log[0]
    assert len(turn.actions) == 10, "the runner executes only the first 10 actions"
    assert turn.outcomes[9].startswith("failed"), "a missing name blocks until the action timeout, then fails"


def test_the_audit_checks_submit_names_a_real_form_and_object_results_when_asked():
    """(These replies claim done on the unsolved page: that is a false done, reported on its own; the other
    rules are checked on the remaining violations.)"""
    def reply(actions, result):
        def send(headers, body, timeout):
            return 200, json.dumps({"actions": actions, "done": True, "result": result}).encode()
        return send

    task = next(t for t in TASKS if t.id == "table")
    prompt = task.prompt + " Report the population as a JSON object."
    with Site(FOLDER) as site, platform.Runner(reply([], None), "unused", pace_s=0, action_timeout_s=0.5,
                                               printer=None) as r:
        r.transport = reply([{"tool": "submit", "args": {"form": "no-such-form"}}], "298,479")
        bad = " | ".join(r.play(task.id, site.url + task.start, prompt, task.marker).violations)
        assert "submit names no form on the page" in bad and "JSON-object result" in bad

        def others(res):
            assert res.false_done and any("false done" in v for v in res.violations)
            return [v for v in res.violations if "false done" not in v]

        r.transport = reply([{"tool": "submit", "args": {"form": "f"}}], {"population": "298,479"})
        assert others(r.play(task.id, site.url + task.start, prompt, task.marker)) == []
        r.transport = reply([], "298,479")  # a plain answer is fine when the task does not ask for an object
        assert others(r.play(task.id, site.url + task.start, task.prompt, task.marker)) == []
