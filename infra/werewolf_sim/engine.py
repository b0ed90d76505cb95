"""The game engine: seeded full games under the rules recorded in FIELD_NOTES.md.

Night order: cupid → guard → werewolf → enchant → witch → seer → dreamweaver. Day: announce deaths
(hunter shot, heartbreak) → speeches from the seat after the first victim → rebuttals → votes →
elimination (wolf king revenge, hunter shot) → last words. Wolf kill and day vote are plurality; a tie
kills / eliminates nobody. Wolves win at parity (the madman counts as wolf); villagers win when no wolf is
left or at round 20.

Payloads reproduce the platform's quirks: rosters in database (shuffled) order, the eliminated player
still listed alive in ``last_words``, a stale roster for the rest of the day after a knight flip, the
wolves' chat in ``chat_history`` at night, ``Round r votes`` lines in ``known_info`` from round 2.

Our interpretation where the notes say little: the white wolf plays as a werewolf; the enchantress is a
wolf who does not join the kill while another wolf lives, and the player she enchants loses their night
ability the next night (an enchanted guard's pick protects nobody but still counts as last night's
target); the dreamweaver's pair cannot be killed by wolves the next night (nobody learns
anything), and the same pair as the night before is refused like the real engine does (no protection, the
turn still counts as valid); the elder survives the first wolf kill; a knight flip on a wolf kills the wolf and ends the
day, otherwise the knight dies; the hunter shoots unless poisoned; lovers die of heartbreak.
"""

from __future__ import annotations

import random
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from infra.werewolf_sim import validate

WOLVES = frozenset({"werewolf", "white_wolf", "wolf_king", "enchantress"})
MODES: dict[str, list[str]] = {
    "classic-6p": ["werewolf"] * 2 + ["seer"] + ["villager"] * 3,
    "standard-8p": ["werewolf"] * 2 + ["seer", "witch", "guard", "hunter"] + ["villager"] * 2,
    "couples-9p": ["werewolf"] * 2 + ["seer", "witch", "guard", "hunter", "cupid"] + ["villager"] * 2,
    "chaos-10p": ["werewolf"] * 2 + ["white_wolf", "madman", "seer", "witch", "guard", "hunter"] + ["villager"] * 2,
    "knight-shield-10p": ["werewolf"] * 3 + ["seer", "witch", "guard", "knight"] + ["villager"] * 3,
    "advanced-12p": ["werewolf"] * 3 + ["wolf_king", "seer", "witch", "guard", "hunter", "elder"] + ["villager"] * 3,
    "nightmare-12p": ["werewolf"] * 3 + ["enchantress", "seer", "witch", "guard", "dreamweaver"] + ["villager"] * 4,
    "allstar-14p": ["werewolf"] * 2 + ["white_wolf", "wolf_king", "seer", "witch", "guard", "hunter", "knight",
                                       "elder", "cupid"] + ["villager"] * 3,
}
NAMES = ["柯南", "路飞", "银时", "小丸子", "鸣人", "悟空", "佐助", "娜美", "索隆", "新一", "小兰", "樱木", "流川",
         "Alice Smith"]
SYSTEM = "【系统】"
MAX_ROUNDS = 20

# An actor answers a payload: returns (answer or None, error text or None).
Actor = Callable[[dict[str, Any]], tuple[Any, str | None]]


def team_of(role: str) -> str:
    return "wolf" if role in WOLVES or role == "madman" else "village"


def game_id_for(mode: str, seed: int, run: str = "") -> str:
    """A game's id: the same for the same mode, seed and run label (reproducible), different otherwise, so a
    webhook that keeps memory per game and seat (ours, on one stack or deployment) never mixes two games."""
    return str(uuid.UUID(int=random.Random(f"werewolf-sim:{run}:{mode}:{seed}").getrandbits(128)))


def deal(mode: str, rng: random.Random) -> list[str]:
    """The roles of seats 1..n: the mode's roles shuffled by the game's own stream (its first draw)."""
    roles = list(MODES[mode])
    rng.shuffle(roles)
    return roles


def roles_of(mode: str, seed: int) -> list[str]:
    """The roles a game of ``mode`` deals with ``seed``, seat 1 first (who plays which seat is chosen before
    the game starts)."""
    return deal(mode, random.Random(seed))


@dataclass
class Seat:
    seat: int
    name: str
    role: str
    pid: str
    alive: bool = True
    elder_life: bool = True


@dataclass
class Call:
    seat: int
    role: str
    action: str
    agent: bool
    valid: bool
    problems: list[str]
    latency_ms: float


@dataclass
class Result:
    mode: str
    seed: int
    winner: str
    rounds: int
    roles: dict[int, str]
    calls: list[Call] = field(default_factory=list)
    #: what the seats did, for behaviour counts: day votes (round, voter seat, target seat), who the vote put
    #: out (round, seat), shots (shooter seat, action, target seat) and the wolves' kill picks (round, wolf
    #: seat, target seat)
    votes: list[tuple[int, int, int]] = field(default_factory=list)
    lynched: list[tuple[int, int]] = field(default_factory=list)
    shots: list[tuple[int, str, int]] = field(default_factory=list)
    kill_picks: list[tuple[int, int, int]] = field(default_factory=list)


class RandomBot:
    """Random legal play from what the payload shows, like the platform's fallback."""

    FILLER = ["我是好人，先听听大家的发言。", "这一轮我没什么信息，过。", "大家冷静分析一下投票。",
              "我觉得场上有点乱。"]
    ACCUSE = ["我怀疑{}，发言有问题。", "{}有点可疑。", "我觉得{}像狼。"]

    def __init__(self, rng: random.Random):
        self.rng = rng

    def __call__(self, p: dict[str, Any]) -> tuple[Any, str | None]:
        rng = self.rng
        me = next((x["name"] for x in p["alive_players"] + p["dead_players"] if x["seat"] == p["your_seat"]), "")
        # seat order, not the payload's shuffled order: a bot's choice depends only on its own stream
        others = [x["name"] for x in sorted(p["alive_players"], key=lambda x: x["seat"]) if x["name"] != me]
        a = p["action_type"]
        if a in ("speak", "speak_rebuttal", "last_words"):
            if others and rng.random() < 0.5:  # random chatter names a random player (and draws rebuttals)
                return {"message": rng.choice(self.ACCUSE).format(rng.choice(others))}, None
            return {"message": rng.choice(self.FILLER)}, None
        if a == "knight_speak":
            if others and rng.random() < 0.15:
                t = rng.choice(others)
                return {"flip": True, "target": t, "message": f"我翻牌决斗{t}。"}, None
            return {"message": rng.choice(self.FILLER)}, None
        if a == "witch_decide":
            ctx = p["extra_context"]
            opts = ["none"]
            if ctx.get("wolfVictimName") and ctx.get("hasSavePotion"):
                opts.append("save")
            if ctx.get("hasPoisonPotion") and others:
                opts.append("poison")
            c = rng.choice(opts)
            return ({"witch_action": "poison", "target": rng.choice(others)} if c == "poison"
                    else {"witch_action": c}), None
        if a in ("cupid_link", "dreamweaver_check"):
            if len(others) < 2:
                return {}, None
            x, y = rng.sample(others, 2)
            return {"target": x, "second_target": y}, None
        return ({"target": rng.choice(others)} if others else {}), None


class Game:
    def __init__(self, mode: str, seed: int, actors: dict[int, Actor] | None = None,
                 progress: Callable[[str], None] | None = None, run: str = ""):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose from {', '.join(MODES)}")
        self.mode, self.seed = mode, seed
        self.rng = random.Random(seed)
        roles = deal(mode, self.rng)
        names = NAMES[: len(roles)]
        self.players = [Seat(i + 1, names[i], roles[i], uuid.UUID(int=self.rng.getrandbits(128)).hex[:12])
                        for i in range(len(roles))]
        # every seat has its own random stream (and the roster shuffle its own): whoever plays one seat, the
        # bots in the other seats make the same choice whenever they face the same situation, so comparing
        # our agent with a random bot in the same seat over the same seeds measures that seat's play alone
        self.bots = {p.seat: RandomBot(random.Random(f"werewolf-sim:{seed}:seat:{p.seat}")) for p in self.players}
        self.shuffle_rng = random.Random(f"werewolf-sim:{seed}:roster")
        self.actors = actors if actors is not None else {}
        self.game_id = game_id_for(mode, seed, run)
        self.round = 0
        self.chat: list[dict[str, str]] = []
        self.known: dict[int, list[str]] = {p.seat: [] for p in self.players}
        self.vote_lines: list[str] = []
        self.save_potion = self.poison_potion = True
        self.guard_last: str | None = None  # pid
        self.lovers: tuple[int, int] | None = None
        self.enchanted: int | None = None      # seat disabled tonight
        self.dream: set[int] = set()           # seats protected from wolves tonight
        self.dream_last: frozenset[int] | None = None  # the dreamweaver's pair last night (a repeat is refused)
        self.stale: set[int] = set()           # dead seats still listed alive (knight flip quirk)
        self.knight_used = False
        self.result = Result(mode, seed, "", 0, {p.seat: p.role for p in self.players})
        self.progress = progress
        #: what each night did (tests and debugging): round, enchanted seat, guard's pick, who it protected,
        #: the wolves' victim, saves, deaths
        self.night_log: list[dict[str, Any]] = []
        self.guard_pick: str | None = None  # tonight's guard pick (name), for scripted actors in tests

    # ------------------------------------------------------------------ helpers
    def by_seat(self, seat: int) -> Seat:
        return self.players[seat - 1]

    def by_name(self, name: str) -> Seat | None:
        return next((p for p in self.players if p.name == name), None)

    def alive(self) -> list[Seat]:
        return [p for p in self.players if p.alive]

    def wolves_alive(self) -> list[Seat]:
        return [p for p in self.alive() if p.role in WOLVES]

    def winner(self) -> str | None:
        wolves = self.wolves_alive()
        if not wolves:
            return "village"
        wolf_team = [p for p in self.alive() if team_of(p.role) == "wolf"]
        if len(wolf_team) >= len(self.alive()) - len(wolf_team):
            return "wolf"
        return None

    def say(self, text: str) -> None:
        self.chat.append({"speaker": SYSTEM, "content": text})

    def payload(self, p: Seat, action: str, phase: str, extra: dict[str, Any] | None = None,
                chat: list[dict[str, str]] | None = None, listed_alive: set[int] = frozenset()) -> dict[str, Any]:
        shown_alive = [x for x in self.players if x.alive or x.seat in self.stale or x.seat in listed_alive]
        shown_dead = [x for x in self.players if x not in shown_alive]
        alive_l = [{"name": x.name, "seat": x.seat} for x in shown_alive]
        dead_l = [{"name": x.name, "seat": x.seat} for x in shown_dead]
        self.shuffle_rng.shuffle(alive_l)  # database order, not seat order
        ctx = dict(extra or {})
        if p.role in WOLVES:
            ctx["teammates"] = [{"name": x.name, "seat": x.seat, "role": x.role, "alive": x.alive}
                                for x in self.players if x.role in WOLVES and x is not p]
        return {"game_id": self.game_id, "round": self.round, "phase": phase, "action_type": action,
                "your_role": p.role, "your_seat": p.seat, "alive_players": alive_l, "dead_players": dead_l,
                "chat_history": list(self.chat if chat is None else chat),
                "known_info": self.known[p.seat] + self.vote_lines, "extra_context": ctx}

    def ask(self, p: Seat, action: str, phase: str, **kw: Any) -> dict[str, Any]:
        payload = self.payload(p, action, phase, **{k: v for k, v in kw.items() if k in ("extra", "chat",
                                                                                          "listed_alive")})
        actor = self.actors.get(p.seat)
        agent = actor is not None
        started = time.perf_counter()
        answer, error = (actor or self.bots[p.seat])(payload)
        latency = (time.perf_counter() - started) * 1000
        alive_others = {x.name for x in self.alive() if x is not p}
        mates = {x.name for x in self.players if x.role in WOLVES and x is not p} if p.role in WOLVES else set()
        last = next((x.name for x in self.players if x.pid == self.guard_last), None)
        problems = [error] if error else validate.check(
            action, answer, alive_others, strict=agent, teammates=mates, last_guarded=last,
            witch=kw.get("extra") if action == "witch_decide" else None)
        self.result.calls.append(Call(p.seat, p.role, action, agent, not problems, problems, latency))
        if problems:  # the platform falls back to its own (hosted) answer
            if self.progress and agent:
                self.progress(f"  invalid {action} from seat {p.seat}: {'; '.join(problems)}")
            for _ in range(20):
                answer, _err = self.bots[p.seat](payload)
                if not validate.check(action, answer, alive_others, strict=False):
                    break
            else:
                answer = {}
        return answer if isinstance(answer, dict) else {}

    def target(self, answer: dict[str, Any], key: str = "target", exclude: Seat | None = None) -> Seat | None:
        name = validate.resolve(answer.get(key), {x.name for x in self.alive() if x is not exclude})
        return self.by_name(name) if name else None

    def kill(self, p: Seat, deaths: list[Seat]) -> None:
        if not p.alive:
            return
        p.alive = False
        deaths.append(p)
        if self.lovers and p.seat in self.lovers:
            other = self.by_seat(self.lovers[0] if self.lovers[1] == p.seat else self.lovers[1])
            if other.alive:
                self.say(f"{other.name}因殉情而死。")
                self.kill(other, deaths)

    # ------------------------------------------------------------------ game
    def run(self) -> Result:
        win = None
        for rnd in range(1, MAX_ROUNDS + 1):
            self.round = rnd
            self.night()
            win = self.winner()
            if win:
                break
            self.day()
            win = self.winner()
            if win:
                break
        self.result.winner = win or "village"
        self.result.rounds = self.round
        return self.result

    def first_alive(self, role: str) -> Seat | None:
        return next((p for p in self.alive() if p.role == role), None)

    def night(self) -> None:
        """One night, the roles asked in the real engine's order (each seat's random stream depends on it)."""
        rnd = self.round
        enchanted, self.enchanted = self.enchanted, None
        dream, self.dream = self.dream, set()
        if rnd == 1:
            self._night_cupid()
        protected = self._night_guard(enchanted)
        victim = self._night_wolves()
        self._night_enchantress()
        saved, poisoned = self._night_witch(victim, enchanted)
        self._night_seer(rnd, enchanted)
        dream_repeat = self._night_dreamweaver(enchanted)
        v = self.by_seat(victim) if victim else None
        deaths = self._night_deaths(victim, saved or (v is not None and (v is protected or v.seat in dream)),
                                    poisoned)
        self.night_deaths = deaths
        self.night_log.append({
            "round": rnd, "enchanted": self.by_seat(enchanted).name if enchanted else None,
            "guard_pick": self.guard_pick, "protected": protected.name if protected else None,
            "victim": self.by_seat(victim).name if victim else None, "saved": saved,
            "dream": sorted(self.by_seat(s).name for s in dream), "dream_repeat": dream_repeat,
            "deaths": [d.name for d in deaths]})

    def _night_cupid(self) -> None:
        cupid = self.first_alive("cupid")
        if cupid:
            a = self.ask(cupid, "cupid_link", "night_cupid")
            x, y = self.target(a, exclude=cupid), self.target(a, "second_target", exclude=cupid)
            if x and y and x is not y:
                self.lovers = (x.seat, y.seat)

    def _night_guard(self, enchanted: int | None) -> Seat | None:
        """The guard's pick; who it protects tonight (nobody when enchanted or repeating last night's)."""
        protected = None
        self.guard_pick = None
        guard = self.first_alive("guard")
        if guard:
            # an enchanted guard is still asked; the pick protects nobody tonight but is still "last night's
            # target" for the no-repeat rule (lastProtectedId follows the answer)
            a = self.ask(guard, "guard_protect", "night_guard", extra={"lastProtectedId": self.guard_last})
            t = self.target(a, exclude=guard)
            if t and t.pid != self.guard_last and guard.seat != enchanted:
                protected = t
            self.guard_last = t.pid if t else None
            self.guard_pick = t.name if t else None
        return protected

    def _night_wolves(self) -> int | None:
        """The wolves' victim (plurality of their picks; they chat in turn)."""
        killers = [w for w in self.wolves_alive() if w.role != "enchantress"] or self.wolves_alive()
        wolf_chat: list[dict[str, str]] = []
        votes: Counter[int] = Counter()
        for w in killers:
            a = self.ask(w, "choose_kill_target", "night_werewolf", chat=wolf_chat)
            t = self.target(a, exclude=w)
            if t:
                votes[t.seat] += 1
                self.result.kill_picks.append((self.round, w.seat, t.seat))
            if isinstance(a.get("message"), str) and validate.sanitize(a["message"]):
                wolf_chat.append({"speaker": w.name, "content": validate.sanitize(a["message"])})
        return _plurality(votes)

    def _night_enchantress(self) -> None:
        enchantress = self.first_alive("enchantress")
        if enchantress:
            a = self.ask(enchantress, "enchant_target", "night_enchant")
            t = self.target(a, exclude=enchantress)
            self.enchanted = t.seat if t else None

    def _night_witch(self, victim: int | None, enchanted: int | None) -> tuple[bool, Seat | None]:
        """Whether the witch saved the victim, and whom she poisoned."""
        saved, poisoned = False, None
        witch = self.first_alive("witch")
        if witch:
            v = self.by_seat(victim) if victim else None
            extra = {"wolfVictimName": v.name if v else None, "wolfVictimId": v.pid if v else None,
                     "hasSavePotion": self.save_potion, "hasPoisonPotion": self.poison_potion}
            a = self.ask(witch, "witch_decide", "night_witch", extra=extra)
            if witch.seat != enchanted:
                if a.get("witch_action") == "save" and v and self.save_potion:
                    saved, self.save_potion = True, False
                elif a.get("witch_action") == "poison" and self.poison_potion:
                    poisoned = self.target(a, exclude=witch)
                    if poisoned:
                        self.poison_potion = False
        return saved, poisoned

    def _night_seer(self, rnd: int, enchanted: int | None) -> None:
        seer = self.first_alive("seer")
        if seer:
            a = self.ask(seer, "seer_check", "night_seer")
            t = self.target(a, exclude=seer)
            if t and seer.seat != enchanted:
                res = "werewolf" if t.role in WOLVES else "villager"
                self.known[seer.seat].append(f"Round {rnd}: You checked {t.name} → {res}")

    def _night_dreamweaver(self, enchanted: int | None) -> bool:
        """The dreamweaver's pair (tomorrow night's dream); True when it repeated last night's (refused)."""
        dw = self.first_alive("dreamweaver")
        dream_repeat = False
        if dw:
            a = self.ask(dw, "dreamweaver_check", "night_dreamweaver",
                         extra={"pairKey": f"dream:{self.round}:{dw.pid}"})
            x, y = self.target(a, exclude=dw), self.target(a, "second_target", exclude=dw)
            if x and y and x is not y:
                pair = frozenset((x.seat, y.seat))
                # like the real engine: last night's pair again is refused (no check tonight), the turn stands
                dream_repeat = pair == self.dream_last
                self.dream_last = pair
                if not dream_repeat and dw.seat != enchanted:
                    self.dream = set(pair)
            else:
                self.dream_last = None
        return dream_repeat

    def _night_deaths(self, victim: int | None, safe: bool, poisoned: Seat | None) -> list[Seat]:
        """Who dies at dawn: the victim unless ``safe`` (saved, protected, dreaming) or an elder's spare life;
        the poisoned. A hunter killed by the wolves may shoot."""
        deaths: list[Seat] = []
        self.hunter_can_shoot: Seat | None = None
        if victim:
            v = self.by_seat(victim)
            if not safe and v.role == "elder" and v.elder_life:
                v.elder_life, safe = False, True
            if not safe:
                self.kill(v, deaths)
                if v.role == "hunter":
                    self.hunter_can_shoot = v
        if poisoned and poisoned.alive:
            self.kill(poisoned, deaths)
        return deaths

    def day(self) -> None:
        deaths = self.night_deaths
        self.stale = set()
        names = "、".join(d.name for d in deaths)
        self.say(f"天亮了，第{self.round}天。" + (f"昨晚{names}死亡。" if deaths else "昨晚是平安夜。"))
        if self.hunter_can_shoot:
            self.shoot(self.hunter_can_shoot, "hunter_shoot", "day_announce")
        if self.winner():
            return
        today = self._day_speeches(deaths[0].seat if deaths else 0)
        if today is None:
            return
        self._day_rebuttals(today)
        self._day_vote(today)

    def _day_speeches(self, first: int) -> list[str] | None:
        """Every living seat speaks once, starting after the first night death; None when a knight's duel
        ends the day."""
        n = len(self.players)
        order = [self.by_seat((first + i) % n + 1) for i in range(n)]
        today: list[str] = []
        for p in order:
            if not p.alive:
                continue
            if p.role == "knight" and not self.knight_used:
                a = self.ask(p, "knight_speak", "day_discuss")
                if a.get("flip") is True:
                    t = self.target(a, exclude=p)
                    if t:
                        if self._knight_duel(p, t, a, today):
                            return None
                        continue
                self.speech(p, a, today)
            else:
                self.speech(p, self.ask(p, "speak", "day_discuss"), today)
        return today

    def _knight_duel(self, p: Seat, t: Seat, a: dict[str, Any], today: list[str]) -> bool:
        """The knight flips and duels ``t``: a wolf dies (the day ends at once), else the knight does. True when
        the day is over (a wolf found, or the game won)."""
        self.knight_used = True
        self.speech(p, a, today)
        dead: list[Seat] = []
        if t.role in WOLVES:
            self.say(f"骑士{p.name}翻牌决斗{t.name}，{t.name}是狼人，{t.name}出局。")
            self.kill(t, dead)
            self.stale = {d.seat for d in dead}
            return True
        self.say(f"骑士{p.name}翻牌决斗{t.name}失败，骑士{p.name}出局。")
        self.kill(p, dead)
        self.stale = {d.seat for d in dead}
        return bool(self.winner())

    def _day_rebuttals(self, today: list[str]) -> None:
        """The two living players most named in today's speeches answer."""
        mentions: Counter[int] = Counter()
        for text in today:
            for p in self.alive():
                if p.name in text:
                    mentions[p.seat] += 1
        for seat, _ in mentions.most_common(2):
            p = self.by_seat(seat)
            if p.alive:
                self.speech(p, self.ask(p, "speak_rebuttal", "day_discuss"), today)

    def _day_vote(self, today: list[str]) -> None:
        """Everyone alive votes; the plurality is out (a tie: nobody) after its shot, if any, and last words."""
        tally: Counter[int] = Counter()
        pairs = []
        for p in sorted(self.alive(), key=lambda x: x.seat):
            t = self.target(self.ask(p, "vote", "day_vote"), exclude=p)
            if t:
                tally[t.seat] += 1
                pairs.append(f"{p.name}→{t.name}")
                self.result.votes.append((self.round, p.seat, t.seat))
        self.vote_lines.append(f"Round {self.round} votes: " + ", ".join(pairs))
        out = _plurality(tally)
        if not out:
            self.say("投票平票，无人出局。")
            return
        e = self.by_seat(out)
        self.result.lynched.append((self.round, e.seat))
        self.say(f"{e.name}被投票出局。")
        if e.role == "wolf_king":
            e.alive = False
            self.shoot(e, "wolf_king_revenge", "day_vote", revive_for_payload=True)
        elif e.role == "hunter":
            e.alive = False
            self.shoot(e, "hunter_shoot", "day_announce", revive_for_payload=True)
        e.alive = True
        a = self.ask(e, "last_words", "day_vote", listed_alive={e.seat})
        self.speech(e, a, today, system_ok=True)
        dead: list[Seat] = []
        self.kill(e, dead)

    def shoot(self, p: Seat, action: str, phase: str, revive_for_payload: bool = False) -> None:
        a = self.ask(p, action, phase)
        t = self.target(a, exclude=p)
        if t:
            self.result.shots.append((p.seat, action, t.seat))
            self.say(f"{p.name}开枪带走了{t.name}。")
            self.kill(t, [])

    def speech(self, p: Seat, a: dict[str, Any], today: list[str], system_ok: bool = False) -> None:
        m = a.get("message")
        text = validate.sanitize(m) if isinstance(m, str) else ""
        if text:
            self.chat.append({"speaker": p.name, "content": text})
            today.append(text)


def _plurality(votes: Counter[int]) -> int | None:
    if not votes:
        return None
    top = votes.most_common()
    if len(top) > 1 and top[0][1] == top[1][1]:
        return None
    return top[0][0]
