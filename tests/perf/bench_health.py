"""GET /health: init time and warm handler time, against a bare FastAPI+Mangum hello world measured in
the same run; unzipped size of the built layer and function (runs `make build` first when nothing is
built: without Docker that builds the zip functions and the layer).

The warm time is measured as deployed: Powertools logging at INFO (one access line per request, written
to a null sink here) and metrics enabled. Aims: init within 1.2x (issue 26) and warm within 2x of the
floor. Prints, asserts nothing."""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import ROOT, dir_size, env, pct  # noqa: E402

os.environ.update(env())

_T0 = "import time; w=time.perf_counter(); c=time.process_time()\n"
_T1 = "\nprint(time.perf_counter()-w, time.process_time()-c)"
INIT_APP = _T0 + "import runs.app as m; m.handler" + _T1
INIT_FLOOR = _T0 + ("from fastapi import FastAPI\nfrom mangum import Mangum\n"
                    "app=FastAPI()\n@app.get('/health')\ndef h(): return {'status':'ok'}\n"
                    "handler=Mangum(app, lifespan='off')") + _T1


def fresh_init(codes: dict[str, str], runs: int = 7) -> dict[str, tuple[float, float]]:
    """Median (wall ms, CPU ms) a fresh interpreter spends in each code, the codes run in turn (so a busy
    machine slows them alike; CPU time is the figure least moved by other processes)."""
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in codes}
    for _ in range(runs):
        for name, code in codes.items():
            out = subprocess.run([sys.executable, "-c", code], env=env(), capture_output=True, text=True,
                                 check=True, cwd=ROOT)
            wall, cpu = (float(x) * 1000 for x in out.stdout.strip().splitlines()[-1].split())
            samples[name].append((wall, cpu))
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in samples.items()}


def warm(handler, n: int = 2000) -> list[float]:
    from infra.local.events import LambdaContext, http_event

    event = http_event("GET", "/health", headers={"user-agent": "bench"}, route_key="ANY /health")
    for _ in range(200):
        handler(event, LambdaContext("bench"))
    samples = []
    for _ in range(n):
        ctx = LambdaContext("bench")  # one per invocation, as Lambda gives: its own deadline
        t = time.perf_counter()
        handler(event, ctx)
        samples.append((time.perf_counter() - t) * 1000)
    return samples


def main() -> None:
    init = fresh_init({"app": INIT_APP, "floor": INIT_FLOOR})
    (app_wall, app_cpu), (floor_wall, floor_cpu) = init["app"], init["floor"]
    print("init (imports + app construction), median of 7 fresh interpreters (run in turn with the floor):")
    print(f"  /health function   {app_wall:8.1f} ms   (CPU {app_cpu:6.1f} ms)")
    print(f"  FastAPI+Mangum     {floor_wall:8.1f} ms   (CPU {floor_cpu:6.1f} ms)")
    print(f"  ratio {app_wall / floor_wall:.2f}x, CPU {app_cpu / floor_cpu:.2f}x (aim <= 1.2x; "
          f"load average {os.getloadavg()[0]:.1f})")

    import asyncio

    from fastapi import FastAPI
    from mangum import Mangum

    asyncio.set_event_loop(asyncio.new_event_loop())
    bare = FastAPI()

    @bare.get("/health")
    def h() -> dict:
        return {"status": "ok"}

    floor = warm(Mangum(bare, lifespan="off"))
    import logging

    os.environ.update({"POWERTOOLS_LOG_LEVEL": "INFO", "POWERTOOLS_METRICS_DISABLED": "false"})
    from runs.app import handler

    class _Null:
        def write(self, _text: str) -> int:
            return 0

        def flush(self) -> None:
            pass

    for h in logging.getLogger("agenthost").handlers:  # Powertools' JSON handler: keep formatting, drop output
        if isinstance(h, logging.StreamHandler):
            h.setStream(_Null())  # type: ignore[arg-type]
    logging.getLogger("agenthost").setLevel(logging.INFO)
    with contextlib.redirect_stdout(io.StringIO()):  # EMF metric records (print) go to stdout too
        ours = warm(handler)
    print("warm handler time, 2000 calls after 200 warm-up (ours as deployed: INFO access log, metrics on):")
    print(f"  /health function   p50 {pct(ours, 50):.3f} ms  p99 {pct(ours, 99):.3f} ms")
    print(f"  FastAPI+Mangum     p50 {pct(floor, 50):.3f} ms  p99 {pct(floor, 99):.3f} ms")
    print(f"  ratio p50 {pct(ours, 50) / pct(floor, 50):.2f}x, p99 {pct(ours, 99) / pct(floor, 99):.2f}x "
          "(aim <= 2x)")

    build = ROOT / ".aws-sam" / "build"
    layer, fn = build / "CoreLayer", build / "RunsFunction"
    if not (layer.is_dir() and fn.is_dir()):
        print("built sizes: nothing built yet, running `make build` ...", flush=True)
        subprocess.run(["make", "build"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                       check=False)
    if layer.is_dir() and fn.is_dir():
        print(f"built sizes (unzipped): CoreLayer {dir_size(layer) / 1e6:.1f} MB, "
              f"RunsFunction {dir_size(fn) / 1e6:.2f} MB (Lambda's limit: 250 MB for function + layers)")
    else:
        print("built sizes: `make build` did not produce .aws-sam/build (see its output)")


if __name__ == "__main__":
    main()
