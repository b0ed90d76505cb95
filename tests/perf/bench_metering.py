"""Metering overhead, and per protocol: handler duration, peak memory and infrastructure cost per 1M turns.

1. Added handler time from metering (aim < 0.2 ms): a turn's recorder, EMF record and counter-write
   request building, with the DynamoDB round trip itself replaced by a no-op (it is one UpdateItem, or
   none when folded); plus the botocore hook cost per DynamoDB call.
2. Each zip function in a fresh interpreter against a DynamoDB endpoint in another process (moto
   server, so moto's own memory is not counted): warm wall and CPU time per turn, peak RSS, DynamoDB
   request units and log bytes per turn (from the metering counters and captured output), and the cost
   of 1M turns from the list price table, excluding LLM tokens (aim: webhook turn <= $2.5). Lambda
   duration is estimated as CPU time x 1769 / MemorySize (Lambda gives a fraction of a vCPU below
   1769 MB) + DynamoDB calls x 5 ms; the local wall time is printed too but is dominated by the moto
   server. The recommended MemorySize is the smallest standard size >= 1.5 x peak RSS.

Prints, asserts nothing.
"""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import ROOT, env, pct  # noqa: E402

STANDARD_MB = [128, 256, 512, 1024, 1536, 2048, 3008]
FULL_VCPU_MB = 1769
DDB_MS = 5.0  # assumed in-region DynamoDB round trip (the local moto server is slower and shares 2 CPUs)
WORKLOADS = ["olympics", "werewolf", "runs", "agents_api", "evals", "usage"]
FUNCTION_OF = {"olympics": "OlympicsFunction", "werewolf": "WerewolfFunction", "runs": "RunsFunction",
               "agents_api": "AgentsApiFunction", "evals": "EvalsFunction", "usage": "UsageFunction"}
WEBHOOKS = ("olympics", "werewolf")  # the functions with a Lambda function URL (WebhookFunctionUrls)


# --- 1. overhead --------------------------------------------------------------------------------------

class _NoIoStore:
    """Stands in for the table: returns at once, so only metering's own work is timed."""

    def update(self, pk, sk, *, set_=None, add=None, ttl_s=None, **_):
        from agenthost.store import marshal

        marshal({**(set_ or {}), **(add or {})})  # the request is still built and serialized
        return {**(set_ or {}), **(add or {})}


def overhead(n: int = 5000) -> None:
    os.environ["POWERTOOLS_METRICS_DISABLED"] = "false"
    from agenthost import metering

    metering.reset()
    store = _NoIoStore()
    sink = io.StringIO()

    def one(with_llm: bool) -> float:
        t0 = time.perf_counter()
        with redirect_stdout(sink), metering.turn("olympics", "bench-agent", store=store, decides=True) as t:
            if with_llm:
                t.llm(tokens_in=800, tokens_out=60, latency_ms=900.0, model="gpt-4o-mini")
        return (time.perf_counter() - t0) * 1000

    for _ in range(300):
        one(True)
    plain = [one(False) for _ in range(n)]
    llm = [one(True) for _ in range(n)]
    emf_bytes = len(sink.getvalue().splitlines()[-1]) + 1
    print(f"metering overhead per turn ({n} turns, counter write replaced by a no-op, EMF to a buffer):")
    print(f"  deterministic turn   p50 {pct(plain, 50) * 1000:6.1f} us   p99 {pct(plain, 99) * 1000:6.1f} us")
    print(f"  turn with LLM usage  p50 {pct(llm, 50) * 1000:6.1f} us   p99 {pct(llm, 99) * 1000:6.1f} us   "
          f"(aim < 200 us)")
    print(f"  EMF record: {emf_bytes} bytes per turn")

    from agenthost.metering.hooks import after_call, before_call
    from agenthost.metering.turns import _current

    class _Model:
        name = "GetItem"

    class _Http:
        status_code = 200

    params: dict = {}
    t = metering.Turn("olympics", "bench-agent", store=store)
    token = _current.set(t)
    t0 = time.perf_counter()
    for _ in range(n):
        before_call(params=params, model=_Model(), context={})
        after_call(http_response=_Http(), parsed={"ConsumedCapacity": {"CapacityUnits": 0.5}}, model=_Model(),
                   context={})
    hook_us = (time.perf_counter() - t0) / n * 1e6
    _current.reset(token)
    print(f"  botocore hooks per DynamoDB call: {hook_us:.1f} us")
    print("  plus the counter write itself: one UpdateItem round trip (~3-6 ms in-region), or none when folded "
          "into the protocol's own put (store.put(item, also=[t.fold()]))")
    os.environ["POWERTOOLS_METRICS_DISABLED"] = "true"


# --- 2. per protocol ----------------------------------------------------------------------------------

def _events(name: str, i: int) -> dict:
    from infra.local.events import http_event

    if name == "olympics":
        from tests.support.olympics import signed, turn_body

        raw, headers = signed(turn_body(turn=1 + i % 20, prompt=f"Register Maria Lopez from Germany #{i // 20}."))
        return http_event("POST", "/olympics/turn", body=raw.decode(), headers=headers)
    if name == "werewolf":
        from tests.support.werewolf import turn

        payload = turn(["vote", "speak"][i % 2])
        payload["game_id"] = f"bench-{i // 10}"
        return http_event("POST", "/werewolf/turn", body=json.dumps(payload, ensure_ascii=False),
                          headers={"content-type": "application/json"})
    if name == "agents_api":
        return http_event("GET", "/.well-known/agents/api/search", query=f"q=mug&limit=10&page={1 + i % 3}",
                          headers={"content-type": "application/json"})
    if name == "usage":
        return http_event("GET", "/usage", headers={"x-api-key": "bench-key"})
    if name == "evals":
        ev = json.loads((ROOT / "infra" / "events" / "evals-ping.json").read_text())
        ev["requestContext"]["connectionId"] = f"bench-{i % 50}"
        return ev
    raise ValueError(name)


def _runs_session(handler, ctx, n: int) -> list[tuple[float, float]]:
    from bench_runs import snapshot

    from infra.local.events import http_event

    def post(path: str, body: dict) -> dict:
        ev = http_event("POST", path, body=json.dumps(body),
                        headers={"content-type": "application/json", "x-api-key": "bench-key"})
        return json.loads(handler(ev, ctx)["body"])

    samples: list[tuple[float, float]] = []
    run = 0
    while len(samples) < n:
        rid = post("/agent/run/start", {"task": "Find the price of Product 42 and open it", "mode": "autonomous"})[
            "runId"]
        result = None
        for i in range(12):
            body = {"snapshot": snapshot(run * 100 + i) if i else None, "lastActionResult": result}
            w0, c0 = time.perf_counter(), time.process_time()
            reply = post(f"/agent/run/{rid}/step", body)
            samples.append(((time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000))
            if reply.get("action") != "execute_tool":
                break
            result = {"success": True, "message": "ok"}
        run += 1
    return samples[:n]


def worker(name: str, out_path: str, n: int) -> None:
    """Runs in a fresh interpreter: the function's handler, warm-up, n measured turns."""
    import resource
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    if name == "evals":  # a stand-in @connections endpoint that accepts every post
        class Ok(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *a) -> None:
                pass

        srv = ThreadingHTTPServer(("127.0.0.1", 0), Ok)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        os.environ["AGENTHOST_WS_ENDPOINT"] = f"http://127.0.0.1:{srv.server_address[1]}/local"
    import botocore.client

    from agenthost import metering
    from infra.local.events import LambdaContext

    ops: dict[str, int] = {}
    statuses: dict[str, int] = {}  # what the measured turns answered (a benchmark of errors measures nothing)
    original = botocore.client.BaseClient._make_api_call

    def counting(self, operation_name, api_params):
        if self.meta.service_model.service_name == "dynamodb":
            key = operation_name + ("+consistent" if api_params.get("ConsistentRead") else "")
            ops[key] = ops.get(key, 0) + 1
        return original(self, operation_name, api_params)

    botocore.client.BaseClient._make_api_call = counting
    module = __import__(f"{name}.app", fromlist=["handler"])
    handler, ctx = module.handler, LambdaContext(f"bench-{name}")
    log = Path(out_path + ".log")
    fd_out, fd_err = os.dup(1), os.dup(2)
    with open(log, "wb") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            if name == "runs":
                _runs_session(handler, ctx, 30)
                sys.stdout.flush()
                start_bytes = log.stat().st_size
                ops.clear()
                samples = _runs_session(handler, ctx, n)
            else:
                for i in range(30):
                    handler(_events(name, i), ctx)
                sys.stdout.flush()
                start_bytes = log.stat().st_size
                ops.clear()
                samples = []
                for i in range(30, 30 + n):
                    ev = _events(name, i)
                    w0, c0 = time.perf_counter(), time.process_time()
                    answer = handler(ev, ctx)
                    samples.append(((time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000))
                    status = str(answer.get("statusCode", 200) if isinstance(answer, dict) else 200)
                    statuses[status] = statuses.get(status, 0) + 1
            sys.stdout.flush()
            sys.stderr.flush()
            log_bytes = log.stat().st_size - start_bytes
            ops_measured = dict(ops)
            # A/B: the same turns with metering switched off (a no-op turn), to see what it adds end to end
            from contextlib import contextmanager

            real_turn = metering.turn

            @contextmanager
            def no_metering(*_a, **_k):
                yield metering.current()

            metering.turn = no_metering  # type: ignore[assignment]
            try:
                if name == "runs":
                    unmetered = _runs_session(handler, ctx, n)
                else:
                    unmetered = []
                    for i in range(30 + n, 30 + 2 * n):
                        ev = _events(name, i)
                        w0, c0 = time.perf_counter(), time.process_time()
                        handler(ev, ctx)
                        unmetered.append(((time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000))
            finally:
                metering.turn = real_turn  # type: ignore[assignment]
        finally:
            os.dup2(fd_out, 1)
            os.dup2(fd_err, 2)
    from agenthost.store import Store

    day = metering.day_of(time.time())
    rows = [i for i in Store().query(f"USAGE#{day}") if i.get("protocol") == name]
    turns = sum(r.get("turns", 0) for r in rows) or 1
    calls = sum(ops_measured.values()) / len(samples)
    reads = sum(v * (1.0 if "+consistent" in k else 0.5) for k, v in ops_measured.items()
                if k.split("+")[0] in ("GetItem", "Query", "Scan", "BatchGetItem")) / len(samples)
    writes = sum(v * (2.0 if k == "TransactWriteItems" else 1.0) for k, v in ops_measured.items()
                 if k in ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")) / len(samples)
    result = {
        "wall": [s[0] for s in samples], "cpu": [s[1] for s in samples],
        "wall_off": [s[0] for s in unmetered], "cpu_off": [s[1] for s in unmetered],
        "peak_mb": _peak_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "log_bytes_per_turn": log_bytes / len(samples),
        "metered_rru": sum(r.get("ddb_rru", 0) for r in rows) / turns,
        "metered_wru": sum(r.get("ddb_wru", 0) for r in rows) / turns,
        "metered_calls": sum(r.get("ddb_calls", 0) for r in rows) / turns, "metered_turns": turns if rows else 0,
        # request units: the larger of the op-count floors and what metering recorded (which knows a
        # folded transaction writes two items at 2 WRU each)
        "rru": max(reads, sum(r.get("ddb_rru", 0) for r in rows) / turns if rows else 0.0),
        "wru": max(writes, sum(r.get("ddb_wru", 0) for r in rows) / turns if rows else 0.0),
        "ddb_calls": calls, "ops": ops_measured, "statuses": statuses,
    }
    Path(out_path).write_text(json.dumps(result))


def _peak_mb(fallback: float) -> float:
    """This process's peak RSS (VmHWM; ru_maxrss can carry the parent's peak across fork+exec)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return fallback


def _template_memory() -> dict[str, int]:
    from infra.local.template import parse

    return {k: f.memory for k, f in parse().functions.items()}


def per_protocol(n: int = 120) -> None:
    import logging

    from moto.server import ThreadedMotoServer

    from agenthost.pricing import Prices
    from tests.support.olympics import SECRET

    # moto's server occasionally fails a concurrent transaction (botocore retries it); keep its tracebacks out
    logging.getLogger("werkzeug").setLevel(logging.CRITICAL)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    port = server._server.server_port  # noqa: SLF001
    endpoint = f"http://127.0.0.1:{port}"
    worker_env = env()
    worker_env.update({"AWS_ENDPOINT_URL_DYNAMODB": endpoint, "AGENTHOST_TABLE": "agenthost-bench",
                       "AGENTHOST_OLYMPICS_SECRET": SECRET, "AGENTHOST_RUNS_API_KEY": "bench-key",
                       "AGENTHOST_USAGE_API_KEY": "bench-key", "AGENTHOST_LLM": "none",
                       "AGENTHOST_AGENTS_RATE_LIMIT": "100000",  # measure calls, not 429s from one source IP
                       "POWERTOOLS_LOG_LEVEL": "INFO", "POWERTOOLS_METRICS_DISABLED": "false",
                       "AGENTHOST_MEMORY_MB": "512"})
    import boto3

    from infra.local.template import create_table, parse

    create_table(boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                              aws_access_key_id="bench", aws_secret_access_key="bench"),
                 parse(), "agenthost-bench")
    memory = _template_memory()
    prices = Prices.load()
    lam = prices.lambda_prices("arm64")
    results = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in WORKLOADS:
                out = str(Path(tmp) / f"{name}.json")
                proc = subprocess.run([sys.executable, __file__, "--worker", name, out, str(n)], env=worker_env,
                                      cwd=ROOT, capture_output=True, text=True, timeout=600)
                if proc.returncode != 0 or not Path(out).exists():
                    print(f"  {name}: benchmark failed: {(proc.stderr or proc.stdout)[-400:]}")
                    continue
                results[name] = json.loads(Path(out).read_text())
    finally:
        server.stop()

    print(f"\nper protocol, {n} warm turns each (deterministic policy, DynamoDB = moto server over loopback, "
          "arm64 list prices):")
    head = (f"  {'protocol':<11}{'wall':>7}{'cpu ms':>8}{'ddb':>5}{'peak MB':>9}{'MB':>6}{'est ms':>8}{'RRU':>5}"
            f"{'WRU':>5}{'log B':>7}  $/1M turns: lambda+req  api   ddb  logs total | via URL | rec MB | "
            "at 512 MB: est ms total")
    print(head)
    for name, r in results.items():
        wall, cpu = pct(r["wall"], 50), pct(r["cpu"], 50)
        fn_mb = memory.get(FUNCTION_OF[name], 512)
        rec = next(m for m in STANDARD_MB if m >= 1.5 * r["peak_mb"])

        def est_ms(mb: int, r=r, cpu=cpu) -> float:
            return cpu * max(1.0, FULL_VCPU_MB / mb) + r["ddb_calls"] * DDB_MS

        def compute_cost(mb: int) -> float:
            return math.ceil(est_ms(mb)) / 1000 * mb / 1024 * lam["gb_second"] * 1e6

        est = est_ms(fn_mb)
        compute = compute_cost(fn_mb)
        requests = lam["requests_per_million"]
        if prices.transport(name) == "websocket":
            ws = prices.table["websocket"]
            api = 2 * ws["messages_per_million"]  # the message and its reply
        else:
            api = prices.table["http_api"]["requests_per_million"]
        ddb = prices.table["dynamodb"]
        dyn = r["rru"] * ddb["read_units_per_million"] + r["wru"] * ddb["write_units_per_million"]
        logs = r["log_bytes_per_turn"] / 1e9 * prices.table["cloudwatch_logs"]["ingested_gb"] * 1e6
        total = compute + requests + api + dyn + logs
        total_512 = total - compute + compute_cost(512)
        # a webhook's function URL (WebhookFunctionUrls) bills no API Gateway request
        url_price = prices.table.get("function_url", {}).get("requests_per_million", 0.0)
        via_url = f"{total - api + url_price:8.2f}" if name in WEBHOOKS else f"{'-':>8}"
        print(f"  {name:<11}{wall:7.1f}{cpu:8.2f}{r['ddb_calls']:5.1f}{r['peak_mb']:9.1f}{fn_mb:6d}{est:8.1f}"
              f"{r['rru']:5.1f}{r['wru']:5.1f}{r['log_bytes_per_turn']:7.0f}"
              f"  {compute + requests:11.3f}{api:6.2f}{dyn:6.2f}{logs:5.2f}{total:6.2f} |{via_url} | {rec:6d} |"
              f"{est_ms(512):19.1f}{total_512:6.2f}")
    print("  (wall/cpu: local p50 ms per turn; ddb: DynamoDB calls per turn incl. metering's counter write; "
          "MB: the template's MemorySize; est ms: Lambda duration there; "
          "via URL: total when the webhook is called through its Lambda function URL (no API Gateway request); "
          "rec MB: smallest standard size >= 1.5 x peak; RRU/WRU: request units per turn at "
          "<=1 KB writes / <=4 KB reads; log B: CloudWatch Logs bytes per turn at INFO incl. the EMF record)")
    print("  metering end to end (same turns with metering off; wall includes its DynamoDB round trip to moto):")
    for name, r in results.items():
        if r.get("wall_off"):
            print(f"    {name:<11} wall p50 {pct(r['wall'], 50):7.2f} vs {pct(r['wall_off'], 50):7.2f} ms off "
                  f"(+{pct(r['wall'], 50) - pct(r['wall_off'], 50):.2f}), CPU p50 {pct(r['cpu'], 50):6.2f} vs "
                  f"{pct(r['cpu_off'], 50):6.2f} ms (+{pct(r['cpu'], 50) - pct(r['cpu_off'], 50):.2f})")
    for name, r in results.items():
        metered = (f"metering recorded {r['metered_calls']:.2f} DynamoDB calls, {r['metered_rru']:.2f} RRU, "
                   f"{r['metered_wru']:.2f} WRU per turn" if r["metered_turns"] else "not metered")
        answered = ", ".join(f"{k}: {v}" for k, v in sorted(r.get("statuses", {}).items())) or "see _runs_session"
        print(f"  {name}: answered {answered}; operations {r['ops']}; {metered}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    os.environ.update(env())
    overhead()
    per_protocol()


if __name__ == "__main__":
    main()
