"""The simulator plays full games against the webhook through the local stack: real signed HTTP,
API Gateway v2 events, the embedded DynamoDB for memory."""

from __future__ import annotations

import httpx
import pytest

from infra.local.defaults import LOCAL_SECRETS
from infra.werewolf_sim import __main__ as cli
from infra.werewolf_sim.players import HttpPlayer, encode
from infra.werewolf_sim.runner import all_seats, one_seat, play_games
from tests.support.timing import waited
from tests.support.werewolf import turn

pytestmark = pytest.mark.e2e
KEY = LOCAL_SECRETS["AGENTHOST_WEREWOLF_API_KEY"]


@pytest.fixture(scope="module")
def player(stack):
    with httpx.Client(timeout=30) as client:
        yield HttpPlayer(stack.http_url + "/werewolf/turn", KEY, client)


def test_self_play_classic_over_signed_http_is_fully_valid(player):
    s = play_games("classic-6p", range(1, 5), lambda: player, all_seats("classic-6p"))
    assert s.games == 4 and s.agent_calls >= 10 * s.games and s.validity() == 1.0, s.invalid_samples


def test_one_seat_in_larger_modes_over_signed_http(player):
    for mode in ("standard-8p", "knight-shield-10p", "nightmare-12p"):
        s = play_games(mode, range(7, 10), lambda: player, one_seat(mode))
        assert s.games == 3 and s.agent_calls > 6 and s.validity() == 1.0, (mode, s.invalid_samples)


def test_memory_lands_in_the_embedded_table(stack, player):
    import boto3

    payload = turn("seer_check", role="seer", rnd=1, phase="night_seer", game_id="e2e-mem")
    answer, err = player(payload)
    assert err is None and answer["target"]
    ddb = boto3.client("dynamodb", endpoint_url=stack.dynamodb_url, region_name="us-east-1")
    item = ddb.get_item(TableName="agenthost", Key={"pk": {"S": "GAME#e2e-mem#3"}, "sk": {"S": "META"}})["Item"]
    from agenthost.items import unpacked

    assert unpacked(item["data_z"]["B"])["role"] == "seer" and int(item["expires_at"]["N"]) > 0


def test_unsigned_and_badly_signed_requests_are_401(stack):
    body = encode(turn("vote"))
    url = stack.http_url + "/werewolf/turn"
    assert httpx.post(url, content=body, timeout=waited(5)).status_code == 401
    r = httpx.post(url, content=body, headers={"X-Werewolf-Signature": "sha256=" + "0" * 64}, timeout=waited(5))
    assert r.status_code == 401 and r.json()["error"] == "unauthorized"
    r = httpx.get(url, timeout=waited(5))  # not a turn: a probe gets 200 and a description
    assert r.status_code == 200 and r.json()["status"] == "ok"


def test_cli_against_a_url(stack, capsys):
    rc = cli.main(["--mode", "classic-6p", "--games", "1", "--seats", "1,2", "--url",
                   stack.http_url + "/werewolf/turn", "--key", KEY])
    out = capsys.readouterr().out
    assert rc == 0 and "valid 100.00%" in out and "classic-6p" in out


def test_games_over_signed_http_are_the_in_process_games_in_every_setup(player):
    """The same seeds, modes and setups over the local stack (memory in its DynamoDB) and in-process give the
    same games, vote for vote, so the simulator's in-process numbers are the webhook's; several modes and setups
    on one stack share nothing (every game has its own id)."""
    from infra.werewolf_sim.engine import Game
    from infra.werewolf_sim.players import InProcessPlayer
    from infra.werewolf_sim.runner import setup_seats

    def played(actor_for, mode, setup, seed):
        seats = setup_seats(setup, mode)(seed)
        game = Game(mode, seed, run=f"e2e-same:{setup}")
        actor = actor_for()
        game.actors = {s: actor for s in seats}
        res = game.run()
        return res.winner, res.votes, res.lynched, res.kill_picks, [c.valid for c in res.calls if c.agent]

    for mode in ("classic-6p", "chaos-10p"):
        for setup in ("all", "wolves"):
            over_http = played(lambda: player, mode, setup, 1)
            assert all(over_http[-1]), (mode, setup)
            assert over_http == played(InProcessPlayer, mode, setup, 1), (mode, setup)
