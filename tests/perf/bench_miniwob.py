"""MiniWoB++ (the 130 self-judging pages of the ``miniwob`` package) through both protocol paths of a local
stack: the AI Olympics webhook turn and the Proxy API step (``infra.miniwob``; ``make miniwob`` is the same
harness with its full options).

Prints, per path: the success rate over all 130 tasks and over the tasks the path can express
(``infra.miniwob.coverage`` lists the others with the reason), mean raw reward, false dones (the agent
claimed success, the page's reward is not positive), honest give-ups, and seconds per episode at the
platform's pace, each beside the issue's aim, and how many of the deterministic policy's rules fired (the full
table of hits per rule is in the harness's report above it). Asserts nothing.

Options: ``--seeds 1,2,3,4,5`` (default ``1``: about 15 minutes on a 2-core machine; the aims are stated for
5 seeds), ``--tasks a,b``, ``--jobs N`` (default 2), ``--json FILE``. ``AGENTHOST_LLM`` and
``AGENTHOST_AGENT`` choose the policy, as for the stack.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import ROOT, env  # noqa: E402

os.environ.update(env())
os.environ.setdefault("AGENTHOST_LLM", "none")
sys.path[:0] = [str(ROOT), str(ROOT / "functions"), str(ROOT / "layers" / "core")]

#: the issue's aims per path: (over all 130, over what the path can express)
AIMS = {"olympics": (None, 0.85), "proxy": (0.65, 0.85)}
AIM_SECONDS = 20.0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="1")
    p.add_argument("--tasks", default="")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--json", default="")
    a = p.parse_args()
    from agenthost.agent.rules import RULES
    from infra.miniwob.__main__ import main as miniwob

    out = a.json or str(Path(tempfile.mkdtemp(prefix="bench-miniwob-")) / "miniwob.json")
    args = ["--seeds", a.seeds, "--jobs", str(a.jobs), "--path", "both", "--json", out]
    if a.tasks:
        args += ["--tasks", a.tasks]
    status = miniwob(args)
    doc = json.loads(Path(out).read_text())
    summary = doc["summary"]
    print(f"\nbench_miniwob ({os.environ['AGENTHOST_LLM'] or 'none'} policy, seeds {a.seeds}):")
    for path, s in summary.items():
        aim_all, aim_expr = AIMS.get(path, (None, None))
        print(f"  {path:9} all {s['tasks']} tasks {s['success_all']:6.1%}"
              + (f" (aim >= {aim_all:.0%})" if aim_all else "")
              + f" | expressible {s['expressible_tasks']} {s['success_expressible']:6.1%}"
              + (f" (aim >= {aim_expr:.0%})" if aim_expr else "")
              + f" | mean reward {s['mean_reward']:+.2f} | false dones {s['false_dones']} (aim 0)"
              + f" | give-ups {s['give_ups']} | {s['seconds_per_episode']:.1f} s/episode (aim <= {AIM_SECONDS:g})")
    hits = doc["meta"].get("rule_hits") or {}
    for path, counts in sorted(hits.items()):
        fired = [(k, v) for k, v in counts.items() if k != "decisions" and v]  # most hits first
        print(f"  {path:9} rules fired {len(fired)} of {len(RULES)} in {counts.get('decisions', 0)} decisions; "
              "most: " + ", ".join(f"{k} {v}" for k, v in fired[:5]))
    print(f"  report: {out}")
    return 0 if status in (0, 1) else status  # 1: false dones, printed above


if __name__ == "__main__":
    sys.exit(main())
