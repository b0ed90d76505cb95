"""The template as the local stack reads it: routes, WebSocket routes, table, functions."""

from infra.local.template import parse


def test_routes_functions_and_table():
    tpl = parse()
    assert {"RunsFunction", "EvalsFunction"} <= set(tpl.functions)
    runs = tpl.functions["RunsFunction"]
    assert runs.handler == "runs.app.handler"
    assert runs.environment["AGENTHOST_LLM"] == "none"
    assert "AGENTHOST_LLM_API_KEY_PARAM" not in runs.environment  # NoValue when the param is empty
    assert any(r.path == "/health" and r.function == "RunsFunction" for r in tpl.http_routes)
    assert {"$connect", "$default", "$disconnect"} <= set(tpl.ws_routes)
    assert tpl.ws_selection == "$request.body.type"
    assert [k["AttributeName"] for k in tpl.table["KeySchema"]] == ["pk", "sk"]
    assert tpl.table["TimeToLiveSpecification"]["AttributeName"] == "expires_at"


def test_parameter_overrides_flow_into_environment():
    tpl = parse(parameter_overrides={"LlmApiKeyParam": "/agenthost/llm-key", "LlmSpec": "openai:m"})
    env = tpl.functions["RunsFunction"].environment
    assert env["AGENTHOST_LLM_API_KEY_PARAM"] == "/agenthost/llm-key"
    assert env["AGENTHOST_LLM"] == "openai:m"


def test_route_matching_prefers_static_over_params():
    from infra.local.gateway import HttpGateway
    from infra.local.template import HttpRoute, _route_regex

    tpl = parse()
    routes = []
    for method, path in [("ANY", "/a/{proxy+}"), ("GET", "/a/{id}"), ("GET", "/a/fixed")]:
        rx, spec = _route_regex(path)
        routes.append(HttpRoute(method, path, "F", rx, spec))
    tpl.http_routes = sorted(routes, key=lambda r: r.specificity, reverse=True)
    gw = HttpGateway(tpl, runtime=None, log=lambda m: None)
    assert gw.match("GET", "/a/fixed")[0].path == "/a/fixed"
    route, params = gw.match("GET", "/a/x%20y")
    assert route.path == "/a/{id}" and params == {"id": "x y"}
    route, params = gw.match("POST", "/a/b/c")
    assert route.path == "/a/{proxy+}" and params == {"proxy": "b/c"}
    assert gw.match("GET", "/b") is None
