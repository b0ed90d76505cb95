"""The guard around a user's agent: what it adds to one web decision. A trivial agent (one click on a
named button) through :class:`agenthost.plugins.GuardedWebPolicy` against the same decision made in
process without the guard (the agent's answer only), and our deterministic policy on the same page for
scale; plus the cost of a refusal (an agent that raises, answered by our policy). Prints, asserts nothing."""

from __future__ import annotations

import logging
import os
import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import env, pct, timed_ms  # noqa: E402

os.environ.update(env())

from agenthost import plugins  # noqa: E402
from agenthost.agent import Action, Decision, DeterministicPolicy  # noqa: E402
from agenthost.agent.aria import from_aria  # noqa: E402

TREE = "\n".join([f'- link "Article {i}":\n  - /url: /a/{i}' for i in range(60)]
                 + ['- textbox "Search"', '- button "Search"', '- checkbox "Remember me"'])
TASK = "Search the site for ceramics."
N = 300


class Clicker:
    def decide_web(self, turn):
        return Decision(actions=[Action("click", {"element": "Search"})], memory={"n": turn.memory.get("n", 0) + 1})


class Raiser:
    def decide_web(self, turn):
        raise RuntimeError("boom")




def main() -> None:
    logging.getLogger("agenthost.plugins").setLevel(logging.ERROR)  # one warning per refusal: not timed here
    page = from_aria(TREE, url="https://shop.example.com/", title="Shop")
    ours = DeterministicPolicy()
    guarded = plugins.GuardedWebPolicy(Clicker(), ours)
    refused = plugins.GuardedWebPolicy(Raiser(), ours)
    turn = plugins.WebTurn(task=TASK, page=page, history=(), memory={}, tools=(), deadline=time.monotonic() + 60)

    def deadline():
        return time.monotonic() + 20

    rows = [
        ("agent alone (no guard)", timed_ms(lambda: Clicker().decide_web(turn), N)),
        ("agent through the guard", timed_ms(lambda: guarded.decide(TASK, page, [], {}, None, deadline()), N)),
        ("our deterministic policy", timed_ms(lambda: ours.decide(TASK, page, [], {}, None, deadline()), N)),
        ("raising agent -> ours", timed_ms(lambda: refused.decide(TASK, page, [], {}, None, deadline()), 100)),
    ]
    print(f"one web decision on a {len(page.elements)}-element page, {N} runs (ms)")
    print(f"{'path':28} {'p50':>8} {'p90':>8} {'p99':>8}")
    for name, xs in rows:
        print(f"{name:28} {statistics.median(xs):8.3f} {pct(xs, 90):8.3f} {pct(xs, 99):8.3f}")
    print(f"stuck calls after the run: {plugins.stuck()}")


if __name__ == "__main__":
    main()
