"""The deterministic strategy: one answer per action type, always valid.

Every target comes from our own reasoning over :class:`~werewolf.knowledge.View` (never echoed from
the payload's text) and is resolved to an exact alive, non-self, addressable name. Every rule that two
of our agents must agree on (the village's vote, the wolves' kill) is a deterministic function of
public information with a stable tie-break. The targets come from :mod:`werewolf.picks`, the speeches
from :mod:`werewolf.talk`; here the answer is put together, with the witch's potions, the knight's duel,
the safest fallback and what we remember having done.
"""

from __future__ import annotations

from dataclasses import dataclass

from werewolf.knowledge import View
from werewolf.models import PAIR_ACTIONS, SPEECH_ACTIONS, TARGET_ACTIONS, WerewolfAnswer
from werewolf.picks import (
    enchant_target,
    guard_target,
    kill_target,
    last_dream_pair,
    pair,
    public_consensus,
    seer_check,
    shoot_target,
    vote_target,
)
from werewolf.speech import Say
from werewolf.talk import speech


@dataclass
class Decision:
    answer: WerewolfAnswer
    reason: str = ""


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
