"""The local stack end to end: real HTTP, WebSocket, @connections, Lambda invoke, DynamoDB."""

import asyncio
import json

import boto3
import httpx
import pytest
import websockets

from tests.support.timing import waited

pytestmark = pytest.mark.e2e


def test_health_through_gateway(stack):
    r = httpx.get(stack.http_url + "/health", timeout=waited(5))
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ok" and set(body) == {"status", "model", "baseUrl", "timestamp"}
    assert r.headers["x-request-id"]


def test_gateway_errors_are_json(stack):
    # no route of the HTTP API claims it: the template's $default route hands it to the agents.json site, whose
    # 404 carries the discovery Link like every answer of the site (API Gateway's own 404 would carry none)
    r = httpx.get(stack.http_url + "/no/such/route", timeout=waited(5))
    assert r.status_code == 404 and r.json()["ok"] is False
    assert r.headers["link"] == '</.well-known/agents.json>; rel="agents"'
    r = httpx.post(stack.http_url + "/health", json={}, timeout=waited(5))
    assert r.status_code == 405 and r.json()["error"] == "method_not_allowed"
    r = httpx.request("GET", stack.http_url + "/health", content=b"x" * (1_048_576 + 10), timeout=waited(5))
    assert r.status_code == 413 and r.json()["error"] == "payload_too_large"


def test_embedded_dynamodb_has_template_table(stack):
    ddb = boto3.client("dynamodb", endpoint_url=stack.dynamodb_url, region_name="us-east-1")
    desc = ddb.describe_table(TableName="agenthost")["Table"]
    assert [k["AttributeName"] for k in desc["KeySchema"]] == ["pk", "sk"]
    ttl = ddb.describe_time_to_live(TableName="agenthost")["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "expires_at"


async def _recv_json(ws, timeout=10.0):
    return json.loads(await asyncio.wait_for(ws.recv(), waited(timeout)))


def test_websocket_welcome_ping_and_connections_api(stack):
    async def scenario():
        async with websockets.connect(stack.ws_url) as ws:
            welcome = await _recv_json(ws)  # pushed by the async follow-up invocation
            assert welcome["type"] == "welcome" and welcome["serverId"]
            await ws.send(json.dumps({"type": "ping", "timestamp": "2024-01-01T00:00:00Z"}))
            assert (await _recv_json(ws))["type"] == "pong"
            await ws.send("{not json")
            err = await _recv_json(ws)
            assert err["error"]["code"] == -32700

            await ws.send(json.dumps(["not", "an", "object"]))
            assert (await _recv_json(ws))["error"]["code"] == -32600
            # an unknown protocol message type gets a notice without an id (never taken for a JSON-RPC reply)
            await ws.send(json.dumps({"type": "no-such-type"}))
            notice = await _recv_json(ws)
            assert notice["type"] == "error" and notice["error"] == "unknown_type" and "id" not in notice

    asyncio.run(scenario())
    mgmt = boto3.client("apigatewaymanagementapi", endpoint_url=stack.ws_management_url, region_name="us-east-1")
    with pytest.raises(mgmt.exceptions.GoneException):
        mgmt.post_to_connection(ConnectionId="bm90LWEtY29ubg==", Data=b"x")


def test_lambda_invoke_sync_async_and_connections(stack):
    lam = boto3.client("lambda", endpoint_url=stack.lambda_url, region_name="us-east-1")
    mgmt = boto3.client("apigatewaymanagementapi", endpoint_url=stack.ws_management_url, region_name="us-east-1")

    def connect_lines():
        return [ln.split()[-1] for ln in list(stack.output) if ln.startswith("WS connect ")]

    async def scenario():
        before = set(connect_lines())
        async with websockets.connect(stack.ws_url) as ws:
            await _recv_json(ws)  # welcome
            # learn our connection id from the gateway's log line for this connect
            new = set(connect_lines()) - before
            assert len(new) == 1
            conn_id = new.pop()
            info = await asyncio.to_thread(mgmt.get_connection, ConnectionId=conn_id)
            assert info["Identity"]["SourceIp"] == "127.0.0.1"
            await asyncio.to_thread(mgmt.post_to_connection, ConnectionId=conn_id, Data=b'{"hello":1}')
            assert await _recv_json(ws) == {"hello": 1}

            out = await asyncio.to_thread(
                lam.invoke, FunctionName="EvalsFunction",
                Payload=json.dumps({"agenthost": "welcome", "connectionId": conn_id}))
            assert json.loads(out["Payload"].read()) == {"delivered": True}
            assert (await _recv_json(ws))["type"] == "welcome"

            out = await asyncio.to_thread(
                lam.invoke, FunctionName="agenthost-evals", InvocationType="Event",
                Payload=json.dumps({"agenthost": "welcome", "connectionId": conn_id}))
            assert out["StatusCode"] == 202
            assert (await _recv_json(ws))["type"] == "welcome"

            await asyncio.to_thread(mgmt.delete_connection, ConnectionId=conn_id)
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), waited(5))

    asyncio.run(scenario())
    with pytest.raises(lam.exceptions.ResourceNotFoundException):
        lam.invoke(FunctionName="NoSuchFunction", Payload=b"{}")


def test_stack_prints_urls_and_secrets_and_stops_cleanly():
    from tests.support.stack import start_stack

    own = "whs_" + "9" * 64  # the user's own secret (from the shell or .env): used, never printed
    s = start_stack({"AGENTHOST_WEREWOLF_API_KEY": own})
    try:
        text = s.log_text()
        assert s.http_url in text and s.ws_url in text
        assert "AGENTHOST_OLYMPICS_SECRET=whs_" in text  # the built-in local default is shown for signing
        assert own not in text and "AGENTHOST_WEREWOLF_API_KEY=<set by you, not shown>" in text
        assert httpx.get(s.http_url + "/health", timeout=waited(5)).status_code == 200
    finally:
        code = s.stop()
    assert code == 0
    assert "stopped" in s.log_text()


def test_a_lost_table_answers_503_and_comes_back_when_the_database_does():
    """The local database restarts empty (moto's reset: every table gone). Until the stack notices, routes answer
    as in any outage (503 with Retry-After, the webhook a valid turn); then the stack creates the table again
    from the template and seeds it, and the same routes answer as before."""
    import time

    from tests.support.olympics import SECRET, signed, turn_body
    from tests.support.stack import start_stack

    s = start_stack({"AGENTHOST_OLYMPICS_SECRET": SECRET})
    try:
        search = s.http_url + "/.well-known/agents/api/search?q=mug"
        assert httpx.get(search, timeout=waited(5)).json()["data"]
        ddb = boto3.client("dynamodb", endpoint_url=s.dynamodb_url, region_name="us-east-1")
        httpx.post(s.dynamodb_url + "/moto-api/reset", timeout=waited(5)).raise_for_status()
        assert "agenthost" not in ddb.list_tables()["TableNames"]
        r = httpx.post(s.http_url + "/agent/run/start", json={"task": "find the price"}, timeout=waited(5))
        if r.status_code != 200:  # the stack may have restored the table already
            assert r.status_code == 503 and r.headers["retry-after"].isdigit(), r.text
        raw, headers = signed(turn_body())
        turn = httpx.post(s.http_url + "/olympics/turn", content=raw, headers=headers, timeout=waited(5))
        assert turn.status_code == 200 and turn.json()["actions"]
        deadline = time.monotonic() + waited(5.0)
        while time.monotonic() < deadline:  # a run's start always writes to the table (search may be cached)
            r = httpx.post(s.http_url + "/agent/run/start", json={"task": "find the price"}, timeout=waited(5))
            if r.status_code == 200:
                break
            assert r.status_code == 503, r.text
            time.sleep(0.2)
        assert r.status_code == 200, r.text
        assert "agenthost" in ddb.list_tables()["TableNames"]
        seeded = ddb.query(TableName="agenthost", KeyConditionExpression="pk = :pk",
                           ExpressionAttributeValues={":pk": {"S": "CATALOG#default"}}, Select="COUNT")
        assert seeded["Count"] > 0  # the catalog is seeded again
        assert httpx.get(search, timeout=waited(5)).json()["data"]
        assert httpx.post(s.http_url + "/.well-known/agents/api/session", timeout=waited(5)).status_code in (200, 201)
        assert "was missing" in s.log_text()
    finally:
        s.stop()
