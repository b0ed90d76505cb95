"""The task suite: ``tests/tasks/suite.json`` (pages next to it; see ``tests/tasks/README.md``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SUITE = ROOT / "tests" / "tasks" / "suite.json"


@dataclass
class ArenaTask:
    id: str
    start: str  # path relative to the suite folder
    prompt: str
    marker: str
    family: str = "basic"
    #: the page shows another variant for ``?seed=N`` (the oracle solves the default, seed 1)
    seeded: bool = False
    oracle: list[list[dict[str, Any]]] = field(default_factory=list)
    #: a scripted run that submits a wrong answer (the page must record a failure)
    wrong: list[list[dict[str, Any]]] = field(default_factory=list)


def variants(tasks: list[ArenaTask], seeds: list[int]) -> list[tuple[str, ArenaTask, str]]:
    """``(label, task, start path)`` for each task, and for each seed of a seeded task (``id@seed``)."""
    out = []
    for t in tasks:
        if t.seeded and seeds:
            out += [(f"{t.id}@{n}", t, f"{t.start}?seed={n}") for n in seeds]
        else:
            out.append((t.id, t, t.start))
    return out


def load(path: Path = DEFAULT_SUITE, only: list[str] | None = None,
         families: list[str] | None = None) -> tuple[Path, list[ArenaTask]]:
    """The suite's folder and tasks; ``only`` picks task ids, ``families`` task families."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    tasks = [ArenaTask(id=t["id"], start=t["start"], prompt=t["prompt"], marker=t["marker"],
                       family=t.get("family") or "basic", seeded=bool(t.get("seeded")), oracle=t.get("oracle") or [],
                       wrong=t.get("wrong") or [])
             for t in data["tasks"]]
    if only:
        unknown = set(only) - {t.id for t in tasks}
        if unknown:
            raise SystemExit(f"unknown task(s): {', '.join(sorted(unknown))}")
        tasks = [t for t in tasks if t.id in only]
    if families:
        unknown = set(families) - {t.family for t in tasks}
        if unknown:
            raise SystemExit(f"unknown famil(y/ies): {', '.join(sorted(unknown))}")
        tasks = [t for t in tasks if t.family in families]
    return Path(path).parent, tasks
