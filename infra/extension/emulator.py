"""Drives real Chromium the way the Proxy API's browser extension does.

Each step: build a ``PageSnapshot`` in the page (``data-agent-id`` on every interactive element, at most
100 elements, at most 6000 characters of visible text), ``POST /agent/run/{id}/step`` with it and the
previous ``lastActionResult``, execute the returned tool (observe, navigate, click, type, scroll, press),
answer ``ask_user`` from the ``approve`` flag through ``/answer``, and stop on ``finish`` or ``error``.
Success is read from the page's own record (``tests/tasks/task.js``: a console record or its ``*_COMPLETE``
marker, or a POST to the site server), never from ``finish``; a ``finish`` that does not report the task as
not achieved, on a page that recorded no success, is a **false done** (:mod:`infra.arena.judge`). A 503 with
``Retry-After`` (the service's database unavailable for a moment) is asked again after that wait, as an
extension does; a step sent again is answered from its stored answer when the first one was recorded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from agenthost.agent.dom import SNAPSHOT_JS
from infra.arena import judge

MAX_ELEMENTS = 100
#: a 503 with Retry-After is asked again this many times, each after at most MAX_RETRY_AFTER_S seconds
UNAVAILABLE_RETRIES = 3
MAX_RETRY_AFTER_S = 5.0
MAX_TEXT = 6000
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@dataclass
class RunOutcome:
    task_id: str
    family: str = ""
    run_id: str = ""
    success: bool = False
    #: the run ended with ``finish`` claiming success (its result does not say the task was not achieved)
    claimed: bool = False
    #: claimed success while the page recorded none
    false_done: bool = False
    end: str = ""
    steps: int = 0
    questions: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    seconds: float = 0.0
    step_latency_s: list[float] = field(default_factory=list)


def snapshot(page: Any) -> dict[str, Any]:
    """The extension's PageSnapshot of ``page``."""
    raw = page.evaluate(SNAPSHOT_JS, [MAX_ELEMENTS, MAX_TEXT])
    return {"url": raw.get("url", page.url), "title": raw.get("title", ""),
            "visibleText": (raw.get("text") or "")[:MAX_TEXT], "elements": (raw.get("elements") or [])[:MAX_ELEMENTS],
            "tables": raw.get("tables") or [], "timestamp": int(time.time() * 1000)}


def execute(page: Any, tool: dict[str, Any], timeout_ms: float = 5000) -> dict[str, Any]:
    """Run one tool on ``page``; returns the extension's ToolResult."""
    name = tool.get("name")
    p = tool.get("parameters") or {}
    try:
        if name == "observe":
            return {"success": True, "message": "Observed the page"}
        if name == "navigate":
            page.goto(str(p.get("url", "")), timeout=timeout_ms * 3)
            return {"success": True, "message": f"Navigated to {page.url}"}
        if name == "scroll":
            dy = int(p.get("amount") or 600) * (-1 if str(p.get("direction", "down")) == "up" else 1)
            page.evaluate("(dy) => window.scrollBy(0, dy)", dy)
            return {"success": True, "message": f"Scrolled {p.get('direction', 'down')}"}
        if name == "press":
            key = str(p.get("key") or "Enter")
            if p.get("id"):
                page.locator(f'[data-agent-id="{p["id"]}"]').press(key, timeout=timeout_ms)
            else:
                page.keyboard.press(key)
            return {"success": True, "message": f"Pressed {key}"}
        if name in ("click", "type"):
            el = page.locator(f'[data-agent-id="{p.get("id", "")}"]')
            if el.count() == 0:
                return {"success": False, "error": f"element {p.get('id')} not found (stale id?)"}
            if name == "click":
                _click(page, el.first, timeout_ms)
                return {"success": True, "message": "Clicked successfully"}
            text = str(p.get("text", ""))
            tag = el.first.evaluate("e => e.tagName.toLowerCase()")
            if tag == "select":
                el.first.select_option(label=text, timeout=timeout_ms)
                return {"success": True, "message": f"Selected {text!r}"}
            el.first.fill(text, timeout=timeout_ms)
            return {"success": True, "message": f"Typed {len(text)} characters"}
        return {"success": False, "error": f"unknown tool {name!r}"}
    except Exception as exc:  # noqa: BLE001 - every failure is reported back as the extension does
        return {"success": False, "error": str(exc).splitlines()[0][:200]}


#: a capture listener that records whether the next click event reaches the element (or something inside it)
_WATCH_CLICK = """e => { window.__agentClickHit = false;
  const h = (ev) => { if (e === ev.target || e.contains(ev.target)) window.__agentClickHit = true; };
  document.addEventListener('click', h, true);
  window.__agentClickOff = () => document.removeEventListener('click', h, true); }"""
_CLICK_HIT = """() => { const hit = window.__agentClickHit; if (window.__agentClickOff) window.__agentClickOff();
  return hit !== false; }"""


def _click(page: Any, el: Any, timeout_ms: int) -> None:
    """A click that reaches the element, as an extension's content script's ``element.click()`` does: a real
    pointer click first (hover, mouse down and up), and when its event landed on something else (the element
    changed size under the pointer: an icon whose hover image swaps in), the element's own ``click()``."""
    el.evaluate(_WATCH_CLICK)
    el.click(timeout=timeout_ms)
    try:
        hit = page.evaluate(_CLICK_HIT)
    except Exception:  # noqa: BLE001 - the click navigated away: it reached the page
        return
    if not hit:
        el.evaluate("e => e.click()")


class Emulator:
    """One Chromium; a fresh context per run."""

    def __init__(self, api_url: str, *, api_key: str = "", approve: bool = True, headed: bool = False,
                 max_steps: int = 40, printer: Callable[[str], None] | None = print, site: Any = None,
                 browser: Any = None):
        self.api_url = api_url.rstrip("/")
        self.headers = {"x-api-key": api_key} if api_key else {}
        self.approve = approve
        self.headed = headed
        self.max_steps = max_steps
        self.print = printer or (lambda _s: None)
        self.site = site  # infra.arena.site.Site: pages' posted records count too
        self.http = httpx.Client(timeout=35.0, headers=self.headers)
        self._pw: Any = None
        #: a Chromium the caller owns (shared with other harnesses), else one launched on entering
        self._browser: Any = browser
        self._own = browser is None

    def __enter__(self) -> Emulator:
        if not self._own:
            return self
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(executable_path="/usr/bin/chromium", headless=not self.headed,
                                                 args=CHROMIUM_ARGS)
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()
        if self._own and self._browser is not None:
            self._browser.close()
        if self._pw is not None:
            self._pw.stop()

    def _post(self, path: str, body: Any = None) -> dict[str, Any]:
        r = self.http.post(self.api_url + path, json=body)
        for _ in range(UNAVAILABLE_RETRIES):  # as an extension does: the server said when to ask again
            if r.status_code != 503 or not r.headers.get("retry-after", "").isdigit():
                break
            wait_s = min(float(r.headers["retry-after"]), MAX_RETRY_AFTER_S)
            self.print(f"  POST {path}: HTTP 503, asked again in {wait_s:g} s (Retry-After)")
            time.sleep(wait_s)
            r = self.http.post(self.api_url + path, json=body)
        if r.status_code != 200:
            raise RuntimeError(f"POST {path}: HTTP {r.status_code} {r.text[:300]}")
        return r.json()

    def run(self, task_id: str, task: str, start_url: str, *, mode: str = "autonomous",
            marker: str | None = None, family: str = "") -> RunOutcome:
        """Run one task of the suite: its page judged by its own record (console or the site server)."""
        ctx = self._browser.new_context()
        page = ctx.new_page()
        seen: list[str] = []
        page.on("console", lambda m: seen.append(m.text))
        since = self.site.mark() if self.site is not None else 0

        def solved() -> bool:
            posted = self.site.records(task_id, since) if self.site is not None else None
            return judge.solved(task_id, seen, posted, marker or "")

        try:
            try:
                page.goto(start_url)
            except Exception as exc:  # noqa: BLE001 - one broken task must not stop the suite
                out = RunOutcome(task_id, family=family, end=f"emulator error: {exc}"[:300])
                out.success = solved()
                return out
            return self.run_page(page, task_id, task, solved, mode=mode, family=family)
        finally:
            ctx.close()

    def run_page(self, page: Any, task_id: str, task: str, solved: Callable[[], bool], *,
                 over: Callable[[], bool] | None = None, mode: str = "autonomous",
                 family: str = "") -> RunOutcome:
        """Run ``task`` on an opened ``page`` until the page records success (``solved``), its episode is
        ``over`` (no tool runs after that), or the run finishes, errs or is cancelled."""
        out = RunOutcome(task_id, family=family)
        started = time.monotonic()

        def ended() -> bool:
            return solved() or (over is not None and over())

        try:
            out.run_id = self._post("/agent/run/start", {"task": task, "mode": mode,
                                                         "maxSteps": self.max_steps})["runId"]
            self._steps(page, out, ended)
            # let a marker logged by the last action arrive
            deadline = time.monotonic() + (1.5 if out.claimed else 1.0)
            while not ended() and time.monotonic() < deadline:
                page.wait_for_timeout(100)
        except Exception as exc:  # noqa: BLE001 - one broken task must not stop the suite
            out.end = f"emulator error: {exc}"[:300]
        finally:
            out.success = solved()
            out.false_done = out.claimed and not out.success
            out.seconds = time.monotonic() - started
            if not out.end:
                out.end = "page shows completion" if out.success else "the page ended the episode"
        return out

    def _steps(self, page: Any, out: RunOutcome, ended: Callable[[], bool]) -> None:
        """Step the run until the page's task has ended or the run finishes, errs or is cancelled."""
        result: dict[str, Any] | None = None
        first = True
        while not ended():
            try:
                page.wait_for_load_state("load", timeout=5000)
            except Exception:  # noqa: BLE001, S110 - a page still loading is snapshotted as it is
                pass
            snap = None if first else snapshot(page)
            first = False
            t0 = time.monotonic()
            reply = self._post(f"/agent/run/{out.run_id}/step", {"snapshot": snap, "lastActionResult": result})
            out.step_latency_s.append(time.monotonic() - t0)
            out.steps = reply["state"]["currentStep"]
            ended_run, result = self._answer(page, out, reply)
            if ended_run:
                return

    def _answer(self, page: Any, out: RunOutcome, reply: dict[str, Any]) -> tuple[bool, dict[str, Any] | None]:
        """Carry out one step's reply as the extension does: (whether the run ended, the next lastActionResult)."""
        action = reply["action"]
        if action == "execute_tool":
            out.tools.append(reply["tool"]["name"])
            result = execute(page, reply["tool"])
            self.print(f"  [{out.task_id}] step {out.steps}: {reply['tool']['name']} "
                       f"{reply['tool'].get('parameters') or ''} -> {result.get('message') or result.get('error')}")
            time.sleep(0.05)
            return False, result
        if action == "ask_user":
            out.questions.append(reply["question"])
            self.print(f"  [{out.task_id}] ask_user: {reply['question']} -> "
                       f"{'approved' if self.approve else 'declined'}")
            ans = self._post(f"/agent/run/{out.run_id}/answer", {"approved": self.approve})
            if ans["state"]["status"] == "cancelled":
                out.end = "declined by the user (run cancelled)"
                return True, None
            return False, None
        if action == "finish":
            out.end = f"finish: {reply.get('result', '')}"[:200]
            out.claimed = judge.finish_claim(reply.get("result", ""))
        else:
            out.end = f"error: {reply.get('error', '')}"[:200]
        return True, None
