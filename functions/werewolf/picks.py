"""Whom we name for every target action: the village's shared vote ranking and each side's vote, the wolves'
one kill, the seer's check, the guard's protection, the hunter's and wolf king's shot, the enchantment, the
cupid's and dreamweaver's pair; and whether there is a case against a player worth stating.

Every target comes from our own reasoning over :class:`~werewolf.knowledge.View` and is resolved to an exact
alive, non-self, addressable name. The village's vote and the wolves' kill are deterministic functions of public
information with a stable tie-break, so two of our agents agree without talking.
"""

from __future__ import annotations

from werewolf.knowledge import View


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
    """One village vote: a wolf the village can see as we do (:func:`shown_wolf`), else the top of the shared
    ranking. Only what we know for sure (our own side, our checks, what the night showed us) and the seer
    claimants the village sees contesting each other take a name out, so village players agree unless one of
    them knows a player is good; ties fall to a stable order every player computes alike. Cupid votes like
    anyone (he knows the lovers, not their sides)."""
    w = vote_weights(view)
    out = view.known_good | view.contested | disputed_seers(view)
    cands = [n for n in view.targets if n not in out] or list(view.targets)
    sure = [n for n in view.targets if n in view.known_wolves and shown_wolf(view, n)]
    return view.best(sure or cands, w, "vote")


def disputed_seers(view: View) -> set[str]:
    """Living seer claimants the village sees contesting each other (two or more, none exposed): the village's
    vote leaves them out until the night settles it, and so do we, even when we know which one lies (the real
    seer, or a witch whose save he contradicts): our vote alone would only split the village's."""
    claimants = {c for c in view.memory.seer_claim_order if c in view.alive and c not in view.public_wolves}
    return claimants - {view.me} if len(claimants) >= 2 else set()


def shown_wolf(view: View, name: str) -> bool:
    """Whether the village can see ``name`` is a wolf as we do: a public wolf (the trusted seer's check, a duel, an
    exposed liar), one a knight's duel revealed, or our own seer check (which our speech states). A wolf we only
    infer (a seer claimant whose checks we know are false, a second claimant of our own role) is voted only when
    the shared ranking puts him on top: alone, our vote only splits the village's."""
    mem = view.memory
    return name in view.public_wolves or mem.revealed.get(name) == "werewolf" or \
        (view.role == "seer" and mem.seer_results.get(name) == "werewolf")


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
    return view.best(outside or list(view.targets), w, view.secret("vote"))


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
    return _pick(view, w, exclude=mates, salt=view.secret("kill"))


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
        return _pick(view, w, exclude=set(view.teammates), salt=view.secret("shoot"))
    sure = [n for n in view.targets if n in view.known_wolves]
    unknown = [n for n in view.targets if n not in view.known_good and n not in view.public_good]
    # when everyone left is held good, one of those is wrong: the least proven of them
    return view.best(sure or unknown or list(view.targets), view.score, "shoot")


def enchant_target(view: View) -> str | None:
    mem = view.memory
    w: dict[str, float] = {n: (100 if n == view.trusted_seer else 0) + {"seer": 60, "guard": 40, "witch": 40}.get(
        mem.claims.get(n, ""), 0) for n in view.targets}
    return _pick(view, w, exclude=set(view.teammates), salt=view.secret("enchant"))


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
