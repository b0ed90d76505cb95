"""Starts the real local stack (``python -m infra.local``) in a subprocess on free ports."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.timing import waited

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class RunningStack:
    proc: subprocess.Popen
    http_url: str
    ws_url: str
    ws_management_url: str
    lambda_url: str
    dynamodb_url: str
    env: dict[str, str]
    output: list[str] = field(default_factory=list)
    function_urls: dict[str, str] = field(default_factory=dict)  # function logical id -> its function URL

    def log_text(self) -> str:
        return "\n".join(self.output)

    def stop(self, timeout: float | None = None) -> int:
        """Ctrl-C, as a user stops it; killed if it has not stopped in ``timeout`` (default: the test slack's
        wait for a 5 s stop)."""
        timeout = waited(5.0) if timeout is None else timeout
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.returncode


PORT_NAMES = ("AGENTHOST_HTTP_PORT", "AGENTHOST_WS_PORT", "AGENTHOST_LAMBDA_PORT", "AGENTHOST_DYNAMODB_PORT",
              "AGENTHOST_OLYMPICS_URL_PORT", "AGENTHOST_WEREWOLF_URL_PORT")
BANNER = {"HTTP API": "http", "WebSocket API": "ws", "Lambda invoke": "lambda", "DynamoDB": "dynamodb"}


def start_stack(extra_env: dict[str, str] | None = None, timeout: float | None = None) -> RunningStack:
    """The stack binds free ports itself (port 0) and its banner says which: no race with other processes
    for a port picked here and released. Waited for ``timeout`` seconds (default: 60 stretched by the machine's
    load)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_ENDPOINT_URL")}
    env.pop("AGENTHOST_TABLE", None)
    env.update(dict.fromkeys(PORT_NAMES, "0"))
    env["AGENTHOST_ENV_FILE"] = str(ROOT / "tests" / "nonexistent.env")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "functions"), str(ROOT / "layers" / "core")])
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra_env or {})
    proc = subprocess.Popen([sys.executable, "-m", "infra.local"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    stack = RunningStack(proc, "", "", "", "", "", env)
    urls: dict[str, str] = {}
    ready = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            stack.output.append(line.rstrip("\n"))
            if not ready.is_set():
                label, _, rest = line.strip().partition("  ")
                if label in BANNER and rest.strip():
                    urls[BANNER[label]] = rest.split()[0]
                elif label == "Function URL" and " -> " in rest:
                    url, _, fn = rest.strip().partition(" -> ")
                    stack.function_urls[fn.strip()] = url.strip()
            if line.startswith("ready"):
                ready.set()
        ready.set()

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + (waited(60) if timeout is None else timeout)
    while not ready.wait(0.1):
        if time.monotonic() > deadline:
            stack.stop()
            raise RuntimeError("local stack did not start:\n" + stack.log_text())
    if proc.poll() is not None or len(urls) < len(BANNER):
        stack.stop()
        raise RuntimeError("local stack exited:\n" + stack.log_text())
    stack.http_url, stack.ws_url, stack.lambda_url, stack.dynamodb_url = (
        urls["http"], urls["ws"], urls["lambda"], urls["dynamodb"])
    stack.ws_management_url = "http" + urls["ws"][2:]
    for name, url in zip(PORT_NAMES[:4], (urls["http"], urls["ws"], urls["lambda"], urls["dynamodb"]), strict=True):
        env[name] = url.split(":")[2].split("/")[0]
    for fn, url in stack.function_urls.items():
        env[f"AGENTHOST_{fn.removesuffix('Function').upper()}_URL_PORT"] = url.split(":")[2].split("/")[0]
    return stack
