"""Helpers for evaluation tests: a pages server, a scripted WebSocket client, client-file uploads."""

from __future__ import annotations

import asyncio
import functools
import http.server
import json
import threading
import uuid
from pathlib import Path
from typing import Any

import httpx

from tests.support.timing import waited

PAGES = Path(__file__).resolve().parents[2] / "infra" / "eval_client" / "pages"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


class PagesServer:
    """Serves ``infra/eval_client/pages`` on a free loopback port."""

    def __init__(self) -> None:
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                     functools.partial(_Quiet, directory=str(PAGES)))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def chat_eval(eid: str, url: str = "http://127.0.0.1:9/x.html", timeout: int = 20000, retries: int = 0,
              **extra: Any) -> dict[str, Any]:
    return {"id": eid, "name": eid, "tool": "chat", "target": {"url": url}, "timeout": timeout,
            "input": {"message": "hello"}, "metadata": {"retries": retries},
            "validation": {"type": "schema", "schema": {"type": "object", "required": ["response"]}}, **extra}


def admin_call(method: str, url: str, **kw: Any) -> httpx.Response:
    """An admin API call as a client makes it: a 503 (the database too slow for the request's budget, as on a
    loaded machine) is retried after its ``Retry-After`` until the call's load-stretched deadline."""
    import time

    end = time.monotonic() + waited(30)
    while True:
        r = httpx.request(method, url, timeout=waited(30), **kw)
        if r.status_code != 503 or time.monotonic() > end:
            return r
        time.sleep(min(float(r.headers.get("retry-after") or 1), max(0.0, end - time.monotonic())))


def upload_client(http_url: str, client_id: str, evaluations: list[dict[str, Any]], secret_key: str | None = None,
                  **settings: Any) -> None:
    client: dict[str, Any] = {"id": client_id, "name": f"test {client_id[:8]}"}
    if secret_key is not None:
        client["secret_key"] = secret_key
    doc = {"client": client, "settings": settings, "evaluations": evaluations}
    r = admin_call("POST", f"{http_url}/evals/definitions", json=doc)
    assert r.status_code == 201, r.text


def client_state(http_url: str, client_id: str) -> dict[str, Any]:
    r = admin_call("GET", f"{http_url}/evals/clients/{client_id}")
    assert r.status_code == 200, r.text
    return r.json()


class Scripted:
    """A hand-driven protocol client: every message it sends and receives is under the test's control."""

    def __init__(self, url: str, client_id: str | None = None):
        self.url = url
        self.client_id = client_id or str(uuid.uuid4())
        self.ws: Any = None
        self.received: list[dict[str, Any]] = []

    async def connect(self) -> dict[str, Any]:
        import websockets

        # the opening handshake (websockets' fixed 10 s by default) waits for the $connect route's invocation
        self.ws = await websockets.connect(self.url, open_timeout=waited(10))
        return await self.recv()

    async def recv(self, timeout: float | None = None) -> dict[str, Any]:
        """The next message, waited for ``timeout`` seconds (default: 15 s stretched by the machine's load)."""
        msg = json.loads(await asyncio.wait_for(self.ws.recv(), waited(15) if timeout is None else timeout))
        self.received.append(msg)
        return msg

    async def recv_until(self, pred: Any, timeout: float | None = None) -> dict[str, Any]:
        """The next message ``pred`` accepts, within ``timeout`` seconds (default as :meth:`recv`)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + (waited(15) if timeout is None else timeout)
        while True:
            msg = await self.recv(max(0.01, end - loop.time()))
            if pred(msg):
                return msg

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(msg))

    async def register(self, secret: str | None, tools: list[str] | None = None, max_concurrency: int = 2
                       ) -> dict[str, Any]:
        msg: dict[str, Any] = {"type": "register", "clientId": self.client_id,
                               "capabilities": {"tools": tools if tools is not None else ["chat"],
                                                "maxConcurrency": max_concurrency, "version": "1.0.0"}}
        if secret is not None:
            msg["secretKey"] = secret
        await self.send(msg)
        return await self.recv_until(lambda m: m.get("type") == "registration_ack")

    async def answer(self, request: dict[str, Any], output: Any = None) -> None:
        await self.send({"jsonrpc": "2.0", "id": request["id"],
                         "result": {"status": "success", "output": output or {"response": "hi"},
                                    "executionTime": 5}})

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


def wait_finished(http_url: str, client_id: str, timeout: float = 20) -> dict[str, Any]:
    """The client's state once no evaluation is pending or running (results are processed asynchronously),
    waited for ``timeout`` seconds stretched by the machine's load."""
    import time

    end = time.monotonic() + waited(timeout)
    while True:
        state = client_state(http_url, client_id)
        if all(e["status"] not in ("pending", "running") for e in state["evaluations"]) or time.monotonic() > end:
            return state
        time.sleep(0.2)
