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
                         "--tasks", "chess-move", "--max-turns", "2", "--pace", "0"])
    finally:
        srv.shutdown()
        srv.server_close()
    out = capsys.readouterr().out
    assert rc == 1
    assert "false done: the agent claimed success but the page recorded none" in out
    assert "false dones: 1" in out


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
