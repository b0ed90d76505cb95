"""Serves tests/pages/brain on loopback for the browser tests, with a few dynamic routes.

* ``/slow.html?s=N``: answers after N seconds.
* ``/redirect?to=URL``: 302 to URL (a POST gets 307, so the POST goes on to URL).
* ``/ping``: ``pong`` (used as a canary: ``hits`` counts it, WebSocket handshakes and POSTs included).
* ``/login`` sets a session cookie; ``/whoami`` says whether it came back.
Every path requested is recorded in ``paths``.
"""

from __future__ import annotations

import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

PAGES = Path(__file__).resolve().parents[1] / "pages" / "brain"


class PageServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.paths: list[str] = []
        self.hits = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://{self.host}:{self._server.server_address[1]}"

    def start(self) -> PageServer:
        owner = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *a: Any, **kw: Any) -> None:
                super().__init__(*a, directory=str(PAGES), **kw)

            def log_message(self, *args: Any) -> None:
                pass

            def end_headers(self) -> None:
                self.send_header("Cache-Control", "no-store")
                self.send_header("Access-Control-Allow-Origin", "*")
                super().end_headers()

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                owner.paths.append(parts.path)
                q = parse_qs(parts.query)
                try:
                    if parts.path == "/slow.html":
                        time.sleep(float(q.get("s", ["5"])[0]))
                        return self._text("<h1>Finally loaded</h1>", "text/html")
                    if parts.path == "/redirect":
                        self.send_response(302)
                        self.send_header("Location", q.get("to", ["/"])[0])
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return None
                    if parts.path == "/login":  # sets a session cookie, like a sign-in
                        data = b"<h1>Signed in</h1><a href='/whoami'>Who am I</a>"
                        self.send_response(200)
                        self.send_header("Set-Cookie", "sid=s3cr3t-session; Path=/; HttpOnly")
                        self.send_header("Content-Type", "text/html")
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                        return None
                    if parts.path == "/whoami":  # shows whether the cookie came back
                        cookie = self.headers.get("Cookie", "")
                        who = "signed in" if "sid=s3cr3t-session" in cookie else "anonymous"
                        return self._text(f"<title>Who</title><h1>You are {who}</h1>", "text/html")
                    if parts.path == "/ping":
                        owner.hits += 1
                        return self._text("pong", "text/plain")
                    return super().do_GET()
                except (BrokenPipeError, ConnectionResetError):
                    return None

            def do_POST(self) -> None:  # noqa: N802 - a form POST: /redirect answers 307 (the POST goes on)
                parts = urlsplit(self.path)
                owner.paths.append(parts.path)
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                if parts.path == "/redirect":
                    self.send_response(307)
                    self.send_header("Location", parse_qs(parts.query).get("to", ["/"])[0])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if parts.path == "/ping":
                    owner.hits += 1
                self._text(f"<title>Posted</title><h1>Posted to {parts.path}</h1>", "text/html")

            def _text(self, body: str, ctype: str) -> None:
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer((self.host, 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True, name="brain-pages").start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
