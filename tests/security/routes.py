"""The catalog of every route that reads a request body, for the adversarial suite and ``bench_security``.

Each :class:`Route` knows how to call its function's real Lambda handler in process (API Gateway HTTP API v2
events, or a function URL's), how to sign a body the way the protocol's platform does, and what the
protocol answers when a body cannot be used: the webhooks' valid "nothing to do" 200, every other route
a 400 in its own error shape naming the limit.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from agenthost import signing
from tests.support.apigw import Response, call

OLYMPICS_SECRET = "whs_" + "ad" * 32
WEREWOLF_KEY = "ww-key-for-the-security-suite"
RUNS_KEY = "runs-key-for-the-security-suite"
EVALS_ADMIN_KEY = "evals-admin-key-for-the-security-suite"
USAGE_KEY = "usage-key-for-the-security-suite"

ENV = {
    "AGENTHOST_OLYMPICS_SECRET": OLYMPICS_SECRET,
    "AGENTHOST_WEREWOLF_API_KEY": WEREWOLF_KEY,
    "AGENTHOST_RUNS_API_KEY": RUNS_KEY,
    "AGENTHOST_EVALS_ADMIN_KEY": EVALS_ADMIN_KEY,
    "AGENTHOST_USAGE_API_KEY": USAGE_KEY,
    "AGENTHOST_LLM": "none",
}


@dataclass(frozen=True)
class Route:
    name: str
    module: str          # the function's module; its ``handler`` is called
    method: str
    path: str
    kind: str            # "olympics" | "werewolf" | "api"
    shape: str = "plain"  # api error shape: "plain" {"error", "message"} | "agents" {"ok": false, "error"}
    content_type: str = "application/json"
    via_url: bool = False
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def webhook(self) -> bool:
        return self.kind in ("olympics", "werewolf")

    def handler(self) -> Callable[[dict, Any], Any]:
        return importlib.import_module(self.module).handler

    def sign(self, raw: bytes) -> dict[str, str]:
        """The headers the protocol's platform sends with ``raw``."""
        if self.kind == "olympics":
            return {"X-AI-Olympics-Signature": signing.sign(OLYMPICS_SECRET, raw), "X-AI-Olympics-Agent-Id": "a-1",
                    "X-AI-Olympics-Timestamp": str(int(time.time() * 1000))}
        if self.kind == "werewolf":
            return {"X-Werewolf-Signature": signing.sign(WEREWOLF_KEY, raw)}
        return {}

    def send(self, raw: bytes | str, *, signed: bool = True, extra: dict[str, str] | None = None) -> Response:
        body = raw.encode() if isinstance(raw, str) else raw
        headers = {"content-type": self.content_type, **self.headers, **(self.sign(body) if signed else {}),
                   **(extra or {})}
        return call(self.handler(), self.method, self.path, body=body.decode("utf-8", "surrogateescape"),
                    headers=headers, via_url=self.via_url)

    def refused_for_depth(self, r: Response) -> bool:
        """Whether ``r`` is this route's answer to a body past the depth limit."""
        if self.kind == "olympics":
            doc = r.json()
            return r.status == 200 and doc["actions"] == [] and doc["done"] is False and "levels" in doc["thinking"]
        if self.kind == "werewolf":
            doc = r.json()
            return r.status == 200 and isinstance(doc.get("message"), str) and doc["message"]
        doc = r.json()
        if r.status != 400:
            return False
        if self.shape == "agents":
            return doc.get("ok") is False and "limit of 64 levels" in doc.get("error", "")
        return doc.get("error") == "bad_request" and "limit of 64 levels" in doc.get("message", "")


_API = "/.well-known/agents/api"
_RUNS = {"x-api-key": RUNS_KEY}
_EVALS = {"x-api-key": EVALS_ADMIN_KEY}

ROUTES: list[Route] = [
    Route("olympics turn", "olympics.app", "POST", "/olympics/turn", "olympics"),
    Route("olympics turn (function URL)", "olympics.app", "POST", "/olympics/turn", "olympics", via_url=True),
    Route("werewolf turn", "werewolf.app", "POST", "/werewolf/turn", "werewolf"),
    Route("werewolf turn (function URL)", "werewolf.app", "POST", "/werewolf/turn", "werewolf", via_url=True),
    Route("runs start", "runs.app", "POST", "/agent/run/start", "api", headers=_RUNS),
    Route("runs step", "runs.app", "POST", "/agent/run/r-sec/step", "api", headers=_RUNS),
    Route("runs answer", "runs.app", "POST", "/agent/run/r-sec/answer", "api", headers=_RUNS),
    Route("runs cancel", "runs.app", "POST", "/agent/run/r-sec/cancel", "api", headers=_RUNS),
    Route("health", "runs.app", "POST", "/health", "api"),
    Route("agents session", "agents_api.app", "POST", f"{_API}/session", "api", shape="agents"),
    Route("agents search", "agents_api.app", "POST", f"{_API}/search", "api", shape="agents"),
    Route("agents cart add", "agents_api.app", "POST", f"{_API}/cart/add", "api", shape="agents"),
    Route("agents cart update", "agents_api.app", "PUT", f"{_API}/cart/update", "api", shape="agents"),
    Route("agents cart remove", "agents_api.app", "DELETE", f"{_API}/cart/remove", "api", shape="agents"),
    Route("agents checkout", "agents_api.app", "POST", f"{_API}/checkout", "api", shape="agents"),
    Route("agents contact", "agents_api.app", "POST", f"{_API}/contact", "api", shape="agents"),
    Route("evals run", "evals.app", "POST", "/evals/clients/c-sec/run", "api", headers=_EVALS),
    Route("evals definitions (JSON)", "evals.app", "POST", "/evals/definitions", "api", headers=_EVALS),
    Route("evals definitions (YAML)", "evals.app", "POST", "/evals/definitions", "api", headers=_EVALS,
          content_type="application/yaml"),
    Route("usage", "usage.app", "POST", "/usage", "api", headers={"x-api-key": USAGE_KEY}),
]


@contextlib.contextmanager
def in_process(tmp_path: Any) -> Iterator[None]:
    """moto DynamoDB with the template's table and :func:`prepare`'s settings, for a whole test module."""
    from moto import mock_aws

    from agenthost import aws as aws_clients
    from agenthost import config
    from infra.local.template import create_table, parse

    with mock_aws(), pytest.MonkeyPatch.context() as mp:
        aws_clients.reset()
        create_table(aws_clients.client("dynamodb"), parse(), config.settings().table_name)
        prepare(mp, tmp_path)
        yield
    aws_clients.reset()


def prepare(monkeypatch: Any, tmp_path: Any) -> None:
    """Settings for calling every route in process (moto must be running): keys, no LLM, an empty evaluation
    folder, and no rate limit on the agents.json site (the suite sends thousands of requests)."""
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("AGENTHOST_EVALS_DIR", str(tmp_path))
    import agents_api.app as agents_app
    from agents_api.ratelimit import RateLimiter
    from agents_api.sdk import Limits

    monkeypatch.setattr(agents_app.site, "limits", Limits(rate_limit=10**9))
    monkeypatch.setattr(agents_app.site, "rate", RateLimiter(10**9, 60))
    from evals.runtime import packaged_catalog

    packaged_catalog.cache_clear()


def nested(depth: int, inner: Any = 1, kinds: str = "[") -> str:
    """A JSON text nested ``depth`` levels: arrays and/or objects, cycling through ``kinds``."""
    opens, closes = [], []
    for i in range(depth):
        if kinds[i % len(kinds)] == "{":
            opens.append('{"k":')
            closes.append("}")
        else:
            opens.append("[")
            closes.append("]")
    return "".join(opens) + json.dumps(inner) + "".join(reversed(closes))


def nested_yaml(depth: int) -> str:
    """A YAML document nested ``depth`` mappings: block style for the first 100 levels, flow style below."""
    block = min(depth, 100)
    inner = "{k: " * (depth - block) + "1" + "}" * (depth - block)
    return "\n".join("  " * i + f"k{i}:" for i in range(block)) + f" {inner}\n"
