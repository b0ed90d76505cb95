"""``python -m infra.miniwob`` (``make miniwob``): MiniWoB++ through the AI Olympics and Proxy API paths.

Without ``--url`` a local stack is started on free ports (its webhook and Proxy API, with the local
secrets). Each episode is judged by the page's own reward, never by the agent's claim. Prints a line per
episode as it ends, then a per-task table, the means per path and the hits per rule of the deterministic policy
(read from the local stack's log; :mod:`agenthost.agent.rules`); ``--json`` writes everything. The exit
status is 1 when any false done occurred (the agent claimed success where the page's reward is not
positive), else 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from infra.arena.report import print_rule_hits, rule_hits
from infra.miniwob import pages, report
from infra.miniwob.batch import run
from infra.miniwob.play import PATHS, Settings

DEFAULT_SEEDS = "1,2,3,4,5"

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m infra.miniwob", description=__doc__.splitlines()[0])
    p.add_argument("--tasks", default="", help="comma-separated task names (default: all 130)")
    p.add_argument("--seeds", default=DEFAULT_SEEDS, help=f"comma-separated seeds (default {DEFAULT_SEEDS})")
    p.add_argument("--path", default="both", choices=[*PATHS, "both"], help="protocol path(s) to play")
    p.add_argument("--jobs", type=int, default=1, help="episodes played at once (one Chromium each)")
    p.add_argument("--url", help="the stack's HTTP API URL (default: start a local stack)")
    p.add_argument("--secret", default=os.environ.get("AGENTHOST_OLYMPICS_SECRET", ""), help="webhook secret")
    p.add_argument("--olympics-url", default="", help="webhook URL when it is not <url>/olympics/turn")
    p.add_argument("--api-key", default="", help="the Proxy API key of a deployed stack")
    p.add_argument("--max-turns", type=int, default=20, help="AI Olympics turns per episode")
    p.add_argument("--max-steps", type=int, default=40, help="Proxy API steps per episode")
    p.add_argument("--pace", type=float, default=1 / 3, help="seconds per action (platform: ~3 actions/s)")
    p.add_argument("--action-timeout", type=float, default=5.0,
                   help="seconds an action may wait for its element (the platform waits 30)")
    p.add_argument("--episode-time", type=float, default=120.0,
                   help="wall-clock seconds an episode may take before the agent is stopped (default 120)")
    p.add_argument("--headed", action="store_true")
    p.add_argument("--verbose", action="store_true", help="print each episode's turns")
    p.add_argument("--json", help="write the episodes, per-task rows and means to this file")
    a = p.parse_args(argv)

    try:
        names = pages.task_names()
    except pages.MiniwobMissing as exc:
        print(f"miniwob: {exc}", file=sys.stderr)
        return 2
    tasks = [t.strip() for t in a.tasks.split(",") if t.strip()] or names
    unknown = [t for t in tasks if t not in names]
    if unknown:
        p.error(f"unknown task(s): {', '.join(unknown)}")
    seeds = [s.strip() for s in a.seeds.split(",") if s.strip()]
    paths = list(PATHS) if a.path == "both" else [a.path]
    plan = [(t, s, path) for path in paths for t in tasks for s in seeds]

    stack = None
    url, secret = a.url, a.secret
    if not url:
        from infra.local.defaults import LOCAL_SECRETS
        from tests.support.stack import start_stack

        print("starting a local stack ...", flush=True)
        # INFO: the turn and step log lines that name the rules behind each decision (the rule hits below)
        stack = start_stack({"POWERTOOLS_LOG_LEVEL": "INFO"})
        url = stack.http_url
        secret = stack.env.get("AGENTHOST_OLYMPICS_SECRET") or LOCAL_SECRETS["AGENTHOST_OLYMPICS_SECRET"]
    if not secret and "olympics" in paths:
        p.error("--secret (or AGENTHOST_OLYMPICS_SECRET) is required with --url")
    cfg = Settings(url=url, secret=secret, olympics_url=a.olympics_url, api_key=a.api_key,
                   max_turns=a.max_turns, max_steps=a.max_steps, pace_s=a.pace,
                   action_timeout_s=a.action_timeout, episode_s=a.episode_time, headed=a.headed)
    print(f"miniwob: {len(tasks)} task(s) x {len(seeds)} seed(s) x {len(paths)} path(s) = {len(plan)} episodes "
          f"against {url}, {a.jobs} at a time", flush=True)
    t0 = time.monotonic()
    try:
        with pages.Server() as server:
            episodes = run(plan, cfg, server, a.jobs, a.verbose)
    finally:
        if stack is not None:
            stack.stop()
    rows = report.rows(episodes)
    hits = rule_hits(stack.output if stack is not None else ())
    print()
    report.print_report(rows)
    print()
    print_rule_hits(hits)
    print(f"\n{len(episodes)} episodes in {time.monotonic() - t0:.0f} s")
    if a.json:
        meta: dict[str, Any] = {"tasks": tasks, "seeds": seeds, "paths": paths, "pace_s": a.pace,
                                "llm": os.environ.get("AGENTHOST_LLM", "none"),
                                "agent": os.environ.get("AGENTHOST_AGENT", ""),
                                "rule_hits": {path: dict(c.most_common()) for path, c in hits.items()}}
        report.write_json(a.json, episodes, rows, meta)
    return 1 if any(e.false_done for e in episodes) else 0


if __name__ == "__main__":
    sys.exit(main())
