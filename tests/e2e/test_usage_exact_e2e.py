"""``GET /usage`` is exact under load: many webhook turns over several agents, sent at once through the local
stack, with stream batches delivered twice (as Lambda does when a batch's success is lost), add up to the
turns sent, no more and no less."""

from __future__ import annotations

import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from agenthost import signing
from infra.local.defaults import LOCAL_SECRETS
from tests.support.olympics import signed, turn_body
from tests.support.stack import start_stack
from tests.support.timing import waited
from tests.support.werewolf import turn

pytestmark = pytest.mark.e2e

AGENTS = 6
OLYMPICS_TURNS = 25  # per agent, a few of them replays of a body already answered
WEREWOLF_TURNS = 40


@pytest.fixture(scope="module")
def redelivering_stack():
    running = start_stack({"AGENTHOST_LOCAL_STREAM_REDELIVER": "2"})  # every second batch comes twice
    yield running
    running.stop()


def _olympics(stack, agent: str, n: int, replay: dict[str, tuple[bytes, dict]]) -> int:
    if n % 10 == 9 and agent in replay:  # the platform resending a body: its first answer, still a turn
        raw, headers = replay[agent]
    else:
        raw, headers = signed(turn_body(n, agent_id=agent, prompt=f"Register Maria Lopez ({agent})"),
                              LOCAL_SECRETS["AGENTHOST_OLYMPICS_SECRET"], agent_id=agent)
        replay[agent] = (raw, headers)
    return httpx.post(f"{stack.http_url}/olympics/turn", content=raw, headers=headers, timeout=60).status_code


def _werewolf(stack, n: int) -> int:
    payload = turn(["vote", "speak"][n % 2])
    payload["game_id"] = f"exact-{n // 8}"
    body = json.dumps(payload, ensure_ascii=False).encode()
    sig = signing.sign(LOCAL_SECRETS["AGENTHOST_WEREWOLF_API_KEY"], body)
    return httpx.post(f"{stack.function_urls['WerewolfFunction']}werewolf/turn", content=body, timeout=60,
                      headers={"content-type": "application/json", "X-Werewolf-Signature": sig}).status_code


def _turns(stack, protocol: str) -> dict[str, int]:
    r = httpx.get(f"{stack.http_url}/usage", params={"protocol": protocol}, timeout=60)
    assert r.status_code == 200, r.text
    return {row["agent"]: row["turns"] for row in r.json()["rows"]}


def test_usage_counts_every_turn_once_under_load_with_redelivered_batches(redelivering_stack):
    stack = redelivering_stack
    run = uuid.uuid4().hex[:6]
    agents = [f"exact-{run}-{i}" for i in range(AGENTS)]
    replay: dict[str, tuple[bytes, dict]] = {}
    jobs = [(a, n) for n in range(1, OLYMPICS_TURNS + 1) for a in agents]
    with ThreadPoolExecutor(max_workers=6) as pool:
        olympics = [pool.submit(_olympics, stack, a, n, replay) for a, n in jobs]
        werewolf = [pool.submit(_werewolf, stack, n) for n in range(WEREWOLF_TURNS)]
        statuses = [f.result() for f in olympics + werewolf]
    assert statuses == [200] * len(statuses)
    expected = {a: OLYMPICS_TURNS for a in agents}

    deadline = time.monotonic() + waited(10.0)
    while True:
        counted = {a: n for a, n in _turns(stack, "olympics").items() if a in expected}
        wolves = _turns(stack, "werewolf").get("werewolf", 0)
        if (counted == expected and wolves >= WEREWOLF_TURNS) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert (counted, wolves) == (expected, WEREWOLF_TURNS)
    time.sleep(3.0)  # another batching window: nothing arrives late, nothing is counted again
    assert {a: n for a, n in _turns(stack, "olympics").items() if a in expected} == expected
    assert _turns(stack, "werewolf")["werewolf"] == WEREWOLF_TURNS
    assert any("delivered again to UsageRollupFunction" in line for line in stack.output)
