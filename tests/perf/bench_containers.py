"""The built artifacts in Docker (needs `make build` with Docker; says so and measures nothing without):

* the browser image's size, and its cold start under the Runtime Interface Emulator on Lambda's terms
  (read-only root, /tmp only, 2048 MB, no /dev/shm): `docker run` to the first observation of a local page;
* `sam local invoke` per zip function (each a new container: a cold start), wall time of the command and
  the Lambda-reported duration, next to our local stack's cold start of the same handler (a fresh
  interpreter importing the handler and answering the same event, as infra/local's runtime does on its
  first call), both against the same local stack's DynamoDB.

Prints, asserts nothing. The machine is shared: numbers move with its load (printed)."""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(_ROOT), str(_ROOT / "functions"), str(_ROOT / "layers" / "core")]
from tests.support import containers as ct  # noqa: E402

RUNS = int(os.environ.get("BENCH_CONTAINER_RUNS", "3"))
LOCAL_COLD = """
import json, sys, time
t = time.perf_counter()
import importlib
from infra.local.events import LambdaContext
module, attr = sys.argv[1].rsplit('.', 1)
handler = getattr(importlib.import_module(module), attr)
out = handler(json.load(open(sys.argv[2])), LambdaContext(sys.argv[3]))
print(json.dumps({"s": time.perf_counter() - t, "status": out.get("statusCode", 200)}))
"""


def browser_cold_start(stack, site) -> list[float]:
    samples = []
    for i in range(RUNS):
        c = ct.browser_container(stack)
        try:
            t = time.monotonic()
            c.start()
            out = c.invoke({"session": {"id": f"bench-{i}", "ephemeral": True},
                            "actions": [{"tool": "navigate", "url": f"{site.url}/form.html"}],
                            "observe": {"aria": True, "elements": True, "text": True}})
            samples.append(time.monotonic() - t)
            assert out["observation"]["title"], out
        finally:
            c.stop()
    return samples


def zip_functions(stack, site, work: Path) -> None:
    from tests.containers.test_sam_local import cases

    env_file = ct.sam_env_file(stack, work / "env.json")
    local_env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(ct.ROOT / p) for p in ("", "functions",
                                                                                       "layers/core")),
                 **json.loads(env_file.read_text())["Parameters"], **ct.FAKE_AWS,
                 "POWERTOOLS_LOG_LEVEL": "WARNING"}
    todo = cases(site.url)
    print(f"{'function (event)':42} {'sam local invoke':>17} {'reported':>9} {'local stack cold':>17}")
    for fn, event_name in (("RunsFunction", "runs-health"), ("AgentsApiFunction", "agents-json"),
                           ("OlympicsFunction", "olympics-turn"), ("WerewolfFunction", "werewolf-turn"),
                           ("EvalsFunction", "evals-ping"), ("UsageFunction", "usage")):
        sam, reported, local = [], [], []
        for _ in range(RUNS):
            _, event = todo[event_name]
            event = event() if callable(event) else event  # the AI Olympics turn: signed now
            answer, seconds, log = ct.sam_local_invoke(fn, event, env_file, work)
            if answer is None:
                print(f"{fn}: no answer from sam local invoke:\n{log[-1500:]}")
                break
            sam.append(seconds)
            m = re.search(r"REPORT RequestId: \S+\s+Init Duration: [\d.]+ ms\s+Duration: ([\d.]+) ms", log)
            if m:
                reported.append(float(m.group(1)) / 1000)
            ev = work / f"{event_name}.json"
            ev.write_text(json.dumps(event))
            handler = {"RunsFunction": "runs.app.handler", "AgentsApiFunction": "agents_api.app.handler",
                       "OlympicsFunction": "olympics.app.handler", "WerewolfFunction": "werewolf.app.handler",
                       "EvalsFunction": "evals.app.handler", "UsageFunction": "usage.app.handler"}[fn]
            out = subprocess.run([sys.executable, "-c", LOCAL_COLD, handler, str(ev), fn], env=local_env,
                                 capture_output=True, text=True, cwd=ct.ROOT, check=False)
            try:
                local.append(json.loads(out.stdout.strip().splitlines()[-1])["s"])
            except (ValueError, IndexError):
                print(f"{fn}: the local cold start failed:\n{out.stderr[-1500:]}")
        if sam:
            med = statistics.median
            print(f"{fn + ' (' + event_name + ')':42} {med(sam):15.2f} s {med(reported) if reported else 0:7.2f} s "
                  f"{med(local) if local else float('nan'):15.2f} s")


def main() -> int:
    problem = ct.docker_problem()
    if problem or not ct.image_exists(ct.BROWSER_IMAGE) or not ct.BUILT_TEMPLATE.exists():
        print(f"containers: not measured: {problem or 'nothing built (run make build with Docker)'}")
        return 0
    from tests.support.brain_pages import PageServer
    from tests.support.stack import start_stack

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {RUNS} runs each, medians")
    print(f"browser image {ct.BROWSER_IMAGE}: {ct.image_size_mb(ct.BROWSER_IMAGE):.0f} MB")
    stack, site = start_stack(), PageServer().start()
    try:
        samples = browser_cold_start(stack, site)
        print(f"browser cold start (docker run -> first observation, Lambda's terms): median "
              f"{statistics.median(samples):.2f} s, min {min(samples):.2f} s, max {max(samples):.2f} s")
    finally:
        stack.stop()
        site.stop()
    gateway = ct.docker_gateway()
    stack, site = start_stack({"AGENTHOST_HOST": gateway}), PageServer(gateway).start()
    try:
        with tempfile.TemporaryDirectory() as work:
            zip_functions(stack, site, Path(work))
    finally:
        stack.stop()
        site.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
