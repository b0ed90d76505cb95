"""Judging paths: schema, expected values, snapshots with excluded paths, js-eval, LLM judge, threshold."""

from __future__ import annotations

import json

from evals.definitions import Evaluation
from evals.judging import judge, strip_paths


def ev(**validation):
    return Evaluation.model_validate({
        "id": "e", "tool": "extract_schema_data", "target": {"url": "{pages}/p.html"},
        "input": {"schema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}},
        "validation": validation})


def ok(output):
    return {"status": "success", "output": output}


def test_schema_from_the_tool_input():
    v = judge(ev(type="schema"), ok({"title": "T"}))
    assert v["passed"] and [c["check"] for c in v["checks"]] == ["schema"]
    v = judge(ev(type="schema"), ok({"title": 3}))
    assert not v["passed"] and "title: 3 is not of type 'string'" in v["checks"][0]["detail"]


def test_expected_values_subset_and_normalisation():
    e = ev(type="expected", expected={"title": "hello world", "tags": ["b"], "n": 2})
    assert judge(e, ok({"title": " Hello   World", "tags": ["a", "b"], "n": 2.0, "extra": 1}))["passed"]
    v = judge(e, ok({"title": "hello", "tags": ["a"], "n": 2}))
    assert not v["passed"] and v["score"] == 0.5  # schema passes, expected fails


def test_snapshot_with_excluded_paths():
    snap = {"expected": {"title": "T", "items": [{"id": 1, "ts": "x"}], "at": "now"}, "exclude_paths": ["at",
                                                                                                     "items.*.ts"]}
    e = ev(type="snapshot", snapshot=snap)
    assert judge(e, ok({"title": "T", "items": [{"id": 1, "ts": "later"}], "at": "then"}))["passed"]
    v = judge(e, ok({"title": "T", "items": [{"id": 2, "ts": "x"}]}))
    detail = next(c["detail"] for c in v["checks"] if c["check"] == "snapshot")
    assert not v["passed"] and "items.0.id" in detail
    assert strip_paths({"a": [{"b": 1, "c": 2}]}, ["a.*.c"]) == {"a": [{"b": 1}]}


def test_js_eval_runs_in_the_browser_runner():
    calls = []

    def runner(url, script):
        calls.append((url, script))
        return 3

    e = ev(type="js-eval", js_eval={"script": "document.querySelectorAll('li').length", "expected_result": 3})
    v = judge(e, ok({"title": "T"}), js_runner=runner, pages_url="http://pages.test")
    assert v["passed"] and calls == [("http://pages.test/p.html", "document.querySelectorAll('li').length")]
    v = judge(e, ok({"title": "T"}), js_runner=lambda u, s: 2)
    assert not v["passed"]
    v = judge(e, ok({"title": "T"}), js_runner=None)
    assert not v["passed"] and "browser function" in v["checks"][-1]["detail"]

    def broken(url, script):
        raise RuntimeError("ReferenceError: x is not defined")

    v = judge(e, ok({"title": "T"}), js_runner=broken)
    assert not v["passed"] and "ReferenceError" in v["checks"][-1]["detail"]


def test_llm_judge_verdict_score_and_threshold():
    e = ev(type="hybrid", llm_judge={"criteria": ["mentions T"]}, pass_threshold=0.8)
    seen = {}

    def judge_fn(evaluation, output, criteria):
        seen["criteria"] = criteria
        return {"verdict": "good enough", "score": 0.7}

    v = judge(e, ok({"title": "T"}), llm_judge=judge_fn)
    assert seen["criteria"] == ["mentions T"]
    llm = next(c for c in v["checks"] if c["check"] == "llm-judge")
    assert llm["score"] == 0.7 and llm["detail"] == "good enough"
    assert v["score"] == 0.85 and v["threshold"] == 0.8 and v["passed"]
    strict = ev(type="hybrid", llm_judge={"criteria": []}, pass_threshold=0.9)
    assert not judge(strict, ok({"title": "T"}), llm_judge=judge_fn)["passed"]
    # without a configured judge the LLM check is skipped, not passed
    v = judge(e, ok({"title": "T"}), llm_judge=None)
    assert v["passed"] and any(c.get("skipped") for c in v["checks"])


def test_client_reported_failure_never_passes():
    v = judge(ev(type="none"), {"status": "failed", "output": None})
    assert not v["passed"]
    assert judge(ev(type="none"), ok(None))["passed"]


def test_default_llm_judge_through_an_openai_compatible_server(monkeypatch):
    from evals.judging import default_llm_judge

    from agenthost import config
    from tests.support.fake_llm import FakeLLM

    assert default_llm_judge() is None  # AGENTHOST_LLM=none: no judge, the check is skipped
    with FakeLLM() as llm:
        monkeypatch.setenv("AGENTHOST_LLM", "openai:fake-model")
        monkeypatch.setenv("AGENTHOST_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("AGENTHOST_LLM_API_KEY", "k")
        config.reset()
        llm.reply({"verdict": "title present", "score": 0.9})
        judge_fn = default_llm_judge()
        assert judge_fn is not None
        e = ev(type="llm-judge", llm_judge={"criteria": ["has a title"]}, pass_threshold=0.8)
        v = judge(e, ok({"title": "T"}), llm_judge=judge_fn)
        llm_check = next(c for c in v["checks"] if c["check"] == "llm-judge")
        assert llm_check == {"check": "llm-judge", "passed": True, "score": 0.9, "detail": "title present"}
        assert "has a title" in json.dumps(llm.requests[0])
        llm.reply(status=500)
        llm.reply(status=500)
        v = judge(e, ok({"title": "T"}), llm_judge=judge_fn)
        assert not v["passed"] and "judge failed" in v["checks"][-1]["detail"]


def test_an_llm_judge_refused_by_the_spent_budget_is_skipped_not_failed(aws, monkeypatch):
    from evals.judging import default_llm_judge

    from agenthost import config, llm, metering
    from tests.support.fake_llm import FakeLLM

    with FakeLLM() as fake:
        monkeypatch.setenv("AGENTHOST_LLM", "openai:fake-model")
        monkeypatch.setenv("AGENTHOST_LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("AGENTHOST_LLM_API_KEY", "k")
        monkeypatch.setenv("AGENTHOST_LLM_BUDGET_TOKENS", "100")
        config.reset()
        llm.reset()
        metering.reset()
        judge_fn = default_llm_judge()
        e = ev(type="hybrid", expected={"title": "T"}, llm_judge={"criteria": ["has a title"]})
        with metering.turn("evals", "client-1"):
            metering.current().llm(tokens_in=90, tokens_out=20)  # today's usage: 110 tokens, over 100
        with metering.turn("evals", "client-1"):
            v = judge(e, ok({"title": "T"}), llm_judge=judge_fn)
        llm_check = next(c for c in v["checks"] if c["check"] == "llm-judge")
        assert llm_check == {"check": "llm-judge", "skipped": True,
                             "detail": "skipped: the daily LLM budget is spent"}
        assert v["passed"] and v["score"] == 1.0  # scored on the checks that ran
        assert fake.requests == []  # nothing was sent to the model
        # any other judge failure is still a failed check
        fake.reply(status=500).reply(status=500)
        monkeypatch.delenv("AGENTHOST_LLM_BUDGET_TOKENS")
        metering.reset()
        with metering.turn("evals", "client-1"):
            v = judge(e, ok({"title": "T"}), llm_judge=judge_fn)
        llm_check = next(c for c in v["checks"] if c["check"] == "llm-judge")
        assert llm_check["passed"] is False and llm_check["detail"] == "judge failed: LlmError"
        llm.reset()
