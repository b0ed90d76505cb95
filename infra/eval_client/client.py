"""The evaluation client: speaks the client side of the WebSocket evaluation protocol like DevTools.

Waits for ``welcome`` (sends nothing before it), registers (``secretKey`` in ``register``, or the
DevTools exchange: ``auth_required`` then ``auth_verify``, proving the secret with an HMAC of the server's
challenge, or comparing ``serverSecretKey`` when a reference server discloses it), sends ``ready``, pings
every 30 s, reports ``status`` progress (0.1, 0.2, 0.3, 0.5, 1.0) and answers each JSON-RPC ``evaluate``
with a result or a -32000 error. Messages over 32 KB (API Gateway's frame limit; 128 KB per message) are
sent as one fragmented message. After an unclean close it reconnects with backoff (2, 4, ... 32 s) and
registers again with the same client id.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

MAX_OUT_BYTES = 120 * 1024  # stay under API Gateway's 128 KB message limit
#: API Gateway closes a connection (1009) on a frame over 32 KB: longer messages go out as a text frame plus
#: continuation frames of at most this many bytes each
MAX_FRAME_BYTES = 32 * 1024


def fragments(text: str, limit: int = MAX_FRAME_BYTES) -> list[str]:
    """``text`` cut into pieces of at most ``limit`` UTF-8 bytes each, never inside a character."""
    raw = text.encode()
    out, start = [], 0
    while start < len(raw):
        end = min(len(raw), start + limit)
        while end < len(raw) and end > start and (raw[end] & 0xC0) == 0x80:
            end -= 1  # back off to the first byte of a character
        out.append(raw[start:end].decode())
        start = end
    return out or [""]


def _iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class ClientConfig:
    url: str
    client_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    secret: str = ""
    handshake: str = "spec"  # "spec": secretKey in register; "devtools": auth_required/auth_verify
    max_concurrency: int = 1
    ping_interval_s: float = 30.0
    backoff_s: tuple[float, float] = (2.0, 32.0)
    version: str = "1.0.0"
    tools: list[str] | None = None
    #: stop after this many answered evaluations (None: run until closed)
    stop_after: int | None = None
    #: stop when nothing arrived for this long after ready with nothing in flight (None: never)
    idle_exit_s: float | None = None


@dataclass
class Stats:
    sent: int = 0
    received: int = 0
    results: int = 0
    errors: int = 0
    connects: int = 0
    fragmented: int = 0  # messages sent as several frames (over 32 KB)
    log: list[str] = field(default_factory=list)


Runner = Callable[[dict[str, Any], Callable[[float, str], None]], dict[str, Any]]


class EvalClient:
    def __init__(self, config: ClientConfig, runner: Runner | None = None):
        self.config = config
        self.stats = Stats()
        self._runner = runner
        self._browser: Any = None
        # Playwright's sync objects belong to the thread that made them: the real browser gets one thread
        # (evaluations still overlap on the wire); an injected runner may use several.
        workers = max(1, config.max_concurrency) if runner is not None else 1
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tool")
        self._stop = asyncio.Event()
        self._inflight: set[asyncio.Task] = set()
        self._last_activity = time.monotonic()
        self.rejected: str | None = None

    # ------------------------------------------------------------------ tools
    def _run_tool(self, params: dict[str, Any], progress: Callable[[float, str], None]) -> dict[str, Any]:
        if self._runner is not None:
            return self._runner(params, progress)
        from infra.eval_client.tools import Browser, run_tool

        if self._browser is None:
            self._browser = Browser()
        return run_tool(self._browser, params, progress)

    # ------------------------------------------------------------------ wire
    async def _send(self, ws: Any, msg: dict[str, Any]) -> None:
        data = json.dumps(msg, separators=(",", ":"))
        if len(data) <= MAX_FRAME_BYTES // 4 or len(data.encode()) <= MAX_FRAME_BYTES:
            await ws.send(data)
        else:  # one message, several frames (websockets sends an iterable as a fragmented message)
            await ws.send(fragments(data))
            self.stats.fragmented += 1
        self.stats.sent += 1

    async def run(self) -> Stats:
        """Connect, and reconnect after unclean closes, until stopped or rejected."""
        import websockets

        attempt = 0
        while not self._stop.is_set():
            clean = False
            try:
                async with websockets.connect(self.config.url, max_size=16 * 1024 * 1024,
                                              ping_interval=None) as ws:
                    self.stats.connects += 1
                    attempt = 0
                    clean = await self._session(ws)
            except (OSError, websockets.InvalidHandshake, websockets.ConnectionClosedError) as exc:
                self.stats.log.append(f"connection lost: {type(exc).__name__}")
                clean = False
            except websockets.ConnectionClosedOK:
                clean = True
            if clean or self._stop.is_set() or self.rejected:
                break
            delay = min(self.config.backoff_s[1], self.config.backoff_s[0] * (2 ** attempt))
            attempt += 1
            self.stats.log.append(f"reconnecting in {delay:.1f}s")
            await asyncio.sleep(delay)
        await self._drain()
        return self.stats

    async def _drain(self) -> None:
        for t in list(self._inflight):
            t.cancel()
        if self._browser is not None:
            browser, self._browser = self._browser, None
            await asyncio.get_running_loop().run_in_executor(self._pool, browser.close)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def stop(self) -> None:
        self._stop.set()

    async def _session(self, ws: Any) -> bool:
        """One connection. True when it ended cleanly (stop, rejection, or a normal close)."""
        pinger = asyncio.create_task(self._pinger(ws))
        idle = asyncio.create_task(self._idle_watch(ws)) if self.config.idle_exit_s else None
        try:
            welcomed = False
            async for raw in ws:
                self.stats.received += 1
                self._last_activity = time.monotonic()
                try:
                    msg = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(msg, dict):
                    continue
                kind = msg.get("type")
                if kind == "welcome" and not welcomed:
                    welcomed = True
                    await self._register(ws)
                elif kind == "registration_ack":
                    await self._on_ack(ws, msg)
                elif msg.get("method") == "evaluate" and "id" in msg:
                    task = asyncio.create_task(self._evaluate(ws, msg))
                    self._inflight.add(task)
                    task.add_done_callback(self._inflight.discard)
                if self._stop.is_set():
                    await ws.close(1000)
                    return True
            return ws.close_code in (1000, 1001) or self._stop.is_set() or bool(self.rejected)
        finally:
            pinger.cancel()
            if idle:
                idle.cancel()

    async def _register(self, ws: Any) -> None:
        caps = {"tools": self.config.tools if self.config.tools is not None else _tool_names(),
                "maxConcurrency": self.config.max_concurrency, "version": self.config.version}
        msg: dict[str, Any] = {"type": "register", "clientId": self.config.client_id, "capabilities": caps}
        if self.config.handshake == "spec" and self.config.secret:
            msg["secretKey"] = self.config.secret
        await self._send(ws, msg)

    async def _on_ack(self, ws: Any, msg: dict[str, Any]) -> None:
        status = msg.get("status")
        if status == "accepted":
            await self._send(ws, {"type": "ready", "timestamp": _iso()})
        elif status == "auth_required":
            reply: dict[str, Any] = {"type": "auth_verify", "clientId": self.config.client_id}
            if "serverSecretKey" in msg:  # the reference server's disclosing handshake
                reply["verified"] = hmac.compare_digest(str(msg["serverSecretKey"]).encode(),
                                                        self.config.secret.encode())
            else:
                reply["verified"] = True
                reply["proof"] = hmac.new(self.config.secret.encode(), str(msg.get("challenge", "")).encode(),
                                          hashlib.sha256).hexdigest()
            await self._send(ws, reply)
        elif status == "rejected":
            if msg.get("newClient"):
                await asyncio.sleep(1.0)
                await self._register(ws)
                return
            self.rejected = str(msg.get("reason") or msg.get("message") or "rejected")
            self._stop.set()

    async def _pinger(self, ws: Any) -> None:
        with contextlib.suppress(Exception):
            while True:
                await asyncio.sleep(self.config.ping_interval_s)
                await self._send(ws, {"type": "ping", "timestamp": _iso()})

    async def _idle_watch(self, ws: Any) -> None:
        assert self.config.idle_exit_s is not None
        while True:
            await asyncio.sleep(0.1)
            if not self._inflight and time.monotonic() - self._last_activity > self.config.idle_exit_s:
                self._stop.set()
                with contextlib.suppress(Exception):
                    await ws.close(1000)
                return

    async def _evaluate(self, ws: Any, msg: dict[str, Any]) -> None:
        loop = asyncio.get_running_loop()
        raw_params = msg.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        eval_id = str(params.get("evaluationId", ""))

        async def status(progress: float, text: str, state: str = "running") -> None:
            with contextlib.suppress(Exception):
                await self._send(ws, {"type": "status", "evaluationId": eval_id, "status": state,
                                      "progress": progress, "message": text})

        def progress(p: float, text: str) -> None:
            asyncio.run_coroutine_threadsafe(status(p, text), loop)

        await status(0.1, "started")
        try:
            result = await loop.run_in_executor(self._pool, self._run_tool, params, progress)
            body = json.dumps(result)
            if len(body) > MAX_OUT_BYTES:
                raise _TooLarge(f"result of {len(body)} bytes exceeds the 128 KB message limit")
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
            self.stats.results += 1
            await status(1.0, "completed", "completed")
        except Exception as exc:  # noqa: BLE001 - every tool failure is a -32000 reply, like DevTools
            self.stats.errors += 1
            reply = {"jsonrpc": "2.0", "id": msg["id"],
                     "error": {"code": -32000, "message": "Tool execution failed",
                               "data": {"tool": params.get("tool"), "error": str(exc)[:1000],
                                        "url": params.get("url"), "timestamp": _iso()}}}
            await status(1.0, str(exc)[:200], "failed")
        with contextlib.suppress(Exception):
            await self._send(ws, reply)
        self._last_activity = time.monotonic()
        if self.config.stop_after is not None and self.stats.results + self.stats.errors >= self.config.stop_after:
            self._stop.set()
            with contextlib.suppress(Exception):
                await ws.close(1000)


class _TooLarge(Exception):
    pass


def _tool_names() -> list[str]:
    from infra.eval_client.tools import TOOLS

    return list(TOOLS)
