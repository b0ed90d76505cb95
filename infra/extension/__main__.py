"""``python -m infra.extension`` (``make extension-run``): run the task suite through the Proxy API with a
browser-extension emulator driving real Chromium.

Without ``--url`` a local stack is started on free ports. Against a deployed stack:
``--url https://.../ --api-key ...`` (or ``AGENTHOST_RUNS_API_KEY``). ``--decline`` answers every
``ask_user`` with ``approved: false``; ``--mode careful`` turns the security gate on. Tasks are judged by the
page's own record; the exit status is non-zero on any false done (``finish`` claiming an unrecorded success).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict

from infra.arena import suite
from infra.arena.report import Row, print_tables
from infra.arena.site import Site
from infra.extension.emulator import Emulator


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m infra.extension", description=__doc__.splitlines()[0])
    p.add_argument("--url", help="base URL of the HTTP API (default: start a local stack)")
    p.add_argument("--api-key", default=os.environ.get("AGENTHOST_RUNS_API_KEY", ""))
    p.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    p.add_argument("--family", default="", help="comma-separated task families (default: all)")
    p.add_argument("--seeds", default="", help="play each seeded page once per seed, e.g. 1,2,3 (default: seed 1)")
    p.add_argument("--suite", default=str(suite.DEFAULT_SUITE))
    p.add_argument("--mode", choices=("autonomous", "careful"), default="autonomous")
    p.add_argument("--decline", action="store_true", help="answer ask_user with approved: false")
    p.add_argument("--max-steps", type=int, default=40)
    p.add_argument("--headed", action="store_true")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--json", help="write the results to this file")
    a = p.parse_args(argv)

    folder, tasks = suite.load(suite.Path(a.suite), [t for t in a.tasks.split(",") if t] or None,
                               [f for f in a.family.split(",") if f] or None)
    stack = None
    url = a.url
    if not url:
        from tests.support.stack import start_stack

        print("starting a local stack ...", flush=True)
        stack = start_stack()
        url = stack.http_url
    print(f"extension emulator: {len(tasks)} task(s) against {url} ({a.mode}, "
          f"{'declining' if a.decline else 'approving'} questions)", flush=True)
    results = []
    t0 = time.monotonic()
    try:
        with Site(folder) as site, Emulator(url, api_key=a.api_key, approve=not a.decline, headed=a.headed,
                                            max_steps=a.max_steps, printer=None if a.quiet else print,
                                            site=site) as emu:
            for label, t, start in suite.variants(tasks, [int(n) for n in a.seeds.split(",") if n.strip()]):
                out = emu.run(t.id, t.prompt, site.url + start, mode=a.mode, marker=t.marker, family=t.family)
                out.task_id = label
                results.append(out)
    finally:
        if stack is not None:
            stack.stop()
    print()
    print_tables([Row(r.task_id, r.family, r.success, r.false_done, r.steps, r.seconds,
                      r.end + (f" ({len(r.questions)} question(s))" if r.questions else "")) for r in results],
                 unit="steps")
    solved = sum(r.success for r in results)
    rate = solved / len(results) if results else 0.0
    lat = sorted(x for r in results for x in r.step_latency_s)
    p50 = lat[len(lat) // 2] * 1000 if lat else 0.0
    print(f"\nsolved {solved}/{len(results)} ({rate:.0%}) in {time.monotonic() - t0:.1f} s; "
          f"/step round trip p50 {p50:.0f} ms over {len(lat)} steps; false dones: {sum(r.false_done for r in results)}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump([asdict(r) for r in results], fh, indent=2, default=str)
    return 1 if any(r.false_done for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
