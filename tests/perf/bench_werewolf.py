"""Werewolf Arena webhook: answer validity, handler time, and playing strength (prints, asserts nothing).

1. Validity: our agent in every seat of every mode (in-process player, real payloads from the simulator),
   each answer checked by the simulator's strict validator against the true game state, seeds added until
   at least 2,000 answers were checked and all 14 action types came up; answers counted per action type.
   Aim: 100%.
2. Handler time: the Lambda handler on signed API Gateway events (HMAC check, parse, one GetItem, decide,
   one PutItem on moto's DynamoDB), p50/p99 with the deterministic strategy. Aim: p99 <= 20 ms. The same
   turns through the player with a dict store separate compute from the (mocked) DynamoDB round trips.
3. Strength (same seeds for both sides): our team's win rate with the agent in one rotating seat and random
   bots elsewhere, against a random bot in that seat, in classic-6p and standard-8p (aim +15 points), with the
   ceiling one seat can reach against random play (an oracle seat that sees every role). Every seat draws
   from its own random stream, so the two sides of a comparison differ only by that seat's play.
4. Setups, every mode (``make werewolf-sim --seats ...``, in-process): our whole village against random wolves
   (aim >= 97% in every mode), our wolf team against a random village (aim >= 98%), our agent in every seat
   (the village's wins, aim >= 60%), one rotating seat; with all random as the floor and, for the wolves, an
   oracle wolf team that sees every role as the ceiling. Behaviour counts of our seats: own good players voted
   out on day one (aim <= 10% of day-one votes) and later, our hunter's shots on village players (aim <= 15%),
   votes where our village voters split, our wolves' kill picks on a teammate.
5. Wolves' ceiling (200 games a mode): our wolf team against a random village next to a wolf team that knows only
   its teammates (what ours can know: random players claim nothing) and the oracle that sees every role and the
   lovers; what separates the last two is what no wolf can see.
6. Hunter (400 seeds a mode): our hunter in one rotating seat among random bots, its shots on village players
   next to a uniform shot at the same moments.
7. classic-6p with every seat ours (400 games), the village's wins split by what the seer learned on night 1.
8. Day one's floor (exact, no games): the share of day-one votes that put out a good player when the village
   uses all that day one can hold (every role holder's claim, the seer's night-1 check, the witch's save of the
   wolves' victim) and picks blindly among the rest, plain villagers and wolves that speak alike: what the
   "own good players voted out on day one" count of setup 4 (every seat ours) is read against.

Timings on a shared 2-core machine are noisy (p99 catches other processes' CPU bursts): compare the
load average before reading them. moto's in-process DynamoDB costs far more per call than DynamoDB's
single-digit milliseconds, so the dict-store line is the handler's own time.

Options: ``--games N`` (strength games per mode, default 400), ``--first-seed N`` (first strength seed, default 1:
a fresh range checks that a gain is not an artefact of the seeds), ``--turns N`` (handler samples, default 2000),
``--validity-calls N`` (answers checked at least, default 2000), ``--setup-games N`` (games per mode and setup,
default 40), ``--ceiling-games N`` (default 200), ``--hunter-games N`` (default 400),
``--classic-games N`` (default 400), ``--only validity|handler|strength|setups|ceiling|hunter|classic|dayone``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from _util import env, pct  # noqa: E402

os.environ.update(env())
os.environ.update({"AGENTHOST_TABLE": "agenthost-bench", "AGENTHOST_WEREWOLF_API_KEY": "ww_bench_" + "cd" * 16,
                   "AGENTHOST_LLM": "none"})
KEY = os.environ["AGENTHOST_WEREWOLF_API_KEY"]


def validity(min_calls: int, max_seeds: int = 200) -> None:
    """Our agent in every seat of all 8 modes, one more seed of every mode at a time, until at least
    ``min_calls`` answers were checked and all 14 action types came up (or ``max_seeds`` seeds)."""
    from werewolf.models import ACTION_TYPES

    from infra.werewolf_sim.engine import MODES
    from infra.werewolf_sim.players import InProcessPlayer
    from infra.werewolf_sim.runner import Summary, all_seats, play_games

    per_mode = {mode: Summary() for mode in MODES}
    by_action: dict[str, list[int]] = {a: [0, 0] for a in ACTION_TYPES}

    def total() -> int:
        return sum(s.agent_calls for s in per_mode.values())

    seed = 0
    while seed < max_seeds and (total() < min_calls or any(n == 0 for _v, n in by_action.values())):
        seed += 1
        for mode in MODES:
            s = per_mode[mode]
            before = {a: list(v) for a, v in s.by_action.items()}
            play_games(mode, [seed], InProcessPlayer, all_seats(mode), summary=s)
            for a, (v, n) in s.by_action.items():
                v0, n0 = before.get(a, [0, 0])
                by_action.setdefault(a, [0, 0])
                by_action[a][0] += v - v0
                by_action[a][1] += n - n0
    print(f"-- validity: agent in every seat, all 8 modes, seeds 1..{seed} (until >= {min_calls} answers and all"
          f" 14 action types)")
    for mode, s in per_mode.items():
        print(f"   {mode:18s} {s.games} games, {s.agent_calls:5d} answers, valid {s.validity():.2%}")
    calls = total()
    valid = sum(s.agent_valid for s in per_mode.values())
    seen = [a for a, (_v, n) in by_action.items() if n]
    print(f"   TOTAL {calls} answers, valid {valid / max(1, calls):.2%} (aim 100% over >= {min_calls});"
          f" action types seen {len(seen)}/{len(ACTION_TYPES)}")
    print("   by action type (valid/answered): " + ", ".join(
        f"{a} {v}/{n}" for a, (v, n) in sorted(by_action.items(), key=lambda kv: -kv[1][1])))
    missing = [a for a in ACTION_TYPES if not by_action.get(a, [0, 0])[1]]
    if missing:
        print("   NEVER SEEN: " + ", ".join(missing))
    for s in per_mode.values():
        for line in s.invalid_samples[:5]:
            print("   INVALID", line)


def handler_time(turns: int) -> None:
    from moto import mock_aws

    from agenthost import aws as aws_clients
    from agenthost import signing
    from agenthost.config import reset, settings
    from infra.local.events import LambdaContext, http_event, http_response
    from infra.local.template import create_table, parse
    from infra.werewolf_sim.engine import MODES
    from tests.support.werewolf import recorded_payloads

    payloads = []
    seed = 1
    while len(payloads) < turns:
        for mode in MODES:
            payloads += [p for p, _alive in recorded_payloads(mode, range(seed, seed + 1))]
        seed += 1
    payloads = payloads[:turns]
    bodies = [json.dumps(p, ensure_ascii=False).encode() for p in payloads]
    reset()
    with mock_aws():
        aws_clients.reset()
        create_table(aws_clients.client("dynamodb"), parse(), settings().table_name)
        import werewolf.app as app
        from werewolf.memory import InMemoryStore
        from werewolf.player import play

        events = [http_event("POST", "/werewolf/turn", body=b,
                             headers={"content-type": "application/json",
                                      "x-werewolf-signature": signing.sign(KEY, b)}) for b in bodies]
        for ev in events[:50]:  # warm-up
            app.handler(ev, LambdaContext("werewolf"))
        store = app.get_store()
        calls0 = store.calls
        times = []
        statuses = set()
        for ev in events:
            t = time.perf_counter()
            status, _h, _b = http_response(app.handler(ev, LambdaContext("werewolf")))
            times.append((time.perf_counter() - t) * 1000)
            statuses.add(status)
        per_turn = (store.calls - calls0) / len(events)
        print(f"-- handler (signed API Gateway event -> 200, moto DynamoDB), {len(events)} turns, statuses {statuses}")
        print(f"   p50 {pct(times, 50):.2f} ms  p90 {pct(times, 90):.2f} ms  p99 {pct(times, 99):.2f} ms"
              f"  max {max(times):.2f} ms   (aim p99 <= 20 ms)")
        print(f"   DynamoDB calls per turn through the turn store {per_turn:.2f} (GetItem, PutItem when memory changed,"
              " the usage counters' UpdateItem; with AGENTHOST_METERING_FOLD=true the last two are one transaction)")
        app._store = InMemoryStore()
        edge = []
        for ev in events:
            t = time.perf_counter()
            app.handler(ev, LambdaContext("werewolf"))
            edge.append((time.perf_counter() - t) * 1000)
        print(f"   same handler, game memory in a dict (metering's usage UpdateItem still on moto): "
              f"p50 {pct(edge, 50):.2f} ms  p99 {pct(edge, 99):.2f} ms")
        # our own code: the same signed events with no DynamoDB at all (memory in a dict, the usage write
        # skipped); deployed, add DynamoDB's own latency for the GetItem and the counter UpdateItem (and the
        # PutItem on the turns whose memory changed), single-digit milliseconds each in-region
        from agenthost import metering

        real_write = metering.Turn._write
        metering.Turn._write = lambda self: None  # type: ignore[method-assign]
        try:
            own = []
            for ev in events:
                t = time.perf_counter()
                app.handler(ev, LambdaContext("werewolf"))
                own.append((time.perf_counter() - t) * 1000)
        finally:
            metering.Turn._write = real_write  # type: ignore[method-assign]
        print(f"   our own code (Mangum, FastAPI, HMAC, parse, strategy, EMF; no DynamoDB): "
              f"p50 {pct(own, 50):.2f} ms  p99 {pct(own, 99):.2f} ms")
        mem = InMemoryStore()
        compute = []
        for b in bodies:
            raw = json.loads(b)
            t = time.perf_counter()
            play(raw, mem)
            compute.append((time.perf_counter() - t) * 1000)
        print(f"   strategy only (dict store): p50 {pct(compute, 50):.2f} ms  p99 {pct(compute, 99):.2f} ms")
    aws_clients.reset()


#: roles whose own knowledge tells alive players apart against random bots: the seer's checks, the witch's
#: victims, the wolves' teammates (the other seats see only role-blind random play)
INFO_ROLES = frozenset({"seer", "witch", "werewolf", "white_wolf", "wolf_king", "enchantress"})


def _by_role(ours: Any, base: Any) -> str:
    """Per role: our seat's wins minus the random bot's over the same games, in points."""
    return ", ".join(f"{role} {100 * (ours.role_games[role][0] - w) / g:+.0f}"
                     for role, (w, g) in sorted(base.role_games.items()) if g)


def strength(games: int, first_seed: int = 1) -> None:
    from infra.werewolf_sim.players import InProcessPlayer
    from infra.werewolf_sim.runner import oracle_strength
    from infra.werewolf_sim.runner import strength as measure

    last = first_seed + games - 1
    print(f"-- strength, {games} seeded games per mode (seeds {first_seed}-{last}; agent in one rotating seat vs a"
          " random bot there)")
    for mode in ("classic-6p", "standard-8p"):
        t = time.perf_counter()
        r = measure(mode, games, InProcessPlayer, first_seed=first_seed)
        a, b = r["agent"], r["baseline"]
        print(f"   {mode}: our team won {a.win_rate():.1%} vs random bot {b.win_rate():.1%}: "
              f"{100 * r['delta']:+.1f} points (aim +15)  [{time.perf_counter() - t:.0f} s]")
        for label, s in (("agent ", a), ("random", b)):
            print(f"     {label} by role: " + ", ".join(
                f"{role} {w}/{g} ({w / g:.0%})" for role, (w, g) in sorted(s.role_games.items())))
        print(f"     agent - random, points by role: {_by_role(a, b)}")
        o = oracle_strength(mode, games, first_seed=first_seed)
        print(f"     ceiling: a seat that sees every role (votes/shoots an enemy, wolves kill a witch holding a potion "
              f"first, then the guard and the seer, and spare the hunter and their side's lovers, the guard protects "
              f"the witch, the witch poisons a wolf) gets "
              f"{100 * o['delta']:+.1f} points on the same seeds (answers valid {o['agent'].validity():.2%})")
        print(f"     oracle - random, points by role: {_by_role(o['agent'], o['baseline'])}")
        # against bots whose votes, speech and night picks do not depend on roles, a villager's, guard's or
        # hunter's seat cannot tell two alive players apart: only the seer, witch and wolf seats hold information
        info = [role for role in o["baseline"].role_games if role in INFO_ROLES]
        games_n = o["baseline"].agent_games or 1
        gain = sum(o["agent"].role_games[role][0] - o["baseline"].role_games[role][0] for role in info) / games_n
        mine = sum(a.role_games[role][0] - b.role_games[role][0] for role in info) / games_n
        print(f"     seats that hold information ({', '.join(sorted(info))}): the oracle's gain there is "
              f"{100 * gain:+.1f} points of the whole; ours {100 * mine:+.1f}")


#: what each setup aims at (the share of games our seats' team wins, in every mode)
SETUP_AIMS = {"village": 0.97, "wolves": 0.98, "all": 0.60}


def oracle_wolf_wins(mode: str, seeds: Any, sees_roles: bool = True) -> int:
    """Wins of an oracle wolf team (the madman included) against a random village; ``sees_roles=False``: wolves
    that know only their teammates."""
    from infra.werewolf_sim.engine import Game
    from infra.werewolf_sim.players import Oracle
    from infra.werewolf_sim.runner import team_seats

    wins = 0
    for seed in seeds:
        game = Game(mode, seed, {})
        game.actors = {s: Oracle(game, s, sees_roles) for s in team_seats(mode, "wolf")(seed)}
        wins += game.run().winner == "wolf"
    return wins


def wolf_ceiling(games: int) -> None:
    """Our wolf team against a random village over many seeds, read against what information can give: a wolf
    team that knows only its teammates (what ours knows, since random players claim nothing), and the oracle
    that also sees every role and the lovers (a random village's witch, hunter, knight and lovers kill wolves
    that no wolf can tell apart from villagers)."""
    from infra.werewolf_sim.engine import MODES
    from infra.werewolf_sim.players import InProcessPlayer
    from infra.werewolf_sim.runner import play_games, setup_seats

    t = time.perf_counter()
    print(f"-- wolves against a random village, {games} seeded games per mode (seeds 1-{games})")
    for mode in MODES:
        seeds = range(1, games + 1)
        ours = play_games(mode, seeds, InProcessPlayer, setup_seats("wolves", mode), run="wolves")
        _team, w, g = ours.team_wins("wolves")
        print(f"   {mode}: ours {w}/{g} ({w / g:.1%}); knowing only the teammates "
              f"{oracle_wolf_wins(mode, seeds, False) / g:.1%}; seeing every role and the lovers "
              f"{oracle_wolf_wins(mode, seeds) / g:.1%}")
    print(f"   [{time.perf_counter() - t:.0f} s]")


def hunter_shots(games: int) -> None:
    """Our hunter in one rotating seat among random bots: its shots on village players against a uniform shot at
    the same moments (random bots' speeches, votes and night picks ignore roles, so nothing there tells a wolf
    from a villager)."""
    from infra.werewolf_sim.engine import MODES, Game, roles_of, team_of
    from infra.werewolf_sim.players import InProcessPlayer
    from infra.werewolf_sim.runner import one_seat

    shots = good = 0
    uniform = 0.0
    for mode in MODES:
        if "hunter" not in MODES[mode]:
            continue
        for seed in range(1, games + 1):
            seat = one_seat(mode)(seed)[0]
            if roles_of(mode, seed)[seat - 1] != "hunter":
                continue
            game = Game(mode, seed, {})
            ours = InProcessPlayer()

            def actor(p: dict[str, Any], game: Any = game, seat: int = seat, ours: Any = ours) -> Any:
                nonlocal uniform
                if p["action_type"] == "hunter_shoot":
                    others = [x for x in game.alive() if x.seat != seat]
                    uniform += sum(team_of(x.role) == "village" for x in others) / max(1, len(others))
                return ours(p)

            game.actors = {seat: actor}
            res = game.run()
            for shooter, action, target in res.shots:
                if shooter == seat and action == "hunter_shoot":
                    shots += 1
                    good += team_of(res.roles[target]) == "village"
    print(f"-- our hunter in one rotating seat among random bots, seeds 1-{games}: {good} of {shots} shots on "
          f"village players ({good / max(1, shots):.0%}); a uniform shot at the same moments: "
          f"{uniform / max(1, shots):.0%}")


def classic_cases(games: int) -> None:
    """classic-6p with every seat ours, split by what the seer learned on night 1 (killed that night; its check on
    the wolves' victim; a wolf; a living good player): the seer's one check is the village's only information
    against wolves that play like villagers, and once the wolves kill the seer, three players with nothing
    between them leave the village one chance in three."""
    from collections import Counter

    from infra.werewolf_sim.engine import Game
    from infra.werewolf_sim.players import InProcessPlayer
    from infra.werewolf_sim.runner import all_seats

    cases: Counter[tuple[str, bool]] = Counter()
    for seed in range(1, games + 1):
        ours = InProcessPlayer()
        game = Game("classic-6p", seed, {s: ours for s in all_seats("classic-6p")(seed)}, run="all")
        res = game.run()
        seer = next(p for p in game.players if p.role == "seer")
        victim = game.night_log[0]["victim"]
        check = game.known[seer.seat][0] if game.known[seer.seat] else ""
        case = ("seer killed" if victim == seer.name else "checked a wolf" if check.endswith("werewolf")
                else "checked the victim" if victim and f" {victim} " in check else "checked a living good player")
        cases[(case, res.winner == "village")] += 1
    won = sum(n for (_c, w), n in cases.items() if w)
    print(f"-- classic-6p, every seat ours, seeds 1-{games}: village wins {won}/{games} ({won / games:.1%}); by what "
          "the seer learned on night 1: " + ", ".join(
              f"{c} {cases[(c, True)]}/{cases[(c, True)] + cases[(c, False)]}"
              for c in ("seer killed", "checked the victim", "checked a wolf", "checked a living good player")))


def day_one_floor() -> None:
    """Exact over every night-1 kill (uniform over the players who are not wolves) and every seer check (uniform
    over the others): a check on a wolf puts that wolf out; otherwise the vote falls blindly on one of the living
    plain villagers and wolves, less the seer's checked player and the player the witch saved (the wolves' victim,
    good), every other role holder having claimed. Without a witch the victim dies (a killed seer's check is
    lost); the madman, who contests a seer's claim, is outside the pool and not a good player."""
    from infra.werewolf_sim.engine import MODES, WOLVES

    rates = {}
    for mode, roles in MODES.items():
        seer = roles.index("seer")
        witch = "witch" in roles
        total = cases = 0.0
        for victim in (i for i, r in enumerate(roles) if r not in WOLVES):
            for check in (i for i in range(len(roles)) if i != seer):
                cases += 1
                if roles[check] in WOLVES and (witch or victim != seer):
                    continue  # the seer's wolf goes out
                cleared = {victim} | ({check} if witch or victim != seer else set())
                pool = [r for i, r in enumerate(roles) if i not in cleared and (r == "villager" or r in WOLVES)]
                total += sum(r == "villager" for r in pool) / len(pool)
        rates[mode] = total / cases
    print("-- day one's floor, every claim, check and save used, then a blind pick among plain villagers and wolves: "
          "own good players voted out " + ", ".join(f"{m} {r:.1%}" for m, r in rates.items()) +
          f"; all modes {sum(rates.values()) / len(rates):.1%}")


def setups(games: int) -> None:
    """Every setup in every mode, the CLI's result line for each, then one line per setup over all modes."""
    from infra.werewolf_sim.engine import MODES
    from infra.werewolf_sim.players import InProcessPlayer
    from infra.werewolf_sim.runner import SETUPS, Summary, play_games, setup_seats

    print(f"-- setups, {games} seeded games per mode and setup (seeds 1-{games}), our agent in-process")
    floors: dict[str, Summary] = {}
    for mode in MODES:
        floors[mode] = play_games(mode, range(1, games + 1), None, lambda seed: [])
    print("   floor, all random: village wins " + ", ".join(
        f"{m} {f.village_wins}/{f.games}" for m, f in floors.items()))
    print("   ceiling, an oracle wolf team (sees every role and the lovers) against a random village: wolf wins " +
          ", ".join(f"{m} {oracle_wolf_wins(m, range(1, games + 1))}/{games}" for m in MODES))
    for setup in SETUPS:
        t = time.perf_counter()
        total = Summary()
        rates = []
        for mode in MODES:
            s = play_games(mode, range(1, games + 1), InProcessPlayer, setup_seats(setup, mode), run=setup)
            team, w, g = s.team_wins(setup)
            rates.append(w / g if g else 0.0)
            print(f"   werewolf-sim {mode} seats {setup}: {team} wins {w}/{g}   {s.behaviour_line()}")
            for key, (n, of) in s.behaviour.items():
                total.behaviour[key][0] += n
                total.behaviour[key][1] += of
            total.agent_calls += s.agent_calls
            total.agent_valid += s.agent_valid
        aim = SETUP_AIMS.get(setup)
        aim_text = f" (aim >= {aim:.0%} in every mode)" if aim else ""
        print(f"   {setup}: lowest mode {min(rates):.1%}{aim_text}; answers valid {total.validity():.2%}; all modes "
              f"{total.behaviour_line()}  [{time.perf_counter() - t:.0f} s]")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--validity-calls", type=int, default=2000)
    ap.add_argument("--first-seed", type=int, default=1, help="first strength seed (a fresh range checks a gain)")
    ap.add_argument("--setup-games", type=int, default=40, help="games per mode and setup")
    ap.add_argument("--ceiling-games", type=int, default=200,
                    help="games per mode for the wolves' information ceiling (default 200)")
    ap.add_argument("--hunter-games", type=int, default=400,
                    help="seeds per mode for the rotating hunter's shots (default 400)")
    ap.add_argument("--classic-games", type=int, default=400,
                    help="classic-6p games with every seat ours, split by the seer's first night (default 400)")
    ap.add_argument("--only", choices=("validity", "handler", "strength", "setups", "ceiling", "hunter", "classic",
                                       "dayone"),
                    help="run one part only")
    args = ap.parse_args()
    if args.only in (None, "validity"):
        validity(args.validity_calls)
    if args.only in (None, "handler"):
        handler_time(args.turns)
    if args.only in (None, "strength"):
        strength(args.games, args.first_seed)
    if args.only in (None, "setups"):
        setups(args.setup_games)
    if args.only in (None, "ceiling"):
        wolf_ceiling(args.ceiling_games)
    if args.only in (None, "hunter"):
        hunter_shots(args.hunter_games)
    if args.only in (None, "classic"):
        classic_cases(args.classic_games)
    if args.only in (None, "dayone"):
        day_one_floor()


if __name__ == "__main__":
    main()
