"""The MiniWoB++ pages from the installed ``miniwob`` package, served on loopback under opaque paths.

The package is found without importing it (its ``__init__`` pulls in gymnasium and selenium, which the
harness does not need: only the HTML, CSS and JavaScript under ``miniwob/html``). Each episode gets a fresh
random path ``/episode/<token>.html`` mapped to its task's page, so neither the URL nor the title tells the
agent which task it plays; the pages' relative ``../core`` and ``../common`` references resolve as in the
package. Written on :mod:`http.server` because the harness needs nothing more than static files plus that
one mapping.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import secrets
import threading
from pathlib import Path
from typing import Any


class MiniwobMissing(RuntimeError):
    """The ``miniwob`` package is not installed."""


def html_root() -> Path:
    """``miniwob/html`` of the installed package."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise MiniwobMissing("the miniwob package is not installed (make bootstraps it: pip install --no-deps miniwob)")
    root = Path(next(iter(spec.submodule_search_locations))) / "html"
    if not (root / "miniwob").is_dir():
        raise MiniwobMissing(f"no MiniWoB++ pages under {root}")
    return root


def task_names() -> list[str]:
    """Every MiniWoB++ task (the page names under ``html/miniwob``), sorted."""
    return sorted(p.stem for p in (html_root() / "miniwob").glob("*.html"))


class _Handler(http.server.SimpleHTTPRequestHandler):
    routes: dict[str, str]
    # the pages are UTF-8 and some do not say so (unicode-test's button names)
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                      ".css": "text/css; charset=utf-8"}

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0].split("#", 1)[0]
        if clean.startswith("/episode/"):
            task = self.routes.get(clean[len("/episode/"):].removesuffix(".html"))
            return str(Path(self.directory) / "miniwob" / f"{task}.html") if task else "/nonexistent"
        if clean.startswith("/miniwob/"):
            return "/nonexistent"  # the pages are reached only under their episode's opaque path
        return super().translate_path(path)

    def log_message(self, *_args: Any) -> None:
        pass


class Server:
    """A loopback static server for the pages: ``with Server() as s: url = s.episode_url("click-test")``."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.routes: dict[str, str] = {}
        handler = type("Handler", (_Handler,), {"routes": self.routes})
        self._httpd = http.server.ThreadingHTTPServer(
            (host, port), functools.partial(handler, directory=str(html_root())))
        self._httpd.daemon_threads = True
        self.url = f"http://{host}:{self._httpd.server_address[1]}"
        self._thread: threading.Thread | None = None

    def episode_url(self, task: str) -> str:
        """A new opaque URL for one episode of ``task``."""
        if not (html_root() / "miniwob" / f"{task}.html").is_file():
            raise ValueError(f"unknown MiniWoB++ task {task!r}")
        token = secrets.token_hex(6)
        self.routes[token] = task
        return f"{self.url}/episode/{token}.html"

    def __enter__(self) -> Server:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
