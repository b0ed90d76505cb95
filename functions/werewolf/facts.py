"""Facts read from a turn's text: our seer results and past votes from ``known_info``, and from ``chat_history``
the claims, claimed checks/saves/poisons, accusations, vote declarations, the judge's announced deaths and duel
results, and the wolves' night kill call. Everything found is merged into :class:`~werewolf.memory.GameMemory`.

The parsing is hand-written (regexes and word lists) because the chat is free text in Chinese or English with
no grammar a library could take; :mod:`werewolf.speech` phrases our own speeches so this reads them back.
"""

from __future__ import annotations

import hashlib
import re

from werewolf.memory import GameMemory
from werewolf.models import ChatLine, WerewolfTurn
from werewolf.sanitize import MARKERS

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
