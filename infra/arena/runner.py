"""The platform's side of a webhook task, as the AI Olympics runner behaves (spec + field notes):

* each turn: ARIA snapshot of ``body``; a JSON body with ``version``, ``timestamp`` (ms), ``agentId``,
  ``agentName``, ``task{systemPrompt, taskPrompt}``, ``pageState{url, title, accessibilityTree}`` (no
  ``competitionId``, no ``error``), cumulative ``previousActions`` as ``{name, arguments}`` (dropped ones
  included), ``turnNumber`` and the 9 tool definitions; signed ``sha256=HMAC(secret, exact body)`` with
  ``X-AI-Olympics-Signature``/``-Timestamp``/``-Agent-Id``;
* a reply slower than 30 s fails the task; a non-2xx reply or invalid JSON ends it (recorded finished);
* only the first 10 actions run, at most ~3 per second; script-like actions are blocked;
* element resolution: click = button by name, link by name, then text; type = textbox by name, label,
  placeholder; select = combobox by name, label, option by label; case-insensitive substring; a name that
  is not on the page blocks until the action timeout (30 s on the platform);
* ``submit`` without ``form`` calls ``form.submit()`` (page handlers skipped); scroll left/right does nothing;
  the audit also flags a ``submit`` naming no form on the page and a ``done`` whose ``result`` is not a JSON
  object when the task asks for one;
* success is read from the page's own record (``tests/tasks/task.js``: a console record and its
  ``*_COMPLETE`` marker, or a POST to the site server), ``done`` only ends the task; a ``done`` claiming
  success on a page that recorded none is a **false done**, reported as a violation (:mod:`.judge`).

Every turn is also audited against the webhook contract (``violations``) from the live page, independently
of the webhook's own guard.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from agenthost.agent.page import MASK, is_sensitive
from infra.arena import judge

SYSTEM_PROMPT = ("You are an AI agent competing in AI Olympics. You control a web browser through tools. "
                 "Complete the task as quickly and accurately as possible, then report done.")
MAX_ACTIONS = 10

TOOLS: list[dict[str, Any]] = [
    {"name": "navigate", "description": "Navigate the browser to a URL.",
     "parameters": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}},
    {"name": "click", "description": "Click an element by its accessible name, role, or text content.",
     "parameters": {"type": "object", "properties": {"element": {"type": "string"}}, "required": ["element"]}},
    {"name": "type", "description": "Type text into an input field.",
     "parameters": {"type": "object", "properties": {"element": {"type": "string"}, "text": {"type": "string"},
                                                     "clear": {"type": "boolean"}}, "required": ["element", "text"]}},
    {"name": "select", "description": "Select an option from a dropdown.",
     "parameters": {"type": "object", "properties": {"element": {"type": "string"}, "option": {"type": "string"}},
                    "required": ["element", "option"]}},
    {"name": "scroll", "description": "Scroll the page.",
     "parameters": {"type": "object", "properties": {
         "direction": {"type": "string", "enum": ["up", "down", "left", "right"]}, "amount": {"type": "number"}},
         "required": ["direction"]}},
    {"name": "wait", "description": "Wait for a condition: load, network, or a CSS selector.",
     "parameters": {"type": "object", "properties": {"condition": {"type": "string"}, "timeout": {"type": "number"}}}},
    {"name": "submit", "description": "Submit a form.",
     "parameters": {"type": "object", "properties": {"form": {"type": "string"}}}},
    {"name": "api_call", "description": "Make an HTTP request (GET or POST only).",
     "parameters": {"type": "object", "properties": {"method": {"type": "string", "enum": ["GET", "POST"]},
                                                     "url": {"type": "string"}, "body": {"type": "string"}},
                    "required": ["method", "url"]}},
    {"name": "done", "description": "Signal task completion.",
     "parameters": {"type": "object", "properties": {"success": {"type": "boolean"}, "result": {}}}},
]
TOOL_NAMES = tuple(t["name"] for t in TOOLS)

_SCRIPTY = re.compile(r"eval\(|<script|onerror=|process\.env|[A-Za-z0-9+/]{120,}={0,2}", re.I)


_WANTS_OBJECT = re.compile(r"\bjson\b|\b(?:as|in|return|report)\s+(?:an?\s+)?(?:json\s+)?object\b", re.I)


def wants_object(prompt: str) -> bool:
    """Whether a task asks for its result as a JSON object."""
    return bool(_WANTS_OBJECT.search(prompt or ""))


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def blocked(action: dict[str, Any]) -> bool:
    """The runner's scan for script-like content in an action."""
    return bool(_SCRIPTY.search(json.dumps(action.get("args", {}), ensure_ascii=False)))


@dataclass
class TurnLog:
    n: int
    url: str
    latency_s: float
    status: int
    actions: list[dict[str, Any]] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)
    thinking: str = ""
    done: bool = False
    violations: list[str] = field(default_factory=list)


@dataclass
class TaskResult:
    id: str
    family: str = ""
    success: bool = False
    done: bool = False
    #: the agent claimed success (``done`` without ``success: false``)
    claimed: bool = False
    #: claimed success while the page recorded none
    false_done: bool = False
    #: the page's own records for this task during the run
    records: list[dict[str, Any]] = field(default_factory=list)
    result: Any = None
    turns: int = 0
    seconds: float = 0.0
    end: str = ""
    log: list[TurnLog] = field(default_factory=list)

    @property
    def violations(self) -> list[str]:
        return [f"turn {t.n}: {v}" for t in self.log for v in t.violations]


@dataclass
class _Play:
    """One task being played: its result so far, the page, and how the page's own record is read."""

    res: TaskResult
    page: Any
    prompt: str
    #: the page recorded success
    solved: Callable[[], bool]
    #: the page's episode is over (no further action or turn may reach it); None: only ``solved`` ends it
    over: Callable[[], bool] | None = None
    previous: list[dict[str, Any]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def ended(self) -> bool:
        return self.solved() or (self.over is not None and self.over())


#: (headers, body bytes, timeout) -> (status, response bytes); the default POSTs to a URL
Transport = Callable[[dict[str, str], bytes, float], tuple[int, bytes]]


def http_transport(url: str) -> Transport:
    client = httpx.Client()

    def send(headers: dict[str, str], body: bytes, timeout: float) -> tuple[int, bytes]:
        r = client.post(url, content=body, headers=headers, timeout=timeout)
        return r.status_code, r.content

    return send


class Runner:
    """Plays tasks on one Chromium instance (a fresh context per task)."""

    def __init__(self, transport: Transport, secret: str, *, agent_id: str = "arena-agent",
                 agent_name: str = "Arena Agent", max_turns: int = 20, pace_s: float = 1 / 3,
                 action_timeout_s: float = 30.0, reply_timeout_s: float = 30.0, headed: bool = False,
                 printer: Callable[[str], None] | None = print, site: Any = None, browser: Any = None):
        self.transport = transport
        self.site = site  # infra.arena.site.Site: pages' posted records count too
        self.secret = secret
        self.agent_id = agent_id
        self.agent_name = agent_name
        self.max_turns = max_turns
        self.pace_s = pace_s
        self.action_timeout_ms = action_timeout_s * 1000
        self.reply_timeout_s = reply_timeout_s
        self.headed = headed
        self.print = printer or (lambda _s: None)
        self._pw: Any = None
        #: a Chromium the caller owns (shared with other harnesses), else one launched on entering
        self._browser: Any = browser
        self._own = browser is None

    # -- browser ----------------------------------------------------------------------------------
    def __enter__(self) -> Runner:
        if not self._own:
            return self
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(
            executable_path="/usr/bin/chromium", headless=not self.headed,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        return self

    def __exit__(self, *exc: object) -> None:
        if self._own and self._browser is not None:
            self._browser.close()
        if self._pw is not None:
            self._pw.stop()

    # -- the platform's element resolution ---------------------------------------------------------
    @staticmethod
    def candidates(page: Any, tool: str, element: str) -> list[Any]:
        if tool == "click":
            return [page.get_by_role("button", name=element), page.get_by_role("link", name=element),
                    page.get_by_text(element)]
        if tool == "type":
            return [page.get_by_role("textbox", name=element), page.get_by_label(element),
                    page.get_by_placeholder(element)]
        if tool == "select":
            return [page.get_by_role("combobox", name=element), page.get_by_label(element)]
        return []

    def locate(self, page: Any, tool: str, element: str) -> Any:
        cands = self.candidates(page, tool, element)
        for loc in cands:
            if loc.count() > 0:
                return loc.first
        return cands[-1].first  # what the runner ends up waiting on

    def present(self, page: Any, tool: str, element: str) -> bool:
        return any(loc.count() > 0 for loc in self.candidates(page, tool, element))

    def execute(self, page: Any, action: dict[str, Any]) -> str:
        tool, args = action.get("tool"), action.get("args") or {}
        if not isinstance(args, dict):
            return "skipped: args is not an object"
        if tool not in TOOL_NAMES:
            return "skipped: invalid action schema"
        if blocked(action):
            return "blocked: script-like content"
        t = self.action_timeout_ms
        try:
            if tool == "navigate":
                page.goto(str(args.get("url", "")), timeout=t)
            elif tool == "click":
                self.locate(page, "click", str(args.get("element", ""))).click(timeout=t)
            elif tool == "type":
                loc = self.locate(page, "type", str(args.get("element", "")))
                if args.get("clear", True) is False:
                    loc.press_sequentially(str(args.get("text", "")), timeout=t)
                else:
                    loc.fill(str(args.get("text", "")), timeout=t)
            elif tool == "select":
                self.locate(page, "select", str(args.get("element", ""))).select_option(
                    label=str(args.get("option", "")), timeout=t)
            elif tool == "scroll":
                d = str(args.get("direction", "down"))
                amount = float(args.get("amount", 500) or 500)
                if d in ("up", "down"):
                    page.mouse.wheel(0, amount if d == "down" else -amount)
            elif tool == "wait":
                cond = str(args.get("condition", "load"))
                timeout = min(float(args.get("timeout", 5000) or 5000), t)
                if cond == "load":
                    page.wait_for_load_state("load", timeout=timeout)
                elif cond == "network":
                    page.wait_for_load_state("networkidle", timeout=timeout)
                else:
                    page.wait_for_selector(cond, timeout=timeout)
            elif tool == "submit":
                form = str(args.get("form", "") or "")
                if form:
                    page.evaluate("""(f) => { const el = [...document.forms].find(x => x.name === f || x.id === f ||
                        x.getAttribute('aria-label') === f) || document.querySelector('form');
                        if (el) el.requestSubmit(); }""", form)
                else:
                    page.evaluate("() => { const f = document.querySelector('form'); if (f) f.submit(); }")
            elif tool == "api_call":
                method = str(args.get("method", "GET")).upper()
                if method not in ("GET", "POST"):
                    return "skipped: method"
                httpx.request(method, str(args.get("url", "")), content=str(args.get("body", "") or ""),
                              timeout=10)
            elif tool == "done":
                return "ok"
        except Exception as exc:  # noqa: BLE001 - the runner logs and moves on
            return f"failed: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
        return "ok"

    # -- auditing the webhook's answer ---------------------------------------------------------------
    def audit(self, page: Any, reply: dict[str, Any], offered: tuple[str, ...], prompt: str = "") -> list[str]:
        out: list[str] = []
        actions = reply.get("actions")
        if not isinstance(actions, list):
            return ["actions is not a list"]
        if len(actions) > MAX_ACTIONS:
            out.append(f"{len(actions)} actions (max {MAX_ACTIONS})")
        for a in actions:
            if not isinstance(a, dict) or not isinstance(a.get("args"), dict):
                out.append(f"malformed action {a!r:.80}")
                continue
            tool, args = a.get("tool"), a["args"]
            if tool not in offered:
                out.append(f"tool {tool!r} not offered")
            if blocked(a):
                out.append(f"script-like {tool}")
            if tool in ("click", "type", "select") and not self.present(page, tool, str(args.get("element", ""))):
                out.append(f"{tool} {args.get('element')!r} not on the page")
            if tool == "submit" and not args.get("form"):
                out.append("submit without form")
            elif tool == "submit" and not self.form_exists(page, str(args.get("form"))):
                out.append(f"submit names no form on the page ({str(args.get('form'))[:40]!r})")
            if tool == "scroll" and args.get("direction") in ("left", "right"):
                out.append("scroll left/right")
        if reply.get("done") and reply.get("result") is None:
            out.append("done without result")
        elif reply.get("done") and wants_object(prompt) and not isinstance(reply.get("result"), dict):
            out.append("done without a JSON-object result although the task asks for one")
        return out

    @staticmethod
    def form_exists(page: Any, name: str) -> bool:
        return bool(page.evaluate("""(f) => [...document.forms].some(x => x.name === f || x.id === f ||
            x.getAttribute('aria-label') === f)""", name))

    # -- one task ---------------------------------------------------------------------------------
    def _solved(self, task_id: str, seen: list[str], marker: str, since: int) -> bool:
        posted = self.site.records(task_id, since) if self.site is not None else None
        return judge.solved(task_id, seen, posted, marker)

    def play(self, task_id: str, start_url: str, prompt: str, marker: str, *, family: str = "") -> TaskResult:
        """Play one task of the suite: its page judged by its own record (console or the site server)."""
        ctx = self._browser.new_context()
        page = ctx.new_page()
        seen: list[str] = []
        since = self.site.mark() if self.site is not None else 0
        page.on("console", lambda m: seen.append(m.text))
        try:
            page.goto(start_url)
            res = self.play_page(page, task_id, prompt, lambda: self._solved(task_id, seen, marker, since),
                                 family=family)
            posted = self.site.records(task_id, since) if self.site is not None else None
            res.records = judge.records_for(task_id, seen, posted)
        finally:
            ctx.close()
        return res

    def play_page(self, page: Any, task_id: str, prompt: str, solved: Callable[[], bool], *,
                  over: Callable[[], bool] | None = None, family: str = "") -> TaskResult:
        """Play turns on an opened ``page`` until the agent says ``done``, the page records success
        (``solved``), its episode is ``over`` (no action is run after that), or the turn limit."""
        run = _Play(TaskResult(id=task_id, family=family), page, prompt, solved, over)
        try:
            for n in range(1, self.max_turns + 1):
                if run.ended() or self._turn(run, n):
                    break
            else:
                run.res.end = run.res.end or f"turn limit ({self.max_turns})"
        finally:
            res = run.res
            res.success = run.solved()
            if res.success and not res.end:
                res.end = "completed"
            elif not res.end and run.over is not None and run.over():
                res.end = "the page ended the episode"
            res.seconds = time.monotonic() - run.started
        return res

    def _request(self, run: _Play, n: int) -> tuple[dict[str, str], bytes]:
        """The signed turn request for the page as it is now."""
        page = run.page
        page.wait_for_load_state("load")
        tree = page.locator("body").aria_snapshot()
        body = {
            "version": "1.0", "timestamp": int(time.time() * 1000), "agentId": self.agent_id,
            "agentName": self.agent_name,
            "task": {"systemPrompt": SYSTEM_PROMPT, "taskPrompt": run.prompt},
            "pageState": {"url": page.url, "title": page.title(), "accessibilityTree": tree},
            "previousActions": list(run.previous), "turnNumber": n, "availableTools": TOOLS,
        }
        raw = json.dumps(body, ensure_ascii=False).encode()
        headers = {"Content-Type": "application/json", "X-AI-Olympics-Signature": sign(self.secret, raw),
                   "X-AI-Olympics-Timestamp": str(body["timestamp"]), "X-AI-Olympics-Agent-Id": self.agent_id}
        return headers, raw

    def _turn(self, run: _Play, n: int) -> bool:
        """Play turn ``n``: send the page, run the reply's actions, judge a ``done``. True when the task ended."""
        res = run.res
        headers, raw = self._request(run, n)
        t0 = time.monotonic()
        try:
            status, out = self.transport(headers, raw, self.reply_timeout_s)
        except httpx.TimeoutException:
            res.end = f"turn {n}: no reply within {self.reply_timeout_s:.0f} s (task failed)"
            return True
        latency = time.monotonic() - t0
        res.turns = n
        log = TurnLog(n=n, url=run.page.url, latency_s=latency, status=status)
        res.log.append(log)
        reply = self._reply(run, log, out)
        if reply is None:
            return True
        actions: list[Any] = reply["actions"] if isinstance(reply.get("actions"), list) else []
        self._act(run, log, actions)
        log.done = bool(reply.get("done")) or any(isinstance(a, dict) and a.get("tool") == "done" for a in actions)
        if log.done:
            self._judge_done(run, log, reply)
        self._print_turn(res.id, log, run.solved(), run.started)
        if log.done:
            res.end = res.end or f"turn {n}: done" + ("" if res.claimed else " (gave up)")
        return log.done

    def _reply(self, run: _Play, log: TurnLog, out: bytes) -> dict[str, Any] | None:
        """The webhook's reply as the platform takes it, audited; None when it ends the task (too slow, not
        2xx, not a JSON object)."""
        res, n = run.res, log.n
        if log.latency_s > self.reply_timeout_s:
            res.end = f"turn {n}: reply after {log.latency_s:.1f} s (task failed)"
            return None
        if not 200 <= log.status < 300:
            res.end = f"turn {n}: HTTP {log.status} (task ended)"
            log.violations.append(f"HTTP {log.status}")
            self._print_turn(res.id, log, run.solved(), run.started)
            return None
        try:
            reply = json.loads(out)
            assert isinstance(reply, dict)
        except (ValueError, AssertionError):
            res.end = f"turn {n}: invalid JSON (task ended)"
            log.violations.append("invalid JSON")
            return None
        log.thinking = str(reply.get("thinking", ""))[:200]
        log.violations = self.audit(run.page, reply, TOOL_NAMES, run.prompt)
        return reply

    def _act(self, run: _Play, log: TurnLog, actions: list[Any]) -> None:
        """Record every action sent (dropped ones included, as the runner reports them), run the first
        ``MAX_ACTIONS`` at the platform's pace, and let the page load."""
        for a in actions:
            if isinstance(a, dict):
                run.previous.append({"name": a.get("tool"), "arguments": a.get("args")})
        for a in actions[:MAX_ACTIONS]:
            if not isinstance(a, dict):
                continue
            if run.over is not None and run.over():
                break  # the page's episode ended: later actions would reach a page that is no longer the task
            t_act = time.monotonic()
            log.actions.append(a)
            log.outcomes.append(self.execute(run.page, a))
            rest = self.pace_s - (time.monotonic() - t_act)
            if rest > 0:
                time.sleep(rest)
        try:
            run.page.wait_for_load_state("load", timeout=5000)
        except Exception:  # noqa: BLE001, S110 - a page still loading is snapshotted as it is
            pass

    def _judge_done(self, run: _Play, log: TurnLog, reply: dict[str, Any]) -> None:
        """A ``done``: the claim is the agent's; a claimed success the page did not record is a false done."""
        res = run.res
        res.done, res.result = True, reply.get("result")
        res.claimed = judge.olympics_claim(reply)
        if res.claimed and not self._settle(run):
            res.false_done = True
            log.violations.append("false done: the agent claimed success but the page recorded none")

    @staticmethod
    def _settle(run: _Play, wait_s: float = 3.0) -> bool:
        """Whether the page recorded success, giving a record logged by the last action time to arrive."""
        deadline = time.monotonic() + wait_s
        while not run.solved():
            if time.monotonic() >= deadline or (run.over is not None and run.over()):
                return run.solved()
            run.page.wait_for_timeout(100)
        return True

    def _print_turn(self, task_id: str, log: TurnLog, solved: bool, started: float) -> None:
        acts = ", ".join(_describe(a, o) for a, o in zip(log.actions, log.outcomes, strict=False)) or "no actions"
        state = "SOLVED" if solved else "open"
        elapsed = time.monotonic() - started
        line = (f"[{task_id}] turn {log.n:>2} t+{elapsed:5.1f}s webhook {log.latency_s * 1000:6.0f}ms"
                f" | {acts}{' | done' if log.done else ''} | {state}")
        self.print(line)
        for v in log.violations:
            self.print(f"[{task_id}]   VIOLATION {v}")


def _describe(a: dict[str, Any], outcome: str) -> str:
    args = a.get("args") or {}
    target = args.get("element") or args.get("url") or args.get("direction") or args.get("form") or ""
    extra = args.get("text") or args.get("option") or ""
    if args.get("text") and is_sensitive(str(target)):
        extra = MASK  # the log never shows passwords or card numbers
    s = f"{a.get('tool')} {str(target)[:30]!r}" + (f"={str(extra)[:20]!r}" if extra else "")
    return s + ("" if outcome == "ok" else f" [{outcome[:60]}]")
