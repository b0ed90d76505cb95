"""The evaluation client's tools, run against a real Chromium page (Playwright, one browser thread).

* extraction (``extract_schema_data`` and its aliases): the LLM is not needed; :mod:`.extract` maps
  what the page states onto the requested schema deterministically;
* ``action_agent`` / ``web_task_agent``: the shared brain (:mod:`agenthost.agent`) decides, the browser
  function's action runner (:func:`browser.actions.run_action`) acts, on the same live page, until the brain
  says done or the step budget runs out; ``web_task_agent`` with ``extraction_schema`` extracts at the end;
  on a page that judges itself (the task suite's ``window.__taskRecord``) the output carries its record as
  ``pageRecord``, so the server judges the page's verdict rather than the agent's ``success``;
* ``research_agent``: the target page plus same-site pages linked from it, ranked by the query's words;
* ``chat``: answers from the page's content (the deterministic brain cannot converse).

Tool names drift between versions, so :data:`ALIASES` maps every known name; unknown tools fail with
-32000 like DevTools does.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from agenthost.deadline import Deadline
from infra.eval_client.extract import collect, fill, words

#: the most one agent step's decision may take
STEP_DECIDE_S = 18.0
#: the browser agent's step budget when the evaluation names none (``max_steps``/``maxSteps`` in its input,
#: 1-50); the evaluation's timeout bounds it as well. 20, as many turns as the arena's runner allows a task
DEFAULT_MAX_STEPS = 20
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
EXTRACTION = {"extract_schema_data", "extract_data", "extract_schema_streamlined", "extract_schema",
              "schema_based_extractor"}
ALIASES = {**{n: "extract" for n in EXTRACTION}, "action_agent": "action", "web_task_agent": "web_task",
           "research_agent": "research", "chat": "chat"}
TOOLS = sorted(ALIASES)

Progress = Callable[[float, str], None]


class ToolError(Exception):
    """A tool failed; the message is what the server records."""


HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"  # Debian's chromium-headless-shell


def default_executable(headless: bool = True) -> str:
    """Headless: Debian's headless shell when installed (each evaluation's fresh context opens ~4x faster
    than in the full binary's headless mode, as measured for the browser function); else ``chromium``."""
    if headless and os.access(HEADLESS_SHELL, os.X_OK):
        return HEADLESS_SHELL
    return "/usr/bin/chromium"


class Browser:
    """Owns one Playwright Chromium; every method must run on the same thread."""

    def __init__(self, executable: str | None = None, headless: bool = True):
        self.executable = executable or default_executable(headless)
        self.headless = headless
        self._pw: Any = None
        self._browser: Any = None

    def page(self) -> Any:
        if self._browser is None or not self._browser.is_connected():
            from playwright.sync_api import sync_playwright

            if self._pw is None:
                self._pw = sync_playwright().start()
            self._browser = self._pw.chromium.launch(executable_path=self.executable, headless=self.headless,
                                                     args=LAUNCH_ARGS)
        ctx = self._browser.new_context()
        return ctx.new_page()

    def close(self) -> None:
        try:
            if self._browser is not None:
                self._browser.close()
        finally:
            if self._pw is not None:
                self._pw.stop()
            self._pw = self._browser = None


def _goto(page: Any, url: str, params: dict[str, Any], deadline: Deadline) -> None:
    if not url:
        return
    budget = max(1000, int(deadline.remaining() * 1000))
    try:
        page.goto(url, wait_until="load", timeout=min(budget, 15000))
    except Exception as exc:  # noqa: BLE001 - reported as the tool's failure
        raise ToolError(f"Page load failed for {url}: {str(exc).splitlines()[0][:200]}") from None


def run_tool(browser: Browser, params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Run one ``evaluate`` request; returns the JSON-RPC ``result`` object. Raises :class:`ToolError`."""
    tool = str(params.get("tool", ""))
    kind = ALIASES.get(tool)
    if kind is None:
        raise ToolError(f"Tool not available: {tool}")
    raw_input = params.get("input")
    inp: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
    timeout_s = max(1.0, float(params.get("timeout", 30000)) / 1000)
    deadline = Deadline.after(timeout_s).reserve(timeout_s * 0.1, "result message")
    started = time.monotonic()
    page = browser.page()
    try:
        progress(0.2, "loading page")
        load_started = time.monotonic()
        _goto(page, str(params.get("url", "")), params, deadline)
        load_ms = int((time.monotonic() - load_started) * 1000)
        progress(0.3, f"running {tool}")
        if kind == "extract":
            data = collect(page)
            schema = inp.get("schema") if isinstance(inp.get("schema"), dict) else None
            output = (_llm_extract(data, schema, str(inp.get("instruction", "")), deadline) if schema else None)
            if output is None:
                output = fill(schema, data) if schema else data
        elif kind == "chat":
            output = _chat(page, str(inp.get("message", "")))
        elif kind == "research":
            extra = [str(u) for u in inp.get("urls", []) if isinstance(u, str)] if isinstance(inp.get("urls"), list) \
                else []
            output = _research(page, str(inp.get("query", "")), deadline, extra)
        else:
            task = str(inp.get("task") or inp.get("objective") or "")
            if inp.get("hint"):
                task += f" (hint: {inp['hint']})"
            task += credentials_text(inp)
            output = _agent(page, task, deadline, progress, _max_steps(inp))
            record = _page_record(page)
            if record is not None:
                output["pageRecord"] = record
            schema = inp.get("extraction_schema")
            if kind == "web_task" and isinstance(schema, dict):
                output["data"] = fill(schema, collect(page))
        progress(0.5, "finishing")
        took = int((time.monotonic() - started) * 1000)
        return {"status": "success", "output": output, "executionTime": took,
                "toolCalls": [{"tool": tool, "timestamp": _iso(), "duration": took, "status": "success"}],
                "metadata": {"pageLoadTime": load_ms, "retryCount": 0, "url": page.url}}
    finally:
        try:
            page.context.close()
        except Exception:  # noqa: BLE001, S110 - the browser may already be gone
            pass


def _page_record(page: Any) -> dict[str, Any] | None:
    """The page's own verdict where it keeps one (pages with the task suite's recorder, ``window.__taskRecord``):
    its success record if it made one, else its latest. Reported beside the agent's claim so that a server
    can judge by what the page recorded (``validation.expected: {pageRecord: {success: true}}``)."""
    try:
        rec = page.evaluate("""() => Array.isArray(window.__taskRecords)
            ? (window.__taskRecords.find(r => r.success) || window.__taskRecord || {recorded: false}) : null""")
    except Exception:  # noqa: BLE001 - a page that is gone has no record
        return None
    return rec if isinstance(rec, dict) else None


_CREDENTIAL_KEY = re.compile(r"^(user(?:name|_?id)?|login|e-?mail|password|passcode|pin|otp|code|account|"
                             r"credentials?|auth)$", re.I)


def credentials_text(inp: dict[str, Any]) -> str:
    """Credentials an evaluation's input gives beside its task (``username``/``password``/``email`` keys, or a
    ``credentials``/``login`` object) as ``Label: value`` lines the policy reads as stated values, so a login
    uses exactly the given ones (never a generated password)."""
    found: list[tuple[str, str]] = []

    def walk(obj: Any, depth: int = 0) -> None:
        if not isinstance(obj, dict) or depth > 2:
            return
        for k, v in obj.items():
            if not isinstance(k, str) or not _CREDENTIAL_KEY.match(k.strip()):
                continue
            if isinstance(v, dict):
                walk(v, depth + 1)
            elif isinstance(v, (str, int)) and str(v).strip() and k.lower() not in ("credentials", "credential",
                                                                                      "auth", "account"):
                label = {"user": "Username", "userid": "Username", "user_id": "Username", "login": "Username",
                         "e-mail": "Email"}.get(k.lower(), k.strip().capitalize())
                found.append((label, str(v).strip()))

    walk(inp)
    return "".join(f"\n{label}: {value}" for label, value in found[:6])


def _iso() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _llm_extract(data: dict[str, Any], schema: dict[str, Any], instruction: str, deadline: Deadline) -> Any:
    """Schema-guided extraction by the configured LLM; None when there is none, it fails, or its answer does
    not validate (the deterministic extraction answers instead)."""
    try:
        from agenthost.llm import LlmError, complete_json, provider_from_settings
    except ImportError:
        return None
    if provider_from_settings() is None or deadline.remaining() < 3:
        return None
    import json

    import jsonschema

    page = {k: data.get(k) for k in ("url", "title", "meta", "headings", "lists", "tables", "pairs", "paragraphs")}
    messages = [{"role": "system", "content": "Extract data from the web page into the JSON schema. Use only "
                                              "what the page states; leave unknown strings empty."},
                {"role": "user", "content": f"Instruction: {instruction or 'extract the data'}\n"
                                            f"Page (structured): {json.dumps(page)[:20000]}"}]
    target = schema if schema.get("type") == "object" else {"type": "object", "properties": {"data": schema}}
    try:
        out, _usage = complete_json(messages, target, deadline.reserve(1.0, "schema validation"))
        jsonschema.validate(out, target)
    except (LlmError, jsonschema.ValidationError, ValueError):
        return None
    return out if target is schema else out.get("data")


def _chat(page: Any, message: str) -> dict[str, Any]:
    data = collect(page)
    w = {x for x in words(message) if len(x) > 3}
    best = max(data.get("paragraphs", []) or [""], key=lambda p: sum(1 for x in w if x in p.lower()))
    return {"response": best or data.get("title", ""), "title": data.get("title", ""), "url": data.get("url", "")}


def _research(page: Any, query: str, deadline: Deadline, urls: list[str] | None = None) -> dict[str, Any]:
    """The target page, the extra ``urls`` given, and same-site pages linked from them (at most 12 pages)."""
    w = {x for x in words(query) if len(x) > 2}
    first = collect(page)
    pages = [first]
    seen = {first["url"].split("#")[0]}
    queue = [(u, True) for u in (urls or [])[:5]]
    queue += [(lk["url"], False) for lk in first.get("links", [])]
    hosts = {urlparse(first.get("url", "")).netloc} | {urlparse(u).netloc for u in (urls or [])}
    while queue and len(pages) < 12 and deadline.remaining() > 2:
        url, given = queue.pop(0)
        bare = url.split("#")[0]
        if bare in seen or not url.startswith(("http://", "https://")) or urlparse(url).netloc not in hosts:
            continue
        seen.add(bare)
        try:
            page.goto(url, wait_until="load", timeout=5000)
            found = collect(page)
        except Exception:  # noqa: BLE001, S112 - a broken link is skipped
            continue
        pages.append(found)
        if given:  # pages linked from the given URLs are read too
            queue += [(lk["url"], False) for lk in found.get("links", [])]
    findings = []
    for p in pages:
        for para in p.get("paragraphs", []):
            score = sum(1 for x in w if x in para.lower())
            if score:
                findings.append((score, para, p["url"], p.get("title", "")))
    findings.sort(key=lambda f: -f[0])
    return {"query": query, "summary": " ".join(f[1] for f in findings[:3]),
            "findings": [{"text": f[1], "url": f[2], "title": f[3]} for f in findings[:8]],
            "sources": [{"url": p["url"], "title": p.get("title", "")} for p in pages]}


def _max_steps(inp: dict[str, Any]) -> int:
    """The step budget an evaluation's input asks for (clamped to 1-50), else :data:`DEFAULT_MAX_STEPS`."""
    asked = inp.get("max_steps", inp.get("maxSteps"))
    if isinstance(asked, bool) or not isinstance(asked, int | float):
        return DEFAULT_MAX_STEPS
    return max(1, min(50, int(asked)))


def _agent(page: Any, task: str, deadline: Deadline, progress: Progress,
           max_steps: int = DEFAULT_MAX_STEPS) -> dict[str, Any]:
    from browser.actions import ActionError, run_action

    from agenthost.agent import make_policy
    from agenthost.agent.dom import observe
    from agenthost.agent.snapshot import from_observation

    policy = make_policy()
    history: list[Any] = []
    memory: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    done, result, success = False, None, False
    for step in range(max_steps):
        if deadline.remaining() < 2:
            break
        model = from_observation(observe(page))
        decide_by = deadline.reserve(1.0, "the step's actions")
        if decide_by.remaining() > STEP_DECIDE_S:
            decide_by = Deadline.after(STEP_DECIDE_S)
        decision = policy.decide(task, model, history, memory, None, decide_by)
        memory = decision.memory or memory
        for action in decision.actions:
            try:
                run_action(page, action.to_browser(), 3000)
                steps.append({"tool": action.tool, "args": action.args, "ok": True})
            except ActionError as exc:
                steps.append({"tool": action.tool, "args": action.args, "ok": False, "error": str(exc)[:200]})
            history.append(action)
        progress(min(0.45, 0.3 + 0.02 * (step + 1)), f"step {step + 1}: {len(decision.actions)} action(s)")
        if decision.done or decision.stop or not decision.actions:
            done, result = bool(decision.done), decision.result
            # success only where the brain saw the task achieved; a give-up or a stop is a failure
            success = bool(decision.done) and not decision.stop and getattr(decision, "success", None) is not False
            if done and not success:
                result = decision.failure_text() if hasattr(decision, "failure_text") else result
            break
    if not done:
        result = "Not completed: the step budget ran out before the task was achieved."
    return {"done": done, "success": success, "result": result, "steps": steps, "url": page.url,
            "title": page.title()}
