"""The evaluation client's web tasks with a user's agent (``AGENTHOST_AGENT``): real Chromium on a local
page; the agent's actions are played, and a failing agent still leaves the task to our policy."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agenthost import plugins
from tests.support.timing import stretch

pytestmark = pytest.mark.e2e

PAGE = b"""<!doctype html><html><head><title>Note</title></head><body>
<h1>Leave a note</h1><label for="n">Note</label><input id="n" name="note" type="text">
<button type="button" onclick="document.getElementById('s').textContent='Saved: '+document.getElementById('n').value">
Save</button><p id="s"></p></body></html>"""


@pytest.fixture(scope="module")
def site():
    class Page(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *a):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/"
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def browser():
    from infra.eval_client.tools import Browser

    b = Browser()
    yield b
    b.close()


def run(browser, site, monkeypatch, agent: str) -> dict:
    from infra.eval_client.tools import run_tool

    monkeypatch.setenv("AGENTHOST_AGENT", "tests.support.user_agents:" + agent)
    plugins.reset()
    # the evaluation's time, stretched on a loaded machine (a page that opens slowly left no time for a step)
    params = {"tool": "web_task_agent", "url": site, "timeout": 20000 * stretch(),
              "input": {"task": "Leave the note 'hi' and save it."}}
    return run_tool(browser, params, lambda *_: None)


def test_the_users_agent_drives_the_browser(browser, site, monkeypatch):
    out = run(browser, site, monkeypatch, "good")
    assert out["status"] == "success"
    first = out["output"]["steps"][0]
    assert (first["tool"], first["args"]["text"], first["ok"]) == ("type", "hello from the user agent", True)


@pytest.mark.parametrize("agent", ["raising", "invalid"])
def test_a_failing_agent_leaves_the_task_to_our_policy(browser, site, monkeypatch, agent):
    out = run(browser, site, monkeypatch, agent)
    assert out["status"] == "success"
    steps = out["output"]["steps"]
    assert steps and all("not on this page" not in str(s["args"]) for s in steps)
    assert any(s["tool"] == "type" and s["args"].get("text") == "hi" for s in steps)  # ours typed the note
