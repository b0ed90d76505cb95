"""The local HTTP gateway turns requests into API Gateway v2 events exactly, and maps results back."""

import asyncio
import base64
import json

import httpx
import pytest

from infra.local.gateway import HttpGateway, LambdaApi
from infra.local.runtime import Runtime, apply_environment
from infra.local.stack import load_dotenv
from infra.local.template import Function, HttpRoute, Template, _route_regex

seen: list[dict] = []


def echo_handler(event, context):
    seen.append(event)
    if event["rawPath"] == "/raw":
        return {"hello": "world"}  # no statusCode: API Gateway infers 200 JSON
    if event["rawPath"] == "/boom":
        raise RuntimeError("kaput")
    return {
        "statusCode": 201,
        "headers": {"X-One": "1"},
        "cookies": ["a=1; Path=/", "b=2"],
        "body": base64.b64encode(b"\x00\x01binary").decode(),
        "isBase64Encoded": True,
    }


def make_template() -> Template:
    fn = Function("Echo", "tests.unit.test_local_gateway.echo_handler", 3, 128, {"ECHO_VAR": "x"}, {"Echo", "echo-fn"})
    routes = []
    for method, path in [("POST", "/items/{id}"), ("ANY", "/raw"), ("ANY", "/boom")]:
        rx, spec = _route_regex(path)
        routes.append(HttpRoute(method, path, "Echo", rx, spec))
    return Template({}, {"Echo": fn}, routes, {}, "$request.body.action", {}, {})


@pytest.fixture
def client():
    tpl = make_template()
    runtime = Runtime(tpl, log=lambda m: None)
    gw = HttpGateway(tpl, runtime, log=lambda m: None)
    transport = httpx.ASGITransport(app=gw, client=("10.1.2.3", 5555))
    yield httpx.AsyncClient(transport=transport, base_url="http://gw.local")
    runtime.pool.shutdown(wait=False)


def test_event_fields_and_response_mapping(client):
    seen.clear()

    async def go():
        return await client.post("/items/a%2Fb?x=1&x=2&y=", content=b"\xff\xfe", headers={
            "content-type": "application/octet-stream", "cookie": "s=1; t=2", "X-Multi": "v"})

    r = asyncio.run(go())
    assert r.status_code == 201
    assert r.content == b"\x00\x01binary"
    assert r.headers["x-one"] == "1"
    assert r.headers.get_list("set-cookie") == ["a=1; Path=/", "b=2"]
    ev = seen[-1]
    assert ev["version"] == "2.0" and ev["routeKey"] == "POST /items/{id}"
    assert ev["rawPath"] == "/items/a%2Fb" and ev["pathParameters"] == {"id": "a/b"}
    assert ev["rawQueryString"] == "x=1&x=2&y="
    assert ev["queryStringParameters"] == {"x": "1,2", "y": ""}
    assert ev["cookies"] == ["s=1", "t=2"]
    assert ev["headers"]["x-multi"] == "v" and "cookie" not in ev["headers"]
    assert ev["isBase64Encoded"] is True and base64.b64decode(ev["body"]) == b"\xff\xfe"
    assert ev["requestContext"]["http"]["sourceIp"] == "10.1.2.3"
    assert ev["requestContext"]["http"]["method"] == "POST"


def test_text_body_is_not_base64_and_inferred_response(client):
    seen.clear()
    r = asyncio.run(client.put("/raw", json={"k": "ü"}))
    assert r.status_code == 200 and r.json() == {"hello": "world"}
    assert seen[-1]["isBase64Encoded"] is False and json.loads(seen[-1]["body"]) == {"k": "ü"}


def test_unmatched_method_or_path_is_api_gateway_404(client):
    for method, path in [("GET", "/items/1"), ("GET", "/nothing")]:
        r = asyncio.run(client.request(method, path))
        assert r.status_code == 404 and r.json() == {"message": "Not Found"}


def test_handler_crash_is_500_json(client):
    r = asyncio.run(client.get("/boom"))
    assert r.status_code == 500 and r.json() == {"message": "Internal Server Error"}
    assert "kaput" not in r.text


def test_lambda_api_invoke_by_name_arn_and_errors():
    tpl = make_template()
    runtime = Runtime(tpl, log=lambda m: None)
    api = httpx.AsyncClient(transport=httpx.ASGITransport(app=LambdaApi(runtime, log=lambda m: None)),
                            base_url="http://lambda.local")

    async def go():
        ok = await api.post("/2015-03-31/functions/arn:aws:lambda:us-east-1:1:function:echo-fn:live/invocations",
                            json={"rawPath": "/raw"})
        err = await api.post("/2015-03-31/functions/Echo/invocations", json={"rawPath": "/boom"})
        missing = await api.post("/2015-03-31/functions/Nope/invocations", json={})
        event = await api.post("/2015-03-31/functions/Echo/invocations", json={"rawPath": "/raw"},
                               headers={"X-Amz-Invocation-Type": "Event"})
        return ok, err, missing, event

    ok, err, missing, event = asyncio.run(go())
    assert ok.status_code == 200 and ok.json() == {"hello": "world"}
    assert err.status_code == 200 and err.headers["x-amz-function-error"] == "Unhandled"
    assert err.json()["errorType"] == "RuntimeError"
    assert missing.status_code == 404 and missing.headers["x-amzn-errortype"] == "ResourceNotFoundException"
    assert event.status_code == 202
    runtime.pool.shutdown(wait=True)


def test_dotenv_and_environment_precedence(tmp_path, monkeypatch):
    env_file = tmp_path / ".env"
    env_file.write_text("# comment\nexport DOTENV_A='quoted value'\nDOTENV_B=plain\nALREADY=fromfile\n")
    monkeypatch.setenv("ALREADY", "fromshell")
    monkeypatch.delenv("DOTENV_A", raising=False)
    monkeypatch.delenv("DOTENV_B", raising=False)
    loaded = load_dotenv(env_file)
    import os

    assert sorted(loaded) == ["DOTENV_A", "DOTENV_B"]
    assert os.environ["DOTENV_A"] == "quoted value" and os.environ["ALREADY"] == "fromshell"
    monkeypatch.delenv("DOTENV_A")
    monkeypatch.delenv("DOTENV_B")

    tpl = make_template()
    other = Function("Other", "x.y", 3, 128, {"ECHO_VAR": "different", "ONLY_OTHER": "o"}, {"Other"})
    tpl.functions["Other"] = other
    monkeypatch.delenv("ECHO_VAR", raising=False)
    monkeypatch.delenv("ONLY_OTHER", raising=False)
    warnings = apply_environment(tpl, {"ESSENTIAL": "e"})
    assert any("ECHO_VAR" in w for w in warnings)
    assert os.environ["ONLY_OTHER"] == "o" and os.environ["ESSENTIAL"] == "e"
    for k in ("ECHO_VAR", "ONLY_OTHER", "ESSENTIAL"):
        monkeypatch.delenv(k, raising=False)


ws_seen: list[dict] = []


def ws_handler(event, context):
    ws_seen.append(event)
    if event["requestContext"]["eventType"] == "CONNECT" and (event.get("queryStringParameters") or {}).get("no"):
        return {"statusCode": 403}
    return {"statusCode": 200}


def _ws_gateway():
    from infra.local.gateway import WebSocketGateway

    fn = Function("Ws", "tests.unit.test_local_gateway.ws_handler", 3, 128, {}, {"Ws"})
    tpl = Template({}, {"Ws": fn}, [], {"$connect": "Ws", "$default": "Ws", "$disconnect": "Ws"},
                   "$request.body.action", {}, {})
    runtime = Runtime(tpl, log=lambda m: None)
    return WebSocketGateway(tpl, runtime, log=lambda m: None), runtime


def _ws_session(gateway, messages: list[dict], query: bytes = b"") -> list[dict]:
    """One connection through the gateway's ASGI app: the client's ``messages`` after the connect; what the
    gateway sent back."""
    inbox = [{"type": "websocket.connect"}, *messages]
    sent: list[dict] = []

    async def receive():
        if inbox:
            return inbox.pop(0)
        await asyncio.sleep(3600)  # the socket stays open: only a close or a refusal ends the session

    async def send(message):
        sent.append(message)

    scope = {"type": "websocket", "headers": [(b"host", b"ws.local")], "query_string": query,
             "client": ("10.1.2.3", 5555)}
    asyncio.run(asyncio.wait_for(gateway(scope, receive, send), 30))
    return sent


def test_websocket_messages_reach_their_route_and_the_close_reaches_disconnect():
    gateway, runtime = _ws_gateway()
    try:
        ws_seen.clear()
        sent = _ws_session(gateway, [{"type": "websocket.receive", "text": '{"action": "x"}'},
                                     {"type": "websocket.receive", "bytes": b"raw"},
                                     {"type": "websocket.disconnect", "code": 1001}])
        assert sent == [{"type": "websocket.accept"}]
        kinds = [e["requestContext"]["eventType"] for e in ws_seen]
        assert kinds[0] == "CONNECT" and kinds[-1] == "DISCONNECT" and sorted(kinds[1:-1]) == ["MESSAGE"] * 2
        assert sorted(e["body"] for e in ws_seen[1:-1]) == sorted(['{"action": "x"}', "raw"])
        assert ws_seen[-1]["requestContext"]["disconnectStatusCode"] == 1001
        assert len({e["requestContext"]["connectionId"] for e in ws_seen}) == 1 and gateway.connections == {}
    finally:
        runtime.pool.shutdown(wait=False)


def test_websocket_message_over_128_kb_closes_1009_and_a_refused_connect_closes_1008():
    gateway, runtime = _ws_gateway()
    try:
        ws_seen.clear()
        sent = _ws_session(gateway, [{"type": "websocket.receive", "text": "x" * (128 * 1024 + 1)}])
        assert sent == [{"type": "websocket.accept"}, {"type": "websocket.close", "code": 1009}]
        assert [e["requestContext"]["eventType"] for e in ws_seen] == ["CONNECT", "DISCONNECT"]
        assert ws_seen[-1]["requestContext"]["disconnectStatusCode"] == 1009
        assert ws_seen[-1]["requestContext"]["disconnectReason"] == "Message too big"
        ws_seen.clear()
        assert _ws_session(gateway, [], query=b"no=1") == [{"type": "websocket.close", "code": 1008}]
        assert [e["requestContext"]["eventType"] for e in ws_seen] == ["CONNECT"]
    finally:
        runtime.pool.shutdown(wait=False)
