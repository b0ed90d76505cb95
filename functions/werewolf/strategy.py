"""The deterministic strategy: one answer per action type, always valid.

Every target comes from our own reasoning over :class:`~werewolf.knowledge.View` (never echoed from
the payload's text) and is resolved to an exact alive, non-self, addressable name. Every rule that two
of our agents must agree on (the village's vote, the wolves' kill) is a deterministic function of
public information with a stable tie-break.
"""

from __future__ import annotations

from dataclasses import dataclass

from werewolf.knowledge import View
from werewolf.models import PAIR_ACTIONS, SPEECH_ACTIONS, TARGET_ACTIONS, WerewolfAnswer
from werewolf.speech import Say


@dataclass
class Decision:
    answer: WerewolfAnswer
    reason: str = ""


# ---------------------------------------------------------------------------------------------- picks

def _pick(view: View, scores: dict[str, float], exclude: set[str] | None = None, salt: str = "") -> str | None:
    exclude = exclude or set()
    cands = [n for n in view.targets if n not in exclude]
    if not cands:
        cands = list(view.targets)
    return view.best(cands, scores, salt)


def vote_weights(view: View) -> dict[str, float]:
    """The village's consolidated vote ranking: suspicion plus today's declared votes."""
    w = dict(view.score)
    for speaker, target in view.declared_votes.items():
        if speaker == view.trusted_seer:
            w[target] = w.get(target, 0.0) + 30.0
        elif speaker not in view.known_wolves and speaker != target:
            w[target] = w.get(target, 0.0) + 1.0
    return w


def public_consensus(view: View) -> dict[str, float]:
    """What the village as a whole will most likely vote (public information only)."""
    w = dict(view.public_score)
    for speaker, target in view.declared_votes.items():
        w[target] = w.get(target, 0.0) + (30.0 if speaker == view.trusted_seer else 1.0)
    return w


def vote_target(view: View) -> str | None:
    if view.role == "madman":  # stand by our own fake check, if we made one
        fake = [t for t, r in view.memory.claimed_checks.get(view.me, {}).items()
                if r == "werewolf" and t in view.targets]
        if fake:
            return fake[0]
    if view.wolf_team:
        mates = set(view.teammates)
        consensus = public_consensus(view)
        cands = [n for n in view.alive if n != view.me and n not in mates] or list(view.targets)
        top = view.best([n for n in view.alive if n != view.me] or view.targets, consensus, "vote")
        if top and top not in mates and top in view.targets:
            return top  # blend in with the village
        if view.trusted_seer and view.trusted_seer in view.targets and view.trusted_seer not in mates:
            return view.trusted_seer
        return view.best([c for c in cands if c in view.targets], consensus, "vote") or _pick(view, consensus)
    return _pick(view, vote_weights(view), salt="vote")


def kill_target(view: View) -> str | None:
    mates = set(view.teammates)
    follow = view.wolf_chat_kill
    if follow and follow in view.targets and follow not in mates:
        return follow
    mem = view.memory
    w: dict[str, float] = {}
    for n in view.targets:
        claim = mem.claims.get(n, "")
        s = 0.0
        if n == view.trusted_seer:
            s += 100
        elif claim == "seer":
            s += 60
        s += {"witch": 40, "guard": 35, "knight": 25, "dreamweaver": 20, "hunter": -30, "elder": -10}.get(claim, 0)
        s += 3 * sum(1 for t in mates for a in mem.accusations.get(t, []) if a == n)  # accused our team
        if view.trusted_checks.get(n) == "villager":
            s += 10
        w[n] = s
    return _pick(view, w, exclude=mates, salt="kill")


def seer_check(view: View) -> str | None:
    checked = set(view.memory.seer_results)
    w = {n: view.public_score.get(n, 0.0) - (5 if view.memory.claims.get(n) else 0) for n in view.targets}
    return _pick(view, w, exclude=checked, salt=f"check{view.me}")


def guard_target(view: View) -> str | None:
    mem = view.memory
    last = mem.guard_history[-1][1] if mem.guard_history else None
    w: dict[str, float] = {}
    for n in view.targets:
        s = 0.0
        if n == view.trusted_seer:
            s += 100
        s += {"seer": 50, "witch": 20, "guard": 5}.get(mem.claims.get(n, ""), 0)
        if n in view.known_good:
            s += 10
        if n in view.known_wolves:
            s -= 100
        w[n] = s
    return _pick(view, w, exclude={last} if last else set(), salt=f"guard{view.me}")


def shoot_target(view: View) -> str | None:
    if view.wolf_team:  # wolf king: take the most valuable village player
        w = {n: -view.public_score.get(n, 0.0) + (100 if n == view.trusted_seer else 0) for n in view.targets}
        return _pick(view, w, exclude=set(view.teammates), salt="shoot")
    return _pick(view, view.score, salt="shoot")


def enchant_target(view: View) -> str | None:
    mem = view.memory
    w: dict[str, float] = {n: (100 if n == view.trusted_seer else 0) + {"seer": 60, "guard": 40, "witch": 40}.get(
        mem.claims.get(n, ""), 0) for n in view.targets}
    return _pick(view, w, exclude=set(view.teammates), salt="enchant")


def pair(view: View, action: str) -> tuple[str, str] | None:
    if len(view.targets) < 2:
        return None
    if action == "dreamweaver_check":
        w = view.score
    else:  # cupid: link two players we cannot read yet, spread by a stable hash
        w = {n: 0.0 for n in view.targets}
    first = view.best(view.targets, w, action)
    second = view.best([n for n in view.targets if n != first], w, action)
    if first is None or second is None:
        return None
    if action == "dreamweaver_check" and {first, second} == last_dream_pair(view):
        # the engine refuses last night's pair (the check is skipped): swap in the next best player
        third = view.best([n for n in view.targets if n not in (first, second)], w, action)
        if third is not None:
            return first, third
    return first, second


def last_dream_pair(view: View) -> set[str]:
    """The pair our dreamweaver named last night (empty before the first check)."""
    pairs = view.memory.dream_pairs
    return set(pairs[-1]) if pairs else set()


# ---------------------------------------------------------------------------------------------- speech

def _reason(view: View, name: str, say: Say) -> str:
    if view.role == "seer" and view.memory.seer_results.get(name) == "werewolf":
        return say.reason_mine()
    if view.wolf_team and name == view.trusted_seer:
        return say.reason_doubt_seer()
    if name in view.trusted_checks and view.trusted_checks[name] == "werewolf" and view.trusted_seer:
        return say.reason_seer(view.trusted_seer)
    if view.memory.claims.get(name) == "seer" and name in view.known_wolves:
        return say.reason_fake_seer(name)
    accusers = [a for a in view.memory.accusations.get(name, []) if a != name]
    if len(accusers) >= 2:
        return say.reason_accused(len(accusers))
    if view.public_score.get(name, 0) > 1:
        return say.reason_votes()
    return say.reason_none()


def speech(view: View, say: Say, action: str) -> str:
    mem = view.memory
    target = vote_target(view)
    parts: list[str] = []
    if action == "last_words":
        body: list[str] = []
        if view.role == "seer":
            body += [say.check(_night_of(view, n), n, r) for n, r in mem.seer_results.items()]
        if target:
            body.append(say.suspect(target, _reason(view, target, say)) + say.rally(target))
        shown = "villager" if view.wolf_team or view.role == "madman" else view.role
        return say.last_words(shown, "".join(body) or say.listen())
    if view.role == "seer":
        parts.append(say.claim("seer"))
        parts += [say.check(_night_of(view, n), n, r) for n, r in mem.seer_results.items()]
        if target:
            parts.append(say.vote(target, _reason(view, target, say)))
            parts.append(say.rally(target))
        return say.wrap("".join(parts))
    if view.role == "madman" and not mem.claimed_checks.get(view.me) and (
            not view.trusted_seer or view.trusted_seer == view.me) and target:
        # the madman helps the wolves by claiming seer first and "checking" a village player
        parts += [say.claim("seer"), say.check(max(1, view.turn.round), target, "werewolf"),
                  say.vote(target, say.reason_mine()), say.rally(target)]
        return say.wrap("".join(parts))
    if view.wolf_team:
        accused_by_seer = view.trusted_seer and mem.claimed_checks.get(view.trusted_seer, {}).get(view.me) == "werewolf"
        if accused_by_seer and view.trusted_seer and view.trusted_seer != view.me:
            # nothing left to lose: counter-claim seer against the accuser
            seer = view.trusted_seer
            parts += [say.claim("seer"), say.check(max(1, view.turn.round - 1), seer, "werewolf"),
                      say.vote(seer, say.reason_fake_seer(seer)), say.rally(seer)]
            return say.wrap("".join(parts))
        parts.append(say.claim("villager"))
    else:
        accusers = [a for a in mem.accusations.get(view.me, []) if a != view.me]
        if view.role == "hunter" and target and len(accusers) >= 2:
            parts.append(say.hunter_threat(target))
        elif action == "speak_rebuttal" and accusers:
            parts.append(say.defend(accusers))
        else:
            parts.append(say.claim("villager" if view.role in ("villager", "madman") else "villager"))
        if view.trusted_seer and view.trusted_seer != view.me:
            parts.append(say.follow_seer(view.trusted_seer))
    if target:
        parts.append(say.suspect(target, _reason(view, target, say)))
        parts.append(say.vote(target))
    else:
        parts.append(say.listen())
    return say.wrap("".join(parts))


def _night_of(view: View, name: str) -> int | str:
    import re

    for line in view.turn.known_info:
        if name in line:
            m = re.search(r"Round\s*(\d+)", line)
            if m:
                return int(m.group(1))
    return "?"


# ---------------------------------------------------------------------------------------------- decide

def decide(view: View, say: Say) -> Decision:
    """The answer for ``view.turn.action_type``; unknown types get the safest object we can build."""
    action = view.turn.action_type
    mem = view.memory
    if action in SPEECH_ACTIONS:
        if action == "knight_speak" and not mem.knight_flipped:
            sure = [n for n in view.targets if n in view.known_wolves and view.score.get(n, 0) >= 20]
            if sure:
                t = view.best(sure, view.score, "flip")
                if t:
                    return Decision(WerewolfAnswer(flip=True, target=t, message=say.flip(t)), "knight flip")
        return Decision(WerewolfAnswer(message=speech(view, say, action)), "speech")
    if action in TARGET_ACTIONS:
        pickers = {"vote": vote_target, "choose_kill_target": kill_target, "seer_check": seer_check,
                   "guard_protect": guard_target, "hunter_shoot": shoot_target,
                   "wolf_king_revenge": shoot_target, "enchant_target": enchant_target}
        t = pickers[action](view) or (view.targets[0] if view.targets else None)
        if t is None:
            return Decision(safest(view, say), "no target available")
        ans = WerewolfAnswer(target=t)
        if action == "choose_kill_target":
            first = view.wolf_chat_kill is None
            ans.message = say.kill_call(t) if first else say.kill_follow(t)
        return Decision(ans, action)
    if action == "witch_decide":
        return Decision(witch(view), "witch")
    if action in PAIR_ACTIONS:
        p = pair(view, action)
        if p is None:
            return Decision(safest(view, say), "not enough players for a pair")
        return Decision(WerewolfAnswer(target=p[0], second_target=p[1]), action)
    return Decision(safest(view, say), "unknown action type")


def witch(view: View) -> WerewolfAnswer:
    """Save the wolves' victim while the potion lasts (unless it is a known wolf). Poison a known wolf at once;
    otherwise only when the players we cannot vouch for are down to two: every victim the wolves chose is on
    the good side, so late in the game the poison is then very likely to hit a wolf (in the simulator against
    random play: +8 points for the witch's seat over 3,000 standard-8p games, where poisoning at random or never
    loses)."""
    ctx = view.turn.extra_context
    mem = view.memory
    victim = ctx.get("wolfVictimName")
    victim = victim if isinstance(victim, str) and victim.strip() else None
    has_save = bool(ctx["hasSavePotion"]) if "hasSavePotion" in ctx else not mem.witch_saved
    has_poison = bool(ctx["hasPoisonPotion"]) if "hasPoisonPotion" in ctx else not mem.witch_poisoned
    if victim and has_save and victim not in view.known_wolves:
        return WerewolfAnswer(witch_action="save")
    if has_poison:
        vouched = view.known_good | set(mem.witch_victims) | ({victim} if victim else set())
        sure = [n for n in view.targets if n in view.known_wolves]
        unknown = [n for n in view.targets if n not in vouched]
        strong = [n for n in unknown if view.score.get(n, 0) >= 4]
        pool = sure or (unknown if len(unknown) <= POISON_POOL else []) or (strong if view.turn.round >= 3 else [])
        t = view.best(pool, view.score, "poison") if pool else None
        if t:
            return WerewolfAnswer(witch_action="poison", target=t)
    return WerewolfAnswer(witch_action="none")


POISON_POOL = 2


def safest(view: View, say: Say) -> WerewolfAnswer:
    """For unknown or inconsistent requests: an object that satisfies as many readings as possible."""
    action = view.turn.action_type
    msg = say.listen()
    if action == "witch_decide":
        return WerewolfAnswer(witch_action="none")
    t = view.targets[0] if view.targets else None
    if action in PAIR_ACTIONS and len(view.targets) >= 2:
        second = view.targets[1]
        if action == "dreamweaver_check" and len(view.targets) > 2 and \
                {view.targets[0], second} == last_dream_pair(view):
            second = view.targets[2]
        return WerewolfAnswer(target=view.targets[0], second_target=second)
    if t and action not in SPEECH_ACTIONS:
        return WerewolfAnswer(target=t, message=msg)
    return WerewolfAnswer(message=msg)


def record(view: View, action: str, answer: dict) -> None:
    """Remember what we did (whichever policy decided): our night history and one-shot abilities."""
    mem = view.memory
    target = answer.get("target")
    if action == "guard_protect" and target:
        mem.guard_history = (mem.guard_history + [[view.turn.round, target]])[-10:]
    elif action == "choose_kill_target" and target:
        mem.kills_announced[str(view.turn.round)] = target
    elif action == "witch_decide":
        victim = view.turn.extra_context.get("wolfVictimName")
        if isinstance(victim, str) and victim.strip() and victim not in mem.witch_victims:
            mem.witch_victims = (mem.witch_victims + [victim])[-20:]
        if answer.get("witch_action") == "save":
            mem.witch_saved.append(str(view.turn.extra_context.get("wolfVictimName") or "?"))
        elif answer.get("witch_action") == "poison" and target:
            mem.witch_poisoned.append(target)
    elif action == "knight_speak" and answer.get("flip") is True:
        mem.knight_flipped = True
    elif action == "cupid_link" and target:
        mem.lovers = [target, answer.get("second_target", "")]
    elif action == "dreamweaver_check" and target:
        mem.dream_pairs = (mem.dream_pairs + [[target, answer.get("second_target", "")]])[-10:]
