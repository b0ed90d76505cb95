"""Per-game memory of one seat: one DynamoDB item ``GAME#<game_id>#<seat>`` / ``META``, TTL two days.

A turn reads it once (``load``) and writes it once (``save``, skipped when nothing changed). Everything
in it is a set-like fact that re-reading the same payload cannot double-count, so a retried turn is
harmless; a body seen before (its digest among the last answers) is answered as it was, without a write.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from agenthost.items import keys, packed, unpacked
from agenthost.replay import KeptAnswers
from agenthost.store import CallLimits, Store

TTL_S = 2 * 24 * 3600
MAX_ANSWERS = 5


@dataclass
class GameMemory:
    game_id: str = ""
    seat: str = ""
    my_name: str = ""
    role: str = ""
    teammates: list[str] = field(default_factory=list)
    #: our own seer checks: name -> "werewolf" | "villager"
    seer_results: dict[str, str] = field(default_factory=dict)
    #: public role claims: name -> role (first claim wins)
    claims: dict[str, str] = field(default_factory=dict)
    #: order in which players claimed seer
    seer_claim_order: list[str] = field(default_factory=list)
    #: order in which players claimed each other one-of-a-kind role (witch, guard, hunter, ...)
    role_claim_order: dict[str, list[str]] = field(default_factory=dict)
    #: players a witch claimant said she saved, and poisoned: claimant -> names
    claimed_saves: dict[str, list[str]] = field(default_factory=dict)
    claimed_poisons: dict[str, list[str]] = field(default_factory=dict)
    #: sides the judge made public (a knight's duel): name -> "werewolf" | "villager"
    revealed: dict[str, str] = field(default_factory=dict)
    #: players the judge announced dead at daybreak (the night's victims, a poisoned player)
    night_deaths: list[str] = field(default_factory=list)
    #: checks announced by claimed seers: claimant -> {target: "werewolf"|"villager"}
    claimed_checks: dict[str, dict[str, str]] = field(default_factory=dict)
    #: the night each announced check was said to be made: claimant -> {target: night}
    claimed_check_nights: dict[str, dict[str, int]] = field(default_factory=dict)
    #: accusations heard: target -> sorted list of accusers
    accusations: dict[str, list[str]] = field(default_factory=dict)
    #: past votes from known_info: "round|voter|target"
    votes: list[str] = field(default_factory=list)
    #: names known dead (dead players never come back, whatever a stale roster says)
    dead: list[str] = field(default_factory=list)
    #: our night history
    guard_history: list[list[Any]] = field(default_factory=list)  # [round, target]
    witch_saved: list[str] = field(default_factory=list)
    witch_save_rounds: dict[str, str] = field(default_factory=dict)  # night -> whom we saved
    #: every wolf victim the witch was shown (the wolves' choice: on the good side)
    witch_victims: list[str] = field(default_factory=list)
    witch_poisoned: list[str] = field(default_factory=list)
    witch_poison_rounds: dict[str, str] = field(default_factory=dict)  # night -> whom we poisoned
    lovers: list[str] = field(default_factory=list)
    dream_pairs: list[list[str]] = field(default_factory=list)
    knight_flipped: bool = False
    kills_announced: dict[str, str] = field(default_factory=dict)  # round -> target we announced
    suspicion: dict[str, float] = field(default_factory=dict)
    #: public chat lines already parsed (the chat only grows) and a mark of the last one
    chat_seen: int = 0
    chat_mark: str = ""
    #: a user agent's own memory for this game and seat (agenthost.plugins.WerewolfState.memory)
    agent: dict[str, Any] = field(default_factory=dict)
    #: the last turns' answers by request digest (sha256 of the signed body): a repeated body gets its answer
    answers: dict[str, Any] = field(default_factory=dict)

    def remember_answer(self, digest: str, answer: dict[str, Any]) -> None:
        kept = KeptAnswers(self.answers, MAX_ANSWERS)
        kept.keep(digest, answer)
        self.answers = kept.kept

    def answered(self, digest: str) -> dict[str, Any] | None:
        """The answer given to the body ``digest`` before, or None (:class:`agenthost.replay.KeptAnswers`)."""
        found = KeptAnswers(self.answers, MAX_ANSWERS).find(digest)
        return dict(found) if isinstance(found, dict) else None

    def fingerprint(self) -> str:
        return json.dumps(vars(self), sort_keys=True, ensure_ascii=False)

    def to_item(self) -> dict[str, Any]:
        """The item: the memory as one zlib-compressed JSON attribute (``data_z``), so with the usage riding on
        it the item stays within one write unit (a 6-player game's memory is about 940 bytes of JSON)."""
        return {**keys.game(self.game_id, self.seat), "data_z": packed(vars(self))}

    @classmethod
    def from_item(cls, item: dict[str, Any] | None, game_id: str, seat: str) -> GameMemory:
        """The memory in ``item`` (``data_z``, or ``data`` as JSON text as it was written before), else a fresh one."""
        raw: Any = None
        if item and item.get("data_z") is not None:
            raw = unpacked(item["data_z"])
        elif item and isinstance(item.get("data"), str):
            try:
                raw = json.loads(item["data"])
            except ValueError:
                raw = None
        if isinstance(raw, dict):
            try:
                return cls(**{k: v for k, v in raw.items() if k in cls.__dataclass_fields__})
            except TypeError:
                pass
        return cls(game_id=game_id, seat=seat)


class StoreLike(Protocol):
    def get(self, pk: str, sk: str, *, consistent: bool = True) -> dict[str, Any] | None: ...
    def put(self, item: dict[str, Any], *, ttl_s: int | None = None) -> Any: ...


def load(store: StoreLike | None, game_id: str, seat: str) -> GameMemory:
    """One read. No store, no game id, or a failing store: a fresh memory (the turn still answers)."""
    if store is None or not game_id:
        return GameMemory(game_id=game_id, seat=seat)
    k = keys.game(game_id, seat)
    return GameMemory.from_item(store.get(k["pk"], k["sk"]), game_id, seat)


def save(store: StoreLike | None, memory: GameMemory) -> None:
    """One write, with the two-day TTL (the open turn's usage rides on it: ``agenthost.metering``)."""
    if store is None or not memory.game_id:
        return
    store.put(memory.to_item(), ttl_s=TTL_S)


#: reads (the memory, metering's LLM budget): 1 s connect, 2 s read, 2 requests
READ_LIMITS = CallLimits(connect_s=1.0, read_s=2.0, attempts=2)
#: writes (the memory, the usage counters): a single request, so a write costs at most ~3 s (the
#: ``werewolf_write_reserve_s`` setting)
WRITE_LIMITS = CallLimits(connect_s=1.0, read_s=2.0, attempts=1)


def turn_store() -> Store:
    """The single table with turn-sized limits, so a slow DynamoDB cannot hold a turn past its budget (the
    turn's deadline, bound around it, cuts them further)."""
    return Store(reads=READ_LIMITS, writes=WRITE_LIMITS)


class InMemoryStore:
    """A dict-backed stand-in for :class:`agenthost.store.Store` (simulations and benchmarks)."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], dict[str, Any]] = {}
        self.calls = 0

    def get(self, pk: str, sk: str, *, consistent: bool = True) -> dict[str, Any] | None:
        self.calls += 1
        return self.items.get((pk, sk))

    def put(self, item: dict[str, Any], *, ttl_s: int | None = None) -> dict[str, Any]:
        self.calls += 1
        self.items[(item["pk"], item["sk"])] = dict(item)
        return item
