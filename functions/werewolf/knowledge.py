"""What we know this turn: the roster resolved against memory (our name, seats, the dead and the alive, wolf
teammates, who we may name) in a :class:`View`, with the facts of :mod:`werewolf.facts` merged into memory and
the suspicion of :mod:`werewolf.suspicion` computed over them.

Everything here is deterministic: two of our agents holding the same public information compute the
same public ranking, which is how our villagers consolidate votes without talking to each other.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from werewolf.facts import _read_chat, _read_known_info
from werewolf.memory import GameMemory
from werewolf.models import WOLF_ROLES, WerewolfTurn
from werewolf.sanitize import addressable
from werewolf.suspicion import _judge


def stable_rank(*parts: object) -> int:
    """A deterministic pseudo-random number from ``parts`` (tie-breaks every agent computes alike)."""
    digest = hashlib.blake2b("|".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


@dataclass
class View:
    turn: WerewolfTurn
    memory: GameMemory
    me: str
    role: str
    alive: list[str]                       # alive names, seat order, stale entries removed
    targets: list[str]                     # alive, addressable, not me
    seats: dict[str, int]
    teammates: list[str]
    known_wolves: set[str] = field(default_factory=set)
    known_good: set[str] = field(default_factory=set)
    trusted_seer: str | None = None
    trusted_checks: dict[str, str] = field(default_factory=dict)
    declared_votes: dict[str, str] = field(default_factory=dict)  # today: speaker -> target
    #: who has spoken since the last daybreak (a villager never opens a case on anyone else)
    spoken_today: set[str] = field(default_factory=set)
    wolf_chat_kill: str | None = None
    #: what every player can hold for sure or nearly: good (the trusted seer and its good checks, a knight's
    #: failed duel, a witch claimant's saves) and wolves (its wolf checks, a knight's won duel)
    public_good: set[str] = field(default_factory=set)
    public_wolves: set[str] = field(default_factory=set)
    #: seer claimants exposed as false for everyone: their rival was killed at night (the wolves kill the real
    #: seer), a witch claimant saved a player they call a wolf, or their own votes contradict their checks
    seer_liars: set[str] = field(default_factory=set)
    #: seer claimants contesting each other, none trusted yet (their own vote calls do not count)
    contested: set[str] = field(default_factory=set)
    #: the reasons behind each public score (what a speech may cite): name -> evidence keys
    evidence: dict[str, list[str]] = field(default_factory=dict)
    public_score: dict[str, float] = field(default_factory=dict)
    score: dict[str, float] = field(default_factory=dict)
    me_known: bool = True
    #: the roster lists alive a player known dead (after a knight's duel it stays stale through the night, and a
    #: lover of the duel's victim may be dead with nothing in the payload to show it)
    roster_stale: bool = False

    @property
    def wolf_team(self) -> bool:
        return self.role in WOLF_ROLES

    def secret(self, salt: str) -> str:
        """``salt`` for a wolf-team tie-break: with the team's own names mixed in (every wolf of the team gets the
        same list from the engine), so our wolves still agree without talking while anyone outside the team,
        our code in hand, cannot compute the pick from public facts. Others get ``salt`` unchanged."""
        if not self.wolf_team:
            return salt
        return "|".join([salt, *sorted({*self.teammates, self.me})])

    def rank(self, name: str, salt: str = "") -> int:
        return stable_rank(self.turn.game_id, self.turn.round, salt, name)

    def best(self, candidates: list[str], scores: dict[str, float], salt: str = "") -> str | None:
        """Highest score; ties broken by a stable hash every agent computes the same way."""
        ranked = self.ranked(candidates, scores, salt)
        return ranked[0] if ranked else None

    def ranked(self, candidates: list[str], scores: dict[str, float], salt: str = "") -> list[str]:
        """``candidates`` by score, highest first, in the order :meth:`best` picks from."""
        return sorted(candidates, key=lambda n: (round(scores.get(n, 0.0), 6), self.rank(n, salt)), reverse=True)


def build_view(turn: WerewolfTurn, memory: GameMemory) -> View:
    """Resolve the roster, merge this turn's facts into ``memory`` and score every player."""
    mem = memory
    if turn.your_role:
        mem.role = turn.your_role.lower()
    role = mem.role
    seats, me = _seats_and_me(turn, mem)
    dead, alive = _dead_and_alive(turn, mem)
    all_names = sorted({*alive, *dead, *seats}, key=len, reverse=True)
    teammates = _teammates(turn, mem, me, role)
    _read_known_info(turn, mem, all_names)
    declared, spoken, wolf_kill = _read_chat(turn, mem, all_names, dead)
    if dead != set(mem.dead):
        mem.dead = sorted(dead)
        alive = [n for n in alive if n not in dead]
    view = View(turn=turn, memory=mem, me=me, role=role, alive=alive, targets=_targets(turn, alive, me),
                seats=seats, teammates=teammates, declared_votes=declared, spoken_today=spoken,
                wolf_chat_kill=wolf_kill, me_known=bool(me),
                roster_stale=any(p.name in dead for p in turn.alive_players))
    _judge(view)
    return view


def _seats_and_me(turn: WerewolfTurn, mem: GameMemory) -> tuple[dict[str, int], str]:
    """Every listed player's seat, and our own name (the roster entry with our seat, else memory's)."""
    seats: dict[str, int] = {}
    for p in turn.alive_players + turn.dead_players:
        if p.seat is not None:
            seats.setdefault(p.name, p.seat)
    me = ""
    if turn.your_seat is not None:
        for p in turn.alive_players + turn.dead_players:
            if p.seat == turn.your_seat:
                me = p.name
                break
    me = me or mem.my_name
    mem.my_name = me or mem.my_name
    return seats, me


def _dead_and_alive(turn: WerewolfTurn, mem: GameMemory) -> tuple[set[str], list[str]]:
    """The dead (memory, the roster, the teammates list) and the alive in seat order; memory keeps the dead."""
    dead = set(mem.dead) | {p.name for p in turn.dead_players}
    tm_raw = turn.extra_context.get("teammates")
    if isinstance(tm_raw, list):  # the teammates list knows deaths a stale roster does not show
        dead |= {str(t["name"]) for t in tm_raw if isinstance(t, dict) and t.get("name") and t.get("alive") is False}
    mem.dead = sorted(dead)
    alive_names = [p.name for p in sorted(turn.alive_players, key=lambda p: (p.seat is None, p.seat or 0, p.name))]
    alive: list[str] = []
    for n in alive_names:
        if n not in dead and n not in alive:
            alive.append(n)
    return dead, alive


def _teammates(turn: WerewolfTurn, mem: GameMemory, me: str, role: str) -> list[str]:
    """Our wolf teammates (wolves only; the madman gets none), remembered across turns."""
    tm = turn.extra_context.get("teammates")
    if isinstance(tm, list):
        names = [str(t.get("name", "")) for t in tm if isinstance(t, dict) and t.get("name")]
        mem.teammates = sorted({*mem.teammates, *[n for n in names if n != me]})
    return [t for t in mem.teammates if t != me] if role in WOLF_ROLES else []


def _targets(turn: WerewolfTurn, alive: list[str], me: str) -> list[str]:
    """Who we may name: alive, addressable, not us."""
    targets = [n for n in alive if n != me and addressable(n)]
    if not me:
        # we do not know our own name (no roster entry with our seat, nothing in memory): target only players
        # who provably are someone else (listed with a seat that is not ours). Without your_seat nobody is
        # provably someone else, and a target is still the only answer the platform can accept.
        not_me = {p.name for p in turn.alive_players if p.seat is not None and turn.your_seat is not None
                  and p.seat != turn.your_seat}
        sure = [n for n in targets if n in not_me]
        if sure:
            targets = sure
    return targets
