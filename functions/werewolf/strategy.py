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
from werewolf.suspicion import W_ACCUSED, W_CLAIM


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


#: weight of a vote declared today ("我投X") by a player who is not a public wolf; the trusted seer's counts 30
W_DECLARED = 0.3
W_SEER_DECLARED = 30.0


def vote_weights(view: View) -> dict[str, float]:
    """The village's shared vote ranking: the public evidence plus today's declared votes. It uses nothing
    private, so every village player computes the same ranking and the same top name."""
    w = dict(view.public_score)
    for speaker, target in view.declared_votes.items():
        if speaker == target or speaker in view.public_wolves or speaker in view.contested:
            continue
        w[target] = w.get(target, 0.0) + (W_SEER_DECLARED if speaker == view.trusted_seer else W_DECLARED)
    return w


def village_vote(view: View) -> str | None:
    """One village vote: a wolf we know for sure, else the top of the shared ranking. Only what we know for
    sure (our own side, our checks, what the night showed us) takes a name out, so village players agree
    unless one of them knows better; ties fall to a stable order every player computes alike."""
    w = vote_weights(view)
    cands = [n for n in view.targets if n not in view.known_good and n not in view.contested] or list(view.targets)
    sure = [n for n in view.targets if n in view.known_wolves]
    if not sure and view.role == "cupid":  # voting out a lover takes the other lover too: only on a case
        cands = [n for n in cands if n not in view.memory.lovers or case_against(view, n)] or cands
    return view.best(sure or cands, w, "vote")


def village_pool(view: View) -> list[str]:
    """Whom the village votes among: every living player but two seer claimants contesting each other (one of
    them is the real seer; the wolves' night kill will tell which)."""
    pool = [n for n in view.alive if (n in view.targets or n == view.me) and n not in view.contested]
    return pool or [n for n in view.alive if n in view.targets or n == view.me]


def public_consensus(view: View) -> str | None:
    """The name the village will most likely vote (the shared ranking over every living player)."""
    return view.best(village_pool(view), vote_weights(view), "vote")


def fake_seers(view: View) -> set[str]:
    """Seer claimants a wolf knows are lying: a "wolf" check on someone outside the wolf team or a "good"
    check on a wolf (a real seer's checks are always true). The madman is the usual one: never kill him."""
    if not view.wolf_team:
        return set()
    team = set(view.teammates) | {view.me}
    out = set()
    for claimant in view.memory.seer_claim_order:
        checks = view.memory.claimed_checks.get(claimant, {})
        if claimant not in team and any((r == "werewolf") != (t in team) for t, r in checks.items()):
            out.add(claimant)
    return out


def wolf_vote(view: View) -> str | None:
    """Our wolves vote as one block: with the village's own top name when it is not one of us; on a teammate
    the seer exposed (he goes out anyway, and voting elsewhere exposes us too); otherwise the best name
    outside the team, a fake seer's (the madman's) "wolf" first."""
    team = set(view.teammates) | {view.me}
    w = vote_weights(view)
    for claimant in fake_seers(view):
        for t, r in view.memory.claimed_checks.get(claimant, {}).items():
            if r == "werewolf" and t not in team:
                w[t] = w.get(t, 0.0) + 5.0
    top = view.best(village_pool(view), w, "vote")
    if top and top in view.targets and (top not in team or top in view.public_wolves):
        return top
    outside = [n for n in view.targets if n not in team]
    return view.best(outside or list(view.targets), w, "vote")


def madman_vote(view: View) -> str | None:
    fake = [t for t, r in view.memory.claimed_checks.get(view.me, {}).items() if r == "werewolf" and t in view.targets]
    if fake:  # stand by our own fake check
        return fake[0]
    return view.best(view.targets, vote_weights(view), "vote")


def vote_target(view: View) -> str | None:
    if view.role == "madman":
        return madman_vote(view)
    if view.wolf_team:
        return wolf_vote(view)
    return village_vote(view)


#: how much a kill on a claimed role is worth to the wolves (a hunter shoots back; an elder survives one kill)
KILL_ROLE = {"witch": 40, "guard": 35, "knight": 25, "dreamweaver": 20, "hunter": -30, "elder": -10}


def kill_target(view: View) -> str | None:
    """One kill for the whole pack: the first wolf's call when it is valid, else the seer (a claimant whose
    checks are true; a fake one, the madman, is spared), claimed roles, players the village holds good,
    players who accused us; never a teammate."""
    mates = set(view.teammates)
    surely_alive = _surely_alive_after_duel(view)
    if surely_alive:
        return surely_alive
    follow = view.wolf_chat_kill
    if follow and follow in view.targets and follow not in mates:
        return follow
    mem = view.memory
    fakes = fake_seers(view)
    w: dict[str, float] = {}
    for n in view.targets:
        claim = mem.claims.get(n, "")
        s = 0.0
        if claim == "seer":
            s += -60 if n in fakes else (100 if n == view.trusted_seer else 60)
        s += KILL_ROLE.get(claim, 0)
        if n in view.public_good:
            s += 15
        s += 3 * sum(1 for t in mates for a in mem.accusations.get(t, []) if a == n)  # accused our team
        w[n] = s
    return _pick(view, w, exclude=mates, salt="kill")


def _surely_alive_after_duel(view: View) -> str | None:
    """On a night the roster is stale (a knight's duel killed a teammate by day, and nothing the wolves receive
    shows who else died), the teammate's lover may be dead and still listed alive: a kill on them is refused.
    Cupid links two players other than himself, so a living cupid claimant is the one kill sure to be valid."""
    if not view.roster_stale:
        return None
    cupids = view.memory.role_claim_order.get("cupid", [])
    first = cupids[0] if cupids else None
    return first if first in view.targets and first not in view.teammates else None


def seer_check(view: View) -> str | None:
    checked = set(view.memory.seer_results)
    w = {n: view.public_score.get(n, 0.0) - (5 if view.memory.claims.get(n) else 0) for n in view.targets}
    return _pick(view, w, exclude=checked, salt=f"check{view.me}")


def guard_target(view: View) -> str | None:
    """The trusted seer, then claimed roles and players known good; never a known wolf, never last night's."""
    mem = view.memory
    last = mem.guard_history[-1][1] if mem.guard_history else None
    w: dict[str, float] = {}
    for n in view.targets:
        s = 0.0
        if n == view.trusted_seer:
            s += 100
        s += {"seer": 50, "witch": 20, "guard": 5}.get(mem.claims.get(n, ""), 0)
        if n in view.known_good or n in view.public_good:
            s += 10
        if n in view.known_wolves:
            s -= 100
        w[n] = s
    return _pick(view, w, exclude={last} if last else set(), salt=f"guard{view.me}")


def shoot_target(view: View) -> str | None:
    """The hunter takes the most suspected living player by the village's own evidence, never one known or
    publicly held good; the wolf king takes the most valuable village player."""
    if view.wolf_team:
        w = {n: -view.public_score.get(n, 0.0) + (100 if n == view.trusted_seer else 0) for n in view.targets}
        return _pick(view, w, exclude=set(view.teammates), salt="shoot")
    sure = [n for n in view.targets if n in view.known_wolves]
    unknown = [n for n in view.targets if n not in view.known_good and n not in view.public_good]
    # when everyone left is held good, one of those is wrong: the least proven of them
    return view.best(sure or unknown or list(view.targets), view.score, "shoot")


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

#: a public score this high is a case worth stating (a vote for a cleared player, a counter-claim, ...)
CASE_MIN = 1.0
#: evidence from what a player did in the record (not just being named by others)
RECORD_EVIDENCE = frozenset({"voted_good", "accused_good", "spared_wolf", "counter_claim", "public_wolf",
                             "against_village"})


def _hard(view: View, name: str) -> bool:
    return name in view.known_wolves or name in view.public_wolves


def case_against(view: View, name: str | None) -> bool:
    """Whether ``name`` may be named in a speech: a wolf we know, or evidence in the record against a player
    who has spoken today (a villager never opens a case on someone who has not spoken yet)."""
    if not name:
        return False
    if _hard(view, name):
        return True
    ev = set(view.evidence.get(name, []))
    if view.public_score.get(name, 0.0) < CASE_MIN:
        return False
    return name in view.spoken_today or bool(ev & RECORD_EVIDENCE)


def _reason(view: View, name: str, say: Say) -> str:
    mem = view.memory
    if view.role == "seer" and mem.seer_results.get(name) == "werewolf":
        return say.reason_mine()
    if view.wolf_team and name == view.trusted_seer:
        return say.reason_doubt_seer()
    if mem.revealed.get(name) == "werewolf":
        return say.reason_duel()
    if view.trusted_checks.get(name) == "werewolf" and view.trusted_seer:
        return say.reason_seer(view.trusted_seer)
    if mem.claims.get(name) == "seer" and name in view.known_wolves:
        return say.reason_fake_seer(name)
    ev = view.evidence.get(name, [])
    for key in ("counter_claim", "voted_good", "accused_good", "spared_wolf", "contested_wolf", "against_village"):
        if key in ev:
            return say.reason(key)
    accusers = [a for a in mem.accusations.get(name, []) if a != name]
    if len(accusers) >= 2:
        return say.reason_accused(len(accusers))
    if name in view.known_wolves:
        return say.reason_mine()
    return say.reason("no_claim")


def _speaking_ranking(view: View, named: str | None = None) -> list[str]:
    """The village's ranking as it will stand once we have spoken (our claim counted, as it will be; ``named``:
    the player our speech accuses and votes)."""
    w = vote_weights(view)
    if named:
        w[named] = w.get(named, 0.0) + W_ACCUSED + W_DECLARED
    for n in view.alive:  # we are about to claim; whoever has not spoken yet will too
        if n not in view.memory.claims and (n == view.me or n not in view.spoken_today):
            w[n] = w.get(n, 0.0) + W_CLAIM
    return view.ranked(village_pool(view), w, "vote")


def _speaking_consensus(view: View) -> str | None:
    ranked = _speaking_ranking(view)
    return ranked[0] if ranked else None


#: a role holder states its role once it ranks this high (speakers after it can still move it to the top)
PRESSED_TOP = 2


def _pressed(view: View) -> bool:
    """Whether the village may vote us out: we rank near the top of the shared ranking, or two players named us."""
    accusers = [a for a in view.memory.accusations.get(view.me, []) if a != view.me]
    return view.me in _speaking_ranking(view)[:PRESSED_TOP] or len(accusers) >= 2


def _knowledge(view: View, say: Say, action: str) -> tuple[str, list[str]]:
    """The role we state and what our private knowledge lets us say publicly now."""
    mem, role = view.memory, view.role
    if role == "seer" and not seer_keeps_quiet(view, action) and not seer_steers(view, action):
        # the claim at once with every check, wolf and good: holding good results back until pressed measured
        # worse (our agent in every seat, 60 games a mode: the village won 0 to 5 games fewer in each mode)
        return "seer", [say.check(_night_of(view, n), n, r) for n, r in mem.seer_results.items()]
    if role == "witch":
        # she speaks up when a player she saved is under suspicion, when she is, and once her poison is spent
        # (nothing left to protect, and the village must know that death was not the wolves')
        saved = [n for n in mem.witch_saved if n in view.alive and n != view.me]
        top = _speaking_consensus(view)
        clears = [n for n in saved if n == top or mem.accusations.get(n)]
        if mem.claims.get(view.me) == "witch" or clears or action == "last_words" or (saved and _pressed(view)) \
                or mem.witch_poisoned:
            return "witch", [say.saved(_saved_night(view, n), n) for n in saved] + [
                say.poisoned(_potion_night(mem.witch_poison_rounds, n), n) for n in mem.witch_poisoned]
    if role in ("guard", "hunter", "knight", "elder", "dreamweaver", "cupid") and (
            mem.claims.get(view.me) == role or _pressed(view) or action == "last_words"):
        extra: list[str] = []
        if role == "hunter":
            t = shoot_target(view)
            if t and case_against(view, t):
                extra.append(say.hunter_threat(t))
        return role, extra
    return "villager", []


def _hidden_seers_wolf(view: View, action: str) -> str | None:
    """The one living player an unclaimed seer's checks found, when he is a wolf and fewer than two players
    accuse the seer (not in his last words); None otherwise."""
    mem = view.memory
    if view.role != "seer" or mem.claims.get(view.me) == "seer" or action == "last_words":
        return None
    living = [(n, r) for n, r in mem.seer_results.items() if n in view.alive]
    if len(living) != 1 or living[0][1] != "werewolf":
        return None
    accusers = [a for a in mem.accusations.get(view.me, []) if a != view.me]
    return living[0][0] if len(accusers) < 2 else None


def seer_keeps_quiet(view: View, action: str = "speak") -> bool:
    """A seer who has not claimed yet keeps quiet while the village's own consensus already names the one
    living player his checks found, a wolf: that wolf goes out today anyway, and a seer who stays hidden is
    not tonight's sure kill, so he can check again and claim with two results (a claim now only tells the
    wolves whom to kill, and the last wolf is then as hard to find as before). He speaks up at once when
    the consensus moves, when two players accuse him, and in his last words."""
    wolf = _hidden_seers_wolf(view, action)
    return wolf is not None and _speaking_consensus(view) == wolf


def seer_steers(view: View, action: str = "speak") -> str | None:
    """A seer who has not claimed yet and whose one living check is a wolf names that wolf as his suspect and
    votes him without claiming, when that is enough to put the wolf on top of the village's ranking. The wolf
    goes out as if the seer had claimed, but the wolves do not learn who the seer is, and a teammate who
    votes elsewhere to save the wolf shows in the vote record (claimed, the seer is that night's sure kill
    and the teammate, voting with the village, is as hard to find as before: in classic-6p with every seat
    ours the village won 196 of 400 games, 268 steering). He claims at once otherwise, when two players
    accuse him, and in his last words."""
    wolf = _hidden_seers_wolf(view, action)
    if wolf is None or _speaking_consensus(view) == wolf:
        return None  # (the consensus already names him: seer_keeps_quiet)
    ranked = _speaking_ranking(view, wolf)
    return wolf if ranked and ranked[0] == wolf else None


def _saved_night(view: View, name: str) -> int | str:
    return _potion_night(view.memory.witch_save_rounds, name)


def _potion_night(rounds: dict[str, str], name: str) -> int | str:
    return next((int(r) for r, n in rounds.items() if n == name), "?")


def _case(view: View, say: Say, target: str | None) -> list[str]:
    """Our suspicion and vote as a speech (only with a case), else that we open no case without evidence."""
    if target and case_against(view, target):
        parts = [say.suspect(target, _reason(view, target, say)), say.vote(target)]
        if view.role == "seer" and target in view.known_wolves:
            parts.append(say.rally(target))
        return parts
    return [say.no_case()]


def speech(view: View, say: Say, action: str) -> str:
    mem = view.memory
    if view.role == "madman":
        return _madman_speech(view, say, action)
    if view.wolf_team:
        return _wolf_speech(view, say, action)
    target = vote_target(view)
    role, knowledge = _knowledge(view, say, action)
    if action == "last_words":
        body = knowledge + _case(view, say, target)
        return say.last_words(view.role, "".join(body))
    parts = [say.claim(role), *knowledge]
    accusers = [a for a in mem.accusations.get(view.me, []) if a != view.me]
    if action == "speak_rebuttal" and accusers:
        parts.append(say.defend(accusers))
    if view.trusted_seer and view.trusted_seer != view.me:
        parts.append(say.follow_seer(view.trusted_seer))
    steer = seer_steers(view, action)
    if steer:
        parts += [say.suspect(steer, say.reason_read()), say.vote(steer)]
    else:
        parts += [say.no_case()] if seer_keeps_quiet(view, action) else _case(view, say, target)
    return say.wrap("".join(parts))


def _wolf_speech(view: View, say: Say, action: str) -> str:
    """A wolf speaks like a villager (the same claim, the same rule for naming a suspect, never a teammate);
    exposed by the seer, it counter-claims seer against the accuser."""
    mem = view.memory
    target = vote_target(view)
    team = set(view.teammates) | {view.me}
    if target in team and target not in view.public_wolves:
        target = None
    if action == "last_words":
        return say.last_words("villager", "".join(_case(view, say, target)))
    seer = view.trusted_seer
    if seer and seer != view.me and mem.claimed_checks.get(seer, {}).get(view.me) == "werewolf":
        # nothing left to lose: counter-claim seer against the accuser
        return say.wrap("".join([say.claim("seer"), say.check(max(1, view.turn.round - 1), seer, "werewolf"),
                                 say.vote(seer, say.reason_fake_seer(seer)), say.rally(seer)]))
    parts = [say.claim("villager")]
    accusers = [a for a in mem.accusations.get(view.me, []) if a != view.me]
    if action == "speak_rebuttal" and accusers:
        parts.append(say.defend(accusers))
    if seer and seer != view.me and seer not in fake_seers(view):
        parts.append(say.follow_seer(seer))
    parts += _case(view, say, target)
    return say.wrap("".join(parts))


def _madman_speech(view: View, say: Say, action: str) -> str:
    """The madman (on the wolves' side, not knowing them) fakes a seer claim only against a seer who claimed:
    his "wolf" is that claimant, the one player he can be sure is no wolf, so his checks never point at a real
    wolf (a fake "wolf" on a real one would make the wolves take him for the seer and vote out their own). The
    two claims contest each other, so the village does not act on the real seer's wolf until the wolves kill
    one of them. Later "checks" clear the village's top suspect. With no seer claim he speaks as a villager."""
    mem = view.memory
    mine = mem.claimed_checks.get(view.me, {})
    if action == "last_words":
        return say.last_words("villager", say.no_case())
    rival = _madman_rival(view)
    if not mine and not rival:
        return say.wrap(say.claim("villager") + say.no_case())
    checks = [say.check(i + 1, n, r) for i, (n, r) in enumerate(mine.items())]
    night = len(mine) + 1
    if night <= max(1, view.turn.round):
        fake = (rival, "werewolf") if rival and rival not in mine else _madman_fake(view, mine)
        if fake:
            mine = {**mine, fake[0]: fake[1]}
            checks.append(say.check(night, *fake))
    wolf = next((t for t, r in mine.items() if r == "werewolf" and t in view.targets), None)
    parts = [say.claim("seer"), *checks]
    if wolf:
        parts += [say.vote(wolf, say.reason_mine()), say.rally(wolf)]
    return say.wrap("".join(parts))


def _madman_rival(view: View) -> str | None:
    """The living seer claimant the village trusts (else the first one) other than us: the madman's target."""
    claimants = [c for c in view.memory.seer_claim_order if c != view.me and c in view.targets]
    if view.trusted_seer in claimants:
        return view.trusted_seer
    return claimants[0] if claimants else None


def _madman_fake(view: View, mine: dict[str, str]) -> tuple[str, str] | None:
    """The next fake check after the first: "good" on the village's top suspect when there is a case against
    them (clearing a likely wolf)."""
    pool = [n for n in view.targets if n not in mine and n not in view.public_wolves]
    top = view.best(pool, vote_weights(view), "vote")
    if top and case_against(view, top):
        return top, "villager"
    return None


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
            sure = knight_duels(view)
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


def knight_duels(view: View) -> list[str]:
    """Sure wolves the knight may duel: not the one the village's own consensus already names (today's vote
    takes that wolf out anyway, while a duel spends the knight's one flip and ends the day at once, with a
    roster that stays stale through the night: the wolves cannot see who else died, a lover of the victim)."""
    sure = [n for n in view.targets if n in view.known_wolves and view.score.get(n, 0) >= 20]
    consensus = public_consensus(view)
    return [n for n in sure if n != consensus]


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
            mem.witch_save_rounds[str(view.turn.round)] = mem.witch_saved[-1]
        elif answer.get("witch_action") == "poison" and target:
            mem.witch_poisoned.append(target)
            mem.witch_poison_rounds[str(view.turn.round)] = target
    elif action == "knight_speak" and answer.get("flip") is True:
        mem.knight_flipped = True
    elif action == "cupid_link" and target:
        mem.lovers = [target, answer.get("second_target", "")]
    elif action == "dreamweaver_check" and target:
        mem.dream_pairs = (mem.dream_pairs + [[target, answer.get("second_target", "")]])[-10:]
