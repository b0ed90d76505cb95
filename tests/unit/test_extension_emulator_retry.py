"""The extension emulator asks again after a 503 that carries ``Retry-After`` (the service's database
unavailable for a moment), as an extension does, and reports any other failure at once."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from infra.extension.emulator import UNAVAILABLE_RETRIES, Emulator


def _server(answers: list[tuple[int, dict[str, str]]]) -> tuple[ThreadingHTTPServer, list[str]]:
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("content-length") or 0))
            seen.append(self.path)
            status, headers = answers.pop(0) if answers else (200, {})
            body = json.dumps({"runId": "r1"} if status == 200 else {"error": "unavailable"}).encode()
            self.send_response(status)
            for k, v in {"content-type": "application/json", **headers}.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, seen


def test_a_503_with_retry_after_is_asked_again_and_its_answer_used():
    srv, seen = _server([(503, {"retry-after": "0"}), (503, {"retry-after": "0"})])
    said: list[str] = []
    try:
        out = Emulator(f"http://127.0.0.1:{srv.server_address[1]}", printer=said.append)._post("/agent/run/start", {})
    finally:
        srv.shutdown()
        srv.server_close()
    assert out == {"runId": "r1"} and seen == ["/agent/run/start"] * 3
    assert sum("HTTP 503" in line for line in said) == 2


@pytest.mark.parametrize("answers", [[(503, {})], [(500, {"retry-after": "0"})],
                                     [(503, {"retry-after": "0"})] * (UNAVAILABLE_RETRIES + 1)])
def test_other_failures_and_a_503_that_lasts_are_reported(answers):
    srv, seen = _server(list(answers))
    try:
        with pytest.raises(RuntimeError, match=r"POST /agent/run/start: HTTP 50[03]"):
            Emulator(f"http://127.0.0.1:{srv.server_address[1]}", printer=None)._post("/agent/run/start", {})
    finally:
        srv.shutdown()
        srv.server_close()
    assert len(seen) == min(len(answers), UNAVAILABLE_RETRIES + 1)
