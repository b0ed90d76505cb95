"""Starts the real local stack (``python -m infra.local``) in a subprocess on free ports."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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

    def log_text(self) -> str:
        return "\n".join(self.output)

    def stop(self, timeout: float = 15) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.returncode


def start_stack(extra_env: dict[str, str] | None = None, timeout: float = 60) -> RunningStack:
    ports = {name: free_port() for name in
             ("AGENTHOST_HTTP_PORT", "AGENTHOST_WS_PORT", "AGENTHOST_LAMBDA_PORT", "AGENTHOST_DYNAMODB_PORT")}
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_ENDPOINT_URL")}
    env.pop("AGENTHOST_TABLE", None)
    env.update({k: str(v) for k, v in ports.items()})
    env["AGENTHOST_ENV_FILE"] = str(ROOT / "tests" / "nonexistent.env")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "functions"), str(ROOT / "layers" / "core")])
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra_env or {})
    proc = subprocess.Popen([sys.executable, "-m", "infra.local"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    h, w, lp, dp = (ports[k] for k in ("AGENTHOST_HTTP_PORT", "AGENTHOST_WS_PORT",
                                       "AGENTHOST_LAMBDA_PORT", "AGENTHOST_DYNAMODB_PORT"))
    stack = RunningStack(proc, f"http://127.0.0.1:{h}", f"ws://127.0.0.1:{w}/local",
                         f"http://127.0.0.1:{w}/local", f"http://127.0.0.1:{lp}", f"http://127.0.0.1:{dp}", env)
    ready = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            stack.output.append(line.rstrip("\n"))
            if line.startswith("ready"):
                ready.set()
        ready.set()

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while not ready.wait(0.1):
        if time.monotonic() > deadline:
            stack.stop()
            raise RuntimeError("local stack did not start:\n" + stack.log_text())
    if proc.poll() is not None:
        raise RuntimeError("local stack exited:\n" + stack.log_text())
    return stack
