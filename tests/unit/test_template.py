"""The template as the local stack reads it: routes, WebSocket routes, table, functions."""

import json
from pathlib import Path

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


def _raw():
    from infra.local.template import load_template

    return load_template()


def test_functions_are_arm64_python312_traced_with_snapstart_except_the_browser_image():
    raw = _raw()
    glob = raw["Globals"]["Function"]
    assert glob["Architectures"] == ["arm64"] and glob["Tracing"] == "Active"
    assert glob["SnapStart"] == {"ApplyOn": "PublishedVersions"} and glob["AutoPublishAlias"] == "live"
    assert glob["Environment"]["Variables"]["POWERTOOLS_SERVICE_NAME"] == "agenthost"
    functions = {k: v["Properties"] for k, v in raw["Resources"].items() if v["Type"] == "AWS::Serverless::Function"}
    images = {k for k, p in functions.items() if p.get("PackageType") == "Image"}
    assert images == {"BrowserFunction"}
    for name, props in functions.items():
        if name in images:
            assert props["SnapStart"] == {"Ref": "AWS::NoValue"} and props["Layers"] == {"Ref": "AWS::NoValue"}
            assert "Runtime" not in props  # sam build cannot evaluate a NoValue runtime
        else:
            # a function only the table's stream invokes (no route) names its own module: it loads no web app
            stream_only = {e["Type"] for e in props.get("Events", {}).values()} == {"DynamoDB"}
            assert props["Runtime"] == "python3.12"
            assert props["Handler"].endswith(".app.handler") or (stream_only and props["Handler"].endswith(".handler"))
            assert "SnapStart" not in props  # the global one applies


def test_table_is_on_demand_with_ttl_and_point_in_time_recovery():
    table = _raw()["Resources"]["Table"]
    props = table["Properties"]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert table["DeletionPolicy"] == "Retain"  # nothing a user stored is lost to a stack delete


def test_dynamodb_access_is_scoped_to_the_table_and_secrets_are_never_literals():
    raw = _raw()
    for name, res in raw["Resources"].items():
        if res["Type"] != "AWS::Serverless::Function":
            continue
        for policy in res["Properties"].get("Policies", []):
            if isinstance(policy, dict):
                for kind, spec in policy.items():
                    if kind.startswith("DynamoDB"):
                        assert spec == {"TableName": {"Ref": "Table"}}, (name, kind, spec)
                    if kind == "Statement":
                        for st in spec:
                            actions = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
                            if any(a.startswith("dynamodb:") for a in actions):
                                assert "*" not in json.dumps(st["Resource"]), (name, st)
    # secrets are passed by name (an SSM parameter or a Secrets Manager secret), never as values
    secretish = {p for p in raw["Parameters"] if any(w in p.lower() for w in ("secret", "key", "token"))}
    # (a prefix, a yes/no switch and a token count are not secrets)
    not_secrets = {"SecretsPrefix", "EvalsDiscloseSecret", "LlmBudgetTokens"}
    assert {p for p in secretish if not p.endswith("Param")} == not_secrets
    for name, fn in parse().functions.items():
        literal = [k for k in fn.environment if k.endswith(("_SECRET", "_KEY", "_TOKEN"))
                   and k != "AGENTHOST_EVALS_DISCLOSE_SECRET"]  # a yes/no switch
        assert literal == [], (name, literal)


def test_outputs_give_the_http_and_websocket_urls():
    outputs = _raw()["Outputs"]
    assert {"HttpApiUrl", "WebSocketUrl"} <= set(outputs)
    assert "execute-api" in json.dumps(outputs["HttpApiUrl"]["Value"])
    assert json.dumps(outputs["WebSocketUrl"]["Value"]).startswith('{"Fn::Sub": "wss://')


def test_webhooks_get_public_function_urls_on_their_live_alias_by_default():
    raw = _raw()
    assert raw["Parameters"]["WebhookFunctionUrls"]["Default"] == "true"
    res = raw["Resources"]
    for fn, path in (("Olympics", "olympics/turn"), ("Werewolf", "werewolf/turn")):
        url = res[f"{fn}FunctionUrl"]
        assert url["Condition"] == "UseWebhookFunctionUrls"
        assert url["Properties"]["AuthType"] == "NONE" and url["Properties"]["Qualifier"] == "live"
        assert url["Properties"]["TargetFunctionArn"] == {"Ref": f"{fn}Function"}
        # a public function URL needs both grants (since October 2025), the second only via the URL
        grants = {res[f"{fn}{name}"]["Properties"]["Action"]: res[f"{fn}{name}"]["Properties"]
                  for name in ("FunctionUrlPermission", "FunctionUrlInvokePermission")}
        assert grants["lambda:InvokeFunctionUrl"]["FunctionUrlAuthType"] == "NONE"
        assert grants["lambda:InvokeFunction"]["InvokedViaFunctionUrl"] is True
        assert all(g["FunctionName"] == {"Ref": f"{fn}FunctionAliaslive"} for g in grants.values())
        value = json.dumps(raw["Outputs"][f"{fn}WebhookUrl"]["Value"])
        assert f"${{{fn}FunctionUrl.FunctionUrl}}{path}" in value and "execute-api" in value


def test_the_local_stack_reads_the_function_urls_and_their_condition():
    assert parse().function_urls == {"OlympicsFunctionUrl": "OlympicsFunction",
                                     "WerewolfFunctionUrl": "WerewolfFunction"}
    assert parse(parameter_overrides={"WebhookFunctionUrls": "false"}).function_urls == {}


def test_the_agent_functions_get_the_stockfish_layer_and_memory_for_it():
    raw = _raw()
    layer = raw["Resources"]["StockfishLayer"]
    assert layer["Type"] == "AWS::Serverless::LayerVersion"
    assert layer["Properties"]["ContentUri"] == "layers/stockfish/build/"  # what layers/stockfish/build.sh makes
    assert layer["Properties"]["CompatibleArchitectures"] == ["arm64"]
    for name in ("OlympicsFunction", "RunsFunction"):
        props = raw["Resources"][name]["Properties"]
        assert props["Layers"] == [{"Ref": "StockfishLayer"}], name  # with the global CoreLayer
        from agenthost.skills.chess import MIN_FUNCTION_MB

        assert props["MemorySize"] >= MIN_FUNCTION_MB, name
    build = (Path(__file__).resolve().parents[2] / "layers" / "stockfish" / "build.sh").read_text()
    assert "stockfish" in build and "arm64" in build and 'out="$here/build"' in build
