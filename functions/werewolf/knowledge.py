"""What we know this turn: the roster resolved against memory, facts parsed from ``known_info`` and
``chat_history`` merged into memory, and suspicion scores computed from them.

Everything here is deterministic: two of our agents holding the same public information compute the
same public ranking, which is how our villagers consolidate votes without talking to each other.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from werewolf.memory import GameMemory
from werewolf.models import WOLF_ROLES, ChatLine, WerewolfTurn
from werewolf.sanitize import MARKERS, addressable

_CHECK_RE = re.compile(r"Round\s*(\d+)\s*:\s*You checked\s+(.+?)\s*(?:→|->|=>)\s*(werewolf|villager|wolf|good)",
                       re.IGNORECASE)
_NIGHT_RE = re.compile(r"第\s*(\d+)\s*晚|night\s*(\d+)", re.IGNORECASE)
_VOTES_RE = re.compile(r"Round\s*(\d+)\s*votes?\s*:\s*(.*)", re.IGNORECASE)
_CLAUSE_RE = re.compile(r"[，。；！？,;!?\n]+|\.\s")
_ROLE_WORDS = {
    "预言家": "seer", "女巫": "witch", "守卫": "guard", "猎人": "hunter", "骑士": "knight", "长老": "elder",
    "丘比特": "cupid", "摄梦人": "dreamweaver", "村民": "villager", "平民": "villager",
    "seer": "seer", "witch": "witch", "guard": "guard", "hunter": "hunter", "knight": "knight",
    "elder": "elder", "cupid": "cupid", "dreamweaver": "dreamweaver", "villager": "villager",
}
_CLAIM_RE = re.compile(r"(?:我是|我就是|本人是|身份是|I am the|I'm the|I am a|I'm a)\s*(" +
                       "|".join(_ROLE_WORDS) + ")", re.IGNORECASE)
_WOLF_WORDS = ("查杀", "是狼", "狼人", "狼", "werewolf", "wolf")
_GOOD_WORDS = ("金水", "好人", "villager", "good", "清白", "innocent")
_ACCUSE_WORDS = ("怀疑", "可疑", "狼", "投", "出局", "放逐", "查杀", "suspect", "wolf", "vote", "eliminate")
_SAVE_WORDS = ("救了", "救下", "解药", "saved", "save ")
_POISON_WORDS = ("毒了", "毒死", "毒药", "poisoned")
_DEFEND_WORDS = ("不是狼", "好人", "金水", "相信", "信任", "not a wolf", "trust", "innocent", "good")
_VOTE_PATTERNS = ("投给{}", "投{}", "票投{}", "出{}", "vote for {}", "vote {}", "voting {}")
_KILL_PATTERNS = ("刀{}", "杀{}", "击杀{}", "kill {}")
DAYBREAK = ("天亮", "daybreak", "day breaks", "morning")
DEATH_WORDS = ("死亡", "出局", "被杀", "带走", "殉情", "而死", "淘汰", "身亡",
               "died", "eliminated", "killed", "was shot")


def stable_rank(*parts: object) -> int:
    """A deterministic pseudo-random number from ``parts`` (tie-breaks every agent computes alike)."""
    digest = hashlib.blake2b("|".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


_MARKERS_LOW = tuple(m.lower() for m in MARKERS)
_SYSTEM_NAMES = frozenset({"system", "系统", "法官", "judge"})


def is_system(speaker: str) -> bool:
    s = speaker.strip().lower()
    return not s or s in _SYSTEM_NAMES or any(m in s for m in _MARKERS_LOW)


def _mark(speaker: str, content: str) -> str:
    return hashlib.blake2b(f"{speaker}\x00{content}".encode(), digest_size=8).hexdigest()


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_RE.split(text) if c.strip()]


def _names_in(clause: str, names: list[str]) -> list[str]:
    """Roster names in ``clause``, longest first, without counting a name inside a longer one."""
    found: list[str] = []
    rest = clause
    for name in names:  # names are sorted longest first
        if name and name in rest:
            found.append(name)
            rest = rest.replace(name, "\x00")
    return found


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
    #: seer claimants exposed as false (their rival was killed at night: the wolves kill the real seer)
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


def _read_known_info(turn: WerewolfTurn, mem: GameMemory, all_names: list[str]) -> None:
    """``known_info`` into memory: our seer results and the past rounds' votes."""
    vote_set = set(mem.votes)
    for line in turn.known_info:
        m = _CHECK_RE.search(line)
        if m:
            name = _match_name(m.group(2), all_names)
            if name:
                res = m.group(3).lower()
                mem.seer_results[name] = "werewolf" if res in ("werewolf", "wolf") else "villager"
            continue
        m = _VOTES_RE.search(line)
        if m:
            rnd = int(m.group(1))
            for pair in re.split(r",\s*|，\s*", m.group(2)):
                if "→" in pair or "->" in pair:
                    voter, _, target = pair.replace("->", "→").partition("→")
                    voter_n, target_n = _match_name(voter, all_names), _match_name(target, all_names)
                    if voter_n and target_n:
                        vote_set.add(f"{rnd}|{voter_n}|{target_n}")
    mem.votes = sorted(vote_set)


def _first_unread(mem: GameMemory, chat: list[ChatLine]) -> int:
    """Where this turn starts reading the public chat: facts are parsed once per line (the chat only grows),
    but today's lines (since the last daybreak) are read again for the vote declarations made today.
    Remembers how far the chat was read."""
    start = 0
    n = mem.chat_seen
    if 0 < n <= len(chat) and _mark(chat[n - 1].speaker, chat[n - 1].content) == mem.chat_mark:
        start = n
    for i in range(min(start, len(chat)) - 1, -1, -1):
        if is_system(chat[i].speaker) and any(w in chat[i].content.lower() for w in DAYBREAK):
            start = i
            break
    else:
        start = 0  # no daybreak seen: everything is today
    if chat:
        mem.chat_seen, mem.chat_mark = len(chat), _mark(chat[-1].speaker, chat[-1].content)
    return start


def _read_chat(turn: WerewolfTurn, mem: GameMemory, all_names: list[str],
               dead: set[str]) -> tuple[dict[str, str], set[str], str | None]:
    """The chat into memory (claims, claimed checks and saves, accusations, the judge's duel results and
    daybreak deaths) and ``dead`` (deaths the judge announced); returns today's vote declarations, who spoke
    today and, in the wolves' night chat, the kill they called."""
    night_wolf_chat = turn.phase.startswith("night") and turn.action_type == "choose_kill_target"
    declared: dict[str, str] = {}
    spoken: set[str] = set()
    wolf_kill = None
    accus = {k: set(v) for k, v in mem.accusations.items()}
    chat = turn.chat_history
    start = 0 if night_wolf_chat else _first_unread(mem, chat)
    for line in chat[start:]:
        if is_system(line.speaker):
            if any(w in line.content.lower() for w in DAYBREAK):
                declared, spoken = {}, set()
            if not night_wolf_chat:  # deaths the roster may not show yet (stale after a knight flip)
                _judge_line(mem, line.content, all_names, dead)
            continue
        if night_wolf_chat:
            wolf_kill = _kill_call(line.content, all_names) or wolf_kill
            continue
        speaker = _match_name(line.speaker, all_names) or line.speaker.strip()
        spoken.add(speaker)
        _parse_speech(mem, speaker, line.content, all_names, accus, declared)
    mem.accusations = {k: sorted(v) for k, v in sorted(accus.items())}
    return declared, spoken, wolf_kill


def _judge_line(mem: GameMemory, text: str, all_names: list[str], dead: set[str]) -> None:
    """A judge's line: deaths (a daybreak's are the night's), and a knight's duel (its target's side is public:
    a wolf when the duel is won, good when it fails)."""
    died = _announced_dead(text, all_names)
    dead.update(died)
    low = text.lower()
    if any(w in low for w in DAYBREAK):
        mem.night_deaths = sorted({*mem.night_deaths, *died})
    if "决斗" in text or "duel" in low:
        named = _names_by_position(text, all_names)
        if len(named) >= 2:
            knight, target = named[0], named[1]
            if "失败" in text or "fail" in low:
                mem.revealed.setdefault(target, "villager")
            elif any(w in low for w in ("是狼", "werewolf", "is a wolf")):
                mem.revealed.setdefault(target, "werewolf")
            mem.revealed.setdefault(knight, "villager")


def _names_by_position(text: str, names: list[str]) -> list[str]:
    """Roster names in ``text`` in the order they first appear (a longer name wins over one inside it)."""
    spans: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for name in names:  # longest first
        i = text.find(name) if name else -1
        while i >= 0 and any(a <= i < b for a, b in taken):
            i = text.find(name, i + 1)
        if i >= 0:
            spans.append((i, name))
            taken.append((i, i + len(name)))
    return [n for _i, n in sorted(spans)]


def _announced_dead(text: str, all_names: list[str]) -> list[str]:
    """Names in the clauses of a judge's line that announce a death (not "nobody died")."""
    out: list[str] = []
    for c in _clauses(text):
        if any(w in c.lower() for w in DEATH_WORDS) and "无人" not in c and "平安" not in c:
            out.extend(_names_in(c, all_names))
    return out


def _kill_call(text: str, all_names: list[str]) -> str | None:
    """The last player a wolf's night-chat line calls to kill, if any."""
    kill = None
    for c in _clauses(text):
        for n in _names_in(c, all_names):
            if any(p.format(n) in c for p in _KILL_PATTERNS):
                kill = n
    return kill


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


def _match_name(raw: str, names: list[str]) -> str | None:
    raw = raw.strip()
    if raw in names:
        return raw
    for n in names:
        if n and (raw.endswith(n) or raw.startswith(n)):
            return n
    return None


def _parse_speech(mem: GameMemory, speaker: str, text: str, names: list[str],
                  accus: dict[str, set[str]], declared: dict[str, str]) -> None:
    m = _CLAIM_RE.search(text)
    if m:
        claimed = _ROLE_WORDS.get(m.group(1).lower(), _ROLE_WORDS.get(m.group(1), "villager"))
        before = mem.claims.get(speaker)
        # the first claim stands; saying "villager" first and a role later is hiding, not a contradiction
        if before is None or (before == "villager" and claimed != "villager"):
            mem.claims[speaker] = claimed
            if claimed == "seer":
                if speaker not in mem.seer_claim_order:
                    mem.seer_claim_order.append(speaker)
            elif claimed != "villager":
                order = mem.role_claim_order.setdefault(claimed, [])
                if speaker not in order:
                    order.append(speaker)
    claim = mem.claims.get(speaker)
    for clause in _clauses(text):
        found = [n for n in _names_in(clause, names) if n != speaker]
        if not found:
            continue
        low = clause.lower()
        if claim == "seer" and len(found) == 1 and ("验" in clause or "check" in low):
            if any(w in low for w in _WOLF_WORDS) and "不是狼" not in clause and "not a wolf" not in low:
                mem.claimed_checks.setdefault(speaker, {})[found[0]] = "werewolf"
            elif any(w in low for w in _GOOD_WORDS):
                mem.claimed_checks.setdefault(speaker, {})[found[0]] = "villager"
            night = _NIGHT_RE.search(clause)
            if night and found[0] in mem.claimed_checks.get(speaker, {}):
                nights = mem.claimed_check_nights.setdefault(speaker, {})
                nights.setdefault(found[0], int(night.group(1) or night.group(2)))
        if claim == "witch" and len(found) == 1:
            kind = mem.claimed_poisons if any(w in low for w in _POISON_WORDS) else (
                mem.claimed_saves if any(w in low for w in _SAVE_WORDS) else None)
            if kind is not None and found[0] not in kind.setdefault(speaker, []):
                kind[speaker].append(found[0])
        for n in found:
            if any(p.format(n) in clause for p in _VOTE_PATTERNS):
                declared[speaker] = n
        if len(found) == 1 and any(w in low for w in _ACCUSE_WORDS) and not any(w in low for w in _DEFEND_WORDS):
            accus.setdefault(found[0], set()).add(speaker)


def _judge(view: View) -> None:
    """Known wolves/good from our own role, the trusted seer, and votes; then suspicion scores."""
    mem, me = view.memory, view.me
    good, wolves = _sure_sides(view)
    trusted, rivals = _trust_seer(view, good, wolves)
    _public_sides(view, trusted)
    if not view.wolf_team:
        good |= view.public_good - wolves
        wolves |= view.public_wolves - good
    view.public_score = pub = _public_scores(view, trusted, rivals)
    score = dict(pub)
    for n in wolves:
        score[n] = score.get(n, 0.0) + 50.0
    for n in good:
        score[n] = score.get(n, 0.0) - 50.0
    view.known_wolves = wolves - {me}
    view.known_good = good - {me}
    view.score = score
    mem.suspicion = {k: round(v, 2) for k, v in sorted(score.items()) if v}


#: roles a mode has one of: a second player claiming one is lying (villager and werewolf are many)
UNIQUE_ROLES = frozenset({"seer", "witch", "guard", "hunter", "knight", "elder", "cupid", "dreamweaver"})


def _sure_sides(view: View) -> tuple[set[str], set[str]]:
    """(good, wolves) as our own role, our own seer checks, the judge's duel results and what we saw at night
    prove them; anyone else claiming our own one-of-a-kind role is lying."""
    mem, me = view.memory, view.me
    good: set[str] = set()
    wolves: set[str] = set()
    if me and view.role not in WOLF_ROLES and view.role != "madman":
        good.add(me)
    if view.wolf_team:
        wolves |= set(view.teammates) | ({me} if me else set())
    for name, res in mem.seer_results.items():
        (wolves if res == "werewolf" else good).add(name)
    for name, side in mem.revealed.items():
        (wolves if side == "werewolf" else good).add(name)
    if view.role == "witch":  # the wolves chose them: on the good side (cupid does not learn the lovers' sides)
        good |= set(mem.witch_victims)
    if view.role in UNIQUE_ROLES and view.role != "seer" and not view.wolf_team:
        wolves |= {n for n in mem.role_claim_order.get(view.role, []) if n != me} - good
    return good, wolves


def _public_sides(view: View, trusted: str | None) -> None:
    """What every player holds for good or wolf: the trusted seer and its checks, the judge's duel results."""
    mem = view.memory
    good: set[str] = set()
    wolves: set[str] = set()
    if trusted:
        good.add(trusted)
        for t, r in view.trusted_checks.items():
            (wolves if r == "werewolf" else good).add(t)
    for name, side in mem.revealed.items():
        (wolves if side == "werewolf" else good).add(name)
    wolves |= view.seer_liars
    view.public_good, view.public_wolves = good - wolves, wolves


def _witch_claims(mem: GameMemory) -> tuple[set[str], set[str]]:
    """(saved, poisoned) as the first witch claimant told them (a later witch claimant is a liar)."""
    witches = mem.role_claim_order.get("witch", [])
    if not witches:
        return set(), set()
    return set(mem.claimed_saves.get(witches[0], [])), set(mem.claimed_poisons.get(witches[0], []))


def witch_cleared(view: View) -> set[str]:
    """The players the first uncontested witch claimant says she saved: the wolves chose them, so they are most
    likely good (wolves can pick a teammate, so this lowers suspicion without settling it). A seer claimant
    calling one of them a wolf is caught lying."""
    witches = view.memory.role_claim_order.get("witch", [])
    if not witches or witches[0] in view.public_wolves:
        return set()
    return _witch_claims(view.memory)[0] - view.public_wolves


def _trust_seer(view: View, good: set[str], wolves: set[str]) -> tuple[str | None, list[str]]:
    """The trusted seer: the first claimant whose claims do not contradict what we know for sure; a provably
    false one joins ``wolves`` (unless we are wolves), the trusted one's checks join ``good``/``wolves``.

    A later claimant the first one did not already check as a wolf contests the claim (a madman claiming first,
    the real seer answering): nobody is trusted until the wolves settle it by killing one of them at night
    (they kill the real seer), which exposes the other. A claimant the first one checked as a wolf claiming
    back is only a rival (suspicious). Sets ``view.trusted_seer``/``trusted_checks``; returns the trusted
    seer and the rivals."""
    mem, me = view.memory, view.me
    trusted = me if view.role == "seer" and me in mem.seer_claim_order else None
    claimants: list[str] = []
    saved, poisoned = _witch_claims(mem)
    for claimant in mem.seer_claim_order:
        if claimant == me:
            continue
        checks = mem.claimed_checks.get(claimant, {})
        lies = any((t in good and r == "werewolf") or (t in wolves and r == "villager" and not view.wolf_team)
                   or (t in saved and r == "werewolf") for t, r in checks.items())
        lies = lies or _voted_past_own_wolf(mem, claimant)
        if view.role == "seer" or claimant in wolves or lies:
            if not view.wolf_team:
                wolves.add(claimant)  # a provably false seer is on the wolf side
            continue
        claimants.append(claimant)
    rivals: list[str] = []
    view.seer_liars = set()
    if claimants and trusted is None:
        first, later = claimants[0], claimants[1:]
        accused_first = mem.claimed_checks.get(first, {})
        # a player the first claimant checked as a wolf who claims back with no check but one on that claimant
        # is the usual desperate wolf; with checks on anyone else he may be the real seer framed by a madman
        contest = [first] + [c for c in later if accused_first.get(c) != "werewolf" or _checks_others(mem, c, first)]
        rivals = [c for c in later if c not in contest]
        killed = [c for c in contest if c in mem.night_deaths and c not in poisoned]
        if len(contest) == 1:
            trusted = first
        elif not killed:
            view.contested = set(contest)
        elif len(killed) == 1:
            trusted = killed[0]
            view.seer_liars = {c for c in contest if c != trusted}
            if not view.wolf_team:
                wolves |= view.seer_liars
    view.trusted_seer = trusted
    if trusted and trusted != me:
        view.trusted_checks = dict(mem.claimed_checks.get(trusted, {}))
        if not view.wolf_team:
            for t, r in view.trusted_checks.items():
                if t != me:
                    (wolves if r == "werewolf" else good).add(t)
            good.add(trusted)
    elif trusted == me:
        view.trusted_checks = dict(mem.seer_results)
    return trusted, rivals


def _voted_past_own_wolf(mem: GameMemory, claimant: str) -> bool:
    """Whether the vote record contradicts a seer claimant: on a day after the night he says he found a wolf, he
    voted someone else while that wolf was there to vote (a real seer votes his wolf; a late counter-claim
    "found" one it never acted on)."""
    nights = mem.claimed_check_nights.get(claimant, {})
    checks = mem.claimed_checks.get(claimant, {})
    # a vote for another player he calls a wolf, or one a duel exposed, is no contradiction
    wolves = {t for t, r in checks.items() if r == "werewolf"} | {n for n, r in mem.revealed.items() if r == "werewolf"}
    for t in wolves & set(checks):
        night = nights.get(t)
        if night is None:
            continue
        for entry in mem.votes:
            rnd, voter, target = entry.split("|", 2)
            if voter == claimant and int(rnd) >= night and target not in wolves and _voted(mem.votes, rnd, t):
                return True
    return False


def _voted(votes: list[str], rnd: str, name: str) -> bool:
    """Whether ``name`` cast a vote on day ``rnd`` (was alive at that day's vote)."""
    return any(v.startswith(f"{rnd}|") and v.split("|", 2)[1] == name for v in votes)


def _checks_others(mem: GameMemory, claimant: str, accuser: str) -> bool:
    """Whether ``claimant`` announced checks, none of them a "wolf" on ``accuser``."""
    checks = mem.claimed_checks.get(claimant, {})
    return bool(checks) and checks.get(accuser) != "werewolf"


#: evidence weights of the public ranking (higher: more suspicious). Every one of our players computes the same
#: ranking from the same chat and vote record, which is how the village converges on one name.
W_ACCUSED = 0.3          # per player who accused them (cheap talk: it only breaks near-ties)
W_CLAIM = -1.0           # stated a role (a commitment the game can contradict) and was not contradicted
W_ROLE_CLAIM = -3.0      # ... a one-of-a-kind role nobody else claimed (a second claimant would expose a liar)
W_COUNTER_CLAIM = 10.0   # claimed a one-of-a-kind role someone had claimed before
W_ACCUSED_GOOD = 1.5     # per accusation of a publicly good player
W_VOTED_GOOD = 2.0       # per vote for a publicly good player
W_VOTED_WOLF = -0.5      # per vote for a public wolf
W_SPARED_WOLF = 1.5      # voted elsewhere on the day a public wolf was up for the vote
W_AGAINST_VILLAGE = 1.0  # voted elsewhere than the day's most voted player (who could not vote himself)
W_TRUSTED_SEER = -6.0
W_PUBLIC_WOLF = 20.0
W_PUBLIC_GOOD = -8.0
W_SAVED = -4.0           # a witch claimant saved them from the wolves
W_CONTESTED_CHECK = 2.0  # checked by one of two contesting seer claimants (one of them is the real seer)


def _public_scores(view: View, trusted: str | None, rivals: list[str]) -> dict[str, float]:
    """What every player can compute from the chat and the vote record (higher: more suspicious), with the
    evidence behind each score in ``view.evidence`` (what a speech cites)."""
    mem = view.memory
    pub: dict[str, float] = {n: 0.0 for n in set(view.alive) | set(mem.dead)}
    evidence: dict[str, list[str]] = {}

    def add(name: str | None, weight: float, key: str) -> None:
        if name:
            pub[name] = pub.get(name, 0.0) + weight
            if key not in evidence.setdefault(name, []):
                evidence[name].append(key)

    public_wolves, public_good = view.public_wolves, view.public_good
    counter = {later for role, order in mem.role_claim_order.items() if role in UNIQUE_ROLES
               for later in order[1:]} | set(rivals)
    for name in mem.claims:
        if name in counter:
            add(name, W_COUNTER_CLAIM, "counter_claim")
        elif name not in public_wolves:
            role = mem.claims[name]
            add(name, W_ROLE_CLAIM if role in UNIQUE_ROLES and role != "seer" else W_CLAIM, "claim")
    for t, accusers in mem.accusations.items():
        real = [a for a in accusers if a != t]
        if real:
            add(t, W_ACCUSED * len(real), "accused")
        if t in public_good:
            for a in real:
                if a != trusted and a not in public_good:
                    add(a, W_ACCUSED_GOOD, "accused_good")
    tops = _vote_tops(mem.votes)
    for entry in mem.votes:
        rnd, voter, target = entry.split("|", 2)
        top = tops.get(rnd)
        if top and voter != top and target != top:
            add(voter, W_AGAINST_VILLAGE, "against_village")
        if target in public_wolves:
            add(voter, W_VOTED_WOLF, "voted_wolf")
        if target in public_good and voter not in public_good:
            add(voter, W_VOTED_GOOD, "voted_good")
        # refusing to vote a publicly exposed wolf on the day it was exposed is suspicious
        for w in public_wolves:
            if w != voter and w != target and _voted_in(mem.votes, rnd, w):
                add(voter, W_SPARED_WOLF, "spared_wolf")
    add(trusted, W_TRUSTED_SEER, "trusted_seer")
    for w in sorted(public_wolves):
        add(w, W_PUBLIC_WOLF, "public_wolf")
    for g in sorted(public_good - {trusted} if trusted else public_good):
        add(g, W_PUBLIC_GOOD, "public_good")
    for g in sorted(witch_cleared(view) - public_good):
        add(g, W_SAVED, "saved")
    for c in sorted(view.contested):  # neither claimant is trusted yet, but one of them tells the truth
        for t, r in sorted(mem.claimed_checks.get(c, {}).items()):
            if t not in view.contested and t not in public_good and t not in public_wolves:
                if r == "werewolf":
                    add(t, W_CONTESTED_CHECK, "contested_wolf")
                else:
                    add(t, -W_CONTESTED_CHECK, "contested_good")
    view.evidence = evidence
    return pub


def _vote_tops(votes: list[str]) -> dict[str, str]:
    """Each past day's most voted player (only a clear plurality counts)."""
    tally: dict[str, dict[str, int]] = {}
    for entry in votes:
        rnd, _voter, target = entry.split("|", 2)
        day = tally.setdefault(rnd, {})
        day[target] = day.get(target, 0) + 1
    out = {}
    for rnd, day in tally.items():
        ranked = sorted(day.values(), reverse=True)
        if len(ranked) == 1 or ranked[0] > ranked[1]:
            out[rnd] = max(day, key=lambda n: day[n])
    return out


def _voted_in(votes: list[str], rnd: str, name: str) -> bool:
    return any(v.startswith(f"{rnd}|") and v.split("|", 2)[2] == name for v in votes)
