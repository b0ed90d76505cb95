"""The cost report through the local stack: a webhook turn shows up in GET /usage and `make usage`, once the
table's stream has brought its usage to the rollup (seconds: the tests wait for it, with a deadline)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.support import timing
from tests.support.werewolf import turn

pytestmark = pytest.mark.e2e

#: the template's batching window (2 s), Lambda's poll and the rollup's run, on a busy machine
ROLLED_S = 6.0


def settled(read: Callable[[], Any], done: Callable[[Any], bool]) -> Any:
    """``read()`` until ``done`` says it holds (the usage rolled up), or the load-stretched deadline passes."""
    return timing.settled(read, done, ROLLED_S, every=0.2)


def test_a_turn_through_the_gateway_appears_in_the_report_and_the_table(stack, capsys):
    from agenthost import signing
    from infra.local.defaults import LOCAL_SECRETS

    body = json.dumps(turn("vote"), ensure_ascii=False).encode()
    sig = signing.sign(LOCAL_SECRETS["AGENTHOST_WEREWOLF_API_KEY"], body)
    r = httpx.post(f"{stack.http_url}/werewolf/turn", content=body, timeout=30,
                   headers={"content-type": "application/json", "X-Werewolf-Signature": sig})
    assert r.status_code == 200

    def read() -> httpx.Response:
        return httpx.get(f"{stack.http_url}/usage", params={"protocol": "werewolf"}, timeout=30)

    report = settled(read, lambda got: got.status_code != 200 or bool(got.json()["rows"]))
    assert report.status_code == 200, report.text
    rows = report.json()["rows"]
    assert rows and rows[0]["protocol"] == "werewolf" and rows[0]["turns"] >= 1
    assert report.json()["totals"]["cost"]["infra"] > 0

    from usage.cli import main

    assert main(["--url", f"{stack.http_url}/usage", "--protocol", "werewolf"]) == 0
    out = capsys.readouterr().out
    assert "werewolf" in out and out.splitlines()[1].split()[:4] == ["date", "agent", "protocol", "turns"]


def _usage(stack, protocol):
    r = httpx.get(f"{stack.http_url}/usage", params={"protocol": protocol}, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()["rows"]


def test_webhooks_answer_through_their_function_urls_and_bill_no_api_request(stack):
    """The local stack serves the template's function URLs (WebhookFunctionUrls) like Lambda does: any
    path to one function, as a function URL event. Turns answer as through the HTTP API, and the report
    counts them in url_turns and prices no API request for them."""
    import uuid

    from agenthost import signing
    from infra.local.defaults import LOCAL_SECRETS
    from tests.support.olympics import signed, turn_body

    assert set(stack.function_urls) == {"OlympicsFunction", "WerewolfFunction"}
    before = sum(r.get("url_turns", 0) for r in _usage(stack, "werewolf"))
    body = json.dumps(turn("vote"), ensure_ascii=False).encode()
    sig = signing.sign(LOCAL_SECRETS["AGENTHOST_WEREWOLF_API_KEY"], body)
    r = httpx.post(f"{stack.function_urls['WerewolfFunction']}werewolf/turn", content=body, timeout=30,
                   headers={"content-type": "application/json", "X-Werewolf-Signature": sig})
    assert r.status_code == 200 and r.json()["target"]
    bad = httpx.post(f"{stack.function_urls['WerewolfFunction']}werewolf/turn", content=body, timeout=30,
                     headers={"content-type": "application/json", "X-Werewolf-Signature": "0" * 64})
    assert bad.status_code == 401
    url_turns = settled(lambda: sum(r.get("url_turns", 0) for r in _usage(stack, "werewolf")),
                        lambda got: got >= before + 1)
    assert url_turns == before + 1

    agent = f"url-{uuid.uuid4().hex[:8]}"
    raw, headers = signed(turn_body(agent_id=agent), LOCAL_SECRETS["AGENTHOST_OLYMPICS_SECRET"], agent_id=agent)
    r = httpx.post(f"{stack.function_urls['OlympicsFunction']}olympics/turn", content=raw, headers=headers,
                   timeout=30)
    assert r.status_code == 200 and isinstance(r.json()["actions"], list)
    [row] = settled(lambda: [x for x in _usage(stack, "olympics") if x["agent"] == agent], bool)
    assert (row["turns"], row["url_turns"], row["cost"]["api"]) == (1, 1, 0)
