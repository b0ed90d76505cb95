"""Reads ``template.yaml`` (CloudFormation tags included) into what the local stack needs:
functions with their handlers and resolved environment, HTTP routes, WebSocket routes, the table."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
STACK_NAME = "agenthost"
REGION = "us-east-1"
ACCOUNT = "123456789012"


class _CfnLoader(yaml.SafeLoader):
    pass


def _tag(name: str):
    def construct(loader: yaml.Loader, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            value: Any = loader.construct_scalar(node)
            if name == "Fn::GetAtt":
                value = str(value).split(".", 1)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        return {name: value}
    return construct


for _t in ("Base64", "Cidr", "FindInMap", "GetAtt", "GetAZs", "ImportValue", "Join", "Select", "Split",
           "Sub", "If", "Not", "Equals", "And", "Or", "Transform"):
    _CfnLoader.add_constructor(f"!{_t}", _tag(f"Fn::{_t}"))
_CfnLoader.add_constructor("!Ref", _tag("Ref"))
_CfnLoader.add_constructor("!Condition", _tag("Condition"))


def load_template(path: Path = TEMPLATE) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_CfnLoader)  # noqa: S506 - SafeLoader subclass


@dataclass
class Function:
    logical_id: str
    handler: str
    timeout: int
    memory: int
    environment: dict[str, str]
    names: set[str] = field(default_factory=set)
    package_type: str = "Zip"


@dataclass
class HttpRoute:
    method: str  # upper-case, or ANY
    path: str  # as in the template, e.g. /agent/run/{runId}/step
    function: str
    regex: re.Pattern[str]
    specificity: tuple[int, int, int]

    @property
    def route_key(self) -> str:
        """API Gateway's ``routeKey`` (``$default`` for the route that takes what no other claims)."""
        return "$default" if self.path == "$default" else f"{self.method} {self.path}"


@dataclass
class Template:
    raw: dict[str, Any]
    functions: dict[str, Function]
    http_routes: list[HttpRoute]
    ws_routes: dict[str, str]  # route key -> function logical id
    ws_selection: str
    table: dict[str, Any]
    parameters: dict[str, str]
    # Lambda function URLs (AWS::Lambda::Url whose condition holds): URL logical id -> function logical id
    function_urls: dict[str, str] = field(default_factory=dict)
    # event source mappings on the table's stream (functions' events of type DynamoDB)
    stream_mappings: list[StreamMapping] = field(default_factory=list)


@dataclass
class StreamMapping:
    """A function's ``Type: DynamoDB`` event: the table's stream delivered to it in batches."""

    function: str
    batch_size: int = 100
    window_s: float = 0.0
    starting_position: str = "LATEST"
    patterns: list[str] = field(default_factory=list)  # FilterCriteria patterns (JSON); none: every record


def _stream_mappings(lid: str, props: dict[str, Any]) -> list[StreamMapping]:
    out = []
    for event in (props.get("Events") or {}).values():
        if not isinstance(event, dict) or event.get("Type") != "DynamoDB":
            continue
        ep = event.get("Properties") or {}
        filters = ((ep.get("FilterCriteria") or {}).get("Filters")) or []
        out.append(StreamMapping(lid, int(ep.get("BatchSize", 100)), float(ep.get("MaximumBatchingWindowInSeconds", 0)),
                                 str(ep.get("StartingPosition", "LATEST")),
                                 [str(f["Pattern"]) for f in filters if isinstance(f, dict) and f.get("Pattern")]))
    return out


def _route_regex(path: str) -> tuple[re.Pattern[str], tuple[int, int, int]]:
    pattern, static, params, greedy = "", 0, 0, 0
    for seg in path.strip("/").split("/") if path.strip("/") else []:
        m = re.fullmatch(r"\{([A-Za-z0-9_]+)(\+?)\}", seg)
        if m and m.group(2):
            pattern += rf"/(?P<{m.group(1)}>.+)"
            greedy += 1
        elif m:
            pattern += rf"/(?P<{m.group(1)}>[^/]+)"
            params += 1
        else:
            pattern += "/" + re.escape(seg)
            static += 1
    return re.compile("^" + (pattern or "/") + "/?$"), (static, params, -greedy)


class Resolver:
    """Resolves the intrinsic functions that appear in environment variables, locally."""

    def __init__(self, raw: dict[str, Any], overrides: dict[str, str]):
        self.raw = raw
        self.resources = raw.get("Resources", {})
        self.params = {k: str(v.get("Default", "")) for k, v in raw.get("Parameters", {}).items()}
        self.params.update({k: v for k, v in overrides.items() if k in self.params})
        self.conditions = raw.get("Conditions", {})

    def ref(self, name: str) -> Any:
        pseudo = {"AWS::Region": REGION, "AWS::AccountId": ACCOUNT, "AWS::StackName": STACK_NAME,
                  "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com", "AWS::NoValue": None}
        if name in pseudo:
            return pseudo[name]
        if name in self.params:
            return self.params[name]
        res = self.resources.get(name)
        if res is not None:
            if res["Type"] == "AWS::DynamoDB::Table":
                return res.get("Properties", {}).get("TableName") or STACK_NAME
            if res["Type"] == "AWS::Serverless::Function":
                fn_name = res.get("Properties", {}).get("FunctionName")
                return self.resolve(fn_name) if fn_name else name
            return name
        return name

    def condition(self, name: str) -> bool:
        return bool(self.resolve(self.conditions.get(name, False)))

    def resolve(self, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        if "Ref" in value:
            return self.ref(value["Ref"])
        if "Fn::Sub" in value:
            arg = value["Fn::Sub"]
            text, extra = (arg, {}) if isinstance(arg, str) else (arg[0], arg[1])

            def sub(m: re.Match[str]) -> str:
                key = m.group(1)
                if key in extra:
                    return str(self.resolve(extra[key]))
                if "." in key:
                    return key.split(".", 1)[0]
                got = self.ref(key)
                return "" if got is None else str(got)
            return re.sub(r"\$\{([^}!]+)\}", sub, text)
        if "Fn::If" in value:
            cond, yes, no = value["Fn::If"]
            return self.resolve(yes if self.condition(cond) else no)
        if "Fn::Not" in value:
            return not self.resolve(value["Fn::Not"][0])
        if "Fn::Equals" in value:
            a, b = value["Fn::Equals"]
            return str(self.resolve(a)) == str(self.resolve(b))
        if "Fn::And" in value:
            return all(self.resolve(v) for v in value["Fn::And"])
        if "Fn::Or" in value:
            return any(self.resolve(v) for v in value["Fn::Or"])
        if "Fn::Join" in value:
            sep, parts = value["Fn::Join"]
            return sep.join(str(self.resolve(p)) for p in parts)
        if "Fn::GetAtt" in value:
            return ".".join(value["Fn::GetAtt"])
        if "Condition" in value:
            return self.condition(value["Condition"])
        return value


def _str_or_empty(value: Any) -> str:
    return value if isinstance(value, str) else ""  # e.g. Handler: !Ref AWS::NoValue on an image function


def parse(path: Path = TEMPLATE, parameter_overrides: dict[str, str] | None = None) -> Template:
    raw = load_template(path)
    res = Resolver(raw, parameter_overrides or {})
    functions: dict[str, Function] = {}
    http_routes: list[HttpRoute] = []
    table: dict[str, Any] = {}
    integrations: dict[str, str] = {}
    selection = "$request.body.action"
    function_urls: dict[str, str] = {}
    mappings: list[StreamMapping] = []

    for lid, resource in raw.get("Resources", {}).items():
        rtype = resource.get("Type")
        props = resource.get("Properties", {}) or {}
        if rtype == "AWS::Serverless::Function":
            functions[lid] = _function(lid, resource, res, raw.get("Globals", {}).get("Function", {}))
            http_routes += _http_routes(lid, props)
            mappings += _stream_mappings(lid, props)
        elif rtype == "AWS::DynamoDB::Table":
            table = {"logical_id": lid, "name": res.ref(lid), **props}
        elif rtype == "AWS::Lambda::Url" and (not resource.get("Condition") or res.condition(resource["Condition"])):
            target = props.get("TargetFunctionArn")
            if isinstance(target, dict) and "Ref" in target:
                function_urls[lid] = target["Ref"]
        elif rtype == "AWS::ApiGatewayV2::Api" and props.get("ProtocolType") == "WEBSOCKET":
            selection = props.get("RouteSelectionExpression", selection)
        elif rtype == "AWS::ApiGatewayV2::Integration":
            uri = props.get("IntegrationUri")
            text = uri.get("Fn::Sub", "") if isinstance(uri, dict) else str(uri)
            m = re.search(r"\$\{([A-Za-z0-9]+?)(?:Alias[A-Za-z0-9]+)?(?:\.Arn)?\}", text)
            if m:
                integrations[lid] = m.group(1)

    http_routes.sort(key=lambda r: r.specificity, reverse=True)
    return Template(raw, functions, http_routes, _ws_routes(raw, integrations), selection, table, res.params,
                    {k: v for k, v in function_urls.items() if v in functions}, mappings)


def _function(lid: str, resource: dict[str, Any], res: Resolver, globals_fn: dict[str, Any]) -> Function:
    """A function resource with its resolved environment (Globals first, its own variables over them)."""
    props = resource.get("Properties", {}) or {}
    env: dict[str, str] = {}
    global_env = globals_fn.get("Environment", {}).get("Variables", {})
    for k, v in {**global_env, **props.get("Environment", {}).get("Variables", {})}.items():
        got = res.resolve(v)
        if got is not None:
            env[k] = str(got)
    fn = Function(
        logical_id=lid,
        # image functions declare how the local stack runs them: Metadata.LocalHandler
        handler=_str_or_empty(props.get("Handler"))
        or str((resource.get("Metadata") or {}).get("LocalHandler", "")),
        timeout=int(props.get("Timeout", globals_fn.get("Timeout", 3))),
        memory=int(props.get("MemorySize", globals_fn.get("MemorySize", 128))),
        environment=env,
        package_type=props.get("PackageType", "Zip"),
    )
    fn.names = {lid}
    if props.get("FunctionName"):
        fn.names.add(str(res.resolve(props["FunctionName"])))
    return fn


def _http_routes(lid: str, props: dict[str, Any]) -> list[HttpRoute]:
    """The function's ``HttpApi`` events as routes (``$default`` matches everything, least specific)."""
    routes = []
    for ev in (props.get("Events") or {}).values():
        if ev.get("Type") != "HttpApi":
            continue
        ep = ev.get("Properties", {}) or {}
        method = str(ep.get("Method", "ANY")).upper()
        route_path = ep.get("Path", "$default")
        if route_path == "$default":
            regex, spec = re.compile(".*"), (-1, 0, 0)
        else:
            regex, spec = _route_regex(route_path)
        routes.append(HttpRoute(method, route_path, lid, regex, spec))
    return routes


def _ws_routes(raw: dict[str, Any], integrations: dict[str, str]) -> dict[str, str]:
    """WebSocket route key -> function, through each route's integration."""
    ws_routes: dict[str, str] = {}
    for resource in raw.get("Resources", {}).values():
        if resource.get("Type") != "AWS::ApiGatewayV2::Route":
            continue
        props = resource.get("Properties", {})
        target = props.get("Target")
        text = target.get("Fn::Sub", "") if isinstance(target, dict) else str(target)
        m = re.search(r"integrations/\$\{([A-Za-z0-9]+)\}", text)
        if m and m.group(1) in integrations:
            ws_routes[props["RouteKey"]] = integrations[m.group(1)]
    return ws_routes


def create_table_kwargs(table: dict[str, Any], name: str) -> dict[str, Any]:
    """boto3 ``create_table`` arguments for the template's table definition."""
    kwargs: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": table["AttributeDefinitions"],
        "KeySchema": table["KeySchema"],
        "BillingMode": table.get("BillingMode", "PAY_PER_REQUEST"),
    }
    if table.get("GlobalSecondaryIndexes"):
        kwargs["GlobalSecondaryIndexes"] = table["GlobalSecondaryIndexes"]
    stream = table.get("StreamSpecification")
    if stream and stream.get("StreamViewType"):
        kwargs["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream["StreamViewType"]}
    return kwargs


def create_table(client: Any, tpl: Template, name: str) -> None:
    """Create the template's table (and its TTL setting) through ``client``; no-op if it exists."""
    try:
        client.create_table(**create_table_kwargs(tpl.table, name))
    except client.exceptions.ResourceInUseException:
        return
    ttl = tpl.table.get("TimeToLiveSpecification")
    if ttl and ttl.get("Enabled"):
        client.update_time_to_live(
            TableName=name,
            TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl["AttributeName"]},
        )
