"""Run many seeded games and summarize validity, latency and win rates by role and team."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from infra.werewolf_sim.engine import MODES, Game, Result, team_of


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

    def add(self, res: Result, agent_seats: Iterable[int]) -> None:
        self.games += 1
        self.rounds += res.rounds
        self.village_wins += res.winner == "village"
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
        lines += [f"  INVALID {s}" for s in self.invalid_samples[:10]]
        return "\n".join(lines)


def play_games(mode: str, seeds: Iterable[int], make_actor: Callable[[], Any] | None,
               agent_seats: Callable[[int], list[int]], progress: Callable[[str], None] | None = None,
               summary: Summary | None = None) -> Summary:
    """Play one game per seed; ``agent_seats(seed)`` says which seats ``make_actor()`` plays."""
    summary = summary or Summary()
    seeds = list(seeds)
    for i, seed in enumerate(seeds):
        seats = agent_seats(seed) if make_actor else []
        actor = make_actor() if make_actor else None
        actors: dict[int, Any] = {s: actor for s in seats} if actor else {}
        game = Game(mode, seed, actors, progress=progress)
        summary.add(game.run(), seats)
        if progress and (i + 1) % max(1, len(seeds) // 10) == 0:
            progress(f"  {mode}: {i + 1}/{len(seeds)} games, agent valid {summary.validity():.2%}, "
                     f"agent win {summary.win_rate():.1%}")
    return summary


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
