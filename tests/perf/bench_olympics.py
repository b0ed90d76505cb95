"""AI Olympics webhook: handler time per turn (deterministic policy) against a floor measured in the same
run (HMAC + JSON parse + JSON dump of the same payload); DynamoDB calls per turn; cold import time; and the
task suite played by the arena with the deterministic policy (success rate, turns and seconds per task).

Aims (issue 4): handler p50 <= 5 ms; solve at least 9 of the suite's tasks (13 today). Prints, asserts nothing.
Options: ``--turns N`` (handler samples), ``--no-suite``, ``--pace S`` / ``--action-timeout S`` (arena; platform
values by default: ~3 actions/s and 30 s), ``--max-turns N``.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import env, fresh_seconds, pct  # noqa: E402

os.environ.update(env())
os.environ.update({"AGENTHOST_TABLE": "agenthost-bench", "AGENTHOST_OLYMPICS_SECRET": "whs_" + "ab" * 32})
SECRET = os.environ["AGENTHOST_OLYMPICS_SECRET"]

INIT = "import time; t=time.perf_counter(); import olympics.app as m; m.handler; print(time.perf_counter()-t)"


class DictStore:
    """In-process stand-in for the table (to separate handler compute from DynamoDB round trips)."""

    def __init__(self, data: dict):
        self.data, self.calls = data, 0

    def get(self, pk: str, sk: str, **_kw):
        self.calls += 1
        return self.data.get((pk, sk))

    def put(self, item, **_kw):
        self.calls += 1
        self.data[(item["pk"], item["sk"])] = json.loads(json.dumps(item))
        return item

    def update(self, pk: str, sk: str, **_kw):
        self.calls += 1
        return {}


def requests(n: int) -> list[tuple[dict, bytes]]:
    from tests.support.olympics import turn_body

    out = []
    for i in range(n):
        prompt = f"Register Maria Lopez, email maria{i // 10}@example.com, country Germany."
        body = turn_body((i % 10) + 1, prompt=prompt, agent_id="bench")
        raw = json.dumps(body).encode()
        headers = {"content-type": "application/json",
                   "X-AI-Olympics-Signature": "sha256=" + hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest(),
                   "X-AI-Olympics-Timestamp": str(body["timestamp"]), "X-AI-Olympics-Agent-Id": "bench"}
        out.append((headers, raw))
    return out


def time_handler(reqs, handler) -> list[float]:
    from infra.local.events import LambdaContext, http_event

    events = [http_event("POST", "/olympics/turn", body=raw, headers=h) for h, raw in reqs]
    samples = []
    for ev in events:
        ctx = LambdaContext("bench")  # one per invocation, as Lambda gives: its own deadline
        t = time.perf_counter()
        out = handler(ev, ctx)
        samples.append((time.perf_counter() - t) * 1000)
        assert out["statusCode"] == 200
    return samples


def floor(reqs) -> list[float]:
    samples = []
    for h, raw in reqs:
        t = time.perf_counter()
        hmac.compare_digest(h["X-AI-Olympics-Signature"],
                            "sha256=" + hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest())
        body = json.loads(raw)
        json.dumps(body)
        samples.append((time.perf_counter() - t) * 1000)
    return samples


def line(name: str, s: list[float]) -> str:
    return f"  {name:<44} p50 {pct(s, 50):7.3f} ms   p99 {pct(s, 99):7.3f} ms   (n={len(s)})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=1000)
    ap.add_argument("--no-suite", action="store_true")
    ap.add_argument("--pace", type=float, default=1 / 3)
    ap.add_argument("--action-timeout", type=float, default=30.0)
    ap.add_argument("--max-turns", type=int, default=20)
    a = ap.parse_args()

    from moto import mock_aws

    print(f"cold import of olympics.app (fresh interpreter, median of 5): {fresh_seconds(INIT, 5) * 1000:.0f} ms")
    reqs = requests(a.turns)
    with mock_aws():
        from agenthost import aws
        from infra.local.template import create_table, parse

        create_table(aws.client("dynamodb"), parse(), os.environ["AGENTHOST_TABLE"])
        import olympics.app as app
        from olympics import memory

        time_handler(reqs[:50], app.handler)  # warm up
        fl = floor(reqs)

        import botocore.client

        ops: list[str] = []
        real_call = botocore.client.BaseClient._make_api_call

        def counting(self, operation, params):
            if self.meta.service_model.service_name == "dynamodb":
                ops.append(operation)
            return real_call(self, operation, params)

        botocore.client.BaseClient._make_api_call = counting
        with_ddb = time_handler(reqs, app.handler)
        botocore.client.BaseClient._make_api_call = real_call
        calls_per_turn = len(ops) / len(reqs)
        kinds = sorted(set(ops))

        # compute only: the table (task memory and usage counters) in process
        data: dict = {}
        real_cls, real_turn = memory.MemoryStore, app.metering.turn
        app.MemoryStore = lambda: real_cls(store=DictStore(data))
        app.metering.turn = lambda protocol, agent, **kw: real_turn(protocol, agent, store=DictStore({}), **kw)
        compute = time_handler(reqs, app.handler)
        app.MemoryStore, app.metering.turn = real_cls, real_turn

    print("handler time per turn, deterministic policy (same payloads, same run):")
    print(line("floor: HMAC + JSON parse + JSON dump", fl))
    print(line("handler, table in-process (compute only)", compute))
    print(line("handler, moto DynamoDB (in-process mock)", with_ddb))
    print(f"  handler p50 / floor p50: {pct(compute, 50) / max(pct(fl, 50), 1e-9):.1f}x   (aim: handler p50 <= 5 ms)")
    print(f"DynamoDB calls per turn (task memory + usage metering): {calls_per_turn:.2f} ({', '.join(kinds)})"
          "  (aim: 1 read + 1 write)")

    if a.no_suite:
        return
    run_suite(a)


def run_suite(a) -> None:
    from moto import mock_aws

    from infra.arena import runner as platform
    from infra.arena import suite
    from infra.arena.site import Site
    from infra.local.events import LambdaContext, http_event, http_response

    folder, tasks = suite.load(families=["basic"])  # the whole suite, by family: bench_tasks.py
    with mock_aws():
        from agenthost import aws
        from infra.local.template import create_table, parse

        aws.reset()
        create_table(aws.client("dynamodb"), parse(), os.environ["AGENTHOST_TABLE"])
        from olympics.app import handler

        def send(headers, body, timeout):
            event = http_event("POST", "/olympics/turn", body=body, headers=headers)
            status, _, out = http_response(handler(event, LambdaContext("olympics")))
            return status, out

        print(f"\ntask suite, deterministic policy, in-process webhook + moto; pace {a.pace:.2f} s/action, "
              f"action timeout {a.action_timeout:.0f} s, max {a.max_turns} turns:")
        results = []
        with Site(folder) as site, platform.Runner(send, SECRET, agent_id="bench", max_turns=a.max_turns,
                                                   pace_s=a.pace, action_timeout_s=a.action_timeout,
                                                   printer=None) as r:
            for t in tasks:
                res = r.play(t.id, site.url + t.start, t.prompt, t.marker)
                results.append(res)
                lat = [x.latency_s * 1000 for x in res.log] or [0.0]
                print(f"  {t.id:<14} {'SOLVED' if res.success else 'failed':<7} turns {res.turns:>3}  "
                      f"{res.seconds:6.1f} s  webhook p50 {pct(lat, 50):5.1f} ms  "
                      f"violations {len(res.violations)}  ({res.end})")
    solved = sum(r.success for r in results)
    print(f"  solved {solved}/{len(results)} ({solved / len(results):.0%}); "
          f"mean turns {sum(r.turns for r in results) / len(results):.1f}; "
          f"mean seconds {sum(r.seconds for r in results) / len(results):.1f}  "
          f"(aim: solve at least 9 of {len(results)})")


if __name__ == "__main__":
    main()
