"""One turn of the player, independent of HTTP: parse leniently, load memory (one read), decide,
check the answer against the contract, save memory (one write), answer.

Never raises: whatever goes wrong, the answer is the safest valid object we can build.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agenthost.config import settings
from agenthost.deadline import Deadline
from werewolf import memory as memory_mod
from werewolf.contract import problems
from werewolf.knowledge import View, build_view
from werewolf.memory import GameMemory, StoreLike
from werewolf.models import WerewolfAnswer, WerewolfTurn
from werewolf.sanitize import clean_message
from werewolf.speech import Say
from werewolf.strategy import decide, record, safest

GENERIC = {"message": "我先听听大家的发言，再决定投票。"}


@dataclass
class Outcome:
    answer: dict[str, Any]
    source: str  # "deterministic" | "llm" | "agent" | "fallback"
    problems: list[str]
    view: View | None = None
    #: why the policy's answer was not used ("" when it was, or when there was no policy)
    policy_error: str = ""
    #: how the turn's budget was split (the deadline the deciding policy worked to)
    budget: str = ""


@dataclass
class Proposal:
    """A policy's answer with the memory it keeps for this game and seat (a user agent's own memory)."""

    answer: WerewolfAnswer | None
    agent_memory: dict[str, Any] | None = None


class Policy:
    """A decision source; ``decide`` may return None to defer to the deterministic strategy, or raise
    an exception whose ``reason`` says why."""

    name = "deterministic"
    #: the split of the last decision's budget (a policy that reserves time says how)
    last_budget = ""

    def decide(self, view: View, say: Say, deadline: Deadline) -> WerewolfAnswer | Proposal | None:
        return None


def play(raw: Any, store: StoreLike | None, *, say: Say | None = None, policy: Policy | None = None,
         deadline: Deadline | float | None = None, save_by: Deadline | float | None = None,
         logger: Any = None, on_decided: Any = None, fold: Any = None, digest: str = "") -> Outcome:
    """One turn. ``deadline``: when the policy must have decided; ``save_by``: past it the memory write
    is skipped (the answer matters more than the memory); ``on_decided(source, policy_error)`` runs once the answer is
    final; ``fold()`` (metering) returns a transaction entry written together with the memory item."""
    outcome = _play(raw, store, say=say, policy=policy, deadline=deadline, save_by=save_by, logger=logger,
                    on_decided=on_decided, fold=fold, digest=digest)
    return outcome


def _play(raw: Any, store: StoreLike | None, *, say: Say | None, policy: Policy | None,
          deadline: Deadline | float | None, save_by: Deadline | float | None, logger: Any, on_decided: Any,
          fold: Any, digest: str = "") -> Outcome:
    say = say or Say()
    deadline = Deadline.of(deadline, settings().werewolf_budget_s)
    save_deadline = None if save_by is None else Deadline.of(save_by, 0.0)
    budget = deadline.describe("decision")
    try:
        turn = WerewolfTurn.lenient(raw)
    except Exception:  # noqa: BLE001 - lenient parsing should not fail; answer anyway
        if on_decided is not None:
            on_decided("fallback")
        return Outcome(dict(GENERIC), "fallback", ["unparseable turn"])
    seat = str(turn.your_seat) if turn.your_seat is not None else "unknown"
    mem: GameMemory
    try:
        mem = memory_mod.load(store, turn.game_id, seat)
    except Exception:  # noqa: BLE001 - a store outage must not lose the turn
        if logger:
            logger.warning("werewolf memory read failed; playing without memory")
        mem = GameMemory(game_id=turn.game_id, seat=seat)
        store = None
    if digest and digest in mem.answers and store is not None:
        # this very body was answered already (a replay, or the platform retrying): the same answer, no
        # second decision and no second write
        return Outcome(dict(mem.answers[digest]), "replay", [])
    before = mem.fingerprint()
    try:
        view = build_view(turn, mem)
    except Exception:  # noqa: BLE001
        if logger:
            logger.exception("werewolf view failed")
        if on_decided is not None:
            on_decided("fallback")
        return Outcome(_bare_safest(turn, say), "fallback", ["view failed"])

    last_guard = mem.guard_history[-1][1] if mem.guard_history else None
    last_pair = mem.dream_pairs[-1] if mem.dream_pairs and turn.action_type == "dreamweaver_check" else []
    ctx = turn.extra_context if turn.action_type == "witch_decide" else None

    def check(ans: WerewolfAnswer) -> tuple[dict[str, Any], list[str]]:
        wire = _finish(ans, say).wire()
        return wire, problems(turn.action_type, wire, view.targets, teammates=view.teammates,
                              last_guarded=last_guard, witch_ctx=ctx, last_pair=last_pair)

    source, issues = "deterministic", []
    answer: dict[str, Any] | None = None
    policy_error = ""
    if policy is not None and policy.name != "deterministic":
        snapshot = mem.fingerprint()
        agent_memory: dict[str, Any] | None = None
        proposed: WerewolfAnswer | Proposal | None
        try:
            proposed = policy.decide(view, say, deadline)
        except Exception as exc:  # noqa: BLE001 - a policy failure falls back to the deterministic answer
            proposed = None
            policy_error = f"{getattr(exc, 'reason', 'error')}: {getattr(exc, 'detail', '') or type(exc).__name__}"
        if isinstance(proposed, Proposal):
            agent_memory, proposed = proposed.agent_memory, proposed.answer
        budget = getattr(policy, "last_budget", "") or budget
        if proposed is not None:
            wire, issues = check(proposed)
            if not issues:
                answer, source = wire, policy.name
            else:
                policy_error = "invalid: " + "; ".join(issues[:3])
        elif not policy_error:
            policy_error = "declined: no answer"
        if mem.fingerprint() != snapshot:  # a policy must not change memory; record() does
            mem = GameMemory.from_item({"data": snapshot}, turn.game_id, seat)
            view.memory = mem
        if agent_memory is not None:
            mem.agent = agent_memory
        if policy_error and logger and policy.name == "agent":
            logger.warning("werewolf agent answer not used; our strategy answers",
                           extra={"agent_fallback": policy_error.split(":", 1)[0], "reason": policy_error[:300],
                                  "action_type": turn.action_type[:32]})
    if answer is None:
        try:
            wire, issues = check(decide(view, say).answer)
            if not issues:
                answer = wire
        except Exception:  # noqa: BLE001
            if logger:
                logger.exception("werewolf strategy failed")
            issues = ["strategy failed"]
        if answer is None:
            source = "fallback"
            answer = _finish(safest(view, say), say).wire()
    record(view, turn.action_type, answer)
    mem.remember_answer(digest, answer)
    if on_decided is not None:
        on_decided(source, policy_error)
    if mem.fingerprint() != before and store is not None and save_deadline is not None and save_deadline.expired:
        if logger:
            logger.warning("werewolf memory write skipped: the turn deadline is near")
    elif mem.fingerprint() != before:
        try:
            memory_mod.save(store, mem, also=[fold()] if fold is not None else ())
        except Exception:  # noqa: BLE001
            if logger:
                logger.warning("werewolf memory write failed")
    return Outcome(answer, source, issues, view, policy_error, budget)


def _finish(ans: WerewolfAnswer, say: Say) -> WerewolfAnswer:
    if ans.message is not None:
        ans.message = clean_message(ans.message, say.listen())
    if ans.target is not None:
        ans.target = ans.target.strip()
    if ans.second_target is not None:
        ans.second_target = ans.second_target.strip()
    return ans


def _bare_safest(turn: WerewolfTurn, say: Say) -> dict[str, Any]:
    try:
        view = build_view(turn, GameMemory(game_id=turn.game_id))
        return _finish(safest(view, say), say).wire()
    except Exception:  # noqa: BLE001 - the last resort is a plain message
        return dict(GENERIC)
