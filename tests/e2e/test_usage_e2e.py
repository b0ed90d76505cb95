"""The cost report through the local stack: a webhook turn shows up in GET /usage and `make usage`."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.support.werewolf import turn

pytestmark = pytest.mark.e2e


def test_a_turn_through_the_gateway_appears_in_the_report_and_the_table(stack, capsys):
    from agenthost import signing
    from infra.local.defaults import LOCAL_SECRETS

    body = json.dumps(turn("vote"), ensure_ascii=False).encode()
    sig = signing.sign(LOCAL_SECRETS["AGENTHOST_WEREWOLF_API_KEY"], body)
    r = httpx.post(f"{stack.http_url}/werewolf/turn", content=body, timeout=30,
                   headers={"content-type": "application/json", "X-Werewolf-Signature": sig})
    assert r.status_code == 200
    report = httpx.get(f"{stack.http_url}/usage", params={"protocol": "werewolf"}, timeout=30)
    assert report.status_code == 200, report.text
    rows = report.json()["rows"]
    assert rows and rows[0]["protocol"] == "werewolf" and rows[0]["turns"] >= 1
    assert report.json()["totals"]["cost"]["infra"] > 0

    from usage.cli import main

    assert main(["--url", f"{stack.http_url}/usage", "--protocol", "werewolf"]) == 0
    out = capsys.readouterr().out
    assert "werewolf" in out and out.splitlines()[1].split()[:4] == ["date", "agent", "protocol", "turns"]
