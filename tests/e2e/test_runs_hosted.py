"""Hosted browsing end to end: the local stack's Runs function drives the browser function (real Chromium)
one asynchronous invocation per step; progress is read through GET; careful-mode questions wait."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from infra.arena.site import Site
from tests.support.timing import waited

pytestmark = [pytest.mark.e2e, pytest.mark.browser]
PAGES = Path(__file__).parent / "runs_pages"


@pytest.fixture(scope="module")
def site():
    with Site(PAGES) as s:
        yield s


def wait_for(stack, run_id, statuses, timeout=60.0):
    timeout = waited(timeout)  # the browser function's steps, each later on a loaded machine
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = httpx.get(f"{stack.http_url}/agent/run/{run_id}", timeout=30).json()["state"]
        if state["status"] in statuses:
            return state
        time.sleep(0.3)
    raise AssertionError(f"run {run_id} still {state['status']} after {timeout:.0f} s: {state['history']}")


def test_hosted_run_navigates_by_itself(stack, site):
    r = httpx.post(f"{stack.http_url}/agent/run/start",
                   json={"task": "Open the Contact us page", "browser": "hosted", "startUrl": site.url + "index.html",
                         "maxSteps": 8}, timeout=30)
    assert r.status_code == 200, r.text
    rid = r.json()["runId"]
    state = wait_for(stack, rid, ("completed", "error", "cancelled"))
    actions = [h["action"] for h in state["history"]]
    assert actions[0] == "click" and state["history"][0]["observation"] == "Done", (state["status"], state["history"])
    assert state["currentSnapshot"]["url"].endswith("contact.html")
    assert state["browser"] == "hosted"
    # the extension cannot drive a hosted run
    assert httpx.post(f"{stack.http_url}/agent/run/{rid}/step", json={}, timeout=waited(5)).status_code == 409


def test_hosted_careful_run_waits_for_answer(stack, site):
    r = httpx.post(f"{stack.http_url}/agent/run/start",
                   json={"task": "Click Pay now to buy the tea", "mode": "careful", "browser": "hosted",
                         "startUrl": site.url + "checkout.html", "maxSteps": 8}, timeout=30)
    rid = r.json()["runId"]
    state = wait_for(stack, rid, ("waiting_user", "completed", "error"))
    assert state["status"] == "waiting_user" and "Pay now" in state["question"] and "$18.50" in state["question"]
    time.sleep(1.0)  # nothing moves while the question is open
    still = httpx.get(f"{stack.http_url}/agent/run/{rid}", timeout=30).json()["state"]
    assert still["currentStep"] == state["currentStep"] and still["status"] == "waiting_user"
    ans = httpx.post(f"{stack.http_url}/agent/run/{rid}/answer", json={"approved": True}, timeout=30)
    assert ans.status_code == 200 and ans.json()["state"]["status"] == "running"
    state = wait_for(stack, rid, ("completed", "error", "cancelled"))
    clicks = [h for h in state["history"] if h["action"] == "click"]
    assert clicks and clicks[0]["observation"] == "Done"
    assert "order has been placed" in state["currentSnapshot"]["visibleText"]


def test_hosted_needs_start_url(stack):
    r = httpx.post(f"{stack.http_url}/agent/run/start", json={"task": "t", "browser": "hosted"}, timeout=waited(5))
    assert r.status_code == 400 and "startUrl" in r.json()["message"]
