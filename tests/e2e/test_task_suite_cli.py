"""``make arena`` and the extension emulator, each with its own Chromium, against scripted counterparts that
claim success on pages that recorded none: both count a false done (and ``make arena`` exits non-zero)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from infra.arena import suite
from infra.arena.__main__ import main as arena_main
from infra.arena.site import Site
from infra.extension.emulator import Emulator

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

FOLDER, TASKS = suite.load()
BY_ID = {t.id: t for t in TASKS}


@pytest.fixture(scope="module")
def site():
    with Site(FOLDER) as s:
        yield s


class _FakeWebhook(BaseHTTPRequestHandler):
    """Claims done with success on every turn, whatever the page shows."""

    def log_message(self, *a: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        raw = json.dumps({"thinking": "claims", "actions": [], "done": True, "result": {"success": True}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def test_make_arena_exits_non_zero_on_a_false_done(capsys):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _FakeWebhook)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        rc = arena_main(["--url", f"http://127.0.0.1:{srv.server_address[1]}/", "--secret", "whs_test",
                         "--tasks", "chess-move", "--seeds", "1,2", "--max-turns", "2", "--pace", "0"])
    finally:
        srv.shutdown()
        srv.server_close()
    out = capsys.readouterr().out
    assert rc == 1
    assert "false done: the agent claimed success but the page recorded none" in out
    assert "false dones: 2" in out and "chess-move@1" in out and "chess-move@2" in out


class _FakeProxyApi(BaseHTTPRequestHandler):
    """A Proxy API whose brain finishes at once with the result given by the class attribute."""

    result = "Done."

    def log_message(self, *a: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        state = {"status": "completed", "currentStep": 1, "maxSteps": 5}
        doc = ({"runId": "run-1", "state": state} if self.path.endswith("/start")
               else {"action": "finish", "result": self.result, "state": state})
        raw = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def test_extension_emulator_counts_a_finish_on_an_unsolved_page_as_false_done(site):
    t = BY_ID["arithmetic-game"]
    handler = type("H", (_FakeProxyApi,), {})
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        with Emulator(f"http://127.0.0.1:{srv.server_address[1]}", printer=None, site=site) as emu:
            handler.result = "All five rounds answered."
            out = emu.run(t.id, t.prompt, site.url + t.start, marker=t.marker, family=t.family)
            assert out.claimed and out.false_done and not out.success, out
            handler.result = "Not achieved: I could not compute round 1."
            out = emu.run(t.id, t.prompt, site.url + t.start, marker=t.marker, family=t.family)
            assert not out.claimed and not out.false_done and not out.success, out
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_eval_client_reports_the_page_record_and_the_packaged_web_tasks_judge_by_it(site):
    """The evaluation client's output carries the page's own record; the packaged web-task evaluations pass
    on it, not on the agent's ``success`` claim."""
    from evals.definitions import PACKAGED_DIR, load_dir
    from evals.judging import judge

    from infra.eval_client.tools import Browser, _page_record

    ev = load_dir(PACKAGED_DIR).evaluations["task-chess-move-022"]
    assert ev.url("http://pages").endswith("/tasks/chess-move/index.html")
    t = BY_ID["chess-move"]
    browser = Browser()
    try:
        page = browser.page()
        page.goto(site.url + t.start)
        assert _page_record(page) == {"recorded": False}
        unsolved = {"status": "success", "output": {"done": True, "success": True, "pageRecord": _page_record(page)}}
        assert not judge(ev, unsolved)["passed"]  # a claim alone does not pass
        page.get_by_label("Your move").fill("Ra7")
        page.get_by_role("button", name="Play move").click()
        wrong = _page_record(page)
        assert wrong["success"] is False and wrong["task"] == "chess-move"
        assert not judge(ev, {"status": "success", "output": {"done": True, "success": True, "pageRecord": wrong}})[
            "passed"]
        page.get_by_label("Your move").fill("Ra8#")
        page.get_by_role("button", name="Play move").click()
        right = _page_record(page)
        assert right["success"] is True
        assert judge(ev, {"status": "success", "output": {"done": True, "success": False, "pageRecord": right}})[
            "passed"]
        page.goto("about:blank")
        assert _page_record(page) is None  # no recorder on the page: nothing reported
    finally:
        browser.close()
