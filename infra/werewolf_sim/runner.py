"""Run many seeded games and summarize validity, latency and win rates by role and team."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from infra.werewolf_sim.engine import MODES, WOLVES, Game, Result, roles_of, team_of

#: who our agent plays: ``village`` (every village-team seat, random wolves), ``wolves`` (the wolf team, the
#: madman included, against a random village), ``all`` (every seat) or ``rotate`` (one seat, moving with the seed)
SETUPS = ("village", "wolves", "all", "rotate")


@dataclass
class Summary:
    games: int = 0
    agent_calls: int = 0
    agent_valid: int = 0
    latencies: list[float] = field(default_factory=list)
    invalid_samples: list[str] = field(default_factory=list)
    by_action: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    team_games: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # [wins, games]
    role_games: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    village_wins: int = 0
    rounds: int = 0
    #: behaviour counts of our seats, each [times, out of]: one of our good players voted out on day one (of
    #: day-one votes) and on later days (of later votes), our hunter's shots that hit a village player (of its
    #: shots), votes where our village voters did not all name the same player (of votes with two or more of
    #: them voting, not counting the one most of them name: nobody may vote for himself), our wolves' kill picks
    #: naming a wolf (of their picks)
    behaviour: dict[str, list[int]] = field(default_factory=lambda: {
        "own good lynched day 1": [0, 0], "own good lynched later": [0, 0], "hunter shots on good": [0, 0],
        "split village votes": [0, 0], "wolf kills on teammates": [0, 0]})

    def add(self, res: Result, agent_seats: Iterable[int]) -> None:
        agent_seats = list(agent_seats)
        self.games += 1
        self.rounds += res.rounds
        self.village_wins += res.winner == "village"
        self._behaviour(res, set(agent_seats))
        for seat in agent_seats:
            role = res.roles[seat]
            team = team_of(role)
            won = int(res.winner == team)
            self.team_games[team][0] += won
            self.team_games[team][1] += 1
            self.role_games[role][0] += won
            self.role_games[role][1] += 1
        for c in res.calls:
            if not c.agent:
                continue
            self.agent_calls += 1
            self.agent_valid += c.valid
            self.latencies.append(c.latency_ms)
            self.by_action[c.action][1] += 1
            self.by_action[c.action][0] += c.valid
            if not c.valid and len(self.invalid_samples) < 20:
                self.invalid_samples.append(f"{res.mode}#{res.seed} seat {c.seat} {c.action}: {c.problems}")

    def _behaviour(self, res: Result, ours: set[int]) -> None:
        b = self.behaviour

        def count(key: str, hit: bool) -> None:
            b[key][0] += hit
            b[key][1] += 1

        def good(seat: int) -> bool:
            return team_of(res.roles[seat]) == "village"

        out = dict(res.lynched)
        for rnd in sorted({r for r, _v, _t in res.votes}):
            key = "own good lynched day 1" if rnd == 1 else "own good lynched later"
            count(key, rnd in out and out[rnd] in ours and good(out[rnd]))
            # our village voters, less the one most of them vote for (nobody may vote for himself)
            picks = [(v, t) for r, v, t in res.votes if r == rnd and v in ours and good(v)]
            if picks:
                top = Counter(t for _v, t in picks).most_common(1)[0][0]
                named = {t for v, t in picks if v != top}
                if sum(1 for v, _t in picks if v != top) >= 2:
                    count("split village votes", len(named) > 1)
        for shooter, action, target in res.shots:
            if shooter in ours and action == "hunter_shoot":
                count("hunter shots on good", good(target))
        for _rnd, wolf, target in res.kill_picks:
            if wolf in ours:
                count("wolf kills on teammates", res.roles[target] in WOLVES)

    def behaviour_line(self) -> str:
        return "behaviour: " + ", ".join(f"{k} {n}/{of}" + (f" ({n / of:.0%})" if of else "")
                                         for k, (n, of) in self.behaviour.items())

    @property
    def agent_games(self) -> int:
        return sum(g for _w, g in self.team_games.values())

    @property
    def agent_wins(self) -> int:
        return sum(w for w, _g in self.team_games.values())

    def win_rate(self) -> float:
        return self.agent_wins / self.agent_games if self.agent_games else 0.0

    def validity(self) -> float:
        return self.agent_valid / self.agent_calls if self.agent_calls else 1.0

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return 0.0
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(q * len(xs)))]

    def report(self, title: str = "") -> str:
        lines = [f"== {title}" if title else "==",
                 f"games {self.games}, avg rounds {self.rounds / max(1, self.games):.1f}, "
                 f"village won {self.village_wins / max(1, self.games):.1%}"]
        if self.agent_calls:
            lines.append(f"agent answers {self.agent_calls}, valid {self.validity():.2%}, "
                         f"latency p50 {self.percentile(0.5):.1f} ms p99 {self.percentile(0.99):.1f} ms")
            lines.append("  by action: " + ", ".join(f"{a} {v}/{n}" for a, (v, n) in sorted(self.by_action.items())))
        if self.agent_games:
            lines.append(f"agent team win rate {self.win_rate():.1%} over {self.agent_games} seat-games")
            lines.append("  by team: " + ", ".join(f"{t} {w}/{g} ({w / g:.0%})" for t, (w, g)
                                                   in sorted(self.team_games.items())))
            lines.append("  by role: " + ", ".join(f"{r} {w}/{g} ({w / g:.0%})" for r, (w, g)
                                                   in sorted(self.role_games.items())))
        if self.agent_calls:
            lines.append("  " + self.behaviour_line())
        lines += [f"  INVALID {s}" for s in self.invalid_samples[:10]]
        return "\n".join(lines)

    def team_wins(self, setup: str) -> tuple[str, int, int]:
        """(the team our seats are on, its wins, games) for a setup: ``all`` counts the village's wins,
        ``rotate`` or a list of seats our seats' teams' wins over our seat-games."""
        if setup in ("all", "village"):
            return "village", self.village_wins, self.games
        if setup == "wolves":
            return "wolf", self.games - self.village_wins, self.games
        return "ours", self.agent_wins, self.agent_games


def play_games(mode: str, seeds: Iterable[int], make_actor: Callable[[], Any] | None,
               agent_seats: Callable[[int], list[int]], progress: Callable[[str], None] | None = None,
               summary: Summary | None = None, run: str = "") -> Summary:
    """Play one game per seed; ``agent_seats(seed)`` says which seats ``make_actor()`` plays; ``run`` labels
    the game ids (a webhook keeping memory per game must see a new id for every game it plays)."""
    summary = summary or Summary()
    seeds = list(seeds)
    for i, seed in enumerate(seeds):
        seats = agent_seats(seed) if make_actor else []
        actor = make_actor() if make_actor else None
        actors: dict[int, Any] = {s: actor for s in seats} if actor else {}
        game = Game(mode, seed, actors, progress=progress, run=run)
        summary.add(game.run(), seats)
        if progress and (i + 1) % max(1, len(seeds) // 10) == 0:
            progress(f"  {mode}: {i + 1}/{len(seeds)} games, agent valid {summary.validity():.2%}, "
                     f"agent win {summary.win_rate():.1%}")
    return summary


def team_seats(mode: str, team: str) -> Callable[[int], list[int]]:
    """Every seat on ``team`` (``village`` or ``wolf``, the madman being on the wolves' side) in each seed's deal."""
    return lambda seed: [i + 1 for i, role in enumerate(roles_of(mode, seed)) if team_of(role) == team]


def setup_seats(setup: str, mode: str) -> Callable[[int], list[int]]:
    """The seats our agent plays in ``setup`` (one of :data:`SETUPS`, or seat numbers such as ``1,3``)."""
    if setup == "all":
        return all_seats(mode)
    if setup == "rotate":
        return one_seat(mode)
    if setup in ("village", "wolves"):
        return team_seats(mode, "village" if setup == "village" else "wolf")
    n = len(MODES[mode])
    seats = sorted({int(s) for s in setup.split(",") if s.strip()})
    return lambda seed: [s for s in seats if 1 <= s <= n]


def one_seat(mode: str) -> Callable[[int], list[int]]:
    """The agent's seat rotates with the seed so it plays every role over many games."""
    n = len(MODES[mode])
    return lambda seed: [seed % n + 1]


def all_seats(mode: str) -> Callable[[int], list[int]]:
    n = len(MODES[mode])
    return lambda seed: list(range(1, n + 1))


def strength(mode: str, games: int, make_actor: Callable[[], Any], progress: Any = None,
             first_seed: int = 1) -> dict[str, Any]:
    """Our team's win rate with the agent in one seat vs a random bot in the same seat, same seeds."""
    seeds = range(first_seed, first_seed + games)
    ours = play_games(mode, seeds, make_actor, one_seat(mode), progress)
    base = Summary()
    for seed in seeds:
        game = Game(mode, seed, {})
        res = game.run()
        base.add(res, one_seat(mode)(seed))
    return {"mode": mode, "games": games, "agent": ours, "baseline": base,
            "delta": ours.win_rate() - base.win_rate()}


def oracle_strength(mode: str, games: int, first_seed: int = 1) -> dict[str, Any]:
    """:func:`strength` for :class:`~infra.werewolf_sim.players.Oracle` (a seat that sees every role): the
    ceiling of what one seat's votes and night actions can gain against random play, same seeds."""
    from infra.werewolf_sim.players import Oracle

    ours, base = Summary(), Summary()
    for seed in range(first_seed, first_seed + games):
        seats = one_seat(mode)(seed)
        base.add(Game(mode, seed, {}).run(), seats)
        game = Game(mode, seed, {})
        game.actors = {seats[0]: Oracle(game, seats[0])}
        ours.add(game.run(), seats)
    return {"mode": mode, "games": games, "agent": ours, "baseline": base, "delta": ours.win_rate() - base.win_rate()}
