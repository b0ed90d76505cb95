"""Proxy Server API: handler time per /step (p50/p99) with the deterministic policy, DynamoDB round trips
per step (aim <= 3), the extension emulator's success rate on the task suite (real Chromium against the
local stack), and hosted-run seconds per step. Prints, asserts nothing.

``--no-suite`` skips the (slower) emulator run.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import ROOT, env, pct  # noqa: E402

os.environ.update(env())
os.environ["AGENTHOST_LLM"] = "none"
os.environ["AGENTHOST_RUNS_REQUIRE_API_KEY"] = "false"
os.environ.setdefault("AGENTHOST_TABLE", "agenthost-bench")


def snapshot(i: int) -> dict:
    elements = [{"id": "agent-1", "tag": "input", "type": "search", "placeholder": "Search the shop"},
                {"id": "agent-2", "tag": "button", "text": "Search"}]
    elements += [{"id": f"agent-{k}", "tag": "a", "text": f"Product {k} - loose leaf tea, 100 g",
                  "href": f"https://shop.test/p/{k}"} for k in range(3, 60)]
    text = " ".join(f"Product {k} loose leaf tea from our garden, 100 g, $ {k}.50." for k in range(3, 60))
    return {"url": f"https://shop.test/page/{i}", "title": f"Shop page {i}", "visibleText": text[:6000],
            "elements": elements, "timestamp": 1_700_000_000_000 + i}


def handler_steps(n_runs: int = 20, steps_per_run: int = 15) -> None:
    import botocore.client
    from moto import mock_aws

    from agenthost import aws, config
    from infra.local.events import LambdaContext, http_event
    from infra.local.template import create_table, parse

    ddb = {"calls": 0, "ms": 0.0, "usage": 0}
    orig_call = botocore.client.BaseClient._make_api_call

    def timed(self, op, params):
        t = time.perf_counter()
        try:
            return orig_call(self, op, params)
        finally:
            ddb["calls"] += 1
            ddb["ms"] += (time.perf_counter() - t) * 1000
            if op == "UpdateItem" and str(params.get("Key", {}).get("pk", {}).get("S", "")).startswith("USAGE#"):
                ddb["usage"] += 1  # metering's counter write, not the run's own

    botocore.client.BaseClient._make_api_call = timed  # type: ignore[method-assign]
    with mock_aws():
        config.reset()
        aws.reset()
        create_table(aws.client("dynamodb"), parse(), config.settings().table_name)
        import runs.app as app

        from agenthost.store import Store

        def post(path: str, body: dict) -> dict:
            ev = http_event("POST", path, body=json.dumps(body), headers={"content-type": "application/json"})
            return json.loads(app.handler(ev, LambdaContext("bench"))["body"])  # a context (deadline) per call

        total, compute, per_step_calls, usage_calls, outcomes = [], [], [], [], {}
        for r in range(n_runs):
            rid = post("/agent/run/start", {"task": "Find the price of Product 42 and open it",
                                            "mode": "careful"})["runId"]
            result = None
            for i in range(steps_per_run):
                body = {"snapshot": snapshot(r * 100 + i) if i else None, "lastActionResult": result}
                c0, ms0, u0 = ddb["calls"], ddb["ms"], ddb["usage"]
                t = time.perf_counter()
                reply = post(f"/agent/run/{rid}/step", body)
                elapsed = (time.perf_counter() - t) * 1000
                total.append(elapsed)
                compute.append(elapsed - (ddb["ms"] - ms0))
                per_step_calls.append(ddb["calls"] - c0)
                usage_calls.append(ddb["usage"] - u0)
                outcomes[reply["action"]] = outcomes.get(reply["action"], 0) + 1
                if reply["action"] != "execute_tool":
                    break
                result = {"success": True, "message": "ok"}
        meta = Store().get(f"RUN#{rid}", "META") or {}
        block = next(Store().query(f"RUN#{rid}", "HIST#", forward=False, limit=1), {})
        get_ms, get_calls = [], []
        for _ in range(20):
            c0 = ddb["calls"]
            ev, ctx = http_event("GET", f"/agent/run/{rid}"), LambdaContext("bench")
            t = time.perf_counter()
            state = json.loads(app.handler(ev, ctx)["body"])["state"]
            get_ms.append((time.perf_counter() - t) * 1000)
            get_calls.append(ddb["calls"] - c0)
    botocore.client.BaseClient._make_api_call = orig_call  # type: ignore[method-assign]
    print(f"/step handler time without DynamoDB time over {len(compute)} steps ({n_runs} runs, deterministic "
          f"policy, 59-element snapshots): p50 {pct(compute, 50):.1f} ms, p99 {pct(compute, 99):.1f} ms")
    print(f"/step handler time including moto in-process DynamoDB: p50 {pct(total, 50):.1f} ms, "
          f"p99 {pct(total, 99):.1f} ms (moto is far slower than DynamoDB per call)")
    own = [c - u for c, u in zip(per_step_calls, usage_calls, strict=True)]
    print(f"DynamoDB round trips per /step: the run's own mean {sum(own) / len(own):.2f}, max {max(own)} "
          f"(aim 1 read + 1 write: read META, write META, which carries the step's history and usage; one more "
          f"write, a history block, every 20 steps) + metering's own counter writes "
          f"{sum(usage_calls) / len(usage_calls):.2f}")
    snap_z = bytes(getattr(meta.get("snap_z"), "value", meta.get("snap_z") or b""))
    meta["snap_z"] = "x" * len(snap_z)  # as many characters as it has bytes, for the size below
    meta_kib = len(json.dumps(meta, default=str)) / 1024
    print(f"item sizes after {meta.get('current_step')} steps: run META ~{meta_kib:.1f} KiB "
          f"(snapshot compressed to {len(snap_z) / 1024:.1f} KiB; its {len(meta.get('recent') or [])} recent steps "
          f"{len(json.dumps(meta.get('recent') or [], default=str)) / 1024:.1f} KiB), one history block of 20 steps "
          f"~{len(json.dumps(block, default=str)) / 1024:.1f} KiB (limit 400 KiB)")
    print(f"GET /agent/run/{{id}} after {state['currentStep']} steps: {max(get_calls)} DynamoDB call(s), handler "
          f"p50 {pct(get_ms, 50):.1f} ms incl. moto; response {len(json.dumps(state)) / 1024:.1f} KiB")
    print(f"step outcomes: {outcomes}")


def suite_rate() -> None:
    from infra.arena import suite
    from infra.arena.site import Site
    from infra.extension.emulator import Emulator
    from tests.support.stack import start_stack

    folder, tasks = suite.load(families=["basic"])  # the whole suite, by family: bench_tasks.py
    stack = start_stack()
    try:
        with Site(folder) as site, Emulator(stack.http_url, printer=None, max_steps=40) as emu:
            results = [emu.run(t.id, t.prompt, site.url + t.start, marker=t.marker) for t in tasks]
    finally:
        stack.stop()
    solved = [r.task_id for r in results if r.success]
    lat = [x for r in results for x in r.step_latency_s]
    print(f"extension emulator on the task suite (deterministic policy, autonomous): solved {len(solved)}/"
          f"{len(results)} ({len(solved) / len(results):.0%}); solved: {', '.join(solved) or 'none'}")
    print(f"  /step round trip through the local stack: p50 {pct(lat, 50) * 1000:.0f} ms, "
          f"p99 {pct(lat, 99) * 1000:.0f} ms over {len(lat)} steps")


def hosted(stack=None) -> None:
    """Seconds per step of hosted runs (local stack, browser function with the machine's Chromium)."""
    import httpx

    from infra.arena.site import Site
    from tests.support.stack import start_stack

    own = stack is None
    stack = stack or start_stack()
    per_step: list[float] = []
    notes: list[str] = []
    try:
        with Site(ROOT / "tests" / "e2e" / "runs_pages") as site:
            for task, page in [("Open the Contact us page", "index.html"), ("Open the Checkout page", "index.html"),
                               ("Open the Contact us page", "index.html")]:
                r = httpx.post(f"{stack.http_url}/agent/run/start",
                               json={"task": task, "browser": "hosted", "startUrl": site.url + page, "maxSteps": 6},
                               timeout=30)
                if r.status_code != 200:
                    notes.append(f"start answered {r.status_code}: {r.text[:200]}")
                    continue
                rid = r.json()["runId"]
                t0 = time.monotonic()
                while True:
                    state = httpx.get(f"{stack.http_url}/agent/run/{rid}", timeout=30).json()["state"]
                    if state["status"] not in ("created", "running") or time.monotonic() - t0 > 60:
                        break
                    time.sleep(0.1)
                if state["currentStep"]:
                    per_step.append((state["updatedAt"] - state["createdAt"]) / 1000 / state["currentStep"])
                notes.append(f"{task!r}: {state['status']} after {state['currentStep']} steps"
                             + (f" ({state['error']})" if state.get("error") else ""))
    except Exception as exc:  # noqa: BLE001 - a benchmark reports what happened and lets the others run
        notes.append(f"stopped by {type(exc).__name__}: {exc}")
    finally:
        if own:
            stack.stop()
    if per_step:
        print(f"hosted-run seconds per step (local stack, Chromium on this machine, {len(per_step)} runs): "
              + ", ".join(f"{x:.2f}" for x in per_step) + f"; median {sorted(per_step)[len(per_step) // 2]:.2f} s")
    else:
        print("hosted-run seconds per step: no run made a step, so nothing was measured")
    for note in notes:
        print(f"  hosted run {note}")


def _section(fn) -> None:  # noqa: ANN001
    """Run one measurement; a failure is printed and the others still run (make bench goes on)."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001
        print(f"{fn.__name__}: not measured ({type(exc).__name__}: {exc})")


if __name__ == "__main__":
    os.chdir(ROOT)
    _section(handler_steps)
    if "--no-suite" not in sys.argv:
        _section(suite_rate)
    _section(hosted)
