"""Operations in template.yaml: dashboard, alarms, optional SNS topic, log retention, cost report route."""

from __future__ import annotations

import json
import re
import subprocess

from infra.local.template import ROOT, load_template, parse

PROTOCOLS = {"olympics", "werewolf", "runs", "agents_api", "evals"}


def resources(kind: str) -> dict:
    return {k: v for k, v in load_template()["Resources"].items() if v["Type"] == kind}


def test_every_function_has_a_log_group_with_retention():
    tpl = load_template()
    groups = {json.dumps(v["Properties"]["LogGroupName"]): v["Properties"]
              for v in resources("AWS::Logs::LogGroup").values()}
    for name in resources("AWS::Serverless::Function"):
        key = json.dumps({"Fn::Sub": f"/aws/lambda/${{{name}}}"})
        assert key in groups, f"{name} has no log group"
        assert groups[key]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    assert tpl["Parameters"]["LogRetentionDays"]["Default"] == 30


def test_dashboard_shows_each_protocols_operations():
    [dash] = resources("AWS::CloudWatch::Dashboard").values()
    body = json.loads(re.sub(r"\$\{[^}]+\}", "X", dash["Properties"]["DashboardBody"]["Fn::Sub"]))
    shown: dict[str, set[str]] = {}
    stats: dict[str, set[str]] = {}
    for widget in body["widgets"]:
        props = widget["properties"]
        for metric in props["metrics"]:
            if metric[0] == "agenthost":
                dims = dict(zip(metric[2:-1:2], metric[3:-1:2], strict=True))
                shown.setdefault(metric[1], set()).add(dims["protocol"])
                stats.setdefault(metric[1], set()).add(metric[-1].get("stat", props["stat"]))
    for name in ("Turns", "Errors", "Duration", "Fallback", "LlmErrors", "LlmLatency", "DynamoDBThrottles"):
        assert shown.get(name) == PROTOCOLS, name
    assert "p99" in stats["Duration"] and "Average" in stats["Fallback"]


def test_alarms_on_errors_throttles_and_fallback_rate_notify_the_optional_topic():
    tpl = load_template()
    alarms = resources("AWS::CloudWatch::Alarm")
    assert {"TurnErrorsAlarm", "LambdaErrorsAlarm", "ThrottlesAlarm", "FallbackRateAlarm"} <= set(alarms)
    for alarm in alarms.values():
        props = alarm["Properties"]
        assert props["AlarmActions"] == {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}],
                                                    {"Ref": "AWS::NoValue"}]}
        metrics = props["Metrics"]
        assert len(metrics) <= 10 and sum(1 for m in metrics if m.get("ReturnData")) == 1
    assert tpl["Parameters"]["AlarmTopicArn"]["Default"] == ""
    assert alarms["FallbackRateAlarm"]["Condition"] == "HasLlm"  # with no LLM every turn is deterministic
    used = {m["MetricStat"]["Metric"]["MetricName"] for m in alarms["FallbackRateAlarm"]["Properties"]["Metrics"]
            if "MetricStat" in m}
    assert used == {"Fallback", "Turns"}


def test_budgets_and_prices_reach_every_function_and_usage_is_routed():
    tpl = parse(parameter_overrides={"LlmBudgetTokens": "50000", "PriceOverrides": '{"http_api": {}}'})
    for fn in tpl.functions.values():
        if fn.package_type == "Zip":
            assert fn.environment["AGENTHOST_LLM_BUDGET_TOKENS"] == "50000"
            assert fn.environment["AGENTHOST_PRICES"] == '{"http_api": {}}'
    assert any(r.path == "/usage" and r.function == "UsageFunction" for r in tpl.http_routes)


def test_zip_only_template_for_builds_without_docker(tmp_path):
    """`make build` without Docker builds from a copy without image functions; the copy keeps every zip
    function and the layer, and nothing in it refers to the left-out browser function any more."""
    sam_python = ROOT / ".venv-sam" / "bin" / "python"  # the SAM CLI's interpreter (make test installs it)
    out = tmp_path / "zip.json"
    run = subprocess.run([str(sam_python), "infra/zip_template.py", "template.yaml", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "left out BrowserFunction, BrowserLogGroup" in run.stdout
    doc = json.loads(out.read_text())
    res = doc["Resources"]
    assert "BrowserFunction" not in res and "BrowserLogGroup" not in res
    zips = {k for k, v in load_template()["Resources"].items()
            if v["Type"] == "AWS::Serverless::Function" and v["Properties"].get("PackageType") != "Image"}
    assert zips and zips <= set(res) and "CoreLayer" in res and "Table" in res
    text = json.dumps(doc)
    assert '"Ref": "BrowserFunction"' not in text and "BrowserFunction.Arn" not in text
    assert "BrowserFunction-needs-docker" in text  # callers' settings point at a clear placeholder
