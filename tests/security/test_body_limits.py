"""One depth limit wherever a body is parsed: every route in the catalog, WebSocket frames (the function and
the local gateway's route selection) and YAML definitions. Past the limit a webhook plays its valid "nothing
to do" 200 (after its signature check), any other route answers 400 in its protocol's shape naming the limit;
whatever the body, nothing answers 5xx."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agenthost import limits
from tests.security.routes import ROUTES, Route, in_process, nested, nested_yaml

FUZZ = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def routes(tmp_path_factory):
    with in_process(tmp_path_factory.mktemp("defs")):
        yield ROUTES


def by_name(name: str) -> Route:
    return next(r for r in ROUTES if r.name == name)


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
def test_too_deep_is_refused_the_protocols_way(routes, route):
    for depth in (65, 1000, 2000, 5000):
        body = nested_yaml(depth) if route.content_type == "application/yaml" else nested(depth, kinds="[{")
        r = route.send(body)
        assert r.status < 500, r.text
        assert route.refused_for_depth(r), (depth, r.status, r.text[:300])


@pytest.mark.parametrize("route", [r for r in ROUTES if r.webhook], ids=lambda r: r.name)
def test_the_reported_reproducer_on_the_webhooks(routes, route):
    reproducer = "[" * 2000 + "]" * 2000
    r = route.send(reproducer)
    assert r.status == 200 and route.refused_for_depth(r), r.text
    # the signature is still checked first: an unsigned deep body is not the platform's
    assert route.send(reproducer, signed=False).status == 401


@pytest.mark.parametrize("route", [r for r in ROUTES if not r.webhook], ids=lambda r: r.name)
def test_at_the_limit_the_body_is_read(routes, route):
    """64 levels is allowed: the route answers whatever it answers for that body, not the depth refusal."""
    if route.content_type == "application/yaml":
        body = nested_yaml(limits.MAX_DEPTH)
    else:
        body = json.dumps({"k": json.loads(nested(limits.MAX_DEPTH - 1))})
    r = route.send(body)
    assert r.status < 500 and "limit of 64 levels" not in r.text, r.text[:300]


scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**40, 10**40), st.floats(allow_nan=False),
                    st.text(max_size=20), st.sampled_from(["[", "{", "]]]", '"', "\\", "[[[[[[", "}{"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                            st.dictionaries(st.text(max_size=6), inner, max_size=5)),
                           max_leaves=30)


@st.composite
def deep_bodies(draw):
    depth = draw(st.integers(limits.MAX_DEPTH + 1, 4000))
    kinds = draw(st.sampled_from(["[", "{", "[{", "{[", "[[{"]))
    return nested(depth, draw(json_values), kinds)


@st.composite
def wide_bodies(draw):
    width = draw(st.integers(100, 5000))
    item = json.dumps(draw(json_values))
    return "[" + ",".join([item] * width) + "]" if draw(st.booleans()) else \
        json.dumps({f"k{i}": json.loads(item) for i in range(width)})


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
@FUZZ
@given(body=deep_bodies())
def test_generated_deep_bodies(routes, route, body):
    r = route.send(body)
    assert r.status < 500 and route.refused_for_depth(r), (r.status, r.text[:300])


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
@FUZZ
@given(body=st.one_of(wide_bodies(), json_values.map(json.dumps), st.binary(max_size=200).map(
    lambda b: b.decode("latin-1"))))
def test_generated_wide_and_odd_bodies(routes, route, body):
    r = route.send(body)
    assert r.status < 500, (r.status, r.text[:300])
    if route.webhook:
        assert r.status == 200, r.text[:300]  # signed: always a valid 200


def test_websocket_frames_too_deep(aws):
    from evals.definitions import Catalog
    from evals.server import Options, Server
    from evals.timers import NoTimers

    sent: list[tuple[str, dict]] = []
    server = Server(store=aws, send=lambda cid, msg: sent.append((cid, msg)) or True, timers=NoTimers(),
                    catalog=lambda _cid=None: Catalog(), options=Options(secret="s"), close=lambda cid: None)
    for depth in (65, 1500, 5000):
        server.on_message("c-1", nested(depth, kinds="{"))
        cid, msg = sent.pop()
        assert cid == "c-1" and msg["error"]["code"] == -32600 and "limit of 64 levels" in msg["error"]["message"]


def test_local_gateway_route_selection_survives_deep_frames():
    from infra.local.gateway import WebSocketGateway
    from infra.local.template import parse

    gateway = WebSocketGateway(parse(), runtime=None)  # type: ignore[arg-type]
    frame = "[" * 1500 + "]" * 1500  # ~3 KB: the frame that dropped the connection
    assert gateway.select_route(frame) == "$default"
    assert gateway.select_route(json.dumps({"action": nested(2000, kinds="{")})) == "$default"


def test_yaml_definitions_too_deep():
    from evals.definitions import DefinitionError, parse_text

    for text in (nested_yaml(1000), "[" * 1000 + "]" * 1000, "a: " + "{b: " * 900 + "1" + "}" * 900):
        with pytest.raises(DefinitionError, match="limit of 64 levels"):
            parse_text(text)


def test_depth_scanner_ignores_brackets_in_strings():
    assert limits.json_depth(json.dumps({"text": "[" * 5000})) == 1
    assert limits.json_depth(json.dumps({"t": '\\"[[[' * 100})) == 1
    assert limits.json_depth(nested(200)) == 200
    assert limits.object_depth(json.loads(nested(70, kinds="[{"))) == 70
