"""Helpers for benchmarks: percentiles and a fresh-interpreter import timer."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "functions"), str(ROOT / "layers" / "core")])
    e.update({"AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
              "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_METRICS_DISABLED": "true",
              "POWERTOOLS_LOG_LEVEL": "WARNING"})
    return e


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def timed_ms(fn, n: int) -> list[float]:
    """Milliseconds each of ``n`` calls of ``fn`` took."""
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def fresh_seconds(code: str, runs: int = 7) -> float:
    """Median seconds a fresh interpreter spends in ``code`` (which must print its own duration)."""
    samples = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], env=env(), capture_output=True, text=True,
                             check=True, cwd=ROOT)
        samples.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


def dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
