"""The task suite: ``tests/tasks/suite.json`` (pages next to it)."""

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
    oracle: list[list[dict[str, Any]]] = field(default_factory=list)


def load(path: Path = DEFAULT_SUITE, only: list[str] | None = None) -> tuple[Path, list[ArenaTask]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    tasks = [ArenaTask(id=t["id"], start=t["start"], prompt=t["prompt"], marker=t["marker"],
                       oracle=t.get("oracle") or []) for t in data["tasks"]]
    if only:
        unknown = set(only) - {t.id for t in tasks}
        if unknown:
            raise SystemExit(f"unknown task(s): {', '.join(sorted(unknown))}")
        tasks = [t for t in tasks if t.id in only]
    return Path(path).parent, tasks
