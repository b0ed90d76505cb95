"""The app factory's edges, through a real handler and API Gateway v2 events."""

import json

from pydantic import BaseModel

from agenthost.webapp import ApiError, annotate, create_app, make_handler
from tests.support.apigw import call


class Body(BaseModel):
    task: str
    count: int = 1


def build():
    app = create_app("demo", max_body_bytes=1000)

    @app.post("/things")
    def make(body: Body) -> dict:
        return {"task": body.task, "count": body.count}

    @app.get("/conflict")
    def conflict() -> dict:
        raise ApiError(409, "run is waiting for the user", headers={"retry-after": "1"})

    @app.get("/boom")
    def boom() -> dict:
        raise RuntimeError("secret internals: password=hunter2")

    @app.get("/noted")
    async def noted() -> dict:
        annotate(game_id="g-7", source="fallback")
        return {"ok": True}

    @app.get("/noted-sync")
    def noted_sync() -> dict:  # runs on a worker thread
        annotate(step=3)
        return {"ok": True}

    @app.post("/echo-bytes")
    async def echo(request: __import__("fastapi").Request) -> dict:
        raw = await request.body()
        return {"len": len(raw), "hex": raw[:4].hex()}

    return make_handler(app)


handler = build()


def test_ok_and_request_id():
    r = call(handler, "POST", "/things", json_body={"task": "x"}, headers={"x-request-id": "abc-123"})
    assert r.status == 200 and r.json() == {"task": "x", "count": 1}
    assert r.headers["x-request-id"] == "abc-123"
    r2 = call(handler, "POST", "/things", json_body={"task": "x"})
    assert r2.headers["x-request-id"]  # generated


def test_unknown_route_is_json_404():
    r = call(handler, "GET", "/nowhere")
    assert r.status == 404 and r.headers["content-type"] == "application/json"
    assert r.json() == {"error": "not_found", "message": "no route for GET /nowhere"}


def test_wrong_method_is_405():
    r = call(handler, "GET", "/things")
    assert r.status == 405 and r.json()["error"] == "method_not_allowed"


def test_malformed_json_is_400_naming_the_problem():
    r = call(handler, "POST", "/things", body='{"task": "x",', headers={"content-type": "application/json"})
    assert r.status == 400
    assert r.json()["message"].startswith("Malformed JSON body")


def test_validation_error_names_the_field():
    r = call(handler, "POST", "/things", json_body={"count": "many"})
    assert r.status == 400
    msg = r.json()["message"]
    assert "task" in msg and "count" in msg


def test_body_over_limit_is_413():
    r = call(handler, "POST", "/things", json_body={"task": "x" * 2000})
    assert r.status == 413 and r.json()["error"] == "payload_too_large"


def test_api_error_and_headers():
    r = call(handler, "GET", "/conflict")
    assert r.status == 409 and r.json() == {"error": "conflict", "message": "run is waiting for the user"}
    assert r.headers["retry-after"] == "1"


def test_unexpected_error_is_500_without_internals(capsys):
    r = call(handler, "GET", "/boom")
    assert r.status == 500
    assert "hunter2" not in r.text and "Traceback" not in r.text
    assert r.json()["error"] == "internal_error"


def test_binary_body_arrives_base64_decoded():
    raw = bytes(range(256))
    r = call(handler, "POST", "/echo-bytes", body=raw, headers={"content-type": "application/octet-stream"})
    assert r.json() == {"len": 256, "hex": "00010203"}


def test_custom_error_shape():
    app = create_app("shaped", error_body=lambda s, c, m: {"ok": False, "error": {"code": c, "message": m}})
    h = make_handler(app)
    r = call(h, "GET", "/x")
    assert r.json() == {"ok": False, "error": {"code": "not_found", "message": "no route for GET /x"}}
    assert json.loads(r.body)["ok"] is False


def test_annotations_ride_on_the_one_access_line():
    """What a route wants logged goes on its request's access line: one INFO line per request."""
    import logging

    lines = []

    class Grab(logging.Handler):
        def emit(self, record):
            lines.append(record)

    grab = Grab(level=logging.INFO)
    log = logging.getLogger("agenthost")
    log.addHandler(grab)
    level = log.level
    log.setLevel(logging.INFO)  # (tests run at WARNING)
    try:
        assert call(handler, "GET", "/noted").status == 200
        assert call(handler, "GET", "/noted-sync").status == 200
    finally:
        log.removeHandler(grab)
        log.setLevel(level)
    infos = [r for r in lines if r.levelno == logging.INFO]
    assert [r.getMessage() for r in infos] == ["request", "request"]
    assert (infos[0].game_id, infos[0].source, infos[0].path, infos[0].status) == ("g-7", "fallback", "/noted", 200)
    assert infos[1].step == 3 and not hasattr(infos[1], "game_id")  # nothing carries over between requests
