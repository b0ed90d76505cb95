"""Starts the whole local stack in one process: embedded DynamoDB (moto server) with the template's
table and its stream delivered to the functions that map it, the Lambda invoke API, the HTTP gateway and
the WebSocket gateway.

The table is kept: every :data:`TABLE_CHECK_S` seconds the stack asks its DynamoDB for it, and when the
database answers that the table is missing (DynamoDB Local restarted in memory, a reset, a deleted table) it
creates the table again from the template and runs the seeders. While the database does not answer at all it
waits for it to come back. Meanwhile the functions answer as in any outage (503 with ``Retry-After``; the
webhooks play without memory)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from infra.local.defaults import LOCAL_SECRETS, PORTS, url_port_setting
from infra.local.template import ROOT, parse

#: seconds between two checks that the table is still there
TABLE_CHECK_S = 1.0


def load_dotenv(path: Path) -> list[str]:
    """Read ``KEY=VALUE`` lines into the environment without overriding what is already set."""
    if not path.is_file():
        return []
    loaded = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.removeprefix("export ").split("=", 1)
        key, value = key.strip(), value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if key and key not in os.environ:
            os.environ[key] = value
            loaded.append(key)
    return loaded


def _port(name: str) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else PORTS.get(name, 0)


def _log(message: str) -> None:
    print(message, flush=True)


def _bind(host: str, port: int) -> socket.socket:
    """Listen on ``host:port`` now (port 0: any free port), so the port is ours before anything else starts
    and a test can run stacks side by side without racing for ports."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise SystemExit(f"cannot listen on {host}:{port} ({exc.strerror}); set another port") from None
    sock.listen(2048)
    sock.setblocking(False)
    return sock


class LocalStack:
    def __init__(self, host: str = "127.0.0.1"):
        self.host = host
        self.moto: Any = None
        self.servers: list[Any] = []
        self.sockets: dict[str, socket.socket] = {}
        self.url_sockets: dict[str, socket.socket] = {}  # function logical id -> its function URL's socket
        self.pollers: list[Any] = []  # the table's stream, one per event source mapping (infra/local/streams.py)

    def _listen(self) -> None:
        """Bind the three gateway ports up front (0 picks free ones; the banner prints the real ones)."""
        self.dynamodb_port = _port("AGENTHOST_DYNAMODB_PORT")
        for name in ("http", "ws", "lambda"):
            setattr(self, f"{name}_port", _port(f"AGENTHOST_{name.upper()}_PORT"))
            sock = _bind(self.host, getattr(self, f"{name}_port"))
            self.sockets[name] = sock
            setattr(self, f"{name}_port", sock.getsockname()[1])

    def prepare(self) -> None:
        dotenv = load_dotenv(Path(os.environ.get("AGENTHOST_ENV_FILE", ROOT / ".env")))
        self._listen()  # after .env: it may set the ports
        for key, value in LOCAL_SECRETS.items():
            os.environ.setdefault(key, value)
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        os.environ.setdefault("AWS_REGION", os.environ["AWS_DEFAULT_REGION"])
        os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
        os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
        os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

        dynamodb = os.environ.get("AGENTHOST_DYNAMODB_ENDPOINT", "").strip()
        if not dynamodb:
            import logging

            from moto.server import ThreadedMotoServer

            logging.getLogger("werkzeug").setLevel(logging.ERROR)

            from infra.local import fastmoto

            fastmoto.tune()  # faithful concurrent writes, and fast enough for a whole stack
            self.moto = ThreadedMotoServer(ip_address=self.host, port=self.dynamodb_port, verbose=False)
            self.moto.start()
            self.dynamodb_port = self.moto.get_host_and_port()[1]
            dynamodb = f"http://{self.host}:{self.dynamodb_port}"
        self.dynamodb_endpoint = dynamodb

        self.template = parse()
        for fn in self.template.function_urls.values():  # the webhooks' function URLs (WebhookFunctionUrls)
            self.url_sockets[fn] = _bind(self.host, _port(url_port_setting(fn)))
        table_name = os.environ.get("AGENTHOST_TABLE") or self.template.table.get("name") or "agenthost"
        essentials = {
            "AGENTHOST_LOCAL": "true",
            "AGENTHOST_TABLE": table_name,
            "AWS_ENDPOINT_URL_DYNAMODB": dynamodb,
            "AWS_ENDPOINT_URL_DYNAMODB_STREAMS": dynamodb,
            "AWS_ENDPOINT_URL_LAMBDA": f"http://{self.host}:{self.lambda_port}",
            "AWS_ENDPOINT_URL_SCHEDULER": f"http://{self.host}:{self.lambda_port}",  # infra/local/scheduler.py
            "AGENTHOST_WS_ENDPOINT": f"http://{self.host}:{self.ws_port}/local",
            "AGENTHOST_HTTP_URL": f"http://{self.host}:{self.http_port}",
        }
        from infra.local.runtime import Runtime, apply_environment

        for warning in apply_environment(self.template, essentials):
            _log(f"warning: {warning}")
        sys.path[:0] = [p for p in (str(ROOT / "functions"), str(ROOT / "layers" / "core"))
                        if p not in sys.path]
        self._create_table(table_name)
        self._seed()
        self.runtime = Runtime(self.template, log=_log)
        self.dotenv = dotenv
        self._stream(table_name)

    def _stream(self, table_name: str) -> None:
        """One poller per event source mapping on the table's stream (the usage rollup)."""
        from agenthost import aws
        from infra.local.streams import StreamPoller, StreamReader, streams_client

        raw = os.environ.get("AGENTHOST_LOCAL_STREAM_REDELIVER", "").strip()
        redeliver = int(raw) if raw.isdigit() else 0
        for mapping in self.template.stream_mappings:
            reader = StreamReader(aws.client("dynamodb"), streams_client(), table_name,
                                  from_start=mapping.starting_position == "TRIM_HORIZON", raw=True)
            poller = StreamPoller(mapping, reader, self.runtime.invoke_sync, redeliver_every=redeliver, log=_log)
            poller.start()
            self.pollers.append(poller)

    def _create_table(self, name: str) -> None:
        from agenthost import aws, secrets
        from agenthost.config import reset
        from infra.local.template import create_table

        reset()
        secrets.reset()
        aws.reset()
        client = aws.client("dynamodb", endpoint_url=self.dynamodb_endpoint)
        for attempt in range(50):
            try:
                create_table(client, self.template, name)
                return
            except Exception:  # noqa: BLE001 - the embedded server may still be starting
                if attempt == 49:
                    raise
                time.sleep(0.1)

    def table_missing(self) -> bool:
        """Whether the database answers that the table is gone (False while it answers anything else, or not
        at all: it may be restarting)."""
        from agenthost import aws

        client = aws.client("dynamodb", endpoint_url=self.dynamodb_endpoint, connect_timeout=0.5,
                            read_timeout=2, total_max_attempts=1)
        try:
            client.describe_table(TableName=os.environ["AGENTHOST_TABLE"])
        except Exception as exc:  # noqa: BLE001 - what it means is aws.fault's to say
            found = aws.fault(exc, "dynamodb")
            return found is not None and found.reason == "table missing"
        return False

    def restore_table(self) -> bool:
        """Create the table again (and seed it) when the database lost it; True when it did."""
        if not self.table_missing():
            return False
        from agenthost import aws
        from infra.local.template import create_table

        name = os.environ["AGENTHOST_TABLE"]
        create_table(aws.client("dynamodb", endpoint_url=self.dynamodb_endpoint), self.template, name)
        _log(f"table {name} was missing (the database restarted?): created again from the template")
        self._seed()
        for poller in self.pollers:  # the new table has a new stream
            poller.stop()
        self.pollers = []
        self._stream(name)
        return True

    async def keep_table(self) -> None:
        """Check the table every :data:`TABLE_CHECK_S` seconds and restore it when it is gone."""
        while True:
            await asyncio.sleep(TABLE_CHECK_S)
            try:
                await asyncio.to_thread(self.restore_table)
            except Exception as exc:  # noqa: BLE001 - the database went away again: next round
                _log(f"table check failed ({type(exc).__name__}); trying again")

    def _seed(self) -> None:
        """Load every seeder in ``infra/seed`` (skip with AGENTHOST_SEED=false: ``settings().seed``, read after
        :meth:`_create_table` forgot the settings cached before the stack's environment was set)."""
        from agenthost.config import settings

        if not settings().seed:
            return
        from agenthost.store import Store
        from infra.seed import run_all

        run_all(Store(), log=_log)

    def banner(self) -> str:
        lines = [
            "agenthost local stack",
            f"  HTTP API        http://{self.host}:{self.http_port}",
            f"  WebSocket API   ws://{self.host}:{self.ws_port}/local",
            f"  @connections    http://{self.host}:{self.ws_port}/local/@connections/{{id}}",
            f"  Lambda invoke   http://{self.host}:{self.lambda_port}",
            f"  DynamoDB        {self.dynamodb_endpoint} (table {os.environ['AGENTHOST_TABLE']})",
        ]
        for mapping in self.template.stream_mappings:
            lines.append(f"  Table stream -> {mapping.function} (batches of up to {mapping.batch_size}, "
                         f"window {mapping.window_s:g} s)")
        for fn, sock in self.url_sockets.items():
            lines.append(f"  Function URL    http://{self.host}:{sock.getsockname()[1]}/ -> {fn}")
        lines.append("  routes:")
        for route in self.template.http_routes:
            lines.append(f"    {route.method:6} {route.path:40} -> {route.function}")
        for key, fn in sorted(self.template.ws_routes.items()):
            lines.append(f"    WS     {key:40} -> {fn}")
        lines.append("  local secrets (for signing test requests; never use them deployed):")
        for key in sorted(LOCAL_SECRETS):
            value = os.environ.get(key, "")
            if value == LOCAL_SECRETS[key] or not value:
                lines.append(f"    {key}={value}")
            else:  # the user's own secret (from .env or the shell): never printed
                lines.append(f"    {key}=<set by you, not shown>")
        if self.dotenv:
            lines.append(f"  from .env: {', '.join(sorted(self.dotenv))}")
        lines.append(f"  LLM: {os.environ.get('AGENTHOST_LLM', 'none')}")
        lines.append(f"  agent: {agent_line()}")
        return "\n".join(lines)

    async def serve(self) -> None:
        import uvicorn

        from infra.local.gateway import FunctionUrlGateway, HttpGateway, LambdaApi, WebSocketGateway

        apps: list[tuple[Any, socket.socket]] = [
            (HttpGateway(self.template, self.runtime, log=_log), self.sockets["http"]),
            (WebSocketGateway(self.template, self.runtime, log=_log), self.sockets["ws"]),
            (LambdaApi(self.runtime, log=_log), self.sockets["lambda"]),
        ]
        apps += [(FunctionUrlGateway(fn, self.runtime, log=_log), sock) for fn, sock in self.url_sockets.items()]
        tasks = []
        for app, sock in apps:
            config = uvicorn.Config(app, host=self.host, port=sock.getsockname()[1], log_level="warning",
                                    ws_max_size=16 * 1024 * 1024, ws_ping_interval=None, lifespan="on",
                                    ws=getattr(app, "ws_protocol", "auto"))
            server = uvicorn.Server(config)
            server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
            self.servers.append(server)
            tasks.append(asyncio.create_task(server.serve(sockets=[sock])))
        while not all(s.started for s in self.servers):
            if any(t.done() for t in tasks):
                for t in tasks:
                    if t.done() and t.exception():
                        raise t.exception()  # type: ignore[misc]
                raise SystemExit("a gateway failed to start (port in use?)")
            await asyncio.sleep(0.02)
        keeper = asyncio.create_task(self.keep_table())
        _log(self.banner())
        _log("ready (Ctrl-C to stop)")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        _log("stopping...")
        keeper.cancel()
        for s in self.servers:
            s.should_exit = True
        await asyncio.gather(*tasks, return_exceptions=True)
        for poller in self.pollers:
            poller.stop()
        self.runtime.pool.shutdown(wait=False, cancel_futures=True)
        if self.moto is not None:
            self.moto.stop()
        _log("stopped")


def main() -> int:
    from agenthost.config import reset, settings

    # AGENTHOST_HOST: the address every server binds (loopback by default); the container tests bind Docker's
    # bridge gateway so that `sam local` containers reach the stack
    stack = LocalStack(settings().host)
    reset()  # prepare() loads .env and sets the stack's own environment: settings are read afresh after it
    stack.prepare()
    asyncio.run(stack.serve())
    return 0


def agent_line() -> str:
    """Who decides: ours, or the user's agent (``AGENTHOST_AGENT``), loaded now so a broken one shows at start
    (the functions load it the same way on their first turn; ours answers while it cannot be loaded)."""
    from agenthost import plugins

    got = plugins.load()
    if got is None:
        return "ours (set AGENTHOST_AGENT=package.module:factory to bring your own)"
    if got.error:
        return f"{got.spec} NOT LOADED ({got.error}); our policies answer every turn"
    parts = [p for p, ok in (("web", got.web()), ("werewolf", got.werewolf())) if ok]
    return f"{got.spec} ({' and '.join(parts)}; ours answers the rest)"
