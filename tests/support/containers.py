"""Docker helpers for the container tests (tests/containers) and benchmarks: the browser image under the
Lambda Runtime Interface Emulator on Lambda's terms, and ``sam local`` against the local stack's DynamoDB.

The browser image's own containers run with ``--network host`` so they reach the local stack's DynamoDB and
the test page servers on loopback; the emulator listens on a free loopback port. ``sam local`` puts its
containers on Docker's bridge whatever ``--docker-network`` says, so its tests run a stack and page server
bound to the bridge's gateway address (``docker_gateway``).
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BROWSER_IMAGE = "browserfunction:python3.12-chromium"  # sam build's tag (template Metadata.DockerTag)
BUILT_TEMPLATE = ROOT / ".aws-sam" / "build" / "template.yaml"
# Lambda's terms for the browser function (template.yaml): 2048 MB, /tmp (EphemeralStorage 1024 MB) the only
# writable path, no /dev/shm (--ipc none mounts none), 60 s timeout
LAMBDA_FLAGS = ["--read-only", "--tmpfs", "/tmp:rw,exec,size=1024m", "--ipc", "none",
                "--memory", "2048m", "--memory-swap", "2048m"]
FAKE_AWS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing",
            "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1"}


def docker_problem() -> str | None:
    """Why Docker cannot be used here, or None when it can."""
    if not shutil.which("docker"):
        return "the docker command is not installed"
    probe = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True,
                           timeout=30, check=False)
    if probe.returncode != 0:
        return "the Docker daemon is not running: " + (probe.stderr.strip().splitlines() or ["?"])[-1]
    return None


def image_exists(name: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", name], capture_output=True, check=False).returncode == 0


def image_size_mb(name: str) -> float:
    out = subprocess.run(["docker", "image", "inspect", "-f", "{{.Size}}", name], capture_output=True, text=True,
                         check=True)
    return int(out.stdout.strip()) / 1e6


def rie_path() -> Path:
    arch = {"x86_64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}[
        subprocess.run(["uname", "-m"], capture_output=True, text=True, check=True).stdout.strip()]
    found = sorted((ROOT / ".venv-sam").glob(f"lib/python3*/site-packages/samcli/local/rapid/aws-lambda-rie-{arch}"))
    if not found:
        raise RuntimeError("the SAM CLI's Runtime Interface Emulator is missing (make .venv/bin/sam)")
    return found[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stack_table(stack: Any) -> str:
    m = re.search(r"\(table ([^)\s]+)\)", stack.log_text())
    assert m, "the local stack's banner names its table"
    return m.group(1)


class LambdaContainer:
    """One container of an image function under the Runtime Interface Emulator (like Lambda: one invocation
    at a time, warm between invocations, a new container is a cold start)."""

    def __init__(self, image: str, command: list[str], env: dict[str, str], memory_mb: int = 2048,
                 timeout_s: int = 60, flags: list[str] | None = None) -> None:
        self.image, self.command, self.env = image, command, env
        self.memory_mb, self.timeout_s = memory_mb, timeout_s
        self.flags = LAMBDA_FLAGS if flags is None else flags
        self.name = f"agenthost-test-{uuid.uuid4().hex[:10]}"
        self.port = 0
        self.started_at = 0.0

    def start(self) -> LambdaContainer:
        self.port = free_port()
        env = {**FAKE_AWS, **self.env, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(self.memory_mb),
               "AWS_LAMBDA_FUNCTION_TIMEOUT": str(self.timeout_s), "AWS_LAMBDA_FUNCTION_NAME": "BrowserFunction"}
        args = ["docker", "run", "-d", "--rm", "--name", self.name, "--network", "host", *self.flags,
                "-v", f"{rie_path()}:/aws-lambda/aws-lambda-rie:ro", "--entrypoint", "/aws-lambda/aws-lambda-rie"]
        for key, value in env.items():
            args += ["-e", f"{key}={value}"]
        args += [self.image, "--runtime-interface-emulator-address", f"127.0.0.1:{self.port}",
                 "--runtime-api-address", f"127.0.0.1:{free_port()}", *self.command]
        self.started_at = time.monotonic()
        subprocess.run(args, capture_output=True, text=True, check=True)
        self._wait_listening()
        return self

    def _wait_listening(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"the emulator did not listen on {self.port}:\n{self.logs()}")

    def invoke(self, event: dict[str, Any], timeout: float = 90) -> dict[str, Any]:
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}/2015-03-31/functions/function/invocations",
                                     data=json.dumps(event).encode(), method="POST")
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - loopback
            return json.loads(resp.read())

    def exec(self, *cmd: str) -> subprocess.CompletedProcess:
        return subprocess.run(["docker", "exec", self.name, *cmd], capture_output=True, text=True, check=False)

    def inspect(self, fmt: str) -> str:
        return subprocess.run(["docker", "inspect", "-f", fmt, self.name], capture_output=True, text=True,
                              check=True).stdout.strip()

    def logs(self) -> str:
        out = subprocess.run(["docker", "logs", self.name], capture_output=True, text=True, check=False)
        return out.stdout + out.stderr

    def stop(self) -> None:
        subprocess.run(["docker", "rm", "-f", self.name], capture_output=True, check=False)

    def __enter__(self) -> LambdaContainer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def browser_container(stack: Any, **env: str) -> LambdaContainer:
    """The browser image as ``sam build`` tagged it, its handler (the image's CMD) behind the emulator, the
    session store on the local stack's DynamoDB; private addresses blocked except the test pages' 127.0.0.1."""
    return LambdaContainer(BROWSER_IMAGE, ["/usr/local/bin/python", "-m", "awslambdaric", "browser.app.handler"],
                           {"AGENTHOST_TABLE": stack_table(stack), "AWS_ENDPOINT_URL_DYNAMODB": stack.dynamodb_url,
                            "AGENTHOST_NETGUARD_ALLOW_PRIVATE": "false", "AGENTHOST_NETGUARD_ALLOW": "127.0.0.1",
                            "POWERTOOLS_LOG_LEVEL": "WARNING", **env})


KILL_CHROMIUM = (
    "import os, signal\n"
    "n = 0\n"
    "for p in os.listdir('/proc'):\n"
    "    if p.isdigit():\n"
    "        try:\n"
    "            cmd = open(f'/proc/{p}/cmdline', 'rb').read()\n"
    "        except OSError:\n"
    "            continue\n"
    "        if b'chromium' in cmd.split(b'\\0')[0]:\n"
    "            os.kill(int(p), signal.SIGKILL); n += 1\n"
    "print(n)\n"
)


def docker_gateway() -> str:
    """The host's address on Docker's default bridge: what ``sam local`` containers reach the host by (the SAM
    CLI leaves them on that bridge even with ``--docker-network host``)."""
    import ipaddress

    out = subprocess.run(["docker", "network", "inspect", "bridge", "-f", "{{json .IPAM.Config}}"],
                         capture_output=True, text=True, check=True)
    config = (json.loads(out.stdout) or [{}])[0]
    if config.get("Gateway"):
        return config["Gateway"]
    return str(next(ipaddress.ip_network(config["Subnet"]).hosts()))  # the default bridge's gateway (docker0)


def sam_env_file(stack: Any, path: Path, **extra: str) -> Path:
    """An ``env.json`` for ``sam local`` that points every function at the local stack (its DynamoDB, Lambda
    and WebSocket endpoints, its local secrets), as ``make dev`` configures its own functions."""
    from infra.local.defaults import LOCAL_SECRETS

    params = {"AGENTHOST_LOCAL": "true", "AGENTHOST_TABLE": stack_table(stack), "AGENTHOST_LLM": "none",
              "AWS_ENDPOINT_URL_DYNAMODB": stack.dynamodb_url, "AWS_ENDPOINT_URL_LAMBDA": stack.lambda_url,
              "AWS_ENDPOINT_URL_SCHEDULER": stack.lambda_url, "AGENTHOST_WS_ENDPOINT": stack.ws_management_url,
              "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_METRICS_DISABLED": "true", **LOCAL_SECRETS, **extra}
    path.write_text(json.dumps({"Parameters": params}, indent=1), encoding="utf-8")
    return path


def sam_local_invoke(function: str, event: dict[str, Any], env_file: Path, workdir: Path,
                     timeout: float = 180) -> tuple[dict[str, Any] | None, float, str]:
    """``sam local invoke`` of the built template: (answer, seconds, stderr). Each call is a new container
    (a cold start) on Docker's bridge; ``--skip-pull-image``: the base images are local (infra/images/base.sh)."""
    event_file = workdir / f"event-{uuid.uuid4().hex[:8]}.json"
    event_file.write_text(json.dumps(event), encoding="utf-8")
    cmd = [str(ROOT / ".venv" / "bin" / "sam"), "local", "invoke", function, "-t", str(BUILT_TEMPLATE),
           "-e", str(event_file), "--env-vars", str(env_file), "--skip-pull-image"]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False,
                          env={**__import__("os").environ, "SAM_CLI_TELEMETRY": "0", **FAKE_AWS})
    elapsed = time.monotonic() - start
    answer = None
    for line in reversed(proc.stdout.strip().splitlines()):
        try:
            answer = json.loads(line)
            break
        except ValueError:
            continue
    return answer, elapsed, proc.stderr
