"""``python -m infra.arena`` (``make arena``): play the task suite against an AI Olympics webhook.

Without ``--url`` a local stack is started on free ports and its ``/olympics/turn`` is played with the
local secret. Each task is judged by what its page recorded, never by the agent's ``done``; a ``done`` claiming
success on a page that recorded none is a *false done*. After the tables, the hits per rule of the deterministic
policy (read from the local stack's log; :mod:`agenthost.agent.rules`). The exit status is non-zero on any
contract violation or false done. Against a deployed stack: ``--url https://.../olympics/turn --secret whs_...`` (or the
``AGENTHOST_OLYMPICS_SECRET`` environment variable) and ``--agent-id`` if several agents are configured.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict

from infra.arena import runner as platform
from infra.arena import suite
from infra.arena.report import Row, print_rule_hits, print_tables, rule_hits
from infra.arena.site import Site


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m infra.arena", description=__doc__.splitlines()[0])
    p.add_argument("--url", help="webhook URL (default: start a local stack)")
    p.add_argument("--secret", default=os.environ.get("AGENTHOST_OLYMPICS_SECRET", ""), help="webhook secret")
    p.add_argument("--agent-id", default="arena-agent")
    p.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    p.add_argument("--family", default="", help="comma-separated task families (default: all)")
    p.add_argument("--seeds", default="", help="play each seeded page once per seed, e.g. 1,2,3 (default: seed 1)")
    p.add_argument("--suite", default=str(suite.DEFAULT_SUITE))
    p.add_argument("--max-turns", type=int, default=20)
    p.add_argument("--pace", type=float, default=1 / 3, help="seconds per action (platform: ~3 actions/s)")
    p.add_argument("--action-timeout", type=float, default=30.0, help="seconds a missing element blocks (platform: 30)")
    p.add_argument("--site-host", default="127.0.0.1",
                   help="host the task pages are served on (the browser runs here, so loopback works)")
    p.add_argument("--headed", action="store_true")
    p.add_argument("--json", help="write the results to this file")
    a = p.parse_args(argv)

    folder, tasks = suite.load(suite.Path(a.suite), [t for t in a.tasks.split(",") if t] or None,
                               [f for f in a.family.split(",") if f] or None)
    stack = None
    url, secret = a.url, a.secret
    if not url:
        from infra.local.defaults import LOCAL_SECRETS
        from tests.support.stack import start_stack

        print("starting a local stack ...", flush=True)
        # INFO: the turn and step log lines that name the rules behind each decision (the rule hits below)
        stack = start_stack({"POWERTOOLS_LOG_LEVEL": "INFO"})
        url = stack.http_url + "/olympics/turn"
        secret = stack.env.get("AGENTHOST_OLYMPICS_SECRET") or LOCAL_SECRETS["AGENTHOST_OLYMPICS_SECRET"]
    if not secret:
        p.error("--secret (or AGENTHOST_OLYMPICS_SECRET) is required with --url")
    print(f"arena: {len(tasks)} task(s) against {url}", flush=True)
    results = []
    t0 = time.monotonic()
    try:
        with Site(folder, host=a.site_host) as site, platform.Runner(
                platform.http_transport(url), secret, agent_id=a.agent_id, max_turns=a.max_turns,
                pace_s=a.pace, action_timeout_s=a.action_timeout, headed=a.headed, site=site) as runner:
            for label, t, start in suite.variants(tasks, [int(n) for n in a.seeds.split(",") if n.strip()]):
                res = runner.play(t.id, site.url + start, t.prompt, t.marker, family=t.family)
                res.id = label
                results.append(res)
    finally:
        if stack is not None:
            stack.stop()
    print()
    print_tables([Row(r.id, r.family, r.success, r.false_done, r.turns, r.seconds, r.end) for r in results])
    solved = sum(r.success for r in results)
    violations = sum(len(r.violations) for r in results)
    false_dones = sum(r.false_done for r in results)
    print()
    print_rule_hits(rule_hits(stack.output if stack is not None else ()))
    print(f"\nsolved {solved}/{len(results)} in {time.monotonic() - t0:.1f} s; contract violations: {violations} "
          f"(false dones: {false_dones})")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump([asdict(r) for r in results], fh, indent=2, default=str)
    return 0 if violations == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
