"""Judgement over the facts: known wolves and good from our own role, the trusted seer (contested and false
claimants), what every player holds public, and the suspicion scores with the evidence behind them.

Everything here is deterministic: two of our agents holding the same public information compute the same public
ranking (the ``W_*`` weights), which is how our villagers consolidate votes without talking to each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from werewolf.memory import GameMemory
from werewolf.models import WOLF_ROLES

if TYPE_CHECKING:
    from werewolf.knowledge import View



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
    public_liars: set[str] = set()  # caught by what everyone sees: a witch claimant's save, his own votes
    saved, poisoned = _witch_claims(mem)
    for claimant in mem.seer_claim_order:
        if claimant == me:
            continue
        checks = mem.claimed_checks.get(claimant, {})
        if any(t in saved and r == "werewolf" for t, r in checks.items()) or _voted_past_own_wolf(mem, claimant):
            public_liars.add(claimant)
        lies = claimant in public_liars or any(
            (t in good and r == "werewolf") or (t in wolves and r == "villager" and not view.wolf_team)
            for t, r in checks.items())
        if view.role == "seer" or claimant in wolves or lies:
            if not view.wolf_team:
                wolves.add(claimant)  # a provably false seer is on the wolf side
            continue
        claimants.append(claimant)
    rivals: list[str] = []
    view.seer_liars = set(public_liars)
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
            view.seer_liars |= {c for c in contest if c != trusted}
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
