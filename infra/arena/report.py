"""Per-task and per-family tables for a suite run (arena, extension emulator, evaluation client, bench), and the
hits per rule of the deterministic policy read from the stack's log (arena, MiniWoB++)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
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


#: the log messages that carry a decision's rule trace, by protocol path
_RULE_LINES = {"olympics turn": "olympics", "proxy decision": "proxy"}


def rule_hits(lines: Iterable[str]) -> dict[str, Counter[str]]:
    """Per path (``olympics``, ``proxy``), how many decisions each rule of the deterministic policy acted in,
    read from the stack's JSON log lines (the ``rules`` of each ``olympics turn`` / ``proxy decision`` line);
    ``"decisions"`` counts the lines read. Other lines are skipped."""
    hits: dict[str, Counter[str]] = {}
    for line in lines:
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        path = _RULE_LINES.get(str(doc.get("message", ""))) if isinstance(doc, dict) else None
        names = doc.get("rules") if path else None
        if not isinstance(names, list):
            continue
        counts = hits.setdefault(path, Counter())
        counts["decisions"] += 1
        counts.update(str(n) for n in set(names))
    return hits


def print_rule_hits(hits: dict[str, Counter[str]], out: Callable[[str], None] = print) -> None:
    """The hits per rule (most first, one column per path), then the registered rules that never fired."""
    from agenthost.agent.rules import RULES

    paths = sorted(hits)
    if not paths:
        out("rule hits: no rule hits in the stack's log (a remote stack, or no decision by the deterministic policy)")
        return
    total: Counter[str] = Counter()
    for p in paths:
        total.update({k: v for k, v in hits[p].items() if k != "decisions"})
    decisions = ", ".join(f"{hits[p]['decisions']} decisions ({p})" for p in paths)
    out(f"rule hits (decisions each rule acted in; {decisions}):")
    out(f"{'rule':<30} " + " ".join(f"{p:>9}" for p in paths))
    for name, _n in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])):
        out(f"{name:<30} " + " ".join(f"{hits[p][name]:>9}" for p in paths))
    never = [r.name for r in RULES if not total[r.name]]
    out(f"never fired ({len(never)} of {len(RULES)} rules): {', '.join(never) or '-'}")
