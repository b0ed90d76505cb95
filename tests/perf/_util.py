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


def _value_size(v: dict) -> int:
    """Bytes of one DynamoDB attribute value by DynamoDB's published sizing rules (strings and binary by
    length, numbers by significant digits, lists and maps 3 bytes plus 1 per element plus the elements)."""
    (kind, val), = v.items()
    if kind == "S":
        return len(val.encode("utf-8"))
    if kind == "N":
        digits = len(str(val).lstrip("-").replace(".", "").strip("0")) or 1
        return (digits + 1) // 2 + 1
    if kind == "B":
        return len(val) if isinstance(val, (bytes, bytearray)) else len(val) * 3 // 4
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        return 3 + sum(1 + _value_size(x) for x in val)
    if kind == "M":
        return 3 + sum(1 + len(k.encode("utf-8")) + _value_size(x) for k, x in val.items())
    if kind in ("SS", "NS", "BS"):
        return sum(_value_size({kind[0]: x}) for x in val)
    return 0


def item_size(item: dict) -> int:
    """An item's size in bytes (attribute names plus values), as DynamoDB bills request units by it.
    Hand-written: boto3 has no sizing function, and this is the published rule in a dozen lines."""
    return sum(len(k.encode("utf-8")) + _value_size(v) for k, v in item.items())


def write_units(size: int) -> int:
    return max(1, -(-size // 1024))


def read_units(size: int, consistent: bool) -> float:
    units = max(1, -(-size // 4096))
    return float(units) if consistent else units / 2
