"""Per-task and per-family tables for a suite run (arena, extension emulator, evaluation client, bench)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Row:
    task: str
    family: str
    solved: bool  # the page recorded success
    false_done: bool  # the agent claimed success, the page recorded none
    turns: int
    seconds: float
    end: str = ""


def family_summary(rows: list[Row]) -> dict[str, dict[str, float]]:
    """``{family: {tasks, solved, false_done, turns, seconds}}`` (turns and seconds are per-task means)."""
    out: dict[str, dict[str, float]] = {}
    for r in rows:
        f = out.setdefault(r.family, {"tasks": 0, "solved": 0, "false_done": 0, "turns": 0.0, "seconds": 0.0})
        f["tasks"] += 1
        f["solved"] += int(r.solved)
        f["false_done"] += int(r.false_done)
        f["turns"] += r.turns
        f["seconds"] += r.seconds
    for f in out.values():
        f["turns"] /= f["tasks"]
        f["seconds"] /= f["tasks"]
    return out


def print_tables(rows: list[Row], *, unit: str = "turns", out: Callable[[str], None] = print,
                 per_task: bool = True) -> None:
    if per_task:
        out(f"{'task':<20} {'family':<18} {'result':<8} {'false done':<10} {unit:>5} {'seconds':>8}  end")
        for r in rows:
            out(f"{r.task:<20} {r.family:<18} {'SOLVED' if r.solved else 'failed':<8} "
                f"{'YES' if r.false_done else '-':<10} {r.turns:>5} {r.seconds:>8.1f}  {r.end[:70]}")
        out("")
    out(f"{'family':<18} {'solved':>8} {'false done':>10} {unit + '/task':>10} {'s/task':>8}")
    for fam, f in family_summary(rows).items():
        out(f"{fam:<18} {int(f['solved']):>4}/{int(f['tasks']):<3} {int(f['false_done']):>10} "
            f"{f['turns']:>10.1f} {f['seconds']:>8.1f}")
    fams = family_summary(rows)
    out(f"families fully solved: {sum(1 for f in fams.values() if f['solved'] == f['tasks'])}/{len(fams)}; "
        f"tasks solved {sum(r.solved for r in rows)}/{len(rows)}; false dones {sum(r.false_done for r in rows)}")
