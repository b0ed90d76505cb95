"""GET /usage and `make usage`: filters, cost arithmetic against hand-computed figures, API key."""

from __future__ import annotations

import pytest

from agenthost import metering
from agenthost.metering import usage_key
from tests.support.apigw import call

KEY = "usage-test-key-0123456789"


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.delenv("AGENTHOST_PRICES", raising=False)
    monkeypatch.setenv("AGENTHOST_USAGE_API_KEY", KEY)
    metering.reset()
    yield
    metering.reset()


def seed(store, day, agent, protocol, **counters):
    store.update(**usage_key(day, agent, protocol),
                 set_={"agent": agent, "protocol": protocol, "day": day, "arch": "arm64",
                       "model": counters.pop("model", "gpt-4o-mini")},
                 add=counters)


@pytest.fixture
def seeded(aws):
    # 1000 webhook turns, 20 ms each at 512 MB, 2 WRU + 1 RRU each, gpt-4o-mini 1M in / 100k out
    seed(aws, "2026-11-20", "agent-a", "olympics", turns=1000, mb_ms=1000 * 20 * 512, ddb_wru=2000,
         ddb_rru=1000, tokens_in=1_000_000, tokens_out=100_000, llm_calls=900, fallbacks=100,
         duration_ms=20_000)
    seed(aws, "2026-11-21", "agent-a", "werewolf", turns=10, mb_ms=10 * 100 * 256, ddb_wru=20, ddb_rru=10,
         model="deterministic", fallbacks=10, duration_ms=1000)
    seed(aws, "2026-11-21", "agent-a#b", "olympics", turns=5, mb_ms=5 * 1024, model="deterministic")
    seed(aws, "2026-11-21", "agent-c", "evals", turns=4, ws_messages=8, ws_connection_minutes=60,
         mb_ms=4 * 1024 * 1000, model="deterministic")
    seed(aws, "2026-11-10", "agent-a", "olympics", turns=7, mb_ms=7 * 512)
    return aws


def get(query=None, key=KEY):
    from usage.app import handler

    headers = {"x-api-key": key} if key else {}
    return call(handler, "GET", "/usage", query=query, headers=headers)


def test_cost_arithmetic_matches_hand_computed_figures(seeded):
    r = get({"from": "2026-11-20", "to": "2026-11-20"})
    assert r.status == 200, r.text
    body = r.json()
    [row] = body["rows"]
    cost = row["cost"]
    # 1000 * 20 ms * 0.5 GB = 10 GB-s at $0.0000133334
    assert cost["lambda_compute"] == pytest.approx(10 * 0.0000133334)
    assert cost["lambda_requests"] == pytest.approx(1000 * 0.20 / 1e6)
    assert cost["api"] == pytest.approx(1000 * 1.00 / 1e6)
    assert cost["dynamodb"] == pytest.approx(2000 * 0.625 / 1e6 + 1000 * 0.125 / 1e6)
    assert cost["llm"] == pytest.approx(0.15 + 0.1 * 0.60)
    infra = 10 * 0.0000133334 + 0.0002 + 0.001 + 0.00125 + 0.000125
    assert cost["infra"] == pytest.approx(infra)
    assert cost["total"] == pytest.approx(infra + 0.21)
    assert row["infra_usd_per_million_turns"] == pytest.approx(infra / 1000 * 1e6, rel=1e-6)
    assert row["fallback_rate"] == 0.1 and row["avg_duration_ms"] == 20
    assert body["totals"]["cost"]["total"] == pytest.approx(infra + 0.21)


def test_websocket_protocol_is_priced_by_messages_and_connection_minutes(seeded):
    body = get({"from": "2026-11-21", "to": "2026-11-21", "protocol": "evals"}).json()
    [row] = body["rows"]
    assert row["cost"]["api"] == pytest.approx(8 * 1.00 / 1e6 + 60 * 0.25 / 1e6)
    assert row["cost"]["lambda_compute"] == pytest.approx(4 * 1.0 * 0.0000133334)
    assert row["cost"]["llm"] == 0


def test_filters_by_agent_protocol_and_date_range(seeded):
    body = get({"agent": "agent-a", "from": "2026-11-01", "to": "2026-11-21"}).json()
    assert [(r["date"], r["agent"], r["protocol"]) for r in body["rows"]] == [
        ("2026-11-10", "agent-a", "olympics"), ("2026-11-20", "agent-a", "olympics"),
        ("2026-11-21", "agent-a", "werewolf")]  # not agent-a#b: the agent filter is exact
    assert body["filters"] == {"agent": "agent-a", "protocol": None}
    assert body["totals"]["turns"] == 1017
    assert {p["protocol"]: p["turns"] for p in body["by_protocol"]} == {"olympics": 1007, "werewolf": 10}
    body = get({"protocol": "olympics", "from": "2026-11-21", "to": "2026-11-21"}).json()
    assert [(r["agent"], r["turns"]) for r in body["rows"]] == [("agent-a#b", 5)]
    body = get({"from": "2026-11-11", "to": "2026-11-19"}).json()
    assert body["rows"] == [] and body["totals"]["turns"] == 0 and body["totals"]["cost"]["total"] == 0


def test_default_range_is_the_last_seven_days_and_includes_todays_turns(aws, rollup):
    with metering.turn("olympics", "today-agent") as t:
        t.llm(tokens_in=100, tokens_out=10, model="gpt-4o-mini")
    rollup()
    body = get().json()
    from datetime import date, timedelta

    assert date.fromisoformat(body["to"]) - date.fromisoformat(body["from"]) == timedelta(days=6)
    [row] = body["rows"]
    assert (row["agent"], row["turns"], row["tokens_in"], row["llm_calls"]) == ("today-agent", 1, 100, 1)
    assert row["cost"]["llm"] == pytest.approx(100 * 0.15 / 1e6 + 10 * 0.60 / 1e6)


@pytest.mark.parametrize("query,message", [
    ({"from": "2026-13-01"}, "from must be a date as YYYY-MM-DD"),
    ({"to": "yesterday"}, "to must be a date as YYYY-MM-DD"),
    ({"from": "2026-11-21", "to": "2026-11-20"}, "is after to"),
    ({"from": "2024-01-01", "to": "2026-01-01"}, "at most 366"),
])
def test_bad_filters_get_400_naming_the_problem(aws, query, message):
    r = get(query)
    assert r.status == 400
    assert r.json()["error"] == "bad_request" and message in r.json()["message"]


def test_api_key_is_required_when_deployed(aws, monkeypatch):
    assert get(key=None).status == 401
    r = get(key="wrong")
    assert r.status == 401 and r.json()["message"] == "invalid API key" and KEY not in r.text
    from usage.app import handler

    ok = call(handler, "GET", "/usage", headers={"authorization": f"Bearer {KEY}"})
    assert ok.status == 200
    monkeypatch.delenv("AGENTHOST_USAGE_API_KEY")
    r = get(key=None)
    assert r.status == 503 and "UsageApiKeyParam" in r.json()["message"]
    monkeypatch.setenv("AGENTHOST_LOCAL", "true")
    from agenthost import config

    config.reset()
    assert get(key=None).status == 200  # the local stack without a key is open


def test_other_methods_get_405(aws):
    from usage.app import handler

    r = call(handler, "POST", "/usage", headers={"x-api-key": KEY}, json_body={})
    assert r.status == 405 and r.json()["error"] == "method_not_allowed"


def test_price_overrides_change_the_estimate(seeded, monkeypatch):
    monkeypatch.setenv("AGENTHOST_PRICES", '{"http_api": {"requests_per_million": 2.0}}')
    metering.reset()
    [row] = get({"from": "2026-11-20", "to": "2026-11-20"}).json()["rows"]
    assert row["cost"]["api"] == pytest.approx(1000 * 2.0 / 1e6)
    assert row["cost"]["lambda_requests"] == pytest.approx(1000 * 0.20 / 1e6)  # the rest is kept


def test_make_usage_prints_a_table(seeded, capsys):
    from usage.cli import main

    assert main(["--direct", "--from", "2026-11-20", "--to", "2026-11-21"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "usage 2026-11-20 .. 2026-11-21"
    assert out[1].split()[:4] == ["date", "agent", "protocol", "turns"]
    rows = [line.split() for line in out if line.startswith("2026-")]
    assert [(r[1], r[2], r[3]) for r in rows] == [("agent-a", "olympics", "1000"), ("agent-a", "werewolf", "10"),
                                                 ("agent-a#b", "olympics", "5"), ("agent-c", "evals", "4")]
    total = next(line.split() for line in out if line.startswith("total") and " * " in f" {line} "
                 and line.split()[2] == "*")
    assert total[3] == "1019"
    assert any(line.startswith("prices:") for line in out)


def test_make_usage_reports_an_unreachable_endpoint(capsys):
    from usage.cli import main

    with pytest.raises(SystemExit, match="cannot reach"):
        main(["--url", "http://127.0.0.1:9/usage"])
