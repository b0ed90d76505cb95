"""Judging an evaluation's output: deterministic checks first, then an optional LLM judge.

Checks (each scores 0..1):

* ``schema``: the output validates against ``validation.schema`` (or the tool's ``input.schema``);
* ``expected``: ``validation.expected`` is a subset of the output (strings compared case- and
  whitespace-insensitively; an expected list's items must all be found in the output list);
* ``snapshot``: the output equals ``validation.snapshot.expected`` after removing
  ``snapshot.exclude_paths`` (dot paths, ``*`` for every list item / key);
* ``js-eval``: ``validation.js_eval.script`` runs in the browser on the target URL and must return
  ``expected_result`` (needs a ``js_runner``: :func:`default_js_runner` uses the browser function's
  ``evaluate`` action when ``AGENTHOST_BROWSER_FUNCTION`` is set);
* ``llm-judge``: an LLM gives a verdict and a 0..1 score (only when a judge is configured; skipped, not
  failed, when the daily LLM budget refuses the call).

The verdict's score is the mean of the check scores; it passes when the score reaches the threshold
(``validation.pass_threshold``, else ``AGENTHOST_EVALS_PASS_THRESHOLD``, default 1.0: every check).
An evaluation without checks passes when the client reported success.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

from evals.definitions import Evaluation

JsRunner = Callable[[str, str], Any]  # (url, script) -> result
LlmJudge = Callable[[Evaluation, Any, list[str]], dict[str, Any]]  # -> {"score": 0..1, "verdict": str}

_EXTRACTION_TOOLS = {"extract_schema_data", "extract_data", "extract_schema_streamlined", "extract_schema"}


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip().casefold()


def matches(expected: Any, actual: Any) -> bool:
    """Subset match used by ``expected``."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return False
        return all(any(matches(e, a) for a in actual) for e in expected)
    if isinstance(expected, str):
        return isinstance(actual, str) and _norm(expected) == _norm(actual)
    if isinstance(expected, bool) or expected is None:
        return expected == actual
    if isinstance(expected, (int, float)):
        return isinstance(actual, (int, float)) and not isinstance(actual, bool) and abs(expected - actual) < 1e-9
    return expected == actual


def _remove(doc: Any, parts: list[str]) -> None:
    if not parts:
        return
    head, rest = parts[0], parts[1:]
    if isinstance(doc, dict):
        keys = list(doc) if head == "*" else [head]
        for k in keys:
            if k in doc:
                if rest:
                    _remove(doc[k], rest)
                else:
                    del doc[k]
    elif isinstance(doc, list):
        idxs = range(len(doc)) if head == "*" else ([int(head)] if head.isdigit() and int(head) < len(doc) else [])
        for i in sorted(idxs, reverse=True):
            if rest:
                _remove(doc[i], rest)
            else:
                del doc[i]


def strip_paths(doc: Any, paths: list[str]) -> Any:
    out = copy.deepcopy(doc)
    for p in paths:
        _remove(out, [s for s in p.split(".") if s])
    return out


def _first_diff(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                return f"{path}.{k} unexpected" if path else f"{k} unexpected"
            if k not in b:
                return f"{path}.{k} missing" if path else f"{k} missing"
            d = _first_diff(a[k], b[k], f"{path}.{k}" if path else k)
            if d:
                return d
        return ""
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path or '(root)'}: {len(b)} items, expected {len(a)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            d = _first_diff(x, y, f"{path}.{i}")
            if d:
                return d
        return ""
    return "" if a == b else f"{path or '(root)'}: {json.dumps(b)[:80]} != expected {json.dumps(a)[:80]}"


def output_schema(ev: Evaluation) -> dict[str, Any] | None:
    if ev.validation.json_schema:
        return ev.validation.json_schema
    schema = ev.input.get("schema")
    if isinstance(schema, dict) and ev.tool in _EXTRACTION_TOOLS:
        return schema
    return None


def threshold(ev: Evaluation) -> float:
    if ev.validation.pass_threshold is not None:
        return ev.validation.pass_threshold
    from agenthost.config import settings

    return settings().evals_pass_threshold


def judge(ev: Evaluation, result: dict[str, Any], *, js_runner: JsRunner | None = None,
          llm_judge: LlmJudge | None = None, pages_url: str = "") -> dict[str, Any]:
    """Verdict for a JSON-RPC ``result`` object: ``{passed, score, threshold, checks: [...]}``."""
    status = str(result.get("status", "success")).lower()
    output = result.get("output")
    v = ev.validation
    found: list[dict[str, Any] | None] = []
    if status not in ("success", "completed", "ok"):
        found.append({"check": "status", "passed": False, "score": 0.0,
                      "detail": f"client reported status {status!r}"})
    found.append(_schema_check(ev, output))
    if v.expected is not None:
        ok = matches(v.expected, output)
        found.append({"check": "expected", "passed": ok, "score": 1.0 if ok else 0.0,
                      "detail": "expected values found" if ok else "expected values not found in the output"})
    found.append(_snapshot_check(ev, output))
    found.append(_js_check(ev, js_runner, pages_url))
    found.append(_llm_check(ev, output, llm_judge))
    checks = [c for c in found if c is not None]
    scored = [c for c in checks if not c.get("skipped")]
    if not scored:
        score = 1.0 if status in ("success", "completed", "ok") else 0.0
    else:
        score = sum(float(c["score"]) for c in scored) / len(scored)
    thr = threshold(ev)
    status_failed = any(c["check"] == "status" for c in checks)
    return {"passed": (score >= thr) and not status_failed, "score": round(score, 4), "threshold": thr,
            "checks": checks}


def _schema_check(ev: Evaluation, output: Any) -> dict[str, Any] | None:
    schema = output_schema(ev)
    if schema is None or ev.validation.type == "none":
        return None
    import jsonschema

    try:
        jsonschema.validate(output, schema)
        return {"check": "schema", "passed": True, "score": 1.0, "detail": "output matches the schema"}
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or "(root)"
        return {"check": "schema", "passed": False, "score": 0.0, "detail": f"{where}: {exc.message}"}
    except jsonschema.SchemaError as exc:
        return {"check": "schema", "passed": False, "score": 0.0,
                "detail": f"the evaluation's schema is invalid: {exc.message}"}


def _snapshot_check(ev: Evaluation, output: Any) -> dict[str, Any] | None:
    snapshot = ev.validation.snapshot
    if snapshot is None:
        return None
    excl = [str(p) for p in snapshot.get("exclude_paths", [])]
    diff = _first_diff(strip_paths(snapshot.get("expected"), excl), strip_paths(output, excl))
    return {"check": "snapshot", "passed": not diff, "score": 0.0 if diff else 1.0,
            "detail": diff or "output equals the snapshot"}


def _js_check(ev: Evaluation, js_runner: JsRunner | None, pages_url: str) -> dict[str, Any] | None:
    js_eval = ev.validation.js_eval
    if js_eval is None:
        return None
    script = str(js_eval.get("script", ""))
    want = js_eval.get("expected_result", True)
    if js_runner is None:
        return {"check": "js-eval", "passed": False, "score": 0.0,
                "detail": "js-eval needs the browser function, which is not available"}
    try:
        got = js_runner(ev.url(pages_url), script)
        ok = matches(want, got) if not isinstance(want, bool) else bool(got) is want
        return {"check": "js-eval", "passed": ok, "score": 1.0 if ok else 0.0,
                "detail": f"script returned {json.dumps(got)[:120]}"}
    except Exception as exc:  # noqa: BLE001 - a broken script is a failed check, not a crash
        return {"check": "js-eval", "passed": False, "score": 0.0,
                "detail": f"script failed: {type(exc).__name__}: {str(exc)[:200]}"}


def _llm_check(ev: Evaluation, output: Any, llm_judge: LlmJudge | None) -> dict[str, Any] | None:
    v = ev.validation
    if v.type not in ("llm-judge", "hybrid"):
        return None
    if llm_judge is None:
        return {"check": "llm-judge", "skipped": True, "detail": "no LLM judge configured"}
    criteria = [str(c) for c in (v.llm_judge or {}).get("criteria", [])]
    try:
        out = llm_judge(ev, output, criteria)
        score = max(0.0, min(1.0, float(out.get("score", 0))))
        return {"check": "llm-judge", "passed": score >= threshold(ev), "score": score,
                "detail": str(out.get("verdict", ""))[:500]}
    except Exception as exc:  # noqa: BLE001 - the judge is optional; its failure is recorded
        if _budget_refused(exc):  # not the output's fault: the check is not scored
            return {"check": "llm-judge", "skipped": True, "detail": "skipped: the daily LLM budget is spent"}
        return {"check": "llm-judge", "passed": False, "score": 0.0, "detail": f"judge failed: {type(exc).__name__}"}


def _budget_refused(exc: Exception) -> bool:
    """Whether the judge was refused because the daily LLM budget is spent (``MeteredProvider``)."""
    try:
        from agenthost import metering
        from agenthost.llm import LlmError
    except ImportError:
        return False
    if not isinstance(exc, LlmError):
        return False
    return bool(getattr(metering.current(), "budget_blocked", False)) or "budget is spent" in str(exc)


def default_llm_judge() -> LlmJudge | None:
    """The shared LLM (``agenthost.llm``) as a judge, when ``AGENTHOST_LLM`` names one."""
    try:
        from agenthost.llm import complete_json, provider_from_settings
    except ImportError:
        return None
    if provider_from_settings() is None:
        return None

    def run(ev: Evaluation, output: Any, criteria: list[str]) -> dict[str, Any]:
        import time

        schema = {"type": "object", "properties": {"verdict": {"type": "string"}, "score": {"type": "number"}},
                  "required": ["verdict", "score"]}
        prompt = (f"Task: {ev.name}\n{ev.description}\nTool: {ev.tool}\nTool input: {json.dumps(ev.input)[:4000]}\n"
                  "Criteria:\n" + "\n".join(f"- {c}" for c in criteria or ["The output fulfils the task"]) +
                  f"\nOutput to judge:\n{json.dumps(output)[:12000]}\n"
                  "Answer with a one-sentence verdict and a score between 0 (fails) and 1 (fully meets the criteria).")
        messages = [{"role": "system", "content": "You grade the output of a web agent strictly and fairly."},
                    {"role": "user", "content": prompt}]
        result, _usage = complete_json(messages, schema, time.monotonic() + 15)
        return dict(result)

    return run


def default_js_runner() -> JsRunner | None:
    """``js-eval`` through the browser function (``agenthost.browser``), when one is configured:
    ``AGENTHOST_BROWSER_FUNCTION`` names it (deployed: ``!Ref BrowserFunction``; the local stack sets it too).
    Without it the check is recorded as failed with a message saying the browser function is missing."""
    from agenthost.config import settings

    if "browser_function" not in settings().model_fields_set:
        return None
    try:
        from agenthost.browser import Browser
    except ImportError:
        return None
    client: dict[str, Browser] = {}

    def run(url: str, script: str) -> Any:
        if "browser" not in client:
            client["browser"] = Browser(read_timeout=20)  # the evals function itself has 29 s
        return client["browser"].evaluate_script(url, script)

    return run
