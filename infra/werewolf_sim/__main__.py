"""``make werewolf-sim``: play seeded games with our webhook in chosen seats and random bots elsewhere.

    python -m infra.werewolf_sim --mode classic-6p --games 20 --seats 1          # starts the local stack
    python -m infra.werewolf_sim --url https://.../werewolf/turn --key "$KEY"     # a deployed webhook
    python -m infra.werewolf_sim --mode all --games 5 --seats all                  # self-play, every mode
    python -m infra.werewolf_sim --mode all --games 40 --seats village,wolves,all,rotate

``--seats``: ``village`` (our agent in every village seat against random wolves), ``wolves`` (our wolf team,
the madman included, against a random village), ``all`` (every seat), ``rotate`` (one seat, moving with the
seed), seat numbers (``1,3``), or several setups separated by commas. Every answer is checked against the
strict contract; the report gives validity, latency, win rates by role and team and behaviour counts (our good
players voted out on day one and later, our hunter's shots on village players, votes where our village voters
split, our wolves' kill picks on a teammate), and ends each mode and setup with one line
``werewolf-sim <mode> seats <setup>: <team> wins W/G``.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time

from infra.werewolf_sim.engine import MODES
from infra.werewolf_sim.players import HttpPlayer, InProcessPlayer
from infra.werewolf_sim.runner import SETUPS, Summary, play_games, setup_seats


def _setups(spec: str) -> list[str]:
    """``village,wolves`` -> both setups; seat numbers (``1,3``) stay one setup."""
    parts = [s.strip() for s in spec.split(",") if s.strip()]
    named = [s for s in parts if s in SETUPS]
    return named if named and len(named) == len(parts) else [spec]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="werewolf-sim", description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", default="classic-6p", help="a mode or 'all' (" + ", ".join(MODES) + ")")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument("--seats", default="rotate",
                    help="'village', 'wolves', 'all', 'rotate' (one seat, moving), several of them ('village,wolves'),"
                         " or seat numbers ('1,3')")
    ap.add_argument("--url", default="", help="webhook URL (default: start the local stack)")
    ap.add_argument("--key", default=os.environ.get("AGENTHOST_WEREWOLF_API_KEY", ""), help="api key for signing")
    ap.add_argument("--in-process", action="store_true", help="call the player in-process instead of HTTP")
    ap.add_argument("--run", default=None,
                    help="a label in every game id (default: none; a random one with --url, so a deployed webhook's "
                         "memory of an earlier run is never read as this run's game)")
    args = ap.parse_args(argv)
    modes = list(MODES) if args.mode == "all" else [args.mode]
    for m in modes:
        if m not in MODES:
            ap.error(f"unknown mode {m!r}")
    setups = _setups(args.seats)
    for setup in setups:
        if setup not in SETUPS and not all(s.strip().isdigit() for s in setup.split(",") if s.strip()):
            ap.error(f"unknown seats {setup!r}: choose from {', '.join(SETUPS)} or seat numbers")

    run = args.run if args.run is not None else (secrets.token_hex(4) if args.url else "")
    if run:
        print(f"run label {run!r} (in every game id)", flush=True)
        run += ":"
    stack = None
    if args.in_process:
        def make():
            return InProcessPlayer()
    else:
        url, key = args.url, args.key
        if not url:
            from infra.local.defaults import LOCAL_SECRETS
            from tests.support.stack import start_stack

            print("starting the local stack ...", flush=True)
            stack = start_stack()
            url = stack.http_url + "/werewolf/turn"
            key = key or LOCAL_SECRETS["AGENTHOST_WEREWOLF_API_KEY"]
        player = HttpPlayer(url, key or None)

        def make():
            return player
    started = time.monotonic()
    worst = 1.0
    try:
        for setup in setups:
            for mode in modes:
                summary = Summary()
                play_games(mode, range(args.seed, args.seed + args.games), make, setup_seats(setup, mode),
                           progress=lambda s: print(s, flush=True), summary=summary, run=f"{run}{setup}")
                print(summary.report(f"{mode}: {args.games} games, seats {setup}"), flush=True)
                team, wins, games = summary.team_wins(setup)
                print(f"werewolf-sim {mode} seats {setup}: {team} wins {wins}/{games}", flush=True)
                worst = min(worst, summary.validity())
    finally:
        if stack is not None:
            stack.stop()
    print(f"done in {time.monotonic() - started:.1f} s; lowest validity {worst:.2%}")
    return 0 if worst == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
