"""The evaluation server's protocol logic against moto DynamoDB, with a recording connection hub."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest
from evals import connections, registry, scheduler
from evals.common import disclosure_mode
from evals.definitions import load_dir
from evals.server import Options, Server
from evals.timers import NoTimers

SECRET = "s3cret-for-tests"


def write_eval(root: Path, category: str, eid: str, **extra) -> None:
    d = root / category
    d.mkdir(parents=True, exist_ok=True)
    doc = {"id": eid, "name": f"Eval {eid}", "target": {"url": "http://127.0.0.1:9/page.html"},
           "tool": "extract_schema_data", "timeout": 5000,
           "input": {"schema": {"type": "object", "properties": {"title": {"type": "string"}},
                                "required": ["title"]}},
           "validation": {"type": "hybrid", "expected": {"title": "Hello"}}}
    doc.update(extra)
    import yaml

    (d / f"{eid}.yaml").write_text(yaml.safe_dump(doc))


class Hub:
    """Stands in for API Gateway's @connections: records messages, knows which sockets are open."""

    def __init__(self):
        self.open: set[str] = set()
        self.inbox: dict[str, list[dict]] = {}
        self.closed: list[str] = []
        self.limit = connections.MAX_MESSAGE_BYTES

    def connect(self, cid: str) -> None:
        self.open.add(cid)
        self.inbox[cid] = []

    def send(self, cid: str, msg: dict) -> bool:
        if len(json.dumps(msg)) > self.limit:
            raise connections.TooLarge("too large")
        if cid not in self.open:
            return False
        self.inbox[cid].append(msg)
        return True

    def close(self, cid: str) -> None:
        self.open.discard(cid)
        self.closed.append(cid)

    def take(self, cid: str) -> list[dict]:
        out, self.inbox[cid] = self.inbox[cid], []
        return out


class Clock:
    def __init__(self):
        self.t = 1_900_000_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def env(aws, tmp_path):
    for i in range(1, 4):
        write_eval(tmp_path, "extraction", f"e{i}", metadata={"retries": 1 if i == 1 else 0})
    hub, clock, timers = Hub(), Clock(), NoTimers()
    registry._REGISTERED.clear()  # the per-container cache must not leak between tests
    aws.clock = clock

    def make(**opts) -> Server:
        return Server(store=aws, send=hub.send, timers=timers, catalog=lambda _cid=None: load_dir(tmp_path),
                      options=Options(**{"secret": SECRET, **opts}), clock=clock, close=hub.close)

    return make, hub, clock, timers, tmp_path


def register(server, hub, conn, client="c1", **extra):
    hub.connect(conn)
    server.on_message(conn, json.dumps({"type": "register", "clientId": client, "secretKey": SECRET,
                                        "capabilities": {"tools": ["extract_schema_data"], "maxConcurrency": 2,
                                                         "version": "1.0.0"}, **extra}))
    return hub.take(conn)


def evaluates(msgs):
    return [m for m in msgs if m.get("method") == "evaluate"]


def answer(server, conn, requests):
    """The client's successful result for each ``evaluate`` request."""
    for req in requests:
        result = {"jsonrpc": "2.0", "id": req["id"], "result": {"output": {"title": "Hello"}}}
        server.on_message(conn, json.dumps(result))


def test_spec_registration_ready_dispatch_and_results(env):
    make, hub, clock, timers, _ = env
    s = make()
    [ack] = register(s, hub, "k1")
    assert ack == {"type": "registration_ack", "clientId": "c1", "status": "accepted",
                   "message": "Client registered successfully", "evaluationsCount": 3}
    s.on_message("k1", json.dumps({"type": "ready", "timestamp": "2024-01-01T00:00:00Z"}))
    sent = evaluates(hub.take("k1"))
    assert len(sent) == 2  # maxConcurrency 2
    first = sent[0]
    assert first["jsonrpc"] == "2.0" and len(first["id"]) == 36
    assert first["params"]["evaluationId"] == "e1" and first["params"]["timeout"] == 5000
    assert first["params"]["url"] == "http://127.0.0.1:9/page.html"
    assert "title" in first["params"]["input"]["schema"]["properties"]
    assert len(timers.scheduled) == 2 and timers.scheduled[0][2]["rpcId"] == first["id"]

    s.on_message("k1", json.dumps({"type": "status", "evaluationId": "e1", "status": "running",
                                   "progress": 0.5, "message": "extracting"}))
    ev = s.store.get("CLIENT#c1", "EVAL#e1")
    assert ev["progress"] == 0.5 and ev["statusMessage"] == "extracting"

    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": first["id"],
                                   "result": {"status": "success", "output": {"title": "hello "}}}))
    third = evaluates(hub.take("k1"))
    assert [m["params"]["evaluationId"] for m in third] == ["e3"]  # the freed slot is used at once
    ev = s.store.get("CLIENT#c1", "EVAL#e1")
    assert ev["status"] == "completed" and ev["passed"] is True and ev["score"] == 1.0
    assert {c["check"] for c in ev["verdict"]["checks"]} >= {"schema", "expected"}

    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": sent[1]["id"],
                                   "result": {"status": "success", "output": {"name": "x"}}}))
    ev2 = s.store.get("CLIENT#c1", "EVAL#e2")
    assert ev2["status"] == "completed" and ev2["passed"] is False
    assert any("title" in c["detail"] for c in ev2["verdict"]["checks"] if c["check"] == "schema")
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 1


def test_devtools_handshake_without_disclosure_needs_proof(env):
    make, hub, *_ = env
    s = make()
    hub.connect("k1")
    s.on_message("k1", json.dumps({"type": "register", "clientId": "c1", "capabilities": {"tools": []}}))
    [ack] = hub.take("k1")
    assert ack["status"] == "auth_required" and "serverSecretKey" not in ack
    assert SECRET not in json.dumps(ack)
    # an unmodified DevTools build just claims verified: refused without the operator's opt-in
    s.on_message("k1", json.dumps({"type": "auth_verify", "clientId": "c1", "verified": True}))
    [rej] = hub.take("k1")
    assert rej["status"] == "rejected" and rej["reason"] == "Invalid secret key" and "k1" in hub.closed

    hub.connect("k2")
    s.on_message("k2", json.dumps({"type": "register", "clientId": "c1", "capabilities": {"tools": []}}))
    [ack] = hub.take("k2")
    proof = hmac.new(SECRET.encode(), ack["challenge"].encode(), hashlib.sha256).hexdigest()
    s.on_message("k2", json.dumps({"type": "auth_verify", "clientId": "c1", "verified": True, "proof": proof}))
    [ok] = hub.take("k2")
    assert ok["status"] == "accepted" and ok["evaluationsCount"] == 3


def test_devtools_disclosing_handshake_when_enabled(env):
    make, hub, *_ = env
    s = make(disclose_secret=True)
    hub.connect("k1")
    s.on_message("k1", json.dumps({"type": "register", "clientId": "c1", "capabilities": {"tools": []}}))
    [ack] = hub.take("k1")
    assert ack["status"] == "auth_required" and ack["serverSecretKey"] == SECRET
    s.on_message("k1", json.dumps({"type": "auth_verify", "clientId": "c1", "verified": True}))
    assert hub.take("k1")[0]["status"] == "accepted"
    hub.connect("k2")
    s.on_message("k2", json.dumps({"type": "register", "clientId": "c2"}))
    hub.take("k2")
    s.on_message("k2", json.dumps({"type": "auth_verify", "clientId": "c2", "verified": False}))
    assert hub.take("k2")[0]["status"] == "rejected"


def test_wrong_secret_unknown_client_and_bad_ids(env):
    make, hub, _, _, root = env
    s = make()
    [rej] = register(s, hub, "k1", secretKey="nope")
    assert rej["status"] == "rejected" and rej["reason"] == "Invalid secret key" and "k1" in hub.closed
    assert s.store.get("CLIENT#c1", "META") is None

    strict = make(auto_create=False)
    [rej] = register(strict, hub, "k2", client="stranger")
    assert rej["status"] == "rejected" and "unknown client" in rej["reason"]
    # a client file makes the id known, with its own secret and its own evaluation list
    (root / "clients").mkdir()
    (root / "clients" / "known.yaml").write_text(
        "client: {id: known, secret_key: own-key}\nsettings: {max_concurrent_evaluations: 1}\n"
        "evaluations:\n  - {id: only, target: {url: 'http://x.test/'}, tool: chat, input: {message: hi}}\n")
    [ok] = register(strict, hub, "k3", client="known", secretKey="own-key")
    assert ok["status"] == "accepted" and ok["evaluationsCount"] == 1
    [bad] = register(s, hub, "k4", client="../../etc")
    assert bad["status"] == "rejected" and "clientId" in bad["message"]


def test_ready_before_register_and_bad_frames(env):
    make, hub, *_ = env
    s = make()
    hub.connect("k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    [notice] = hub.take("k1")
    assert notice["type"] == "error" and "register" in notice["message"] and "id" not in notice
    s.on_message("k1", "{oops")
    s.on_message("k1", "[1,2]")
    s.on_message("k1", json.dumps({"kind": "register"}))
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "method": "shutdown", "id": "x1"}))
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": 5}))
    replies = hub.take("k1")
    assert [m["error"]["code"] for m in replies] == [-32700, -32600, -32600, -32601, -32600]
    # JSON-RPC 2.0: id null when the request's id could not be determined; -32601 echoes the caller's id
    assert [m["id"] for m in replies] == [None, None, None, "x1", None]
    assert "Expecting" in replies[0]["error"]["message"] and "shutdown" in replies[3]["error"]["message"]
    # a message of an unknown protocol type is not JSON-RPC: a notice without id (DevTools would take an
    # id/error pair for a reply to one of its own requests)
    s.on_message("k1", json.dumps({"type": "bogus"}))
    [notice] = hub.take("k1")
    assert notice["type"] == "error" and notice["error"] == "unknown_type" and "id" not in notice
    assert "'bogus'" in notice["message"] and "register" in notice["message"]
    s.on_message("k1", json.dumps({"type": "ping"}))
    assert hub.take("k1")[0]["type"] == "pong"


def test_echoed_client_values_are_clipped_so_replies_stay_small(env):
    """Whatever a client sends (up to the 128 KB message limit), no reply echoes it back in full: every reply
    stays far below API Gateway's 32 KB frame limit."""
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    huge = "x" * 100_000
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "method": huge, "id": huge}))
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "method": "m", "id": {"nested": [huge]}}))
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": huge, "result": {"output": 1}}))  # unknown_request
    s.on_message("k1", json.dumps({"type": huge}))
    s.on_message("k1", json.dumps({"type": "register", "clientId": huge}))
    s.on_message("k1", json.dumps({"type": "auth_verify", "clientId": huge}))
    s.on_message("k1", json.dumps({"type": "status", "evaluationId": huge, "progress": 0.5}))  # unknown_request
    replies = hub.take("k1")
    assert len(replies) == 7
    assert max(len(json.dumps(m)) for m in replies) < 1024
    assert replies[0]["error"]["code"] == -32601 and replies[0]["id"] is None  # an id that long is not echoed
    assert replies[0]["error"]["message"].endswith("...")
    assert replies[1]["id"] is None  # nor one that is not a string or number
    assert replies[2]["error"] == "unknown_request" and "x" * 100 in replies[2]["message"]
    assert replies[3]["error"] == "unknown_type"
    assert replies[4]["status"] == replies[5]["status"] == "rejected"
    assert len(replies[4]["clientId"]) == len(replies[5]["clientId"]) == 128
    assert replies[6]["error"] == "unknown_request"
    assert replies[6]["message"].endswith("'... is assigned to this client")
    assert replies[6]["error"] == "unknown_request"
    assert replies[6]["message"].endswith("'... is assigned to this client")


def test_timeout_retry_then_timeout_and_late_result(env):
    make, hub, clock, timers, _ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    first = evaluates(hub.take("k1"))[0]
    assert first["params"]["evaluationId"] == "e1" and first["params"]["metadata"]["retries"] == 1
    # the timer fires early (it must not expire anything) and then on time
    _, at, payload = timers.scheduled[0]
    assert not s.on_deadline(payload["clientId"], payload["evalId"], payload["rpcId"])
    clock.t = at + 0.01
    assert s.on_deadline(payload["clientId"], payload["evalId"], payload["rpcId"])
    retry = [m for m in evaluates(hub.take("k1")) if m["params"]["evaluationId"] == "e1"]
    assert len(retry) == 1 and retry[0]["id"] != first["id"]  # retried under a new id
    # a late answer to the first attempt is recorded as late, the retry keeps running
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": first["id"], "result": {"output": {"title": "Hello"}}}))
    ev = s.store.get("CLIENT#c1", "EVAL#e1")
    assert ev["status"] == "running" and ev["late"][0]["rpcId"] == first["id"]
    # second timeout, found lazily by a read (no timer call): retries exhausted
    clock.t += 10
    meta, evals = s.load("c1")
    e1 = next(e for e in evals if e["evalId"] == "e1")
    assert e1["status"] == "timeout" and e1["error"]["code"] == -32001
    assert [h["outcome"] for h in e1["history"]] == ["timeout", "timeout"]


def test_client_error_is_retried_then_failed(env):
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    rpc = evaluates(hub.take("k1"))[0]
    err = {"code": -32000, "message": "Tool execution failed", "data": {"error": "boom"}}
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": rpc["id"], "error": err}))
    again = [m for m in evaluates(hub.take("k1")) if m["params"]["evaluationId"] == "e1"]
    assert len(again) == 1
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": again[0]["id"], "error": err}))
    ev = s.store.get("CLIENT#c1", "EVAL#e1")
    assert ev["status"] == "failed" and ev["error"]["code"] == -32000 and ev["attempts"] == 2


def test_reconnection_rebinds_and_resends_in_flight(env):
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    inflight = {m["id"] for m in evaluates(hub.take("k1"))}
    hub.open.discard("k1")  # the socket dropped
    [ack] = register(s, hub, "k2")
    assert ack["status"] == "accepted" and ack["evaluationsCount"] == 3
    assert s.store.get("CLIENT#c1", "META")["connectionId"] == "k2"
    s.on_message("k2", json.dumps({"type": "ready"}))
    resent = evaluates(hub.take("k2"))
    assert {m["id"] for m in resent} == inflight  # same ids, nothing extra beyond maxConcurrency
    for m in resent:
        s.on_message("k2", json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"output": {"title": "Hello"}}}))
    s.on_message("k1", json.dumps({"type": "ready"}))  # the old connection can no longer act
    assert all(m["type"] == "error" for m in hub.inbox.get("k1", [])) or "k1" not in hub.open
    statuses = {e["evalId"]: e["status"] for e in s.load("c1")[1]}
    assert statuses["e1"] == "completed" and statuses["e2"] == "completed" and statuses["e3"] == "running"


def test_oversized_evaluate_is_failed_not_crashed(env):
    make, hub, _, _, root = env
    write_eval(root, "big", "e0-big", input={"blob": "x" * 200_000}, metadata={"priority": "high"})
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    sent = evaluates(hub.take("k1"))
    assert "e0-big" not in [m["params"]["evaluationId"] for m in sent] and len(sent) == 2
    ev = s.store.get("CLIENT#c1", "EVAL#e0-big")
    assert ev["status"] == "failed" and ev["error"]["code"] == -32005 and "128 KB" in ev["error"]["message"]


def test_admin_trigger_reruns(env):
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    for m in evaluates(hub.take("k1")):
        s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"output": {"title": "Hello"}}}))
    for m in evaluates(hub.take("k1")):
        s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"output": {"title": "Hello"}}}))
    assert all(e["status"] == "completed" for e in s.load("c1")[1])
    assert s.trigger("c1", "e2") == 1
    sent = evaluates(hub.take("k1"))
    assert [m["params"]["evaluationId"] for m in sent] == ["e2"]
    with pytest.raises(LookupError):
        s.trigger("c1", "nope")


def test_connect_token_is_checked_when_configured(aws, monkeypatch):
    from evals import app as evals_app

    from infra.local.events import LambdaContext, ws_event

    invoked = []
    monkeypatch.setattr(evals_app.aws, "client", lambda name, **kw: type(
        "L", (), {"invoke": lambda self, **k: invoked.append(k)})())
    monkeypatch.setenv("AGENTHOST_EVALS_CONNECT_TOKEN", "tok")
    ctx = LambdaContext("agenthost-evals")
    refused = evals_app.handler(ws_event("$connect", "c1", query={"token": "bad"}), ctx)
    assert refused["statusCode"] == 401 and not invoked
    ok = evals_app.handler(ws_event("$connect", "c2", query={"token": "tok"}), ctx)
    assert ok["statusCode"] == 200 and json.loads(invoked[0]["Payload"])["connectionId"] == "c2"


def test_an_evaluate_whose_post_fails_is_taken_back_and_sent_again(env):
    """A post that times out (delivery unknown) must not leave the evaluation 'running' with nobody
    working on it: it goes back to pending, its slot is freed and a dispatch is scheduled shortly."""
    make, hub, clock, timers, _ = env
    s = make()
    register(s, hub, "k1")
    flaky = {"left": 1}
    real_send = hub.send

    def send(cid, msg):
        if msg.get("method") == "evaluate" and flaky["left"]:
            flaky["left"] -= 1
            raise connections.SendFailed("ReadTimeoutError")
        return real_send(cid, msg)

    s.send = send
    s.on_message("k1", json.dumps({"type": "ready"}))
    assert evaluates(hub.take("k1")) == []  # the first post failed: nothing more is sent from this invocation
    e1 = s.store.get("CLIENT#c1", "EVAL#e1")
    assert e1["status"] == "pending" and e1["notBefore"] == clock.t + scheduler.SEND_RETRY_S
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 0
    retry = [t for t in timers.scheduled if t[2].get("agenthost") == "dispatch"]
    assert len(retry) == 1 and retry[0][1] == clock.t + scheduler.SEND_RETRY_S

    clock.t += scheduler.SEND_RETRY_S
    assert s.dispatch("c1") == 2  # what the scheduled dispatch does
    again = evaluates(hub.take("k1"))
    assert [m["params"]["evaluationId"] for m in again] == ["e1", "e2"]
    assert s.store.get("CLIENT#c1", "EVAL#e1")["attempts"] == 2  # a new attempt, with a new id


def test_a_failed_reply_does_not_fail_the_invocation(env):
    """A pong or an error reply whose post fails is dropped (the protocol can do without it): the message is
    still handled, and the connection keeps working once posts go through again."""
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    tried: list[dict] = []

    def send(_cid, msg):
        tried.append(msg)
        raise connections.SendFailed("LimitExceededException")

    s.send = send
    s.on_message("k1", json.dumps({"type": "ping"}))  # the pong is lost, nothing raises
    s.on_message("k1", "{not json")
    assert [m.get("type") or m["error"]["code"] for m in tried] == ["pong", -32700]
    assert hub.take("k1") == []

    s.send = hub.send  # posts go through again: the same connection is served as before
    s.on_message("k1", json.dumps({"type": "ping"}))
    assert [m["type"] for m in hub.take("k1")] == ["pong"]
    s.on_message("k1", json.dumps({"type": "ready"}))
    assert [m["params"]["evaluationId"] for m in evaluates(hub.take("k1"))] == ["e1", "e2"]


def fire(server, timers, name_prefix, at):
    """What Scheduler does at ``at``: invoke the function with each due timer's payload (a deadline or a
    dispatch). Returns the names fired."""
    fired = []
    for name, when, payload in list(timers.scheduled):
        if name.startswith(name_prefix) and when <= at and name not in fire.done:
            fire.done.add(name)
            fired.append(name)
            if payload["agenthost"] == "deadline":
                server.on_deadline(payload["clientId"], payload["evalId"], payload["rpcId"])
            else:
                server.dispatch(payload["clientId"])
    return fired


fire.done = set()


def test_reconnect_then_silence_times_out_on_the_new_deadline_and_frees_the_slot(env):
    """A re-send after reconnection restarts the deadline under the same JSON-RPC id: its timer needs a name of
    its own (Scheduler refuses a name still in use), and the first timer must not expire the evaluation early."""
    make, hub, clock, timers, _ = env
    fire.done = set()
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    first = {m["params"]["evaluationId"]: m for m in evaluates(hub.take("k1"))}
    assert set(first) == {"e1", "e2"}
    clock.t += 2  # the socket drops and the client comes back 2 s later, before the 5 s deadlines
    hub.open.discard("k1")
    register(s, hub, "k2")
    s.on_message("k2", json.dumps({"type": "ready"}))
    resent = {m["params"]["evaluationId"]: m for m in evaluates(hub.take("k2"))}
    assert {k: m["id"] for k, m in resent.items()} == {k: m["id"] for k, m in first.items()}
    names = [n for n, _, p in timers.scheduled if p["agenthost"] == "deadline"]
    assert len(names) == 4 and len(set(names)) == 4 and timers.refused == []  # one timer per deadline
    # the client now says nothing. The first timers fire at the old deadlines: nothing expires yet
    assert fire(s, timers, "evd-", clock.t + 3) and evaluates(hub.take("k2")) == []
    assert {e["status"] for e in s.load("c1")[1] if e["evalId"] in ("e1", "e2")} == {"running"}
    # the new deadlines pass: e1 is retried (metadata.retries 1), e2 times out, and its slot goes to e3
    clock.t += 5
    fire(s, timers, "evd-", clock.t)
    sent = [m["params"]["evaluationId"] for m in evaluates(hub.take("k2"))]
    assert sorted(sent) == ["e1", "e3"]
    by_id = {e["evalId"]: e for e in s.load("c1")[1]}
    assert by_id["e2"]["status"] == "timeout" and by_id["e2"]["error"]["code"] == -32001
    assert by_id["e1"]["attempts"] == 2 and by_id["e3"]["status"] == "running"
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 2


def test_lazy_expiry_on_any_read_dispatches_into_the_freed_slots(env):
    """Timers lost (Scheduler refused or failed): a read by the admin API, a ping or a status message finds
    the overdue evaluations, expires them and sends the next ones at once."""
    make, hub, clock, timers, _ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    sent = {m["params"]["evaluationId"]: m for m in evaluates(hub.take("k1"))}
    assert set(sent) == {"e1", "e2"}
    clock.t += 6
    meta, evals = s.load("c1")  # what GET /evals/clients/{id} does
    by_id = {e["evalId"]: e for e in evals}
    assert by_id["e2"]["status"] == "timeout"
    assert by_id["e1"]["status"] == "running" and by_id["e1"]["attempts"] == 2  # retried at once
    assert by_id["e3"]["status"] == "running" and meta["inflight"] == 2  # the returned state is after dispatch
    assert sorted(m["params"]["evaluationId"] for m in evaluates(hub.take("k1"))) == ["e1", "e3"]

    clock.t += 6  # a ping is the read this time
    s.on_message("k1", json.dumps({"type": "ping"}))
    msgs = hub.take("k1")
    assert msgs[0]["type"] == "pong" and evaluates(msgs) == []  # nothing left to send
    by_id = {e["evalId"]: e for e in s.load("c1")[1]}
    assert by_id["e1"]["status"] == by_id["e3"]["status"] == "timeout"
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 0


def test_progress_after_the_deadline_expires_the_evaluation(env):
    make, hub, clock, _, root = env
    write_eval(root, "extraction", "e4")
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    sent = {m["params"]["evaluationId"] for m in evaluates(hub.take("k1"))}
    assert sent == {"e1", "e2"}
    s.on_message("k1", json.dumps({"type": "status", "evaluationId": "e2", "status": "running", "progress": 0.3}))
    assert s.store.get("CLIENT#c1", "EVAL#e2")["progress"] == 0.3
    clock.t += 6
    s.on_message("k1", json.dumps({"type": "status", "evaluationId": "e2", "status": "running", "progress": 0.5}))
    assert s.store.get("CLIENT#c1", "EVAL#e2")["status"] == "timeout"
    # the read that followed also expired e1 (retried); the freed slots went to e1 and e3
    assert sorted(m["params"]["evaluationId"] for m in evaluates(hub.take("k1"))) == ["e1", "e3"]


def test_retry_policy_backoff_schedules_a_dispatch_timer(env):
    """A client file's retry_policy: a failed attempt waits initial_delay x multiplier^(attempt-1) before it is
    sent again; the wait is an `evr-` one-time timer carrying {"agenthost": "dispatch"}, not a Lambda waiting."""
    make, hub, clock, timers, root = env
    (root / "clients").mkdir()
    (root / "clients" / "c9.yaml").write_text(
        "client: {id: c9}\n"
        "settings: {max_concurrent_evaluations: 1, retry_policy: {max_retries: 2, initial_delay: 2000, "
        "backoff_multiplier: 3}}\n"
        "evaluations:\n  - {id: flaky, target: {url: 'http://x.test/'}, tool: chat, input: {message: hi}}\n")
    s = make()
    [ack] = register(s, hub, "k1", client="c9")
    assert ack["evaluationsCount"] == 1
    s.on_message("k1", json.dumps({"type": "ready"}))
    err = {"code": -32000, "message": "Tool execution failed"}
    delays = []
    for _attempt in (1, 2):
        [req] = evaluates(hub.take("k1"))
        t0 = clock.t
        s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": req["id"], "error": err}))
        assert evaluates(hub.take("k1")) == []  # not sent again before the delay
        ev = s.store.get("CLIENT#c9", "EVAL#flaky")
        assert ev["status"] == "pending" and ev["lastOutcome"] == "failed"
        name, at, payload = timers.scheduled[-1]
        assert name.startswith("evr-") and payload == {"agenthost": "dispatch", "clientId": "c9"}
        delays.append(round(at - t0, 3))
        assert ev["notBefore"] == at
        clock.t = at - 0.5
        assert s.dispatch("c9") == 0  # an early dispatch (another message) leaves it waiting
        clock.t = at
        assert s.dispatch("c9") == 1  # what the timer's invocation does
    assert delays == [2.0, 6.0]
    [req] = evaluates(hub.take("k1"))
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": req["id"], "error": err}))
    ev = s.store.get("CLIENT#c9", "EVAL#flaky")
    assert ev["status"] == "failed" and ev["attempts"] == 3
    assert [h["outcome"] for h in ev["history"]] == ["failed"] * 3


def test_client_file_default_timeout_applies_to_evaluations_without_one(env):
    make, hub, _, _, root = env
    (root / "clients").mkdir()
    (root / "clients" / "c8.yaml").write_text(
        "client: {id: c8}\nsettings: {default_timeout: 90000}\n"
        "evaluations:\n"
        "  - {id: plain, target: {url: 'http://x.test/'}, tool: chat, input: {message: hi}}\n"
        "  - {id: own, timeout: 7000, target: {url: 'http://x.test/'}, tool: chat, input: {message: hi}}\n")
    s = make()
    register(s, hub, "k1", client="c8")
    s.on_message("k1", json.dumps({"type": "ready"}))
    timeouts = {m["params"]["evaluationId"]: m["params"]["timeout"] for m in evaluates(hub.take("k1"))}
    assert timeouts == {"plain": 90000, "own": 7000}


def test_options_repr_hides_the_secret():
    opts = Options(secret="hunter2-very-secret")
    assert "hunter2" not in repr(opts) and "hunter2" not in str(opts)


def test_a_leaked_slot_is_given_back_once_nothing_is_left_to_send(env):
    """A slot claim applied twice (a retried request), seen by two results finishing at once with stale views:
    when nothing is pending any more, the counter is recounted from a fresh read and ends at zero."""
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    answer(s, "k1", evaluates(hub.take("k1")))
    answer(s, "k1", evaluates(hub.take("k1")))
    meta, evals = s.load("c1")
    assert {e["status"] for e in evals} == {"completed"} and meta["inflight"] == 0
    s.store.update("CLIENT#c1", "META", add={"inflight": 1})  # the leak
    # the view a concurrent result handler still holds: one evaluation running, two slots taken
    stale = [{**e, "status": "running"} if e["evalId"] == "e3" else e for e in evals]
    s.dispatch("c1", ({**meta, "inflight": 2}, stale))
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 0


def test_a_leaked_slot_is_given_back_when_the_last_result_arrives_after_the_client_left(env):
    """The client answers its last evaluation and closes at once; $disconnect is handled first. The result
    still frees the slot, and a slot leaked earlier (a claim applied twice) is recounted, not kept."""
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    answer(s, "k1", evaluates(hub.take("k1")))
    last = evaluates(hub.take("k1"))
    assert last
    s.store.update("CLIENT#c1", "META", add={"inflight": 1})  # the leak
    s.store.update("CLIENT#c1", "META", set_={"connectionId": "", "ready": False})  # what $disconnect does
    answer(s, "k1", last)
    meta, evals = s.load("c1")
    assert {e["status"] for e in evals} == {"completed"}
    assert meta["inflight"] == 0


# ---- what the reference server does that clients rely on ------------------------------------------------

def test_evaluate_always_carries_model_and_no_null_metadata(env):
    """The reference server sends ``model`` in every ``evaluate`` (DevTools reads its per-request LLM override
    from it) and no ``null`` fields a definition did not set."""
    make, hub, *_ , root = env
    write_eval(root, "extraction", "e4", model="gpt-4.1-mini", metadata={"priority": "critical"})
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    sent = {m["params"]["evaluationId"]: m["params"] for m in evaluates(hub.take("k1"))}
    assert sent["e4"]["model"] == {"main_model": "gpt-4.1-mini"}
    other = next(p for eid, p in sent.items() if eid != "e4")
    assert other["model"] == {}
    for params in sent.values():
        assert None not in params["metadata"].values() and "category" not in params["metadata"]


def test_configure_llm_is_stored_per_client_and_sent_as_model(env):
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    register(s, hub, "k2", client="c2")
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "method": "configure_llm", "id": "cfg-1", "params": {
        "provider": "openai", "apiKey": "sk-never-stored", "models": {"main": "gpt-4.1", "mini": "gpt-4.1-mini"}}}))
    [reply] = hub.take("k1")
    assert reply == {"jsonrpc": "2.0", "id": "cfg-1", "result": {
        "status": "success", "message": reply["result"]["message"],
        "appliedConfig": {"provider": "openai", "models": {"main": "gpt-4.1", "mini": "gpt-4.1-mini",
                                                             "nano": "gpt-4.1-mini"}}}}
    assert "sk-never-stored" not in json.dumps(s.store.get("CLIENT#c1", "META"))
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "method": "configure_llm", "id": "cfg-2",
                                   "params": {"partial": True, "models": {"nano": "gpt-4.1-nano"}}}))
    assert hub.take("k1")[0]["result"]["appliedConfig"]["models"]["nano"] == "gpt-4.1-nano"
    s.on_message("k1", json.dumps({"type": "ready"}))
    s.on_message("k2", json.dumps({"type": "ready"}))
    mine = evaluates(hub.take("k1"))
    assert mine and all(m["params"]["model"] == {"provider": "openai", "main_model": "gpt-4.1",
                                                 "mini_model": "gpt-4.1-mini", "nano_model": "gpt-4.1-nano"}
                        for m in mine)
    assert all(m["params"]["model"] == {} for m in evaluates(hub.take("k2")))  # another client: its own


@pytest.mark.parametrize("params", [None, {"provider": "openai"}, {"provider": "", "models": {"main": "m"}},
                                    {"provider": "openai", "models": {"main": 3}},
                                    {"provider": "openai", "models": {"main": "m"}, "endpoint": "file:///etc"}])
def test_configure_llm_with_bad_params_is_an_invalid_params_reply(env, params):
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "method": "configure_llm", "id": "x", "params": params}))
    [reply] = hub.take("k1")
    assert reply["id"] == "x" and reply["error"]["code"] == -32602
    assert "llm" not in s.store.get("CLIENT#c1", "META")


def test_configure_llm_before_registering_is_refused(env):
    make, hub, *_ = env
    s = make()
    hub.connect("k9")
    s.on_message("k9", json.dumps({"jsonrpc": "2.0", "method": "configure_llm", "id": "x",
                                   "params": {"provider": "openai", "models": {"main": "m"}}}))
    [reply] = hub.take("k9")
    assert reply["id"] == "x" and reply["error"]["code"] == -32002


def test_status_for_an_unknown_evaluation_gets_the_unknown_id_notice(env):
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "status", "evaluationId": "no-such-eval", "status": "running",
                                   "progress": 0.3}))
    [notice] = hub.take("k1")
    assert notice["type"] == "error" and notice["error"] == "unknown_request" and "id" not in notice
    assert "no-such-eval" in notice["message"]
    assert s.store.get("CLIENT#c1", "EVAL#no-such-eval") is None  # nothing was created for it
    # a known evaluation that is not running (not sent yet) stays silent, as before
    s.on_message("k1", json.dumps({"type": "status", "evaluationId": "e1", "status": "running"}))
    assert hub.take("k1") == []


def test_same_client_id_registering_again_replaces_the_older_connection(env, caplog):
    """Two live connections register the same client id: the newer wins; the older is told, closed, and its
    late results no longer count (they are logged), also in a container that still has it cached."""
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    first = evaluates(hub.take("k1"))
    [ack] = register(s, hub, "k2")  # k1 is still open
    assert ack["status"] == "accepted"
    [notice] = hub.take("k1")
    assert notice["type"] == "error" and notice["error"] == "replaced" and "id" not in notice
    assert "k1" in hub.closed and "k1" not in hub.open
    other_container = make()
    registry._REGISTERED["k1"] = "c1"  # a warm container that had cached the old connection
    hub.open.add("k1")  # its result raced the close
    caplog.clear()
    other_container.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": first[0]["id"],
                                                 "result": {"output": {"title": "Hello"}}}))
    ev = s.store.get("CLIENT#c1", f"EVAL#{first[0]['params']['evaluationId']}")
    assert ev["status"] == "running" and not ev.get("late")  # ignored: not a result, not even a late one
    assert "replaced connection ignored" in caplog.text
    registry._REGISTERED.pop("k1")
    s.on_message("k1", json.dumps({"jsonrpc": "2.0", "id": first[1]["id"], "result": {"output": {"title": "x"}}}))
    assert s.store.get("CLIENT#c1", f"EVAL#{first[1]['params']['evaluationId']}")["status"] == "running"
    # the new connection gets the in-flight evaluations again and its results count
    s.on_message("k2", json.dumps({"type": "ready"}))
    resent = evaluates(hub.take("k2"))
    assert {m["id"] for m in resent} == {m["id"] for m in first}
    answer(s, "k2", resent)
    assert {e["evalId"]: e["status"] for e in s.load("c1")[1]}[first[0]["params"]["evaluationId"]] == "completed"


def test_a_1009_close_fails_the_evaluations_in_flight_on_that_connection_at_once(env):
    make, hub, clock, *_ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    sent = evaluates(hub.take("k1"))
    assert s.on_frame_too_big("k1", "c1", "Message too big") == len(sent) == 2
    evs = {e["evalId"]: e for e in s.load("c1")[1]}
    for m in sent:
        ev = evs[m["params"]["evaluationId"]]
        assert ev["status"] == "failed" and ev["error"]["code"] == -32005  # e1 allows a retry: not for this
        assert "32 KB" in ev["error"]["message"] and "Message too big" in ev["error"]["message"]
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 0
    assert s.on_frame_too_big("k1", "c1") == 0  # nothing left in flight there


def test_disclosure_to_registered_clients_only_and_only_their_own_key(env):
    """AGENTHOST_EVALS_DISCLOSE_SECRET=registered: an unmodified DevTools build registers (no secretKey, tools
    []) under a client id the operator set up with its own key, and is sent that key; an auto-created id, or a
    file without its own key, is sent nothing, and a bare ``verified: true`` gets it nowhere."""
    import yaml

    make, hub, *_, root = env
    (root / "clients").mkdir()
    (root / "clients" / "dev-1.yaml").write_text(yaml.safe_dump({
        "client": {"id": "dev-1", "secret_key": "dev-1-own-key"},
        "evaluations": [{"id": "d1", "target": {"url": "http://127.0.0.1:9/x.html"}, "tool": "chat"}]}))
    (root / "clients" / "dev-2.yaml").write_text(yaml.safe_dump({
        "client": {"id": "dev-2"},
        "evaluations": [{"id": "d2", "target": {"url": "http://127.0.0.1:9/x.html"}, "tool": "chat"}]}))
    s = make(disclose_secret="registered")
    hub.connect("k1")
    s.on_message("k1", json.dumps({"type": "register", "clientId": "dev-1", "capabilities": {"tools": []}}))
    [ack] = hub.take("k1")
    assert ack["status"] == "auth_required" and ack["serverSecretKey"] == "dev-1-own-key"
    s.on_message("k1", json.dumps({"type": "auth_verify", "clientId": "dev-1", "verified": True}))
    [ok] = hub.take("k1")
    assert ok["status"] == "accepted" and ok["evaluationsCount"] == 1
    for conn, client in (("k2", "auto-created"), ("k3", "dev-2")):
        hub.connect(conn)
        s.on_message(conn, json.dumps({"type": "register", "clientId": client, "capabilities": {"tools": []}}))
        [ack] = hub.take(conn)
        assert ack["status"] == "auth_required" and "serverSecretKey" not in ack
        assert SECRET not in json.dumps(ack)
        s.on_message(conn, json.dumps({"type": "auth_verify", "clientId": client, "verified": True}))
        assert hub.take(conn)[0]["status"] == "rejected"


@pytest.mark.parametrize(("raw", "mode"), [("", ""), ("false", ""), ("registered", "registered"),
                                           ("Registered", "registered"), ("true", "all"), ("all", "all")])
def test_disclosure_setting_values(raw, mode):
    assert disclosure_mode(raw) == mode


# ---- a conditional write whose first attempt was applied, then resent by the SDK ---------------------------

class ResentOnce:
    """The store as botocore makes it look when the answer to a write is lost (read timeout, 5xx) after
    DynamoDB applied it: the SDK sends the same request again, and the caller sees only that second answer.
    Here the first write to an item under ``sk`` whose condition starts with ``condition`` goes twice."""

    def __init__(self, store, condition: str, sk: str = "EVAL#"):
        self._store, self._condition, self._sk, self.fired = store, condition, sk, 0

    def __getattr__(self, name):
        return getattr(self._store, name)

    def update(self, pk, sk, **kw):
        if not self.fired and str(kw.get("condition", "")).startswith(self._condition) and sk.startswith(self._sk):
            self.fired += 1
            self._store.update(pk, sk, **kw)  # the first attempt: applied, its answer never arrived
        return self._store.update(pk, sk, **kw)  # the attempt whose answer the caller gets


def test_a_claim_applied_by_a_lost_first_attempt_is_still_sent(env):
    """An evaluation's claim (pending -> running) whose first attempt landed and whose resent attempt is
    refused is the server's own claim: the evaluation is sent and keeps its slot. (Taken for someone else's,
    it stayed 'running' without ever reaching the client, its slot given back, until its deadline.)"""
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.store = ResentOnce(s.store, "#st = :pending")
    s.on_message("k1", json.dumps({"type": "ready"}))
    assert s.store.fired == 1
    sent = evaluates(hub.take("k1"))
    meta, evals = s.load("c1")
    running = {e["evalId"]: e["rpcId"] for e in evals if e["status"] == "running"}
    assert {m["params"]["evaluationId"]: m["id"] for m in sent} == running == {
        "e1": running.get("e1"), "e2": running.get("e2")}
    assert meta["inflight"] == 2
    answer(s, "k1", sent)
    third = evaluates(hub.take("k1"))
    assert [m["params"]["evaluationId"] for m in third] == ["e3"]
    answer(s, "k1", third)
    meta, evals = s.load("c1")
    assert {e["evalId"]: e["status"] for e in evals} == {"e1": "completed", "e2": "completed", "e3": "completed"}
    assert meta["inflight"] == 0


def test_a_result_recorded_by_a_lost_first_attempt_frees_its_slot_and_is_not_late(env):
    """A result whose write (running -> completed) landed on the first attempt and was refused on the resent
    one is recorded once, not as a late answer, and its slot goes to the next evaluation at once."""
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.on_message("k1", json.dumps({"type": "ready"}))
    first, second = evaluates(hub.take("k1"))
    s.store = ResentOnce(s.store, "#st = :running AND rpcId = :rpc")
    answer(s, "k1", [first])
    assert s.store.fired == 1
    assert [m["params"]["evaluationId"] for m in evaluates(hub.take("k1"))] == ["e3"]
    ev = s.store.get("CLIENT#c1", f"EVAL#{first['params']['evaluationId']}")
    assert ev["status"] == "completed" and ev["passed"] is True and not ev.get("late")
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 2


def test_a_slot_claim_applied_by_a_lost_first_attempt_is_neither_leaked_nor_counted_twice(env):
    """The slot counter's claim, resent after its first attempt landed, is recognised as ours (not refused
    as if the slots were full, which held the slot with nothing sent on it)."""
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1")
    s.store = ResentOnce(s.store, "inflight < :max", "META")
    s.on_message("k1", json.dumps({"type": "ready"}))
    assert s.store.fired == 1
    sent = evaluates(hub.take("k1"))
    assert [m["params"]["evaluationId"] for m in sent] == ["e1", "e2"]
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 2


def test_a_slot_release_applied_by_a_lost_first_attempt_is_not_applied_twice(env):
    """A release resent after its first attempt landed gives back one slot, not two (two would let the
    client be sent more evaluations at once than its maxConcurrency)."""
    make, hub, *_ = env
    s = make()
    register(s, hub, "k1", capabilities={"tools": ["extract_schema_data"], "maxConcurrency": 3})
    s.on_message("k1", json.dumps({"type": "ready"}))
    first, *_rest = evaluates(hub.take("k1"))
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 3
    s.store = ResentOnce(s.store, "inflight > :z", "META")
    answer(s, "k1", [first])
    assert s.store.fired == 1
    meta, evals = s.load("c1", dispatch=False)
    assert meta["inflight"] == sum(e["status"] == "running" for e in evals) == 2


# ---- every write on an evaluation's way, its answers lost after DynamoDB applied it -------------------------

def _play(s, hub, clock, timers, conn, client, lost, until_s):
    """A client that answers each evaluation as it arrives, and the platform around the server: timers fire at
    their time (Scheduler invokes the function; a failed invocation is not retried here). ``lost`` is armed for
    the ``ready`` and everything after it. Returns what the client received, per evaluation, and the simulated
    time of its last answer."""
    received: dict[str, list[str]] = {}
    fired: set[str] = set()
    start = last = clock.t

    def invoke(fn, *args):  # an invocation that raises ends there, as a Lambda's does
        try:
            fn(*args)
        except Exception:  # noqa: BLE001 - the platform logs it; what the client sees is what counts
            pass

    with lost.active():
        invoke(s.on_message, conn, json.dumps({"type": "ready"}))
        while True:
            requests = evaluates(hub.take(conn))
            for req in requests:
                received.setdefault(req["params"]["evaluationId"], []).append(req["id"])
                invoke(answer, s, conn, [req])
                last = clock.t
            if requests:
                continue
            due = sorted((when, name, p) for name, when, p in timers.scheduled
                         if p.get("clientId") == client and name not in fired)
            if not due or due[0][0] > start + until_s:
                return received, last - start
            when, name, payload = due[0]
            fired.add(name)
            clock.t = max(clock.t, when)
            if payload["agenthost"] == "deadline":
                invoke(s.on_deadline, payload["clientId"], payload["evalId"], payload["rpcId"])
            else:
                invoke(s.on_dispatch, payload)


@pytest.mark.parametrize("every", [True, False], ids=["every answer lost", "first answer lost"])
def test_each_write_of_an_evaluation_applied_with_its_answer_lost(env, every):
    """In turn, each DynamoDB write from ``ready`` to the last result is applied and its answer lost (a read
    timeout after the write landed): every time, the client still receives each evaluation once and its result
    completes it, well within the evaluation's 5 s deadline (no timeout, no second attempt), and the server's
    view ends true (nothing running, no slot held). Before, a lost answer to the write that marks an evaluation
    running left it 'running' though never sent, its slot held and no deadline timer set: the client waited for
    it until some read found the deadline passed (446 s in a loaded e2e run)."""
    from tests.support.dynamo import LostAnswers

    make, hub, clock, timers, _ = env
    s = make()
    count = LostAnswers(None)
    register(s, hub, "k-count", client="c-count")
    received, _ = _play(s, hub, clock, timers, "k-count", "c-count", count, 60)
    assert sorted(received) == ["e1", "e2", "e3"] and count.lost == 0
    problems = []
    for n, write in enumerate(count.writes):
        client, conn = f"c{n}", f"k{n}"
        register(s, hub, conn, client=client)
        lost = LostAnswers(n, every=every)
        received, took = _play(s, hub, clock, timers, conn, client, lost, 60)
        meta, evals = s.load(client, dispatch=False)
        seen = {
            "received": {e: len(ids) for e, ids in sorted(received.items())},
            "status": {e["evalId"]: e["status"] for e in evals},
            "outcomes": sorted({h["outcome"] for e in evals for h in e.get("history", [])}),
            "inflight": meta["inflight"],
        }
        want = {"received": {"e1": 1, "e2": 1, "e3": 1}, "status": dict.fromkeys(("e1", "e2", "e3"), "completed"),
                "outcomes": ["completed"], "inflight": 0}
        if lost.lost == 0 or seen != want or took >= 5:
            problems.append(f"write {n} ({write}, answers lost: {lost.lost}): {seen}, done after {took:.1f} s")
    assert problems == [], "\n".join(problems)


def test_a_database_failing_for_a_while_delays_the_evaluations_and_loses_none(env):
    """DynamoDB answers every request with a 500 from the client's ``ready`` on, for 5 s: the ``ready`` is
    applied by a recovery dispatch once the database answers again (2 s, then 4 s later: the wait doubles), and
    the client then gets its evaluations, each once. A database that never comes back is tried
    ``RECOVER_TRIES`` times, then left to the deadline timers and reads."""
    from botocore.exceptions import ClientError

    from tests.support.dynamo import LostAnswers, on_every_client

    make, hub, clock, timers, _ = env
    s = make()
    register(s, hub, "k1")
    down_until = clock.t + 5

    def failing(model=None, **_):
        if clock.t < down_until:
            raise ClientError({"Error": {"Code": "InternalServerError", "Message": "down"},
                               "ResponseMetadata": {"HTTPStatusCode": 500}}, model.name)

    start = clock.t
    with on_every_client("before-call.dynamodb", failing):
        received, last = _play(s, hub, clock, timers, "k1", "c1", LostAnswers(None), 60)
    assert {e: len(ids) for e, ids in received.items()} == {"e1": 1, "e2": 1, "e3": 1}
    assert last == 6  # answered as soon as they came, at the second recovery
    recoveries = [when - start for name, when, p in timers.scheduled if p.get("clientId") == "c1" and p.get("tries")]
    assert recoveries == [2, 6]
    meta, evals = s.load("c1", dispatch=False)
    assert {e["status"] for e in evals} == {"completed"} and meta["inflight"] == 0

    register(s, hub, "k2", client="c2")
    down_until = float("inf")
    with on_every_client("before-call.dynamodb", failing):
        received, _ = _play(s, hub, clock, timers, "k2", "c2", LostAnswers(None), 3600)
    assert received == {}
    tries = [p["tries"] for _n, _w, p in timers.scheduled if p.get("clientId") == "c2" and p.get("tries")]
    assert tries == list(range(1, scheduler.RECOVER_TRIES + 1))


def test_an_invocation_ended_between_marking_and_posting_leaves_the_attempt_its_deadline_timer(env):
    """A Lambda stopped after it marked an evaluation running and before its post went out (its time spent)
    runs no recovery: the attempt's deadline timer, set before the post, still ends it at its deadline, and
    the retry is sent. (Set after the post, there was none: only a later read could end the attempt.)"""
    make, hub, clock, timers, _ = env
    fire.done = set()
    s = make()
    register(s, hub, "k1", capabilities={"tools": ["extract_schema_data"], "maxConcurrency": 1})

    def killed(_cid, msg):
        raise TimeoutError("Task timed out")  # the runtime stops the invocation mid-post

    s.send = killed
    with pytest.raises(TimeoutError):
        s.on_message("k1", json.dumps({"type": "ready"}))
    e1 = s.store.get("CLIENT#c1", "EVAL#e1")
    assert e1["status"] == "running" and hub.take("k1") == []
    s.send = hub.send
    clock.t += 5
    assert fire(s, timers, "evd-", clock.t) == [scheduler.timer_name(e1["rpcId"], e1["deadline"])]
    again = evaluates(hub.take("k1"))
    assert [m["params"]["evaluationId"] for m in again] == ["e1"] and again[0]["id"] != e1["rpcId"]
    e1 = s.store.get("CLIENT#c1", "EVAL#e1")
    assert e1["attempts"] == 2 and e1["history"][-1]["outcome"] == "timeout"
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 1


def test_a_result_that_arrives_while_the_database_is_down_is_recorded_when_it_answers_again(env):
    """The client answers while every DynamoDB request fails (its result cannot be written): the result rides on
    the recovery dispatch and is recorded, judged, once the database answers again, within the evaluation's
    deadline: completed on its first attempt, never re-sent, and nothing held. (Before, the result was lost: the
    attempt ran on to its deadline and was recorded as a timeout, then sent again.)"""
    from botocore.exceptions import ClientError

    from tests.support.dynamo import on_every_client

    make, hub, clock, timers, _ = env
    fire.done = set()
    s = make()
    register(s, hub, "k1", capabilities={"tools": ["extract_schema_data"], "maxConcurrency": 1})
    s.on_message("k1", json.dumps({"type": "ready"}))
    [first] = evaluates(hub.take("k1"))
    down_until = clock.t + 1.5  # back before the first recovery (2 s on), within the evaluation's 5 s deadline

    def failing(model=None, **_):
        if clock.t < down_until:
            raise ClientError({"Error": {"Code": "InternalServerError", "Message": "down"},
                               "ResponseMetadata": {"HTTPStatusCode": 500}}, model.name)

    with on_every_client("before-call.dynamodb", failing):
        answer(s, "k1", [first])  # the database is down: nothing can be written now
        for _ in range(3):  # the platform fires the recovery timers at their time
            due = sorted(when for name, when, p in timers.scheduled if p.get("tries") and name not in fire.done)
            clock.t = max(clock.t, due[0])
            fire_recovery = [(n, p) for n, w, p in timers.scheduled if p.get("tries") and n not in fire.done
                             and w <= clock.t]
            for name, payload in fire_recovery:
                fire.done.add(name)
                try:
                    s.on_dispatch(payload)
                except Exception:  # noqa: BLE001 - an invocation that raises ends there
                    pass
            if clock.t >= down_until:
                break  # this recovery ran with the database back
    e1 = s.store.get("CLIENT#c1", "EVAL#e1")
    assert e1["status"] == "completed" and e1["attempts"] == 1 and e1["passed"] is True
    assert [h["outcome"] for h in e1["history"]] == ["completed"]
    assert clock.t - float(e1["sentAt"]) < 5  # within the evaluation's 5 s deadline
    sent = evaluates(hub.take("k1"))
    assert [m["params"]["evaluationId"] for m in sent] == ["e2"]  # the next one, and e1 not again
    assert s.store.get("CLIENT#c1", "META")["inflight"] == 1
