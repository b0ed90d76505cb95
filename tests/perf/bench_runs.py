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

    ddb = {"calls": 0, "ms": 0.0}
    orig_call = botocore.client.BaseClient._make_api_call

    def timed(self, op, params):
        t = time.perf_counter()
        try:
            return orig_call(self, op, params)
        finally:
            ddb["calls"] += 1
            ddb["ms"] += (time.perf_counter() - t) * 1000

    botocore.client.BaseClient._make_api_call = timed  # type: ignore[method-assign]
    with mock_aws():
        config.reset()
        aws.reset()
        create_table(aws.client("dynamodb"), parse(), config.settings().table_name)
        import runs.app as app

        from agenthost.store import Store

        ctx = LambdaContext("bench")

        def post(path: str, body: dict) -> dict:
            ev = http_event("POST", path, body=json.dumps(body), headers={"content-type": "application/json"})
            return json.loads(app.handler(ev, ctx)["body"])

        total, compute, per_step_calls, outcomes = [], [], [], {}
        for r in range(n_runs):
            rid = post("/agent/run/start", {"task": "Find the price of Product 42 and open it",
                                            "mode": "careful"})["runId"]
            result = None
            for i in range(steps_per_run):
                body = {"snapshot": snapshot(r * 100 + i) if i else None, "lastActionResult": result}
                c0, ms0 = ddb["calls"], ddb["ms"]
                t = time.perf_counter()
                reply = post(f"/agent/run/{rid}/step", body)
                elapsed = (time.perf_counter() - t) * 1000
                total.append(elapsed)
                compute.append(elapsed - (ddb["ms"] - ms0))
                per_step_calls.append(ddb["calls"] - c0)
                outcomes[reply["action"]] = outcomes.get(reply["action"], 0) + 1
                if reply["action"] != "execute_tool":
                    break
                result = {"success": True, "message": "ok"}
        meta = Store().get(f"RUN#{rid}", "META") or {}
        step = Store().get(f"RUN#{rid}", "STEP#000010") or {}
    botocore.client.BaseClient._make_api_call = orig_call  # type: ignore[method-assign]
    print(f"/step handler time without DynamoDB time over {len(compute)} steps ({n_runs} runs, deterministic "
          f"policy, 59-element snapshots): p50 {pct(compute, 50):.1f} ms, p99 {pct(compute, 99):.1f} ms")
    print(f"/step handler time including moto in-process DynamoDB: p50 {pct(total, 50):.1f} ms, "
          f"p99 {pct(total, 99):.1f} ms (moto is far slower than DynamoDB per call)")
    print(f"DynamoDB round trips per /step: mean {sum(per_step_calls) / len(per_step_calls):.2f}, "
          f"max {max(per_step_calls)} (aim <= 3)")
    print(f"item sizes after {steps_per_run} steps: run META ~{len(json.dumps(meta, default=str)) / 1024:.1f} KiB, "
          f"one STEP item ~{len(json.dumps(step, default=str)) / 1024:.1f} KiB (limit 400 KiB)")
    print(f"step outcomes: {outcomes}")


def suite_rate() -> None:
    from infra.arena import suite
    from infra.arena.site import Site
    from infra.extension.emulator import Emulator
    from tests.support.stack import start_stack

    folder, tasks = suite.load()
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
    per_step = []
    try:
        with Site(ROOT / "tests" / "e2e" / "runs_pages") as site:
            for task, page in [("Open the Contact us page", "index.html"), ("Open the Checkout page", "index.html"),
                               ("Open the Contact us page", "index.html")]:
                rid = httpx.post(f"{stack.http_url}/agent/run/start",
                                 json={"task": task, "browser": "hosted", "startUrl": site.url + page,
                                       "maxSteps": 6}).json()["runId"]
                t0 = time.monotonic()
                while True:
                    state = httpx.get(f"{stack.http_url}/agent/run/{rid}").json()["state"]
                    if state["status"] not in ("created", "running") or time.monotonic() - t0 > 60:
                        break
                    time.sleep(0.1)
                if state["currentStep"]:
                    per_step.append((state["updatedAt"] - state["createdAt"]) / 1000 / state["currentStep"])
    finally:
        if own:
            stack.stop()
    print(f"hosted-run seconds per step (local stack, Chromium on this machine, {len(per_step)} runs): "
          + ", ".join(f"{x:.2f}" for x in per_step) + f"; median {sorted(per_step)[len(per_step) // 2]:.2f} s")


if __name__ == "__main__":
    os.chdir(ROOT)
    handler_steps()
    if "--no-suite" not in sys.argv:
        suite_rate()
    hosted()
