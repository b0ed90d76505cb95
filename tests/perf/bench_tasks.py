"""The whole task suite (tests/tasks, every family) through the three harnesses that drive our agent in a
real browser, each judged by what the pages recorded, never by the agent's claim:

* the arena (AI Olympics webhook turns, through the local stack);
* the extension emulator (Proxy API steps, through the same stack);
* the evaluation client's ``web_task_agent`` tool (in process, its own Chromium).

For each: solved per family, turns (or steps) and seconds per task, and **false dones** (the agent claimed
success, the page recorded none). Aims (issue 13): 0 false dones; at least 12 of the 14+ new families solved
with ``AGENTHOST_LLM=none``; the 13 basic tasks stay solved. Prints, asserts nothing.

Options: ``--only arena,extension,eval`` (default all three), ``--family a,b`` / ``--tasks x,y``,
``--seeds 1,2,3`` (seeded pages played once per seed; default 1), ``--max-turns N`` (arena, default 15),
``--max-steps N`` (emulator, default 40), ``--pace S`` and
``--action-timeout S`` (arena; default 0 and 3 s, the platform's are ~0.33 s and 30 s), ``--json FILE``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import ROOT, env  # noqa: E402

os.environ.update(env())
os.environ["AGENTHOST_LLM"] = "none"
os.environ["AGENTHOST_RUNS_REQUIRE_API_KEY"] = "false"
# the suite's site and its JSON API are on loopback: the in-process evaluation client may reach them, as the
# local stack lets the other two harnesses do (a deployed client keeps refusing private addresses)
os.environ["AGENTHOST_NETGUARD_ALLOW_PRIVATE"] = "true"


def arena(a, runs, folder, stack):  # noqa: ANN001, ANN201
    from infra.arena import runner as platform
    from infra.arena.report import Row
    from infra.arena.site import Site
    from infra.local.defaults import LOCAL_SECRETS

    secret = stack.env.get("AGENTHOST_OLYMPICS_SECRET") or LOCAL_SECRETS["AGENTHOST_OLYMPICS_SECRET"]
    rows = []
    with Site(folder) as site, platform.Runner(platform.http_transport(stack.http_url + "/olympics/turn"), secret,
                                               agent_id="bench-tasks", max_turns=a.max_turns, pace_s=a.pace,
                                               action_timeout_s=a.action_timeout, printer=None, site=site) as r:
        for label, t, start in runs:
            res = r.play(t.id, site.url + start, t.prompt, t.marker, family=t.family)
            other = [v for v in res.violations if "false done" not in v]
            rows.append(Row(label, t.family, res.success, res.false_done, res.turns, res.seconds,
                            res.end + (f"; {len(other)} other violation(s)" if other else "")))
    return rows


def extension(a, runs, folder, stack):  # noqa: ANN001, ANN201
    from infra.arena.report import Row
    from infra.arena.site import Site
    from infra.extension.emulator import Emulator

    rows = []
    with Site(folder) as site, Emulator(stack.http_url, printer=None, max_steps=a.max_steps, site=site) as emu:
        for label, t, start in runs:
            out = emu.run(t.id, t.prompt, site.url + start, marker=t.marker, family=t.family)
            rows.append(Row(label, t.family, out.success, out.false_done, out.steps, out.seconds, out.end))
    return rows


def eval_client(a, runs, folder):  # noqa: ANN001, ANN201
    """The evaluation client's web_task_agent on each start page; the page's record (posted to the site server)
    judges, the output's done/success is only the claim."""
    from infra.arena import judge
    from infra.arena.report import Row
    from infra.arena.site import Site
    from infra.eval_client.tools import Browser, ToolError, run_tool

    rows = []
    browser = Browser()
    try:
        with Site(folder) as site:
            for label, t, start in runs:
                since = site.mark()
                started = time.monotonic()
                params = {"tool": "web_task_agent", "url": site.url + start, "timeout": a.eval_timeout * 1000,
                          "input": {"task": t.prompt}}
                try:
                    result = run_tool(browser, params, lambda _p, _m: None)
                    output = result.get("output") or {}
                    end = f"done={output.get('done')} result={str(output.get('result'))[:50]}"
                except ToolError as exc:
                    output, end = {}, f"tool error: {exc}"[:80]
                deadline = time.monotonic() + 2.0  # a record sent by the last action may still be on its way
                while not judge.solved(t.id, [], site.records(t.id, since)) and time.monotonic() < deadline:
                    time.sleep(0.1)
                ok = judge.solved(t.id, [], site.records(t.id, since))
                claimed = judge.eval_claim(output)
                rows.append(Row(label, t.family, ok, claimed and not ok, len(output.get("steps") or []),
                                time.monotonic() - started, end))
    finally:
        browser.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    from infra.arena import suite
    from infra.arena.report import family_summary, print_tables

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="arena,extension,eval")
    p.add_argument("--family", default="")
    p.add_argument("--tasks", default="")
    p.add_argument("--seeds", default="1", help="seeds to play each seeded page with, e.g. 1,2,3")
    p.add_argument("--max-turns", type=int, default=15)
    p.add_argument("--max-steps", type=int, default=40)
    p.add_argument("--pace", type=float, default=0.0)
    p.add_argument("--action-timeout", type=float, default=3.0)
    p.add_argument("--eval-timeout", type=float, default=60.0, help="seconds per evaluation")
    p.add_argument("--json", help="write every row to this file")
    a = p.parse_args(argv)
    only = {x for x in a.only.split(",") if x}
    folder, tasks = suite.load(suite.DEFAULT_SUITE, [t for t in a.tasks.split(",") if t] or None,
                               [f for f in a.family.split(",") if f] or None)
    runs = suite.variants(tasks, [int(n) for n in a.seeds.split(",") if n.strip()])
    results: dict[str, list] = {}
    stack = None
    try:
        if only & {"arena", "extension"}:
            from tests.support.stack import start_stack

            stack = start_stack()
        for name, fn in (("arena", lambda: arena(a, runs, folder, stack)),
                         ("extension", lambda: extension(a, runs, folder, stack)),
                         ("eval", lambda: eval_client(a, runs, folder))):
            if name not in only:
                continue
            t0 = time.monotonic()
            try:
                results[name] = fn()
            except Exception as exc:  # noqa: BLE001 - a benchmark reports what happened and goes on
                print(f"{name}: not measured ({type(exc).__name__}: {exc})")
                continue
            unit = {"arena": "turns", "extension": "steps", "eval": "steps"}[name]
            print(f"\n== {name} over {len(runs)} run(s) of {len(tasks)} task(s), deterministic policy "
                  f"({time.monotonic() - t0:.0f} s)")
            print_tables(results[name], unit=unit)
    finally:
        if stack is not None:
            stack.stop()
    if results:
        print("\n== per family, all harnesses (solved/tasks, false dones)")
        fams = sorted({t.family for t in tasks}, key=lambda f: (f != "basic", f))
        names = list(results)
        print(f"{'family':<18} " + " ".join(f"{n:>16}" for n in names))
        summaries = {n: family_summary(rows) for n, rows in results.items()}
        for f in fams:
            cells = []
            for n in names:
                s = summaries[n].get(f)
                cells.append(f"{int(s['solved'])}/{int(s['tasks'])} fd {int(s['false_done'])}" if s else "-")
            print(f"{f:<18} " + " ".join(f"{c:>16}" for c in cells))
        for n in names:
            new = {f: s for f, s in summaries[n].items() if f != "basic"}
            basic = summaries[n].get("basic")
            print(f"{n}: new families solved {sum(1 for s in new.values() if s['solved'] == s['tasks'])}/{len(new)}, "
                  f"basic {int(basic['solved']) if basic else 0}/{int(basic['tasks']) if basic else 0}, "
                  f"false dones {sum(r.false_done for r in results[n])}")
    if a.json:
        from dataclasses import asdict

        Path(a.json).write_text(json.dumps({n: [asdict(r) for r in rows] for n, rows in results.items()}, indent=1))
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
