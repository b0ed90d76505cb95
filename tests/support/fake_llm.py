"""A local OpenAI-compatible server on loopback for tests: real HTTP, scripted replies, slow/broken modes.

Usage::

    with FakeLLM() as llm:
        llm.reply({"actions": [], "done": True})           # next answer (a dict is sent as JSON text)
        llm.reply("Sure! ```json\\n{...}\\n```")             # chatty/fenced text
        llm.reply(status=500)                               # broken: HTTP 500
        llm.reply({"x": 1}, delay=3.0)                      # slow
        llm.reply("not json at all")                        # garbage
        llm.reject_json_schema = True                       # 400 on response_format json_schema
        llm.responder = lambda request_json: {...}          # or compute replies from the request
        env: AGENTHOST_LLM=f"openai:fake-model", AGENTHOST_LLM_BASE_URL=llm.base_url

Replies are consumed in order; when the script is empty, ``responder`` (if set) answers, else a 500.
``llm.requests`` holds every request body received (JSON), ``llm.headers`` their headers.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Scripted:
    content: Any = None
    status: int = 200
    delay: float = 0.0
    usage: tuple[int, int] = (100, 20)
    raw_body: bytes | None = None


class FakeLLM:
    def __init__(self) -> None:
        self.script: deque[Scripted] = deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.responder: Callable[[dict[str, Any]], Any] | None = None
        self.reject_json_schema = False
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # -- scripting
    def reply(self, content: Any = None, *, status: int = 200, delay: float = 0.0, usage: tuple[int, int] = (100, 20),
              raw_body: bytes | None = None) -> FakeLLM:
        self.script.append(Scripted(content, status, delay, usage, raw_body))
        return self

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    # -- lifecycle
    def start(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                with fake._lock:
                    fake.requests.append(body)
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": "not found"}})
                fmt = (body.get("response_format") or {}).get("type")
                if fake.reject_json_schema and fmt == "json_schema":
                    return self._send(400, {"error": {"message": "response_format json_schema is not supported"}})
                with fake._lock:
                    item = fake.script.popleft() if fake.script else None
                if item is None:
                    if fake.responder is None:
                        return self._send(500, {"error": {"message": "no scripted reply"}})
                    item = Scripted(fake.responder(body))
                if item.delay:
                    time.sleep(item.delay)
                if item.raw_body is not None:
                    return self._send_raw(item.status, item.raw_body)
                if item.status != 200:
                    return self._send(item.status, {"error": {"message": f"scripted {item.status}"}})
                content = item.content if isinstance(item.content, str) else json.dumps(item.content)
                self._send(200, {
                    "id": "chatcmpl-fake", "object": "chat.completion", "model": body.get("model", ""),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": item.usage[0], "completion_tokens": item.usage[1],
                              "total_tokens": sum(item.usage)},
                })

            def _send(self, status: int, obj: Any) -> None:
                self._send_raw(status, json.dumps(obj).encode())

            def _send_raw(self, status: int, data: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="fake-llm")
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
