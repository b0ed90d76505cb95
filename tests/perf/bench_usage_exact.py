"""``GET /usage`` exact under load: AI Olympics turns over 10 agents sent at once through the local stack
(``python -m infra.local``: HTTP API, the functions, the embedded DynamoDB and its stream delivered to the
usage rollup as Lambda does), with stream batches delivered a second time (``AGENTHOST_LOCAL_STREAM_REDELIVER``,
as Lambda does when a batch's success is lost); prints the counters ``/usage`` reports against the turns sent,
per agent, and how many batches came twice.

Aims at 10,000 turns (``--turns``); it stops sending when ``--budget-s`` (default 180 s) is spent and says so:
on a 2-core machine the local stack answers a few dozen turns a second. Prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import ROOT  # noqa: E402

sys.path[:0] = [str(ROOT), str(ROOT / "functions"), str(ROOT / "layers" / "core")]

AGENTS = 10
TASK_TURNS = 20  # turns per task; a task's turns go in order, the tasks of all agents at once


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=10_000)
    ap.add_argument("--budget-s", type=float, default=180.0, help="stop sending after this many seconds")
    ap.add_argument("--redeliver", type=int, default=3, help="every n-th stream batch is delivered twice")
    ap.add_argument("--jobs", type=int, default=8)
    args = ap.parse_args()

    import httpx

    from infra.local.defaults import LOCAL_SECRETS
    from tests.support.olympics import signed, turn_body
    from tests.support.stack import start_stack

    stack = start_stack({"AGENTHOST_LOCAL_STREAM_REDELIVER": str(args.redeliver), "POWERTOOLS_LOG_LEVEL": "WARNING"})
    secret = LOCAL_SECRETS["AGENTHOST_OLYMPICS_SECRET"]
    run = uuid.uuid4().hex[:6]
    agents = [f"exact-{run}-{i}" for i in range(AGENTS)]
    tasks = [(agents[k % AGENTS], k) for k in range(-(-args.turns // TASK_TURNS))]
    sent = dict.fromkeys(agents, 0)
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    stop_at = time.monotonic() + args.budget_s
    local = threading.local()

    def client() -> httpx.Client:
        if not hasattr(local, "client"):
            local.client = httpx.Client(timeout=60)
        return local.client

    def play(agent: str, task: int) -> None:
        for n in range(1, TASK_TURNS + 1):
            with lock:
                if time.monotonic() > stop_at or sum(sent.values()) >= args.turns:
                    return
                sent[agent] += 1
            raw, headers = signed(turn_body(n, agent_id=agent, prompt=f"Register Maria Lopez, task {task}."), secret,
                                  agent_id=agent)
            try:
                status = client().post(f"{stack.http_url}/olympics/turn", content=raw, headers=headers).status_code
            except httpx.HTTPError:
                status = 0
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

    def counted() -> dict[str, int]:
        r = httpx.get(f"{stack.http_url}/usage", params={"protocol": "olympics"}, timeout=60)
        r.raise_for_status()
        return {row["agent"]: int(row["turns"]) for row in r.json()["rows"] if row["agent"] in sent}

    try:
        t0 = time.monotonic()
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            list(pool.map(lambda job: play(*job), tasks))
        took = time.monotonic() - t0
        total = sum(sent.values())
        print(f"sent {total} AI Olympics turns over {AGENTS} agents in {took:.0f} s ({total / took:.0f} turns/s, "
              f"{args.jobs} at once); answers {dict(sorted(statuses.items()))}")
        if total < args.turns:
            print(f"  scaled down: {args.turns} turns were aimed at; sending stopped after the {args.budget_s:.0f} s "
                  "budget on this machine (--budget-s)")
        t1 = time.monotonic()
        found: dict[str, int] = {}
        while time.monotonic() - t1 < 120:
            found = counted()
            if found == sent:
                break
            time.sleep(1.0)
        caught_up = time.monotonic() - t1
        time.sleep(5.0)  # two more batching windows: nothing arrives late, nothing counts twice
        again = counted()
        redelivered = sum("delivered again to UsageRollupFunction" in line for line in stack.output)
        print(f"/usage turns per agent vs sent (rollup caught up {caught_up:.1f} s after the last answer; "
              f"{redelivered} stream batches delivered twice, one batch in {args.redeliver}):")
        for agent in agents:
            print(f"  {agent}: counted {again.get(agent, 0):5d}, sent {sent[agent]:5d}"
                  f"{'' if again.get(agent, 0) == sent[agent] else '  MISMATCH'}")
        print(f"  total: counted {sum(again.values())}, sent {total}: "
              f"{'exact' if again == sent else 'NOT exact'}; 5 s later unchanged: {again == found}")
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
