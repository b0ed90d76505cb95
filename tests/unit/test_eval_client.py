"""The evaluation client's protocol side against a scripted server (loopback websockets)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json

import websockets

from infra.eval_client.client import ClientConfig, EvalClient
from infra.eval_client.tools import ToolError, run_tool
from tests.support.timing import waited

SECRET = "client-secret"


def test_devtools_handshake_progress_result_ping_and_reconnect():
    seen: list[list[dict]] = []

    async def handler(ws):
        conn = []
        seen.append(conn)
        first = len(seen) == 1

        async def recv():
            msg = json.loads(await asyncio.wait_for(ws.recv(), waited(5)))
            conn.append(msg)
            return msg

        await asyncio.sleep(0.2)
        assert conn == []  # the client said nothing before welcome
        await ws.send(json.dumps({"type": "welcome", "serverId": "s", "version": "1", "timestamp": "t"}))
        reg = await recv()
        assert reg["type"] == "register" and "secretKey" not in reg
        await ws.send(json.dumps({"type": "registration_ack", "clientId": reg["clientId"],
                                  "status": "auth_required", "challenge": "abc"}))
        verify = await recv()
        want = hmac.new(SECRET.encode(), b"abc", hashlib.sha256).hexdigest()
        assert verify == {"type": "auth_verify", "clientId": reg["clientId"], "verified": True, "proof": want}
        await ws.send(json.dumps({"type": "registration_ack", "clientId": reg["clientId"], "status": "accepted",
                                  "evaluationsCount": 1}))
        assert (await recv())["type"] == "ready"
        if first:
            ws.transport.abort()
            return  # drop the connection without a close frame: the client must come back
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "evaluate", "id": "11111111-2222-3333-4444-555555555555",
                                  "params": {"evaluationId": "e1", "tool": "chat", "url": "http://x.test/",
                                             "input": {"message": "hi"}, "timeout": 5000}}))
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "evaluate", "id": "bad-tool",
                                  "params": {"evaluationId": "e2", "tool": "no_such_tool", "url": "",
                                             "timeout": 5000}}))
        while True:
            try:
                await recv()
            except (websockets.ConnectionClosed, TimeoutError):
                return

    def runner(params, progress):
        if params["tool"] == "no_such_tool":
            raise ToolError("Tool not available: no_such_tool")
        for p in (0.2, 0.3, 0.5):
            progress(p, f"at {p}")
        import time

        pinged = time.monotonic() + waited(0.3)  # the tool runs until the server saw a heartbeat (every 0.3 s)
        while not any(m.get("type") == "ping" for m in seen[-1]) and time.monotonic() < pinged:
            time.sleep(0.05)
        return {"status": "success", "output": {"response": "hello"}, "executionTime": 3}

    async def scenario():
        async with websockets.serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            client = EvalClient(ClientConfig(url=f"ws://127.0.0.1:{port}", client_id="cid-1", secret=SECRET,
                                             handshake="devtools", ping_interval_s=0.3, backoff_s=(0.1, 0.4),
                                             stop_after=2), runner=runner)
            return await asyncio.wait_for(client.run(), waited(20))

    stats = asyncio.run(scenario())
    assert len(seen) == 2 and stats.connects == 2  # reconnected after the unclean close
    assert seen[1][0]["clientId"] == "cid-1"  # re-registered with the same id
    msgs = seen[1]
    progress = [m["progress"] for m in msgs if m.get("type") == "status" and m["evaluationId"] == "e1"]
    assert progress == [0.1, 0.2, 0.3, 0.5, 1.0]
    result = next(m for m in msgs if m.get("id") == "11111111-2222-3333-4444-555555555555")
    assert result["result"]["output"] == {"response": "hello"}
    error = next(m for m in msgs if m.get("id") == "bad-tool")
    assert error["error"]["code"] == -32000 and "no_such_tool" in error["error"]["data"]["error"]
    assert stats.results == 1 and stats.errors == 1
    assert any(m.get("type") == "ping" and m.get("timestamp") for m in msgs)


def test_spec_handshake_rejection_stops_without_reconnecting():
    connects = []

    async def handler(ws):
        connects.append(1)
        await ws.send(json.dumps({"type": "welcome"}))
        reg = json.loads(await ws.recv())
        assert reg["secretKey"] == SECRET and reg["capabilities"]["tools"]
        await ws.send(json.dumps({"type": "registration_ack", "clientId": reg["clientId"], "status": "rejected",
                                  "reason": "Invalid secret key"}))
        await ws.close(1008)

    async def scenario():
        async with websockets.serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            client = EvalClient(ClientConfig(url=f"ws://127.0.0.1:{port}", secret=SECRET, backoff_s=(0.1, 0.2)))
            await asyncio.wait_for(client.run(), waited(10))
            return client

    client = asyncio.run(scenario())
    assert client.rejected == "Invalid secret key" and connects == [1]


def test_unknown_tool_fails_before_touching_the_browser():
    try:
        run_tool(None, {"tool": "teleport"}, lambda p, m: None)  # type: ignore[arg-type]
    except ToolError as exc:
        assert "teleport" in str(exc)
    else:
        raise AssertionError("expected ToolError")


def test_llm_extraction_when_configured_else_deterministic(monkeypatch):
    from agenthost import config
    from agenthost.deadline import Deadline
    from infra.eval_client.extract import fill
    from infra.eval_client.tools import _llm_extract
    from tests.support.fake_llm import FakeLLM

    data = {"url": "http://x.test/", "title": "Pancakes", "headings": [{"level": 1, "text": "Pancakes"}],
            "pairs": [["Prep time", "15 minutes"]], "lists": [], "tables": [], "paragraphs": [], "links": []}
    schema = {"type": "object", "properties": {"title": {"type": "string"}, "prepTime": {"type": "string"}},
              "required": ["title"]}
    assert _llm_extract(data, schema, "", Deadline.after(10)) is None  # AGENTHOST_LLM=none
    assert fill(schema, data) == {"title": "Pancakes", "prepTime": "15 minutes"}
    with FakeLLM() as llm:
        monkeypatch.setenv("AGENTHOST_LLM", "openai:fake-model")
        monkeypatch.setenv("AGENTHOST_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("AGENTHOST_LLM_API_KEY", "k")
        config.reset()
        llm.reply({"title": "Pancakes (LLM)", "prepTime": "15 min"})
        assert _llm_extract(data, schema, "get it", Deadline.after(10)) == {"title": "Pancakes (LLM)",
                                                                             "prepTime": "15 min"}
        assert "Prep time" in json.dumps(llm.requests[0])
        llm.reply({"prepTime": 5})  # does not validate: the deterministic extraction answers instead
        assert _llm_extract(data, schema, "", Deadline.after(10)) is None


def test_messages_over_32_kb_go_out_as_continuation_frames():
    from infra.eval_client.client import MAX_FRAME_BYTES, fragments

    sent: list = []

    class Socket:  # records what the client hands to websockets (an iterable is sent as one fragmented message)
        async def send(self, data):
            sent.append(data)

    client = EvalClient(ClientConfig(url="ws://unused"), runner=lambda p, progress: {})
    small = {"type": "ping", "timestamp": "t"}
    big = {"jsonrpc": "2.0", "id": "r1", "result": {"output": {"text": "é" * 20_000 + "x" * 60_000}}}
    asyncio.run(client._send(Socket(), small))
    asyncio.run(client._send(Socket(), big))
    assert sent[0] == json.dumps(small, separators=(",", ":"))
    size = len(json.dumps(big, separators=(",", ":")).encode())
    assert isinstance(sent[1], list) and len(sent[1]) == -(-size // MAX_FRAME_BYTES) > 1
    assert all(len(part.encode()) <= MAX_FRAME_BYTES for part in sent[1])
    assert json.loads("".join(sent[1])) == big
    assert client.stats.sent == 2 and client.stats.fragmented == 1
    # pieces never split a character
    assert "".join(fragments("€" * 20_000, 1000)) == "€" * 20_000
    assert all(len(p.encode()) <= 1000 for p in fragments("€" * 20_000, 1000))


def test_printed_urls_hide_tokens():
    from infra.eval_client.__main__ import redact_url

    assert redact_url("wss://abc.execute-api.us-east-1.amazonaws.com/prod?token=s3cr3t&x=1") == \
        "wss://abc.execute-api.us-east-1.amazonaws.com/prod?token=***&x=1"
    assert "pw" not in redact_url("ws://user:pw@host/local")
    assert redact_url("ws://127.0.0.1:3001/local") == "ws://127.0.0.1:3001/local"


def test_the_console_command_never_prints_the_connect_token(capsys):
    import infra.eval_client.client as client_module
    from infra.eval_client.__main__ import main

    # the client is stopped before it connects: only what the command prints matters here
    real_run = client_module.EvalClient.run

    async def run_once(self):
        self.stop()
        return await real_run(self)

    client_module.EvalClient.run = run_once
    try:
        main(["--url", "ws://127.0.0.1:9/local?token=top-secret-token", "--secret", "s"])
    finally:
        client_module.EvalClient.run = real_run
    out = capsys.readouterr()
    assert "top-secret-token" not in out.out + out.err and "token=***" in out.out


def test_extraction_gives_exactly_the_schema_and_null_for_what_the_page_does_not_state():
    from infra.eval_client.extract import fill

    data = {"url": "http://x.test/", "title": "Blue Mug", "headings": [{"level": 1, "text": "Blue Mug"}],
            "pairs": [["Price", "$8.50"], ["In stock", "yes"], ["Colour", "Blue"]],
            "lists": [{"heading": "Related", "id": "", "cls": "", "items": ["Red Mug", "Tea Towel"]},
                      {"heading": "Reviews", "id": "", "cls": "", "items": ["Great mug"]}],
            "tables": [], "paragraphs": ["A sturdy stoneware mug for tea and coffee lovers everywhere."],
            "links": []}
    schema = {"type": "object", "properties": {
        "name": {"type": "string"}, "price": {"type": "number"}, "inStock": {"type": "boolean"},
        "colour": {"type": "string", "enum": ["Red", "Blue"]}, "weight": {"type": "number"},
        "warranty": {"type": "string"}, "giftWrap": {"type": "boolean"}, "sizes": {"type": "array"}}}
    out = fill(schema, data)
    assert set(out) == set(schema["properties"])  # nothing more, nothing less
    assert out["name"] == "Blue Mug" and out["price"] == 8.5 and out["inStock"] is True and out["colour"] == "Blue"
    # not on the page: null (no unrelated paragraph, no false for an unknown boolean, no unrelated list)
    assert out["weight"] is None and out["warranty"] is None and out["giftWrap"] is None and out["sizes"] is None


def test_a_login_uses_the_credentials_the_evaluation_gives():
    from agenthost.agent import DeterministicPolicy, deadline_in
    from agenthost.agent.aria import from_aria
    from infra.eval_client.tools import credentials_text

    inp = {"task": "Log in and open your orders.", "credentials": {"username": "ada", "password": "Tr1cky-Pass"}}
    text = inp["task"] + credentials_text(inp)
    page = from_aria('- textbox "Username"\n- textbox "Password"\n- button "Sign in"')
    d = DeterministicPolicy().decide(text, page, [], {}, None, deadline_in(5))
    typed = {a.args["element"]: a.args["text"] for a in d.actions if a.tool == "type"}
    assert typed == {"Username": "ada", "Password": "Tr1cky-Pass"}  # exactly as given, no generated password
    flat = credentials_text({"objective": "x", "email": "ada@example.com", "password": "pw-1234"})
    assert flat == "\nEmail: ada@example.com\nPassword: pw-1234"


def test_the_browser_agent_step_budget_comes_from_the_input_else_the_arena_s_turn_count():
    from infra.eval_client.tools import DEFAULT_MAX_STEPS, _max_steps

    assert DEFAULT_MAX_STEPS == 20  # a 14-step task (a maze of linked pages) fits, as in the arena
    assert _max_steps({}) == DEFAULT_MAX_STEPS
    assert _max_steps({"max_steps": 5}) == 5 and _max_steps({"maxSteps": 12}) == 12
    assert _max_steps({"max_steps": 0}) == 1 and _max_steps({"maxSteps": 10_000}) == 50
    assert _max_steps({"max_steps": "9"}) == DEFAULT_MAX_STEPS and _max_steps({"max_steps": True}) == DEFAULT_MAX_STEPS
