"""The browser function's handler, warm, with real Chromium against a local page (sessions saved to an
in-process moto table; all traffic through the function's netguard egress proxy): navigate + ARIA snapshot
(aim p50 <= 150 ms), type + click + observe (aim <= 120 ms), evaluate (the js-eval step), session restore into
a fresh context (aim <= 600 ms). Prints, asserts nothing."""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import ROOT, env, pct, timed_ms  # noqa: E402

os.environ.update(env())
os.environ.update({"AGENTHOST_NETGUARD_ALLOW": "127.0.0.1", "AGENTHOST_TABLE": "agenthost-bench"})
sys.path[:0] = [str(ROOT), str(ROOT / "functions"), str(ROOT / "layers" / "core")]




def report(label: str, ms: list[float], aim: str) -> None:
    print(f"{label}: p50 {statistics.median(ms):.0f} ms, p95 {pct(ms, 95):.0f} ms, min {min(ms):.0f} ms "
          f"(n={len(ms)}; aim {aim})")


def main() -> None:
    from moto import mock_aws

    from agenthost import aws
    from infra.local.template import create_table, parse
    from tests.support.brain_pages import PageServer

    server = PageServer().start()
    with mock_aws():
        create_table(aws.client("dynamodb"), parse(), "agenthost-bench")
        from browser import app

        form = f"{server.url}/form.html"
        t = time.perf_counter()
        app.handler({"session": {"id": "bench"}, "actions": [{"tool": "navigate", "url": form}]})
        print(f"first call (Chromium launch + context + navigate + observe): {(time.perf_counter() - t) * 1000:.0f} ms")

        def nav() -> None:
            out = app.handler({"session": {"id": "bench"}, "actions": [{"tool": "navigate", "url": form}],
                               "observe": {"aria": True}})
            assert out["results"][0]["ok"] and out["observation"]["aria"]

        report("warm navigate + ARIA snapshot", timed_ms(nav, 30), "p50 <= 150 ms")

        def act() -> None:
            out = app.handler({"session": {"id": "bench"}, "actions": [
                {"tool": "type", "element": "First Name", "text": "Ada"},
                {"tool": "click", "element": "Subscribe to the newsletter"}],
                "observe": {"aria": True, "elements": True, "text": True}})
            assert all(r["ok"] for r in out["results"]), out["results"]

        report("type + click + observe (aria, elements, text)", timed_ms(act, 30), "<= 120 ms")

        def evaluate() -> None:
            out = app.handler({"session": {"id": "bench"}, "actions": [
                {"tool": "evaluate", "script": "document.querySelectorAll('input').length"}],
                "observe": {"aria": False, "elements": False, "text": False}})
            assert out["results"][0]["ok"], out["results"]

        report("evaluate (js-eval's script step, warm page, no observation)", timed_ms(evaluate, 30), "none set")

        state = app.handler({"session": {"id": "bench"}, "actions": []})["session"]
        n = iter(range(1000))

        def restore() -> None:
            out = app.handler({"session": {"id": f"fresh-{next(n)}", "storage_state": state["storage_state"],
                                           "url": state["url"]}, "actions": [], "observe": {"aria": True}})
            assert out["session"]["resumed"] and out["observation"]["url"] == state["url"]

        report("session restore into a fresh context (+ navigate + ARIA)", timed_ms(restore, 15), "<= 600 ms")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    server.stop()


if __name__ == "__main__":
    main()
    os._exit(0)  # the browser worker thread holds Playwright; do not wait for it
