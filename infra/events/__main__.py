"""(Re)writes the sample events in ``infra/events/`` for ``sam local invoke``: one per route of
``template.yaml`` (HTTP API payload v2, WebSocket events), built with the same builders the local stack
uses. The AI Olympics turn is signed with the local default secret at the time you run this (the replay
window is 5 minutes: regenerate it right before invoking)::

    python -m infra.events             # every event
    python -m infra.events olympics    # just the freshly signed AI Olympics turns (HTTP API, function URL)

Invoke with the local settings in ``infra/env.json`` (local, non-production secrets)::

    sam local invoke OlympicsFunction -e infra/events/olympics-turn.json --env-vars infra/env.json
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from infra.local.defaults import LOCAL_SECRETS
from infra.local.events import function_url_event, http_event, ws_event

HERE = Path(__file__).resolve().parent
JSON = {"content-type": "application/json", "user-agent": "curl/8"}


def _http(method: str, path: str, route: str, body: Any = None, headers: dict[str, str] | None = None,
          query: str | None = None, **params: str) -> dict[str, Any]:
    raw = json.dumps(body, ensure_ascii=False) if body is not None and not isinstance(body, str) else body
    return http_event(method, path, body=raw, headers={**JSON, **(headers or {})},
                      route_key=route if route == "$default" else f"ANY {route}",
                      query=query, path_parameters=params or None)


def olympics_turn(*, via_url: bool = False) -> dict[str, Any]:
    from agenthost import signing

    body = {
        "version": "1.0", "timestamp": int(time.time() * 1000), "agentId": "agent-1", "agentName": "Sample",
        "task": {"systemPrompt": "You are a web agent.", "taskPrompt": "Click the Continue button."},
        "pageState": {"url": "https://example.com/", "title": "Example",
                      "accessibilityTree": '- heading "Example" [level=1]\n- button "Continue"'},
        "previousActions": [], "turnNumber": 1, "availableTools": [],
    }
    raw = json.dumps(body, separators=(",", ":"))
    sig = signing.sign(LOCAL_SECRETS["AGENTHOST_OLYMPICS_SECRET"].encode(), raw.encode())
    headers = {**JSON, "x-ai-olympics-signature": sig, "x-ai-olympics-agent-id": "agent-1",
               "x-ai-olympics-timestamp": str(body["timestamp"])}
    if via_url:
        return function_url_event("POST", "/olympics/turn", body=raw, headers=headers)
    return http_event("POST", "/olympics/turn", body=raw, route_key="ANY /olympics/turn", headers=headers)


def werewolf_turn(*, via_url: bool = False) -> dict[str, Any]:
    from tests.support.werewolf import turn  # a payload shaped like the engine's

    if via_url:
        return function_url_event("POST", "/werewolf/turn", body=json.dumps(turn("vote"), ensure_ascii=False),
                                  headers=JSON)
    return _http("POST", "/werewolf/turn", "/werewolf/turn", turn("vote"))


def events() -> dict[str, Any]:
    ws = {"domain": "local.execute-api.us-east-1.amazonaws.com", "stage": "local", "source_ip": "127.0.0.1",
          "connected_at": 1795315008000}
    return {
        "runs-health": _http("GET", "/health", "/health"),
        "runs-start": _http("POST", "/agent/run/start", "/agent/run/start",
                            {"task": "Find the opening hours on example.com", "mode": "careful"}),
        "runs-get": _http("GET", "/agent/run/sample-run", "/agent/run/{runId}", runId="sample-run"),
        "runs-step": _http("POST", "/agent/run/sample-run/step", "/agent/run/{runId}/step",
                           {"snapshot": None}, runId="sample-run"),
        "runs-answer": _http("POST", "/agent/run/sample-run/answer", "/agent/run/{runId}/answer",
                             {"approved": True}, runId="sample-run"),
        "runs-cancel": _http("POST", "/agent/run/sample-run/cancel", "/agent/run/{runId}/cancel", {},
                             runId="sample-run"),
        "agents-json": _http("GET", "/.well-known/agents.json", "/.well-known/agents.json"),
        "agents-txt": _http("GET", "/.well-known/agents.txt", "/.well-known/agents.txt"),
        "agents-llms-txt": _http("GET", "/llms.txt", "/llms.txt"),
        "agents-search": _http("GET", "/.well-known/agents/api/search", "/.well-known/agents/api/{proxy+}",
                               query="q=mug&limit=5", proxy="search"),
        "agents-checkout": _http("GET", "/.well-known/agents/checkout/unknown", "/.well-known/agents/checkout/{proxy+}",
                                 proxy="unknown"),
        # a path no route claims: the site's $default route (its 404, with the discovery Link)
        "agents-site-other": _http("GET", "/no/such/page", "$default"),
        "olympics-turn": olympics_turn(),
        "werewolf-turn": werewolf_turn(),
        # the same turns as the webhooks' function URLs (WebhookFunctionUrls) deliver them
        "olympics-turn-url": olympics_turn(via_url=True),
        "werewolf-turn-url": werewolf_turn(via_url=True),
        "usage": _http("GET", "/usage", "/usage"),
        "evals-admin-clients": _http("GET", "/evals/clients", "/evals/{proxy+}", proxy="clients"),
        "evals-connect": ws_event("$connect", "c2FtcGxlLWNvbm4=", headers={"host": ws["domain"]}, **ws),
        "evals-ping": ws_event("$default", "c2FtcGxlLWNvbm4=", body=json.dumps({"type": "ping"}), **ws),
        "evals-disconnect": ws_event("$disconnect", "c2FtcGxlLWNvbm4=", disconnect_code=1000, **ws),
    }


def main(argv: list[str]) -> int:
    wanted = set(argv[1:])
    for name, event in events().items():
        if wanted and not any(name.startswith(w) for w in wanted):
            continue
        (HERE / f"{name}.json").write_text(json.dumps(event, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote infra/events/{name}.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
