"""Per-task and overall figures of a MiniWoB++ run, printed as tables and written as JSON."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from infra.miniwob import coverage
from infra.miniwob.play import Episode


@dataclass
class TaskRow:
    task: str
    path: str
    episodes: int
    successes: int
    mean_reward: float
    mean_turns: float
    mean_seconds: float
    false_dones: int
    give_ups: int
    #: why this path cannot express the task ("" when it can)
    inexpressible: str = ""

    @property
    def rate(self) -> float:
        return self.successes / self.episodes if self.episodes else 0.0


def rows(episodes: Iterable[Episode]) -> list[TaskRow]:
    by: dict[tuple[str, str], list[Episode]] = defaultdict(list)
    for e in episodes:
        by[(e.path, e.task)].append(e)
    out = []
    for (path, task), eps in sorted(by.items()):
        n = len(eps)
        out.append(TaskRow(task, path, n, sum(e.success for e in eps), sum(e.reward for e in eps) / n,
                           sum(e.turns for e in eps) / n, sum(e.seconds for e in eps) / n,
                           sum(e.false_done for e in eps), sum(e.gave_up for e in eps),
                           coverage.why_not(task, path)))
    return out


def summary(task_rows: list[TaskRow]) -> dict[str, dict[str, Any]]:
    """Per path: the mean success rate over every task played and over the tasks the path can express,
    false dones, give-ups, mean seconds per episode."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted({r.path for r in task_rows}):
        rs = [r for r in task_rows if r.path == path]
        ok = [r for r in rs if not r.inexpressible]
        eps = sum(r.episodes for r in rs)
        out[path] = {
            "tasks": len(rs), "episodes": eps,
            "success_all": sum(r.rate for r in rs) / len(rs) if rs else 0.0,
            "expressible_tasks": len(ok),
            "success_expressible": sum(r.rate for r in ok) / len(ok) if ok else 0.0,
            "mean_reward": sum(r.mean_reward for r in rs) / len(rs) if rs else 0.0,
            "false_dones": sum(r.false_dones for r in rs),
            "give_ups": sum(r.give_ups for r in rs),
            "tasks_solved_once": sum(1 for r in rs if r.successes),
            "seconds_per_episode": sum(r.mean_seconds * r.episodes for r in rs) / eps if eps else 0.0,
        }
    return out


def print_report(task_rows: list[TaskRow], out: Callable[[str], None] = print, *, per_task: bool = True) -> None:
    if per_task:
        out(f"{'task':<28} {'path':<9} {'success':>8} {'reward':>7} {'turns':>6} {'s/ep':>6} {'false':>5} "
            f"{'gave up':>7}  not expressible")
        for r in task_rows:
            out(f"{r.task:<28} {r.path:<9} {r.successes:>4}/{r.episodes:<3} {r.mean_reward:>7.2f} "
                f"{r.mean_turns:>6.1f} {r.mean_seconds:>6.1f} {r.false_dones:>5} {r.give_ups:>7}  "
                f"{r.inexpressible[:60]}")
        out("")
    for path, s in summary(task_rows).items():
        out(f"miniwob {path}: {s['success_all']:.1%} over {s['tasks']} tasks, {s['success_expressible']:.1%} over the "
            f"{s['expressible_tasks']} it can express; mean reward {s['mean_reward']:.2f}; false dones "
            f"{s['false_dones']}; give-ups {s['give_ups']}; {s['seconds_per_episode']:.1f} s/episode "
            f"({s['episodes']} episodes, {s['tasks_solved_once']} tasks solved at least once)")


def write_json(path: str, episodes: list[Episode], task_rows: list[TaskRow], meta: dict[str, Any]) -> None:
    doc = {"meta": meta, "summary": summary(task_rows),
           "tasks": [dict(vars(r), rate=r.rate) for r in task_rows],
           "episodes": [e.to_dict() for e in episodes]}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
