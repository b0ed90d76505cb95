"""What our speech says: the role we state and the private knowledge we share (a seer's checks, a witch's
potions, a hunter's threat), when an unclaimed seer keeps quiet or steers the vote, the case against our
suspect, and the wolves' and the madman's cover speeches. :mod:`werewolf.speech` phrases it.
"""

from __future__ import annotations

from werewolf.knowledge import View
from werewolf.picks import W_DECLARED, case_against, fake_seers, shoot_target, village_pool, vote_target, vote_weights
from werewolf.speech import Say
from werewolf.suspicion import W_ACCUSED, W_CLAIM


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
