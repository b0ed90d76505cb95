"""The browser function through the local stack's Lambda invoke endpoint (agenthost.browser client),
with sessions saved in the stack's DynamoDB and resumed after Chromium is killed."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import boto3
import pytest

from agenthost.agent.snapshot import from_observation
from agenthost.browser import Browser, BrowserError
from tests.support.brain_pages import PageServer
from tests.support.timing import waited

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


@pytest.fixture(scope="module")
def site():
    server = PageServer().start()
    yield server
    server.stop()


@pytest.fixture
def browser(stack, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL_LAMBDA", stack.lambda_url)
    return Browser()


def _descendant_chromium(root: int) -> list[int]:
    parents: dict[int, tuple[int, str]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
                parents[int(d.name)] = (int(stat.rsplit(")", 1)[1].split()[1]), stat.split("(", 1)[1].split(")")[0])
            except (OSError, ValueError, IndexError):
                continue
    found = []
    for pid, (_, comm) in parents.items():
        p, hops = pid, 0
        while p in parents and p != root and hops < 20:
            p, hops = parents[p][0], hops + 1
        if p == root and "chrom" in comm:
            found.append(pid)
    return found


def test_browser_runs_in_the_local_stack_and_resumes_sessions_from_the_table(stack, browser, site):
    out = browser.run("stack-s1", [{"tool": "navigate", "url": f"{site.url}/login"},
                                   {"tool": "navigate", "url": f"{site.url}/index.html"},
                                   {"tool": "click", "element": "Pricing plans"}])
    assert out["results"] == [{"ok": True}, {"ok": True}, {"ok": True}]
    page = from_observation(out["observation"])
    assert page.title == "Pricing" and page.tables[0][2] == ["Pro", "$29/month", "200 GB"]
    ddb = boto3.client("dynamodb", endpoint_url=stack.dynamodb_url, region_name="us-east-1")
    table = stack.env.get("AGENTHOST_TABLE", "agenthost")
    item = ddb.get_item(TableName=table, Key={"pk": {"S": "BROWSER#stack-s1"}, "sk": {"S": "META"}})["Item"]
    assert item["url"]["S"].endswith("/pricing.html") and "expires_at" in item

    pids = _descendant_chromium(stack.proc.pid)
    assert pids, "the stack runs Chromium itself"
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.3)
    out = browser.run("stack-s1", [])  # no state passed: restored from the table
    assert out["session"]["resumed"] is True
    assert out["observation"]["title"] == "Pricing"
    out = browser.run("stack-s1", [{"tool": "navigate", "url": f"{site.url}/whoami"}])
    assert "You are signed in" in out["observation"]["text"]  # the cookie survived the dead browser
    other = browser.run("stack-s2", [{"tool": "navigate", "url": f"{site.url}/whoami"}])
    assert "You are anonymous" in other["observation"]["text"]  # sessions do not share cookies


def test_unknown_function_is_a_clear_error(stack, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL_LAMBDA", stack.lambda_url)
    with pytest.raises(BrowserError):
        Browser("NoSuchFunction").run("x", [])


@pytest.fixture(scope="module")
def eval_pages():
    """The packaged evaluation suite's pages (infra/eval_client/pages) on loopback."""
    from tests.support.evals import PagesServer

    server = PagesServer()
    yield server.url
    server.close()


def test_evaluate_script_runs_in_real_chromium_through_the_stack(stack, browser, eval_pages):
    assert browser.evaluate_script(f"{eval_pages}/team.html", "document.querySelectorAll('tbody tr').length") == 3
    body = "const h = document.querySelector('h1'); return {h1: h.innerText};"
    assert browser.evaluate_script(f"{eval_pages}/team.html", body) == {"h1": "Our team"}
    with pytest.raises(BrowserError, match="ReferenceError"):
        browser.evaluate_script(f"{eval_pages}/team.html", "missing.thing")
    with pytest.raises(BrowserError, match="cannot open"):
        browser.evaluate_script("http://169.254.169.254/latest/meta-data/", "1")


def test_js_eval_judging_of_the_packaged_evaluation_through_the_browser_function(stack, monkeypatch, eval_pages):
    from evals.definitions import load_dir
    from evals.judging import default_js_runner, judge

    monkeypatch.delenv("AGENTHOST_BROWSER_FUNCTION", raising=False)
    assert default_js_runner() is None  # no browser function configured: js-eval cannot run
    monkeypatch.setenv("AWS_ENDPOINT_URL_LAMBDA", stack.lambda_url)
    monkeypatch.setenv("AGENTHOST_BROWSER_FUNCTION", stack.env.get("AGENTHOST_BROWSER_FUNCTION") or "BrowserFunction")
    runner = default_js_runner()
    assert runner is not None
    root = Path(__file__).resolve().parents[2] / "functions" / "evals" / "definitions"
    ev = load_dir(root).evaluations["team-roles-js-017"]
    right = {"members": [{"name": "Ada Lovelace", "role": "Engineer"}, {"name": "Grace Hopper", "role": "Admiral"},
                         {"name": "Alan Turing", "role": "Researcher"}]}
    verdict = judge(ev, {"status": "success", "output": right}, js_runner=runner, pages_url=eval_pages)
    js = next(c for c in verdict["checks"] if c["check"] == "js-eval")
    assert js["passed"] is True and "Grace Hopper: Admiral" in js["detail"]
    assert verdict["passed"] and verdict["score"] == 1.0
    wrong = {"members": [{"name": "Grace Hopper", "role": "Engineer"}]}
    verdict = judge(ev, {"status": "success", "output": wrong}, js_runner=runner, pages_url=eval_pages)
    assert not verdict["passed"] and verdict["score"] < 1.0
    assert {c["check"]: c["passed"] for c in verdict["checks"]}["js-eval"] is True  # the page is as described
    # the page served is not the one the evaluation describes (here a 404 page): the js-eval check says so
    other = judge(ev, {"status": "success", "output": right}, js_runner=runner, pages_url=f"{eval_pages}/gone")
    js = next(c for c in other["checks"] if c["check"] == "js-eval")
    assert js["passed"] is False and not other["passed"]


def test_the_packaged_js_eval_evaluation_end_to_end(stack, eval_pages):
    """Our evaluation client runs team-roles-js-017 against our server; the server judges the result with the
    evaluation's script run by the browser function in the stack."""
    import asyncio
    import uuid

    from evals.definitions import load_dir

    from infra.eval_client.client import ClientConfig, EvalClient
    from infra.local.defaults import LOCAL_SECRETS
    from tests.support.evals import upload_client, wait_finished

    ev = load_dir(Path(__file__).resolve().parents[2] / "functions" / "evals" / "definitions") \
        .evaluations["team-roles-js-017"]
    doc = ev.doc()
    doc["target"]["url"] = ev.url(eval_pages)
    cid = str(uuid.uuid4())
    upload_client(stack.http_url, cid, [doc])
    client = EvalClient(ClientConfig(url=stack.ws_url, client_id=cid, secret=LOCAL_SECRETS["AGENTHOST_EVALS_SECRET"],
                                     handshake="devtools", max_concurrency=1, stop_after=1))
    asyncio.run(asyncio.wait_for(client.run(), waited(90)))
    state = wait_finished(stack.http_url, cid, timeout=60)
    (result,) = state["evaluations"]
    checks = {c["check"]: c for c in result["verdict"]["checks"]}
    assert checks["js-eval"]["passed"] is True, checks
    assert "Alan Turing: Researcher" in checks["js-eval"]["detail"]
    assert checks["expected"]["passed"] is True and result["passed"] is True
