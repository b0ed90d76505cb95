"""Metering overhead, and per protocol: DynamoDB calls and request units per turn against the minimum,
handler duration, peak memory and the infrastructure cost per 1M turns with its arithmetic.

1. Added handler time from metering (aim < 0.2 ms): a turn's recorder and the usage riding on the turn's
   own write (the rider built and serialized, the DynamoDB request replaced by a no-op), and a turn that
   wrote nothing (its own small usage item, request replaced likewise); plus the botocore hook cost per
   DynamoDB call.
2. Each zip function in a fresh interpreter against a DynamoDB endpoint in another process (moto
   server, so moto's own memory is not counted): warm wall and CPU time per turn, peak RSS, DynamoDB
   calls per turn (counted at botocore's edge, the calls a turn's usage causes included) against the
   minimum each turn needs (issue 26: AI Olympics and Werewolf 1 read + 1 write, Proxy API ``/step`` 1 + 1,
   an agents.json read-only call at most 1, a cart add 2, with an Idempotency-Key 3), request units per
   turn from the sizes of the items read and written (moto reports fixed units: a write costs 1 WRU per KB
   of the larger of the item before and after, a transaction twice that; a read 1 RRU per 4 KB, half when
   eventually consistent), log bytes per turn, and the cost of 1M turns from the list price table,
   excluding LLM tokens, with the arithmetic shown (aims: a webhook turn <= $1.50 through its function
   URL, <= $2.50 through the HTTP API). The usage rollup's share is measured too: the records the turns
   left on the table's stream, delivered to ``usage.rollup`` in batches as the template's mapping does
   (``BatchSize``), with its calls, write units and CPU per batch. Lambda duration is estimated as CPU time
   x 1769 / MemorySize (Lambda gives a fraction of a vCPU below 1769 MB) + DynamoDB calls x 5 ms; the
   local wall time is printed too but is dominated by the moto server. The recommended MemorySize is the
   smallest standard size >= 1.5 x peak RSS.

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
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import ROOT, env, pct  # noqa: E402

STANDARD_MB = [128, 256, 512, 1024, 1536, 2048, 3008]
FULL_VCPU_MB = 1769
DDB_MS = 5.0  # assumed in-region DynamoDB round trip (the local moto server is slower and shares 2 CPUs)
WORKLOADS = ["olympics", "werewolf", "runs", "agents_api", "agents_cart", "agents_idem", "evals", "usage"]
FUNCTION_OF = {"olympics": "OlympicsFunction", "werewolf": "WerewolfFunction", "runs": "RunsFunction",
               "agents_api": "AgentsApiFunction", "agents_cart": "AgentsApiFunction",
               "agents_idem": "AgentsApiFunction", "evals": "EvalsFunction", "usage": "UsageFunction"}
LABEL = {"olympics": "AI Olympics turn", "werewolf": "Werewolf turn", "runs": "Proxy API /step",
         "agents_api": "agents.json search", "agents_cart": "cart add", "agents_idem": "cart add+idem key",
         "evals": "eval message", "usage": "GET /usage"}
#: the fewest DynamoDB (reads, writes) each turn needs (issue 26); None: no target
MINIMUM = {"olympics": (1, 1), "werewolf": (1, 1), "runs": (1, 1), "agents_api": (0, 1), "agents_cart": (0, 2),
           "agents_idem": (0, 3)}
WEBHOOKS = ("olympics", "werewolf")  # the functions with a Lambda function URL (WebhookFunctionUrls)
AIM_URL, AIM_API = 1.50, 2.50  # $ per 1M webhook turns through the function URL / the HTTP API
READS = ("GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems")
WRITES = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")
API = "/.well-known/agents/api"


def item_size(item: dict | None) -> int:
    """Bytes DynamoDB bills for ``item`` (low-level form): names plus values."""
    from agenthost.items import item_bytes

    return item_bytes(item or {})


# --- 1. overhead --------------------------------------------------------------------------------------

class _NoIoStore:
    """Stands in for the table: a put builds and serializes its request with the usage rider, as
    ``agenthost.store.Store`` does, and returns at once, so only metering's own work is timed."""

    def put(self, item, *, ttl_s=None, **_):
        from agenthost import riders
        from agenthost.items import marshal

        body = {"Item": marshal(dict(item))}
        rider = riders.current()  # the rider the store would attach
        if rider is not None:
            body = riders.carrying("Put", body, rider)
        riders.settle(rider, True)
        return body


def overhead(n: int = 5000) -> None:
    from agenthost import metering

    metering.reset()
    store = _NoIoStore()
    memory_item = {"pk": "TASK#bench-agent#h", "sk": "META", "data_z": b"x" * 600}

    def one(with_llm: bool, writes: bool = True) -> float:
        t0 = time.perf_counter()
        with metering.turn("olympics", "bench-agent", store=store, decides=True) as t:
            if with_llm:
                t.llm(tokens_in=800, tokens_out=60, latency_ms=900.0, model="gpt-4o-mini")
            if writes:
                store.put(memory_item)
        return (time.perf_counter() - t0) * 1000

    for _ in range(300):
        one(True)
    plain = [one(False) for _ in range(n)]
    llm = [one(True) for _ in range(n)]
    own = [one(False, writes=False) for _ in range(n)]
    print(f"metering overhead per turn ({n} turns, DynamoDB requests replaced by a no-op):")
    print(f"  deterministic turn, usage riding on its write  p50 {pct(plain, 50) * 1000:6.1f} us   "
          f"p99 {pct(plain, 99) * 1000:6.1f} us")
    print(f"  turn with LLM usage, riding on its write       p50 {pct(llm, 50) * 1000:6.1f} us   "
          f"p99 {pct(llm, 99) * 1000:6.1f} us   (aim < 200 us)")
    print(f"  turn that wrote nothing (own usage item)       p50 {pct(own, 50) * 1000:6.1f} us   "
          f"p99 {pct(own, 99) * 1000:6.1f} us")

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
    metering.reset()
    print(f"  botocore hooks per DynamoDB call: {hook_us:.1f} us; metering makes no DynamoDB call of its own "
          "when the turn writes (its usage rides on that write; the stream brings it to the rollup)")


# --- 2. per protocol ----------------------------------------------------------------------------------

def _events(name: str, i: int, tokens: list[str]) -> dict:
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
        return http_event("GET", f"{API}/search", query=f"q=mug&limit=10&page={1 + i % 3}",
                          headers={"content-type": "application/json"})
    if name in ("agents_cart", "agents_idem"):  # each add on a session of its own, made before measuring
        # (``tokens``: the sessions, then a product in stock)
        headers = {"content-type": "application/json", "authorization": f"Bearer {tokens[i]}"}
        if name == "agents_idem":
            headers["idempotency-key"] = f"bench-{i}"
        return http_event("POST", f"{API}/cart/add", body=json.dumps({"item_id": tokens[-1], "quantity": 1}),
                          headers=headers)
    if name == "usage":
        return http_event("GET", "/usage", headers={"x-api-key": "bench-key"})
    if name == "evals":
        ev = json.loads((ROOT / "infra" / "events" / "evals-ping.json").read_text())
        ev["requestContext"]["connectionId"] = f"bench-{i % 50}"
        return ev
    raise ValueError(name)


def _runs_session(handler, ctx: Callable[[], Any], n: int, gate: list[bool] | None = None) -> list[tuple[float, float]]:
    """``n`` measured ``/step`` calls over as many runs as it takes; ``gate[0]`` is True during each step
    only (the worker counts operations then: a run's start is no step)."""
    from bench_runs import snapshot

    from infra.local.events import http_event

    def post(path: str, body: dict) -> dict:
        ev = http_event("POST", path, body=json.dumps(body),
                        headers={"content-type": "application/json", "x-api-key": "bench-key"})
        return json.loads(handler(ev, ctx())["body"])

    samples: list[tuple[float, float]] = []
    run = 0
    while len(samples) < n:
        rid = post("/agent/run/start", {"task": "Find the price of Product 42 and open it", "mode": "autonomous"})[
            "runId"]
        result = None
        for i in range(12):
            body = {"snapshot": snapshot(run * 100 + i) if i else None, "lastActionResult": result}
            if gate is not None:
                gate[0] = True
            w0, c0 = time.perf_counter(), time.process_time()
            reply = post(f"/agent/run/{rid}/step", body)
            samples.append(((time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000))
            if gate is not None:
                gate[0] = False
            if reply.get("action") != "execute_tool" or len(samples) == n:
                break
            result = {"success": True, "message": "ok"}
        run += 1
    return samples
class _Counter:
    """DynamoDB operations at botocore's edge while ``on``; while ``sizing`` too, the request units their items
    cost (sizes read back through an uncounted client: slow, so not while turns are timed)."""

    def __init__(self) -> None:
        import boto3
        import botocore.client

        self.on = [False]
        self.sizing = False
        self.units_turns = 0
        self.ops: dict[str, int] = {}
        self.rru = self.wru = 0.0
        self._probing = False
        self._original = botocore.client.BaseClient._make_api_call
        self._probe = boto3.client("dynamodb", endpoint_url=os.environ["AWS_ENDPOINT_URL_DYNAMODB"])
        counter = self

        def counting(client, operation_name, api_params):
            if counter._probing or not counter.on[0] or client.meta.service_model.service_name != "dynamodb":
                return counter._original(client, operation_name, api_params)
            key = operation_name + ("+consistent" if api_params.get("ConsistentRead") else "")
            counter.ops[key] = counter.ops.get(key, 0) + 1
            if not counter.sizing:
                return counter._original(client, operation_name, api_params)
            before = counter._sizes(operation_name, api_params)
            try:
                answer = counter._original(client, operation_name, api_params)
            except Exception:
                counter._units(operation_name, api_params, before, None)
                raise
            counter._units(operation_name, api_params, before, answer)
            return answer

        botocore.client.BaseClient._make_api_call = counting

    def _get(self, table: str, key: dict) -> dict | None:
        self._probing = True
        try:
            return self._original(self._probe, "GetItem", {"TableName": table, "Key": key,
                                                           "ConsistentRead": True}).get("Item")
        finally:
            self._probing = False

    def _targets(self, op: str, params: dict) -> list[tuple[str, dict]]:
        def key_of(item: dict) -> dict:
            return {k: item[k] for k in ("pk", "sk") if k in item}

        if op in ("PutItem", "UpdateItem", "DeleteItem"):
            return [(params["TableName"], params.get("Key") or key_of(params["Item"]))]
        if op == "TransactWriteItems":
            out = []
            for w in params["TransactItems"]:
                (kind, body), = w.items()
                if kind != "ConditionCheck":
                    out.append((body["TableName"], body.get("Key") or key_of(body["Item"])))
            return out
        if op == "BatchWriteItem":
            return [(t, r.get("PutRequest", {}).get("Item") and key_of(r["PutRequest"]["Item"])
                     or r["DeleteRequest"]["Key"]) for t, rs in params["RequestItems"].items() for r in rs]
        return []

    def _sizes(self, op: str, params: dict) -> list[int]:
        return [item_size(self._get(t, k)) for t, k in self._targets(op, params)]

    def _units(self, op: str, params: dict, before: list[int], answer: dict | None) -> None:
        if op in WRITES:
            after = [item_size(self._get(t, k)) for t, k in self._targets(op, params)]
            per = 2 if op == "TransactWriteItems" else 1
            self.wru += sum(per * max(1, math.ceil(max(b, a) / 1024)) for b, a in zip(before, after, strict=True))
        elif op in READS and answer is not None:
            half = 1.0 if params.get("ConsistentRead") else 0.5
            if op == "GetItem":
                self.rru += half * max(1, math.ceil(item_size(answer.get("Item")) / 4096))
            elif op in ("Query", "Scan"):
                self.rru += half * max(1, math.ceil(sum(item_size(i) for i in answer.get("Items", [])) / 4096))
            else:
                items = [i for rs in answer.get("Responses", {}).values() for i in rs]
                self.rru += half * sum(max(1, math.ceil(item_size(i) / 4096)) for i in items)

    def units(self, turns: int) -> tuple[float, float]:
        """(RRU, WRU) per turn over the last ``turns`` turns made while sizing."""
        return self.rru / max(1, turns), self.wru / max(1, turns)


def _units_turns(n: int) -> int:
    return min(n, 40)


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
    from agenthost import metering
    from infra.local.events import LambdaContext, http_event

    counter = _Counter()
    gate = counter.on
    statuses: dict[str, int] = {}  # what the measured turns answered (a benchmark of errors measures nothing)
    module = __import__("agents_api.app" if name.startswith("agents") else f"{name}.app", fromlist=["handler"])
    handler = module.handler

    def ctx() -> LambdaContext:  # a fresh invocation's context each call (its remaining time starts anew)
        return LambdaContext(f"bench-{name}")

    tokens: list[str] = []
    log = Path(out_path + ".log")
    fd_out, fd_err = os.dup(1), os.dup(2)
    with open(log, "wb") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            if name in ("agents_cart", "agents_idem"):
                from agenthost.store import Store
                from infra.seed import run_all

                run_all(Store(), log=lambda m: None)
                for _ in range(30 + 2 * n + _units_turns(n)):
                    out = handler(http_event("POST", f"{API}/session", headers={"host": "shop.example"}), ctx())
                    tokens.append(json.loads(out["body"])["data"]["session_token"])
                browse = handler(http_event("GET", f"{API}/browse", query={"limit": "100", "in_stock": "true"},
                                            headers={"host": "shop.example"}), ctx())
                tokens.append(next(i["id"] for i in json.loads(browse["body"])["data"]["items"] if i["stock"] >= 50))
            if name == "runs":
                _runs_session(handler, ctx, 30)
                sys.stdout.flush()
                start_bytes = log.stat().st_size
                samples = _runs_session(handler, ctx, n, gate)
            else:
                for i in range(30):
                    handler(_events(name, i, tokens), ctx())
                sys.stdout.flush()
                start_bytes = log.stat().st_size
                samples = []
                for i in range(30, 30 + n):
                    ev = _events(name, i, tokens)
                    gate[0] = True
                    w0, c0 = time.perf_counter(), time.process_time()
                    answer = handler(ev, ctx())
                    cpu = (time.process_time() - c0) * 1000
                    samples.append(((time.perf_counter() - w0) * 1000, cpu))
                    gate[0] = False
                    status = str(answer.get("statusCode", 200) if isinstance(answer, dict) else 200)
                    statuses[status] = statuses.get(status, 0) + 1
            sys.stdout.flush()
            sys.stderr.flush()
            log_bytes = log.stat().st_size - start_bytes
            ops_measured = dict(counter.ops)
            # request units: more turns of the same kind with every item's size read back (not timed)
            counter.sizing = True
            m = _units_turns(n)
            if name == "runs":
                _runs_session(handler, ctx, m, gate)
            else:
                for i in range(30 + 2 * n, 30 + 2 * n + m):
                    ev = _events(name, i, tokens)
                    gate[0] = True
                    handler(ev, ctx())
                    gate[0] = False
            counter.sizing = False
            rru, wru = counter.units(m)
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
                        ev = _events(name, i, tokens)
                        w0, c0 = time.perf_counter(), time.process_time()
                        handler(ev, ctx())
                        unmetered.append(((time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000))
            finally:
                metering.turn = real_turn  # type: ignore[assignment]
        finally:
            os.dup2(fd_out, 1)
            os.dup2(fd_err, 2)
    turns = len(samples)
    result = {
        "wall": [s[0] for s in samples], "cpu": [s[1] for s in samples],
        "wall_off": [s[0] for s in unmetered], "cpu_off": [s[1] for s in unmetered],
        "peak_mb": _peak_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "log_bytes_per_turn": log_bytes / turns,
        "rru": rru, "wru": wru,
        "reads": sum(v for k, v in ops_measured.items() if k.split("+")[0] in READS) / turns,
        "writes": sum(v for k, v in ops_measured.items() if k in WRITES) / turns,
        "ddb_calls": sum(ops_measured.values()) / turns, "ops": ops_measured, "statuses": statuses,
    }
    Path(out_path).write_text(json.dumps(result))


def rollup_worker(out_path: str, batch_size: int) -> None:
    """Runs in a fresh interpreter after the workloads: every record they left on the table's stream that
    the template's filter passes, delivered to ``usage.rollup`` in batches of ``batch_size`` (stream order),
    with its calls, write units and CPU per batch."""
    import boto3

    from agenthost import aws
    from infra.local.streams import StreamReader, matcher
    from infra.local.template import parse

    endpoint = os.environ["AWS_ENDPOINT_URL_DYNAMODB"]
    streams = boto3.client("dynamodbstreams", endpoint_url=endpoint)
    [mapping] = [m for m in parse().stream_mappings if m.function == "UsageRollupFunction"]
    passes = matcher(mapping.patterns)
    reader = StreamReader(aws.client("dynamodb"), streams, os.environ["AGENTHOST_TABLE"])
    records: list[dict] = []
    while True:
        got = reader.read(1000)
        if not got:
            break
        records += [r for r in got if passes(r)]
    from usage.rollup import handler

    counter = _Counter()
    counter.on[0] = counter.sizing = True
    cpu, batches, groups = 0.0, 0, 0
    sink = io.StringIO()
    for start in range(0, len(records), batch_size):
        c0 = time.process_time()
        with redirect_stdout(sink):  # the turns' EMF records
            done = handler({"Records": records[start:start + batch_size]})
        cpu += (time.process_time() - c0) * 1000
        batches += 1
        groups += done["items"]
    Path(out_path).write_text(json.dumps({
        "records": len(records), "batches": batches, "groups": groups, "cpu_ms": cpu, "ops": counter.ops,
        "wru": counter.wru, "rru": counter.rru, "log_bytes": len(sink.getvalue()),
        "peak_mb": _peak_mb(0.0)}))


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
    from infra.local import fastmoto
    from tests.support.olympics import SECRET

    # moto's server occasionally fails a concurrent transaction (botocore retries it); keep its tracebacks out
    logging.getLogger("werkzeug").setLevel(logging.CRITICAL)
    fastmoto.tune()  # as the local stack runs it: a transaction copies the items it touches, not the table
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    port = server._server.server_port  # noqa: SLF001
    endpoint = f"http://127.0.0.1:{port}"
    worker_env = env()
    worker_env.update({"AWS_ENDPOINT_URL_DYNAMODB": endpoint, "AWS_ENDPOINT_URL_DYNAMODBSTREAMS": endpoint,
                       "AGENTHOST_TABLE": "agenthost-bench",
                       "AGENTHOST_OLYMPICS_SECRET": SECRET, "AGENTHOST_RUNS_API_KEY": "bench-key",
                       "AGENTHOST_USAGE_API_KEY": "bench-key", "AGENTHOST_LLM": "none",
                       "AGENTHOST_AGENTS_RATE_LIMIT": "100000",  # measure calls, not 429s from one source IP
                       "POWERTOOLS_LOG_LEVEL": "INFO", "POWERTOOLS_METRICS_DISABLED": "false",
                       "AGENTHOST_MEMORY_MB": "512"})
    import boto3

    from infra.local.template import create_table, parse

    template = parse()
    create_table(boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                              aws_access_key_id="bench", aws_secret_access_key="bench"),
                 template, "agenthost-bench")
    [mapping] = [m for m in template.stream_mappings if m.function == "UsageRollupFunction"]
    memory = _template_memory()
    prices = Prices.load()
    lam = prices.lambda_prices("arm64")
    results: dict[str, dict] = {}
    rollup: dict | None = None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in WORKLOADS:
                out = str(Path(tmp) / f"{name}.json")
                proc = subprocess.run([sys.executable, __file__, "--worker", name, out, str(n)], env=worker_env,
                                      cwd=ROOT, capture_output=True, text=True, timeout=600)
                if proc.returncode != 0 or not Path(out).exists():
                    print(f"  {name}: benchmark failed: {(proc.stderr or proc.stdout)[-400:]}")
                    print(Path(out + ".log").read_text()[-3000:] if Path(out + ".log").exists() else "")
                    continue
                results[name] = json.loads(Path(out).read_text())
            out = str(Path(tmp) / "rollup.json")
            proc = subprocess.run([sys.executable, __file__, "--rollup", out, str(mapping.batch_size)],
                                  env=worker_env, cwd=ROOT, capture_output=True, text=True, timeout=600)
            if proc.returncode == 0 and Path(out).exists():
                rollup = json.loads(Path(out).read_text())
            else:
                print(f"  rollup: benchmark failed: {(proc.stderr or proc.stdout)[-400:]}")
    finally:
        server.stop()

    ddb = prices.table["dynamodb"]
    gbs = lam["gb_second"]

    def compute_cost(ms: float, mb: int) -> float:
        return math.ceil(ms) / 1000 * mb / 1024 * gbs * 1e6

    print(f"\nper protocol, {n} warm turns each (deterministic policy, DynamoDB = moto server over loopback):")
    print("DynamoDB per turn, counted at botocore's edge (usage included: it rides on the turn's write), against "
          "the minimum (issue 26):")
    print(f"  {'turn':<19}{'reads':>6}{'writes':>7}{'calls':>6}  {'minimum':<8}{'':<6}{'RRU':>6}{'WRU':>6}  operations")
    for name, r in results.items():
        want = MINIMUM.get(name)
        if want:
            ok = r["reads"] <= want[0] + 1e-9 and r["writes"] <= want[1] + 1e-9
            minimum, verdict = f"{want[0]} + {want[1]}", "met" if ok else "OVER"
        else:
            minimum, verdict = "-", ""
        print(f"  {LABEL[name]:<19}{r['reads']:6.2f}{r['writes']:7.2f}{r['ddb_calls']:6.2f}  {minimum:<8}"
              f"{verdict:<6}{r['rru']:6.2f}{r['wru']:6.2f}  {r['ops']}")
    print("  (reads + writes; RRU/WRU from the sizes of the items read and written: 1 WRU per KB of the larger of "
          "the item before and after, 1 RRU per 4 KB, half when eventually consistent)")

    # the rollup's share of a turn: its invocation, CPU and transaction per batch, spread over the batch's turns
    share = 0.0
    if rollup and rollup["records"]:
        rmb = memory.get("UsageRollupFunction", 128)
        per_batch_ms = rollup["cpu_ms"] / max(1, rollup["batches"]) * max(1.0, FULL_VCPU_MB / rmb) + DDB_MS
        turns = rollup["records"]
        r_wru, r_rru = rollup["wru"] / turns, rollup["rru"] / turns
        r_invoke = rollup["batches"] / turns * lam["requests_per_million"]
        r_compute = rollup["batches"] / turns * compute_cost(per_batch_ms, rmb)
        r_ddb = r_wru * ddb["write_units_per_million"] + r_rru * ddb["read_units_per_million"]
        r_logs = rollup["log_bytes"] / turns / 1e9 * prices.table["cloudwatch_logs"]["ingested_gb"] * 1e6
        share = r_invoke + r_compute + r_ddb + r_logs
        g = rollup["groups"] / max(1, rollup["batches"])
        print(f"\nusage rollup: {turns} stream records (the turns above) in {rollup['batches']} batches of up to "
              f"{mapping.batch_size}, {g:.1f} usage items a batch; {rollup['ops']}; {rollup['wru']:.0f} WRU; "
              f"CPU {rollup['cpu_ms'] / max(1, rollup['batches']):.1f} ms a batch ({rmb} MB: est "
              f"{per_batch_ms:.0f} ms); EMF {rollup['log_bytes'] / turns:.0f} B a turn; peak {rollup['peak_mb']:.0f} "
              "MB (an upper bound: the bench holds every record at once, Lambda one batch)")
        print(f"  per turn: invocation {r_invoke:.4f} + compute {r_compute:.4f} + DynamoDB {r_wru:.3f} WRU "
              f"{r_ddb:.4f} + metrics logs {r_logs:.4f} = ${share:.3f} per 1M turns")
        print("  a batch's transaction writes its mark and one usage item per agent and protocol, 2 WRU each: "
              "2 x (1 + items) WRU per batch. Full batches from few agents (as here) cost ~0.04 WRU a turn; a "
              "trickle (one turn per 2 s window) costs 4 WRU a turn ($2.50 per 1M); 100 turns from 100 agents "
              "2.02 WRU a turn ($1.26 per 1M)")

    print("\ncost per 1M turns, arm64 list prices (est ms = CPU ms x 1769 / MB + DynamoDB calls x 5 ms, billed "
          "by the started ms; logs at INFO; the rollup's share from above; no LLM tokens):")
    url_price = prices.table.get("function_url", {}).get("requests_per_million", 0.0)
    for name, r in results.items():
        cpu = pct(r["cpu"], 50)
        fn_mb = memory.get(FUNCTION_OF[name], 512)
        est = cpu * max(1.0, FULL_VCPU_MB / fn_mb) + r["ddb_calls"] * DDB_MS
        compute = compute_cost(est, fn_mb)
        requests = lam["requests_per_million"]
        if prices.transport(name) == "websocket":
            api = 2 * prices.table["websocket"]["messages_per_million"]  # the message and its reply
            api_line = f"2 WebSocket messages {api:.2f}"
        else:
            api = prices.table["http_api"]["requests_per_million"]
            api_line = f"HTTP API {api:.2f}"
        dyn = r["rru"] * ddb["read_units_per_million"] + r["wru"] * ddb["write_units_per_million"]
        logs = r["log_bytes_per_turn"] / 1e9 * prices.table["cloudwatch_logs"]["ingested_gb"] * 1e6
        rolled = share if name != "usage" else 0.0
        total = requests + compute + api + dyn + logs + rolled
        rru_p, wru_p = ddb["read_units_per_million"], ddb["write_units_per_million"]
        print(f"  {LABEL[name]:<19} Lambda request {requests:.2f} + compute {math.ceil(est)} ms x "
              f"{fn_mb / 1024:.3f} GB x {gbs * 1e6:.4f} = {compute:.3f} + {api_line} + DynamoDB "
              f"{r['rru']:.2f} RRU x {rru_p} + {r['wru']:.2f} WRU x {wru_p} = {dyn:.3f} + logs "
              f"{r['log_bytes_per_turn']:.0f} B = {logs:.3f} + rollup {rolled:.3f} = ${total:.2f}")
        if name in WEBHOOKS:
            via_url = total - api + url_price
            met_api, met_url = total <= AIM_API, via_url <= AIM_URL
            print(f"  {'':<19} via the HTTP API ${total:.2f} (aim <= {AIM_API:.2f}: {'met' if met_api else 'NOT met'}),"
                  f" via the function URL {total:.2f} - {api:.2f} + {url_price:.2f} = ${via_url:.2f} "
                  f"(aim <= {AIM_URL:.2f}: {'met' if met_url else 'NOT met'})")

    print("\nduration and memory (wall/cpu: local p50 ms per turn; est ms: Lambda duration at that size):")
    print(f"  {'turn':<19}{'wall':>7}{'cpu':>7}{'peak MB':>9}{'MB':>6}{'est ms':>8}{'rec MB':>8}{'est ms':>8}"
          f"{'$ at rec':>10}")
    for name, r in results.items():
        cpu = pct(r["cpu"], 50)
        fn_mb = memory.get(FUNCTION_OF[name], 512)
        rec = next(m for m in STANDARD_MB if m >= 1.5 * r["peak_mb"])

        def est_ms(mb: int, r=r, cpu=cpu) -> float:
            return cpu * max(1.0, FULL_VCPU_MB / mb) + r["ddb_calls"] * DDB_MS

        delta = compute_cost(est_ms(rec), rec) - compute_cost(est_ms(fn_mb), fn_mb)
        print(f"  {LABEL[name]:<19}{pct(r['wall'], 50):7.1f}{cpu:7.2f}{r['peak_mb']:9.1f}{fn_mb:6d}{est_ms(fn_mb):8.1f}"
              f"{rec:8d}{est_ms(rec):8.1f}{delta:+10.3f}")
    print("  (rec MB: the smallest standard size >= 1.5 x peak RSS; $ at rec: the compute cost per 1M turns at "
          "rec MB less that at the template's MB)")
    print("metering end to end (the same turns with metering off; wall includes the DynamoDB round trips to moto):")
    for name, r in results.items():
        if r.get("wall_off"):
            print(f"  {LABEL[name]:<19} wall p50 {pct(r['wall'], 50):7.2f} vs {pct(r['wall_off'], 50):7.2f} ms off "
                  f"(+{pct(r['wall'], 50) - pct(r['wall_off'], 50):.2f}), CPU p50 {pct(r['cpu'], 50):6.2f} vs "
                  f"{pct(r['cpu_off'], 50):6.2f} ms (+{pct(r['cpu'], 50) - pct(r['cpu_off'], 50):.2f})")
    for name, r in results.items():
        answered = ", ".join(f"{k}: {v}" for k, v in sorted(r.get("statuses", {}).items())) or "see _runs_session"
        print(f"  {LABEL[name]}: answered {answered}")


# --- 3. the task memory item over the arena's task suite -----------------------------------------------------

def memory_sizes_worker(out_path: str, seeds: str) -> None:
    """Runs in a fresh interpreter: the arena's task suite (``infra.arena``, every family, each seeded page once
    per seed, deterministic policy) against the AI Olympics handler in process on moto, with the billed size of
    every task memory item written (the usage riding on it included) and of its parts."""
    from moto import mock_aws

    from agenthost import aws
    from agenthost import store as st
    from infra.arena import runner as platform
    from infra.arena import suite
    from infra.arena.site import Site
    from infra.local.events import LambdaContext, http_event, http_response
    from infra.local.template import create_table, parse
    from tests.support.olympics import SECRET

    os.environ.update({"AGENTHOST_OLYMPICS_SECRET": SECRET, "AGENTHOST_LLM": "none",
                       "AGENTHOST_TABLE": "bench-memory"})
    folder, tasks = suite.load()
    sizes: list[int] = []
    parts: dict[str, list[int]] = {}
    marks = 0
    with mock_aws():
        aws.reset()
        create_table(aws.client("dynamodb"), parse(), "bench-memory")
        real = st.Store._call

        def spy(self, op, **kw):
            nonlocal marks
            item = kw.get("Item") or {}
            if op == "put_item" and item.get("pk", {}).get("S", "").startswith("TASK#"):
                sizes.append(item_size(item))
                for k, v in item.items():
                    parts.setdefault(k, []).append(item_size({k: v}))
                from olympics.memory import stored

                kept = list((stored({"data_z": item["data_z"]["B"]}).get("answers") or {}).values())
                marks += bool(kept) and not isinstance(kept[-1], dict)  # the newest answer kept as a mark
            return real(self, op, **kw)

        st.Store._call = spy  # type: ignore[method-assign]
        from olympics.app import handler

        def send(headers, body, timeout):
            event = http_event("POST", "/olympics/turn", body=body, headers=headers)
            status, _, out = http_response(handler(event, LambdaContext("olympics")))
            return status, out

        played = 0
        with Site(folder) as site, platform.Runner(send, SECRET, agent_id="arena-agent", max_turns=20, pace_s=0.0,
                                                   action_timeout_s=2.0, printer=None) as r:
            for label, t, start in suite.variants(tasks, [int(x) for x in seeds.split(",")]):
                r.play(label, site.url + start, t.prompt, t.marker)
                played += 1
    Path(out_path).write_text(json.dumps({"sizes": sizes, "parts": parts, "marks": marks, "tasks": played}))


def memory_sizes(seeds: str = "1,2,3") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "sizes.json")
        proc = subprocess.run([sys.executable, __file__, "--memory-sizes", out, seeds], env=env(), cwd=ROOT,
                              capture_output=True, text=True, timeout=1200)
        if proc.returncode != 0 or not Path(out).exists():
            print(f"\ntask memory sizes: benchmark failed: {(proc.stderr or proc.stdout)[-600:]}")
            return
        r = json.loads(Path(out).read_text())
    sizes = r["sizes"]
    over = sum(x > 1024 for x in sizes)
    print(f"\nAI Olympics task memory item over the arena's task suite ({r['tasks']} tasks and seeded variants, seeds "
          f"{seeds}, deterministic policy, max 20 turns): {len(sizes)} writes, bytes billed (usage included) p50 "
          f"{pct(sizes, 50):.0f}, p90 {pct(sizes, 90):.0f}, p99 {pct(sizes, 99):.0f}, max {max(sizes)}; over 1 KB "
          f"(2+ WRU): {over} ({over / len(sizes):.1%}); newest answer kept as a mark to fit: {r['marks']}")
    print("  parts (p50 / max bytes): " + ", ".join(f"{k} {pct(v, 50):.0f} / {max(v)}" for k, v in r["parts"].items()))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--memory-sizes":
        os.environ.update(env())
        memory_sizes_worker(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--rollup":
        rollup_worker(sys.argv[2], int(sys.argv[3]))
        return
    os.environ.update(env())
    overhead()
    per_protocol()
    memory_sizes()


if __name__ == "__main__":
    main()
