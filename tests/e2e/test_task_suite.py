"""The task suite's own judging, proven with scripted agents (not our agent): pages record their verdict, the
arena and the extension emulator judge by that record, and a claim of success the page did not record is
counted as a false done."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from infra.arena import judge, suite
from infra.arena import runner as platform
from infra.arena.site import Site
from tests.support.timing import waited

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

FOLDER, TASKS = suite.load()
NEW = [t for t in TASKS if t.family != "basic"]
BY_ID = {t.id: t for t in TASKS}


def scripted(turns: list[list[dict[str, Any]]], *, done: dict[str, Any] | None = None):
    """A webhook that plays ``turns`` and then answers ``done`` with ``done`` as the reply's extra fields."""
    def send(headers, body, timeout):
        n = json.loads(body)["turnNumber"]
        acts = turns[n - 1] if n <= len(turns) else []
        last = n >= len(turns)
        reply = {"thinking": "scripted", "actions": acts, "done": last}
        if last:
            reply.update(done or {"result": {"success": True}})
        return 200, json.dumps(reply).encode()
    return send


@pytest.fixture(scope="module")
def site():
    with Site(FOLDER) as s:
        yield s


@pytest.fixture(scope="module")
def runner(site):
    with platform.Runner(scripted([]), "unused", pace_s=0, action_timeout_s=1, printer=None, site=site) as r:
        yield r


def test_suite_shape_families_and_recorder():
    families = {t.family for t in NEW}
    assert len(families) >= 14, families
    assert len({t.id for t in TASKS}) == len(TASKS)
    for t in TASKS:
        pages = list((FOLDER / t.start).parent.glob("*.html"))
        recording = [p for p in pages if "../task.js" in p.read_text()]
        assert recording, f"{t.id}: no page of the task loads task.js"
        assert all(f'data-task="{t.id}"' in p.read_text() for p in recording), t.id
        assert all(t.marker in p.read_text() for p in recording), t.id
    for t in NEW:
        assert t.wrong, f"{t.id}: a wrong-answer script is missing"


def test_every_page_loads_without_script_errors(runner, site):
    ctx = runner._browser.new_context()
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    for p in sorted(FOLDER.glob("*/*.html")):
        page.goto(site.url + p.relative_to(FOLDER).as_posix())
    ctx.close()
    assert errors == []


@pytest.mark.parametrize("task_id", [t.id for t in NEW])
def test_scripted_correct_run_records_success_and_is_no_false_done(runner, site, task_id):
    t = BY_ID[task_id]
    runner.transport = scripted(t.oracle)
    res = runner.play(t.id, site.url + t.start, t.prompt, t.marker, family=t.family)
    assert res.success and res.claimed and not res.false_done, (t.id, res.end, res.records)
    assert res.violations == [], res.violations
    assert [r for r in res.records if r["success"]], res.records
    # the page's POST reached the site server too (a beacon: it may land a little after the console line, later on
    # a loaded machine)
    deadline = time.monotonic() + waited(5)
    while not any(r["success"] for r in site.records(t.id)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert any(r["success"] for r in site.records(t.id)), site.records(t.id)


@pytest.mark.parametrize("task_id", [t.id for t in NEW if t.wrong])
def test_a_wrong_answer_records_failure_and_claiming_done_on_it_is_a_false_done(runner, site, task_id):
    t = BY_ID[task_id]
    runner.transport = scripted(t.wrong)
    res = runner.play(t.id, site.url + t.start, t.prompt, t.marker, family=t.family)
    assert not res.success, (t.id, res.records)
    assert res.records and all(r["success"] is False for r in res.records), res.records
    assert res.false_done and any("false done" in v for v in res.violations), res.violations


def test_an_honest_give_up_is_not_a_false_done(runner, site):
    t = BY_ID["word-game"]
    for reply in ({"result": {"success": False, "reason": "could not unscramble round 1"}},
                  {"actions": [{"tool": "done", "args": {"success": False}}], "result": "gave up"}):
        turns = [reply.pop("actions", [])]
        runner.transport = scripted(turns, done=reply)
        res = runner.play(t.id, site.url + t.start, t.prompt, t.marker, family=t.family)
        assert res.done and not res.claimed and not res.success and not res.false_done, res.end
        assert not any("false done" in v for v in res.violations)


def test_done_on_turn_one_of_a_page_with_a_zero_correct_progress_line_is_a_false_done(runner, site):
    t = BY_ID["zero-correct"]
    runner.transport = scripted([[]])
    res = runner.play(t.id, site.url + t.start, t.prompt, t.marker, family=t.family)
    assert res.turns == 1 and res.false_done and not res.success and res.records == []


def test_seeds_give_other_variants(runner, site):
    ctx = runner._browser.new_context()
    page = ctx.new_page()
    seeded = [x for x in TASKS if x.seeded]
    assert len(seeded) >= 8
    for t in seeded:
        texts = []
        for seed in (1, 2):
            page.goto(f"{site.url}{t.start}?seed={seed}")
            texts.append(page.locator("body").inner_text())
        assert texts[0] != texts[1], t.id
    ctx.close()


def test_site_server_keeps_valid_records_and_refuses_others(site):
    mark = site.mark()
    url = site.url + "__task_record"
    recorded = httpx.post(url, json={"task": "x-test", "success": True, "detail": "d"}, timeout=waited(5))
    assert recorded.status_code == 200
    assert httpx.post(url, json={"task": "x-test", "success": "yes"}, timeout=waited(5)).status_code == 400
    assert httpx.post(url, content=b"not json", timeout=waited(5)).status_code == 400
    assert httpx.post(url, content=b"{" + b" " * 20000 + b"}", timeout=waited(5)).status_code == 400
    assert [r["success"] for r in site.records("x-test", mark)] == [True]
    assert any(r["task"] == "x-test" for r in httpx.get(url, timeout=waited(5)).json()["records"])
    orders = httpx.get(site.url + "api/orders?seed=3", timeout=waited(5)).json()
    assert orders["count"] == len(orders["orders"]) == 14
    assert httpx.get(site.url + "api/orders?seed=3", timeout=waited(5)).json() == orders
    assert httpx.get(site.url + "api/orders?seed=4", timeout=waited(5)).json() != orders
    assert httpx.get(site.url + "api/nothing", timeout=waited(5)).status_code == 404


def test_judge_tells_claims_from_give_ups():
    assert judge.olympics_claim({"done": True, "result": {"success": True}})
    assert judge.olympics_claim({"done": True, "result": "Paris"})
    assert not judge.olympics_claim({"done": True, "result": {"success": False}})
    assert not judge.olympics_claim({"done": False, "actions": [{"tool": "done", "args": {"success": False}}]})
    assert judge.olympics_claim({"done": False, "actions": [{"tool": "done", "args": {"success": True}}]})
    assert not judge.olympics_claim({"done": False, "actions": []})
    assert judge.finish_claim("Order placed; total $18.50")
    assert not judge.finish_claim("Not achieved: the quiz still shows 0 correct")
    assert not judge.finish_claim("Could not find the checkout button")
    assert judge.eval_claim({"done": True, "result": "42"})
    assert not judge.eval_claim({"done": True, "result": {"success": False}})
    assert not judge.eval_claim({"done": True, "success": False})
    assert not judge.eval_claim({"done": False})
    lines = ['TASK_RECORD {"task": "a", "success": false}', "noise", 'TASK_RECORD {"task": "a", "success": true}']
    assert judge.solved("a", lines) and not judge.solved("b", lines)
    assert judge.solved("b", [], [{"task": "b", "success": True}])
