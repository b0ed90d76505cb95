"""Evaluation server and client numbers (printed, never asserted).

1. Protocol cost, in process (moto DynamoDB, a recording hub in place of @connections): messages and
   DynamoDB calls per evaluation for a client with 20 evaluations, maxConcurrency 3, counted twice: the
   protocol logic alone (one Server), and through the Lambda handler ``evals.app.handler`` with metering
   (a Server per invocation, the per-turn counter write), as metering records it.
2. Through the real local stack: dispatch latency from ``ready`` to the first ``evaluate`` (20 clients),
   and our client's pass rate on the packaged local suite (33 evaluations over local pages, real Chromium,
   deterministic tools and brain, the 16 ``web-tasks`` judged by the page's own record), per category.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT, ROOT / "functions", ROOT / "layers" / "core"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")


def answer_everything(inbox: list, client_sends) -> int:
    """Play the DevTools client until nothing more is sent: five status messages (progress 0.1 .. 1.0)
    and a result for every evaluate request. Returns how many evaluations were answered."""
    done = 0
    while True:
        pending = [m for m in inbox if m.get("method") == "evaluate"]
        inbox.clear()
        if not pending:
            return done
        for req in pending:
            eid = req["params"]["evaluationId"]
            for p in (0.1, 0.2, 0.3, 0.5, 1.0):
                client_sends({"type": "status", "evaluationId": eid, "status": "running", "progress": p})
            client_sends({"jsonrpc": "2.0", "id": req["id"], "result": {"status": "success",
                                                                          "output": {"title": "x"}}})
            done += 1


def protocol_cost(n_evals: int = 20, max_c: int = 3) -> None:
    import yaml
    from evals.definitions import load_dir
    from evals.server import Options, Server
    from evals.timers import NoTimers
    from moto import mock_aws

    from agenthost import aws
    from agenthost.store import Store
    from infra.local.template import create_table, parse

    with tempfile.TemporaryDirectory() as tmp, mock_aws():
        for i in range(n_evals):
            d = Path(tmp) / "bench"
            d.mkdir(exist_ok=True)
            (d / f"e{i:02d}.yaml").write_text(yaml.safe_dump({
                "id": f"e{i:02d}", "target": {"url": "http://127.0.0.1:9/"}, "tool": "extract_schema_data",
                "input": {"schema": {"type": "object", "properties": {"title": {"type": "string"}}}},
                "validation": {"type": "expected", "expected": {"title": "x"}}}))
        aws.reset()
        create_table(aws.client("dynamodb"), parse(), "agenthost")
        class TimedStore(Store):
            ddb_s = 0.0

            def _call(self, op, **kwargs):
                t = time.perf_counter()
                try:
                    return super()._call(op, **kwargs)
                finally:
                    TimedStore.ddb_s += time.perf_counter() - t

        store = TimedStore("agenthost")
        inbox: list[dict] = []
        timers = NoTimers()
        server = Server(store=store, send=lambda _c, m: inbox.append(m) or True, timers=timers,
                        catalog=lambda _cid=None: load_dir(tmp), options=Options(secret="k"))
        received = 0

        def client_sends(msg: dict) -> None:
            nonlocal received
            received += 1
            server.on_message("conn-1", json.dumps(msg))

        client_sends({"type": "register", "clientId": "bench", "secretKey": "k",
                      "capabilities": {"tools": ["extract_schema_data"], "maxConcurrency": max_c}})
        calls_register = store.calls
        t0, ddb0 = time.perf_counter(), TimedStore.ddb_s
        client_sends({"type": "ready"})
        ready_to_first = (time.perf_counter() - t0) * 1000
        ready_own = ready_to_first - (TimedStore.ddb_s - ddb0) * 1000
        calls_ready = store.calls - calls_register
        calls_before = store.calls
        done = answer_everything(inbox, client_sends)
        per_eval_calls = (store.calls - calls_before + (calls_register and 0)) / done
        print(f"protocol (in process, moto): {done} evaluations, maxConcurrency {max_c}")
        print(f"  register: {calls_register} DynamoDB calls (new evaluations in one batch write); ready -> first "
              f"evaluate: {calls_ready} DynamoDB calls, {ready_to_first:.1f} ms wall of which {ready_own:.1f} ms "
              f"outside DynamoDB (moto's emulation is the rest)")
        print(f"  messages per evaluation: server->client {server.messages_sent / done:.2f}, "
              f"client->server {received / done:.2f} (5 status + 1 result each, plus register/ready)")
        print(f"  DynamoDB calls per evaluation (ready, 5 status updates, result, dispatch): {per_eval_calls:.2f}; "
              f"timers created per evaluation: {timers.created / done:.2f}")
        status_calls_before = store.calls
        server.on_message("conn-1", json.dumps({"type": "status", "evaluationId": "e00", "progress": 0.5}))
        print(f"  of which per status message: {store.calls - status_calls_before}")
        handler_cost(tmp, n_evals, max_c)


def handler_cost(defs_dir: str, n_evals: int, max_c: int) -> None:
    """The same client through the Lambda handler (``evals.app.handler``: a Server per invocation, metering
    on): invocations and DynamoDB calls per evaluation, counted at botocore's edge, metering's writes included."""
    import evals.app as evals_app
    import evals.runtime as evals_runtime
    from evals.timers import NoTimers

    from agenthost import config, metering
    from infra.local.events import LambdaContext, ws_event
    from tests.support.usage import DynamoCalls

    os.environ["AGENTHOST_EVALS_DIR"] = defs_dir
    os.environ["AGENTHOST_EVALS_SECRET"] = "k"
    os.environ["AGENTHOST_EVALS_AGENT_ID"] = "bench-handler"
    os.environ["AGENTHOST_EVALS_AUTO_CREATE"] = "true"
    config.reset()
    metering.reset()
    evals_runtime.packaged_catalog.cache_clear()
    inbox: list[dict] = []
    seen: list[dict] = []

    def post(_conn: str, msg: dict) -> int:
        inbox.append(msg)
        seen.append(msg)
        return len(json.dumps(msg, separators=(",", ":")).encode())

    evals_runtime._send = post  # the @connections post, in memory
    evals_runtime.Timers = lambda _target: NoTimers()  # type: ignore[assignment,misc]
    client_msgs = 0

    def client_sends(msg: dict) -> None:
        nonlocal client_msgs
        client_msgs += 1
        # a context per invocation, as Lambda gives: its deadline is this invocation's, not the whole run's
        evals_app.handler(ws_event("$default", "conn-h", body=json.dumps(msg)), LambdaContext("agenthost-evals"))

    client_sends({"type": "register", "clientId": "bench-h", "secretKey": "k",
                  "capabilities": {"tools": ["extract_schema_data"], "maxConcurrency": max_c}})
    client_sends({"type": "ready"})
    sent_before = client_msgs
    with DynamoCalls() as calls:  # counted at botocore's edge: metering's own writes included
        done = answer_everything(inbox, client_sends)
    if not done:
        raise SystemExit(f"the handler path sent no evaluation; the server answered {seen[:3]}")
    print(f"through evals.app.handler (metering on, a Server per invocation): {done} evaluations")
    print(f"  per evaluation: {(client_msgs - sent_before) / done:.2f} invocations, {len(calls.ops) / done:.2f} "
          f"DynamoDB calls (usage riding on the invocation's writes, or its own small item when it wrote "
          f"nothing), of which {calls.ops.count('PutItem') / done:.2f} puts and "
          f"{calls.ops.count('UpdateItem') / done:.2f} updates")


async def _latency(ws_url: str, secret: str, n: int) -> list[float]:
    from tests.support.evals import Scripted

    async def one() -> float:
        c = Scripted(ws_url, str(uuid.uuid4()))
        await c.connect()
        await c.register(secret, max_concurrency=1)
        t0 = time.perf_counter()
        await c.send({"type": "ready"})
        await c.recv_until(lambda m: m.get("method") == "evaluate", timeout=30)
        took = (time.perf_counter() - t0) * 1000
        await c.close()
        return took

    out = []
    for _ in range(n):  # sequential: latency, not throughput
        out.append(await one())
    return out


def through_stack() -> None:
    import httpx

    from infra.eval_client.client import ClientConfig, EvalClient
    from infra.local.defaults import LOCAL_SECRETS
    from tests.support.evals import PagesServer, wait_finished
    from tests.support.stack import start_stack

    secret = LOCAL_SECRETS["AGENTHOST_EVALS_SECRET"]
    pages = PagesServer()
    stack = start_stack({"AGENTHOST_EVALS_PAGES_URL": pages.url})
    try:
        lat = asyncio.run(_latency(stack.ws_url, secret, 20))
        print(f"local stack: ready -> first evaluate over 20 clients: median {statistics.median(lat):.0f} ms, "
              f"max {max(lat):.0f} ms")
        cid = str(uuid.uuid4())
        client = EvalClient(ClientConfig(url=stack.ws_url, client_id=cid, secret=secret, max_concurrency=2,
                                         idle_exit_s=8.0))
        t0 = time.perf_counter()
        stats = asyncio.run(asyncio.wait_for(client.run(), 900))
        state = wait_finished(stack.http_url, cid, timeout=30)
        took = time.perf_counter() - t0
        evals = state["evaluations"]
        per_cat: dict[str, list[bool]] = {}
        for e in evals:
            per_cat.setdefault(e.get("category", "default"), []).append(bool(e.get("passed")))
        passed = sum(1 for e in evals if e.get("passed"))
        print(f"client pass rate on the local suite: {passed}/{len(evals)} = {passed / max(1, len(evals)):.0%} "
              f"in {took:.1f} s (results {stats.results}, errors {stats.errors}, "
              f"messages sent {stats.sent}, received {stats.received})")
        for cat, vals in sorted(per_cat.items()):
            print(f"  {cat:12} {sum(vals)}/{len(vals)}")
        for e in evals:
            if not e.get("passed"):
                failed = [c["detail"] for c in (e.get("verdict") or {}).get("checks", []) if not c.get("passed")]
                print(f"  failed: {e['evalId']} ({e['status']}): {'; '.join(failed)[:160]}")
        r = httpx.get(f"{stack.http_url}/evals/report", timeout=30)
        body = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
        print(f"admin report: HTTP {r.status_code}, pass rate over every client of this run (the latency "
              f"probes never answer, so theirs time out): {body.get('passRate', body or r.text[:200])}")
    finally:
        stack.stop()
        pages.close()


if __name__ == "__main__":
    saved = dict(os.environ)
    protocol_cost()
    os.environ.clear()  # the in-process part configured its own server (secret, definitions): not the stack's
    os.environ.update(saved)
    if "--protocol-only" not in sys.argv:
        through_stack()
