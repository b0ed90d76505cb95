"""The admin HTTP API through API Gateway v2 events (moto DynamoDB)."""

from __future__ import annotations

import json

import pytest

from tests.support.apigw import call


@pytest.fixture
def admin(aws, monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTHOST_EVALS_DIR", str(tmp_path))
    monkeypatch.setenv("AGENTHOST_EVALS_ADMIN_KEY", "admin-key")
    from evals import app as evals_app
    from evals.runtime import packaged_catalog

    packaged_catalog.cache_clear()
    return evals_app.handler


KEY = {"x-api-key": "admin-key"}
DEF = {"id": "up-1", "target": {"url": "http://x.test/"}, "tool": "chat", "input": {"message": "hi"}}


def test_api_key_required(admin):
    assert call(admin, "GET", "/evals/clients").status == 401
    assert call(admin, "GET", "/evals/clients", headers={"x-api-key": "nope"}).status == 401
    r = call(admin, "GET", "/evals/clients", headers=KEY)
    assert r.status == 200 and r.json() == {"clients": []}


def test_deployed_without_a_key_refuses(aws, monkeypatch):
    monkeypatch.delenv("AGENTHOST_EVALS_ADMIN_KEY", raising=False)
    monkeypatch.setenv("AGENTHOST_LOCAL", "false")
    from evals import app as evals_app

    r = call(evals_app.handler, "GET", "/evals/report")
    assert r.status == 503 and "not configured" in r.json()["message"]


def test_upload_definitions_validates_and_lists(admin):
    r = call(admin, "POST", "/evals/definitions", json_body={"id": "x"}, headers=KEY)
    assert r.status == 400 and "target: Field required" in r.json()["message"]
    r = call(admin, "POST", "/evals/definitions", body="id: [oops", headers=KEY, query="category=chat")
    assert r.status == 400 and "invalid YAML" in r.json()["message"]
    r = call(admin, "POST", "/evals/definitions", json_body=DEF, headers=KEY, query="category=chat")
    assert r.status == 201 and r.json() == {"stored": "evaluation", "id": "up-1", "category": "chat"}
    listed = call(admin, "GET", "/evals/definitions", headers=KEY).json()
    assert [e["id"] for e in listed["evaluations"]] == ["up-1"] and listed["evaluations"][0]["category"] == "chat"


def test_clients_trigger_and_reports(admin, aws):
    from evals.common import CLIENT_INDEX_PK

    call(admin, "POST", "/evals/definitions", json_body=DEF, headers=KEY)
    assert call(admin, "GET", "/evals/clients/nobody", headers=KEY).status == 404
    assert call(admin, "POST", "/evals/clients/nobody/run", headers=KEY).status == 404
    # a client as registration leaves it (no open connection: triggering only resets state)
    aws.put({"pk": "CLIENT#c1", "sk": "META", "clientId": "c1", "connectionId": "", "ready": False,
             "inflight": 0, "maxConcurrency": 1})
    aws.put({"pk": CLIENT_INDEX_PK, "sk": "c1"})
    aws.put({"pk": "CLIENT#c1", "sk": "EVAL#up-1", "evalId": "up-1", "category": "chat", "status": "completed",
             "passed": True, "score": 1.0, "def": DEF, "attempts": 1, "rpcIds": [], "history": []})
    one = call(admin, "GET", "/evals/clients/c1", headers=KEY).json()
    assert one["passRate"] == 1.0 and one["evaluations"][0]["status"] == "completed"
    report = call(admin, "GET", "/evals/report", headers=KEY).json()
    assert report["categories"] == [{"category": "chat", "total": 1, "finished": 1, "passed": 1, "timeouts": 0,
                                     "errors": 0, "passRate": 1.0}]
    page = call(admin, "GET", "/evals/report.html", headers=KEY)
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assert "<svg" in page.text and "chat" in page.text and "100%" in page.text
    r = call(admin, "POST", "/evals/clients/c1/run", json_body={"evaluationId": "up-1"}, headers=KEY)
    assert r.status == 200 and r.json()["triggered"] == 1 and r.json()["connected"] is False
    assert aws.get("CLIENT#c1", "EVAL#up-1")["status"] == "pending"
    assert call(admin, "POST", "/evals/clients/c1/run", body="{bad", headers=KEY).status == 400
    assert json.loads(call(admin, "GET", "/evals/nope", headers=KEY).body)["error"] == "not_found"


YAML_DEF = 'id: y-1\ntarget: {url: "http://x.test/"}\ntool: chat\ninput: {message: hi}\nmetadata:\n  '
JSON_DEF = '{"id":"j-1","target":{"url":"http://x.test/"},"tool":"chat","input":{"message":"hi"},"metadata":{"x":%s}}'


@pytest.mark.parametrize("value,why", [
    ("9" * 5000, "cannot be read"),        # past Python's digit limit for int(): PyYAML's constructor raises
    ("9" * 60, "cannot be stored"),        # an int, but DynamoDB stores 38 digits at most
    ("0x" + "f" * 5000, "cannot be stored"),
    ("-9" + "9" * 45, "cannot be stored"),
    (".nan", "cannot be stored"),
    (".inf", "cannot be stored"),
    ("2020-13-45", "cannot be read"),      # matched as a date, impossible as one
    ("!!binary AAAA", "cannot be stored"),
    ("!!set {a, b}", "cannot be stored"),
])
def test_a_yaml_value_that_cannot_be_read_or_stored_is_a_400_naming_it(admin, value, why):
    r = call(admin, "POST", "/evals/definitions", body=YAML_DEF + f"x: {value}\n", headers=KEY)
    assert r.status == 400, r.text[:300]
    message = r.json()["message"]
    assert why in message and ("metadata.x" in message or "cannot be read" in message)
    assert "set_int_max_str_digits" not in message


@pytest.mark.parametrize("value", ["9" * 5000, "9" * 60, "1e99999", "-1e99999", "NaN"])
def test_the_same_numbers_as_json_are_a_400_too(admin, value):
    r = call(admin, "POST", "/evals/definitions", body=JSON_DEF % value,
             headers={**KEY, "content-type": "application/json"})
    assert r.status == 400 and r.json()["error"] == "bad_request", r.text[:300]


def test_yaml_dates_are_stored_as_the_text_they_were(admin):
    r = call(admin, "POST", "/evals/definitions", body=YAML_DEF + "x: 2020-01-01\n  y: 12\n", headers=KEY)
    assert r.status == 201, r.text[:300]
    listed = call(admin, "GET", "/evals/definitions", headers=KEY).json()
    assert [e["id"] for e in listed["evaluations"]] == ["y-1"] and not listed["errors"]


def test_a_definition_too_large_to_store_is_a_400(admin):
    big = "x" * 450_000  # under the 1 MB body limit, over DynamoDB's 400 KB item
    r = call(admin, "POST", "/evals/definitions", body=YAML_DEF + f"note: {big}\n", headers=KEY)
    assert r.status == 400 and "cannot be stored" in r.json()["message"], r.text[:300]
