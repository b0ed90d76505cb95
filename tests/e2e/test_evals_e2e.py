"""The evaluation server through the local stack: real WebSocket API, @connections, Lambda invokes,
the local Scheduler's one-time timers, DynamoDB and the admin HTTP API; our client with real Chromium."""

from __future__ import annotations

import asyncio
import time
import uuid

import httpx
import pytest

from infra.local.defaults import LOCAL_SECRETS
from tests.support.evals import PagesServer, Scripted, chat_eval, client_state, upload_client, wait_finished

pytestmark = pytest.mark.e2e
SECRET = LOCAL_SECRETS["AGENTHOST_EVALS_SECRET"]


@pytest.fixture(scope="module")
def pages():
    server = PagesServer()
    yield server
    server.close()


def is_eval(m):
    return m.get("method") == "evaluate"


@pytest.mark.browser
def test_our_client_runs_evaluations_from_our_server(stack, pages):
    from evals.definitions import load_dir

    from infra.eval_client.client import ClientConfig, EvalClient

    suite = load_dir("functions/evals/definitions").evaluations
    chosen = ["article-title-summary-001", "languages-table-005", "recipe-steps-snapshot-009",
              "chat-opening-hours-014"]
    evals = []
    for eid in chosen:
        doc = suite[eid].doc()
        doc["target"]["url"] = suite[eid].url(pages.url)
        evals.append(doc)
    cid = str(uuid.uuid4())
    upload_client(stack.http_url, cid, evals)
    client = EvalClient(ClientConfig(url=stack.ws_url, client_id=cid, secret=SECRET, handshake="devtools",
                                     max_concurrency=2, stop_after=len(chosen)))
    stats = asyncio.run(asyncio.wait_for(client.run(), 90))
    assert client.rejected is None and stats.results == len(chosen)
    state = wait_finished(stack.http_url, cid)
    by_id = {e["evalId"]: e for e in state["evaluations"]}
    assert {e["status"] for e in by_id.values()} == {"completed"}
    assert all(e["passed"] for e in by_id.values()), {k: e["verdict"] for k, e in by_id.items()}
    assert by_id["article-title-summary-001"]["result"]["output"]["title"] == "Chrome DevTools"
    assert by_id["languages-table-005"]["progress"] == 1.0
    report = httpx.get(f"{stack.http_url}/evals/report", timeout=30).json()
    assert any(c["clientId"] == cid and c["passRate"] == 1.0 for c in report["clients"])
    page = httpx.get(f"{stack.http_url}/evals/report.html", timeout=30)
    assert page.status_code == 200 and "<svg" in page.text and "extraction" in page.text


def test_handshake_variants_and_rejections(stack):
    async def scenario():
        # spec shape: secretKey in register
        a = Scripted(stack.ws_url)
        assert (await a.connect())["type"] == "welcome"
        ack = await a.register(SECRET)
        assert ack["status"] == "accepted" and ack["evaluationsCount"] == 16  # the packaged suite
        await a.close()
        # wrong key: rejected and the socket is closed
        b = Scripted(stack.ws_url)
        await b.connect()
        ack = await b.register("wrong-key")
        assert ack["status"] == "rejected" and ack["reason"] == "Invalid secret key"
        with pytest.raises(Exception):  # noqa: B017 - any close is fine, the socket must end
            await b.recv(5)
        # unmodified DevTools build on a non-disclosing server: no secret in auth_required, claim refused
        c = Scripted(stack.ws_url)
        await c.connect()
        ack = await c.register(None, tools=[])
        assert ack["status"] == "auth_required" and "serverSecretKey" not in ack and SECRET not in str(ack)
        await c.send({"type": "auth_verify", "clientId": c.client_id, "verified": True})
        ack = await c.recv_until(lambda m: m.get("type") == "registration_ack")
        assert ack["status"] == "rejected"
        # ready before register is refused with a message that says so
        d = Scripted(stack.ws_url)
        await d.connect()
        await d.send({"type": "ready", "timestamp": "2024-01-01T00:00:00Z"})
        notice = await d.recv()
        assert notice["type"] == "error" and "register" in notice["message"]
        await d.close()

    asyncio.run(scenario())


def test_timeouts_retries_and_late_results(stack):
    cid = str(uuid.uuid4())
    upload_client(stack.http_url, cid, [chat_eval("slow", timeout=1000, retries=1)])

    async def scenario():
        c = Scripted(stack.ws_url, cid)
        await c.connect()
        assert (await c.register(SECRET))["status"] == "accepted"
        await c.send({"type": "ready"})
        first = await c.recv_until(is_eval)
        started = time.monotonic()
        # say nothing: the one-time timer fires (no Lambda waited) and the evaluation is sent again
        second = await c.recv_until(is_eval, timeout=10)
        assert second["id"] != first["id"] and second["params"]["evaluationId"] == "slow"
        assert time.monotonic() - started < 6
        await c.answer(first)  # late: recorded, does not complete the retry
        await asyncio.sleep(4)
        await c.close()

    asyncio.run(scenario())
    ev = wait_finished(stack.http_url, cid)["evaluations"][0]
    assert ev["status"] == "timeout" and ev["error"]["code"] == -32001
    assert [h["outcome"] for h in ev["history"]] == ["timeout", "timeout"]
    assert ev["late"] and ev["late"][0]["result"]["status"] == "success"


def test_reconnection_mid_evaluation(stack):
    cid = str(uuid.uuid4())
    upload_client(stack.http_url, cid, [chat_eval("r1"), chat_eval("r2")], max_concurrent_evaluations=1)

    async def scenario():
        c = Scripted(stack.ws_url, cid)
        await c.connect()
        await c.register(SECRET)
        await c.send({"type": "ready"})
        first = await c.recv_until(is_eval)
        await c.close()  # the socket goes away with the evaluation in flight
        c2 = Scripted(stack.ws_url, cid)
        await c2.connect()
        assert (await c2.register(SECRET))["status"] == "accepted"
        await c2.send({"type": "ready"})
        again = await c2.recv_until(is_eval)
        assert again["id"] == first["id"]  # the in-flight evaluation is re-sent on the new connection
        await c2.answer(again)
        nxt = await c2.recv_until(is_eval)
        assert nxt["params"]["evaluationId"] != first["params"]["evaluationId"]
        await c2.answer(nxt)
        await asyncio.sleep(0.5)
        await c2.close()

    asyncio.run(scenario())
    state = wait_finished(stack.http_url, cid)
    assert {e["status"] for e in state["evaluations"]} == {"completed"}


def test_fifty_clients_five_evaluations_each(stack):
    from concurrent.futures import ThreadPoolExecutor

    ids = [str(uuid.uuid4()) for _ in range(50)]
    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda cid: upload_client(stack.http_url, cid, [chat_eval(f"ev{i}", timeout=120_000)
                                                                for i in range(5)]), ids))
    uploaded = time.monotonic()
    outstanding_max: dict[str, int] = {}

    async def one(cid: str) -> int:
        c = Scripted(stack.ws_url, cid)
        await c.connect()
        ack = await c.register(SECRET, max_concurrency=2)
        assert ack["status"] == "accepted" and ack["evaluationsCount"] == 5
        await c.send({"type": "ready"})
        done, pending = 0, []
        while done < 5:
            while len(pending) < min(2, 5 - done):
                try:
                    pending.append(await c.recv_until(is_eval, timeout=60))
                except TimeoutError:  # say what the server thinks it sent, and what arrived
                    state = await asyncio.to_thread(client_state, stack.http_url, cid)
                    got = [m["params"]["evaluationId"] for m in c.received if is_eval(m)]
                    raise AssertionError(f"client {cid} waited 60 s for an evaluation; received {got}; server: "
                                         f"{[(e['evalId'], e['status']) for e in state['evaluations']]}, "
                                         f"inflight {state.get('inflight')}") from None
            try:  # anything beyond maxConcurrency would arrive now
                pending.append(await c.recv_until(is_eval, timeout=0.3))
            except TimeoutError:
                pass
            outstanding_max[cid] = max(outstanding_max.get(cid, 0), len(pending))
            await c.answer(pending.pop(0))
            done += 1
        await asyncio.sleep(0.3)
        await c.close()
        return done

    async def all_clients():
        return await asyncio.gather(*(one(cid) for cid in ids))

    assert asyncio.run(asyncio.wait_for(all_clients(), 170)) == [5] * 50
    print(f"uploads {uploaded - started:.1f}s, 50 clients x 5 evaluations {time.monotonic() - uploaded:.1f}s")
    assert max(outstanding_max.values()) <= 2
    statuses = [e["status"] for cid in ids[:5] for e in wait_finished(stack.http_url, cid)["evaluations"]]
    assert statuses == ["completed"] * 25, statuses


@pytest.fixture(scope="module")
def disclosing_stack():
    from tests.support.stack import start_stack

    running = start_stack({"AGENTHOST_EVALS_DISCLOSE_SECRET": "true"})
    yield running
    running.stop()


def test_devtools_transcript_replayed_exactly(disclosing_stack):
    """What an unmodified DevTools build sends, in order, against a server whose operator opted in to the
    reference server's disclosing handshake."""
    stack = disclosing_stack
    cid = str(uuid.uuid4())
    upload_client(stack.http_url, cid, [chat_eval("devtools-1")])

    async def scenario():
        c = Scripted(stack.ws_url, cid)
        welcome = await c.connect()  # DevTools sends nothing until this arrives
        assert welcome["type"] == "welcome" and welcome["version"] and welcome["timestamp"]
        await c.send({"type": "register", "clientId": cid,
                      "capabilities": {"tools": [], "maxConcurrency": 1, "version": "1.0.0"}})
        ack = await c.recv()
        assert ack["type"] == "registration_ack" and ack["status"] == "auth_required"
        assert ack["serverSecretKey"] == SECRET
        await c.send({"type": "auth_verify", "clientId": cid, "verified": ack["serverSecretKey"] == SECRET})
        ack = await c.recv()
        assert ack["status"] == "accepted" and ack["evaluationsCount"] == 1
        await c.send({"type": "ready", "timestamp": "2024-01-01T00:00:00Z"})
        req = await c.recv_until(is_eval)
        assert req["jsonrpc"] == "2.0" and len(req["id"]) == 36 and req["params"]["tool"] == "chat"
        for p in (0.1, 0.2, 0.3, 0.5):
            await c.send({"type": "status", "evaluationId": "devtools-1", "status": "running", "progress": p,
                          "message": f"progress {p}"})
        await c.send({"jsonrpc": "2.0", "id": req["id"],
                      "result": {"status": "success", "output": {"response": "hello"}, "executionTime": 12,
                                 "toolCalls": [], "metadata": {"retryCount": 0}}})
        await c.send({"type": "status", "evaluationId": "devtools-1", "status": "completed", "progress": 1.0})
        await c.send({"type": "ping", "timestamp": "2024-01-01T00:00:30Z"})
        assert (await c.recv_until(lambda m: m.get("type") == "pong"))["type"] == "pong"
        # nothing the server sent carries an id with result/error (DevTools would take it for a reply)
        assert not [m for m in c.received if "id" in m and ("result" in m or "error" in m)]
        await c.close()

    asyncio.run(scenario())
    ev = wait_finished(stack.http_url, cid)["evaluations"][0]
    assert ev["status"] == "completed" and ev["passed"] is True and ev["result"]["executionTime"] == 12
