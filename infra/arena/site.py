"""The site server for the task pages (loopback, free port, background thread).

Besides the static pages it serves two things the pages need:

* ``POST /__task_record``: a page's own verdict (``{task, success, detail, url, ts}``, sent by
  ``tests/tasks/task.js``); kept in memory so a harness can judge a run by what the page recorded
  (:meth:`Site.records`), whatever the agent claims. ``GET /__task_record`` lists them.
* ``GET /api/...``: the small JSON API some task pages are built on (:mod:`infra.arena.api`).

Built on the standard library's HTTP server: a test fixture needs nothing more.
"""

from __future__ import annotations

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from infra.arena import api

RECORD_PATH = "/__task_record"
MAX_RECORD_BYTES = 16 * 1024


class _Handler(SimpleHTTPRequestHandler):
    site: Site

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def _json(self, status: int, doc: Any) -> None:
        raw = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        parts = urlsplit(self.path)
        if parts.path == RECORD_PATH:
            self._json(200, {"records": self.site.records()})
            return
        if parts.path.startswith(api.PREFIX):
            status, doc = api.answer(parts.path, parts.query)
            self._json(status, doc)
            return
        super().do_GET()

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        if urlsplit(self.path).path != RECORD_PATH:
            self._json(404, {"error": "not found"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 < length <= MAX_RECORD_BYTES:
            self._json(400, {"error": "a record is a JSON object of at most 16 KB"})
            return
        try:
            rec = json.loads(self.rfile.read(length))
        except ValueError:
            rec = None
        if not (isinstance(rec, dict) and isinstance(rec.get("task"), str) and isinstance(rec.get("success"), bool)):
            self._json(400, {"error": "a record needs a string 'task' and a boolean 'success'"})
            return
        self.site.add({"task": rec["task"], "success": rec["success"], "detail": str(rec.get("detail", ""))[:500],
                       "url": str(rec.get("url", ""))[:500], "ts": rec.get("ts")})
        self._json(200, {"ok": True})


class Site:
    def __init__(self, folder: Path, host: str = "127.0.0.1", port: int = 0):
        self._records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"site": self})
        self.server = ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(folder)))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def add(self, record: dict[str, Any]) -> None:
        with self._lock:
            self._records.append(record)

    def records(self, task: str | None = None, since: int = 0) -> list[dict[str, Any]]:
        """Records posted by pages (from position ``since``), optionally only one task's."""
        with self._lock:
            out = self._records[since:]
        return [r for r in out if task is None or r["task"] == task]

    def mark(self) -> int:
        """The current position in the record list (pass it as ``since`` to read only later records)."""
        with self._lock:
            return len(self._records)

    def __enter__(self) -> Site:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
