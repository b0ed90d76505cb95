"""A JSON API on loopback for tests of the JSON API skill and the policy that routes questions to it:
``serve_json({"/path": doc})`` serves each document (a ``bytes`` body is sent as it is, anything else as
JSON) at its path, query strings ignored, and 404 ``{"error": "not found"}`` elsewhere. The netguard is
told to allow private addresses while it runs (the server is on 127.0.0.1)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agenthost import config


@contextmanager
def serve_json(routes: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("AGENTHOST_NETGUARD_ALLOW_PRIVATE", "true")
    config.reset()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - the http.server hook's name
            doc = routes.get(self.path.split("?", 1)[0])
            body = doc if isinstance(doc, bytes) else json.dumps(doc).encode() if doc is not None \
                else b'{"error": "not found"}'
            self.send_response(200 if doc is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        config.reset()
