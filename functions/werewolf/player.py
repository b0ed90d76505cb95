"""One turn of the player, independent of HTTP: parse leniently, load memory (one read), decide,
check the answer against the contract, save memory (one write), answer.

Never raises: whatever goes wrong, the answer is the safest valid object we can build.
"""

from __future__ import annotations

from collections.abc import Callable
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
         logger: Any = None, on_decided: Any = None, digest: str = "") -> Outcome:
    """One turn. ``deadline``: when the policy must have decided; ``save_by``: past it the memory write
    is skipped (the answer matters more than the memory); ``on_decided(source, policy_error)`` runs once the answer is
    final, before the memory write (which carries the turn's usage: ``agenthost.metering``)."""
    say = say or Say()
    decide_by = Deadline.of(deadline, settings().werewolf_budget_s)
    save_deadline = None if save_by is None else Deadline.of(save_by, 0.0)
    budget = decide_by.describe("decision")
    try:
        turn = WerewolfTurn.lenient(raw)
    except Exception:  # noqa: BLE001 - lenient parsing should not fail; answer anyway
        if on_decided is not None:
            on_decided("fallback")
        return Outcome(dict(GENERIC), "fallback", ["unparseable turn"])
    mem, store = _load(store, turn, logger)
    replayed = mem.answered(digest) if store is not None else None
    if replayed is not None:
        # this very body was answered already (a replay, or the platform retrying): the same answer, no
        # second decision and no second write
        return Outcome(replayed, "replay", [])
    before = mem.fingerprint()
    try:
        view = build_view(turn, mem)
    except Exception:  # noqa: BLE001
        if logger:
            logger.exception("werewolf view failed")
        if on_decided is not None:
            on_decided("fallback")
        return Outcome(_bare_safest(turn, say), "fallback", ["view failed"])
    check = _checker(view, say)
    source, answer, policy_error = "deterministic", None, ""
    issues: list[str] = []
    if policy is not None and policy.name != "deterministic":
        answer, issues, policy_error = _ask_policy(policy, view, say, decide_by, check, logger)
        source = policy.name if answer is not None else source
        budget = getattr(policy, "last_budget", "") or budget
        mem = view.memory
    if answer is None:
        answer, issues, source = _our_answer(view, say, check, logger)
    record(view, turn.action_type, answer)
    mem.remember_answer(digest, answer)
    if on_decided is not None:
        on_decided(source, policy_error)
    if mem.fingerprint() != before:
        _save(store, mem, save_deadline, logger)
    return Outcome(answer, source, issues, view, policy_error, budget)


def _load(store: StoreLike | None, turn: WerewolfTurn, logger: Any) -> tuple[GameMemory, StoreLike | None]:
    """This game's memory for our seat (one read); a store outage plays without memory (and without the
    store: nothing is written either)."""
    seat = _seat(turn)
    try:
        return memory_mod.load(store, turn.game_id, seat), store
    except Exception:  # noqa: BLE001 - a store outage must not lose the turn
        if logger:
            logger.warning("werewolf memory read failed; playing without memory")
        return GameMemory(game_id=turn.game_id, seat=seat), None


def _seat(turn: WerewolfTurn) -> str:
    return str(turn.your_seat) if turn.your_seat is not None else "unknown"


Check = Callable[[WerewolfAnswer], tuple[dict[str, Any], list[str]]]


def _checker(view: View, say: Say) -> Check:
    """``check(answer)``: the finished answer on the wire and the contract's problems with it this turn."""
    mem, turn = view.memory, view.turn
    last_guard = mem.guard_history[-1][1] if mem.guard_history else None
    last_pair = mem.dream_pairs[-1] if mem.dream_pairs and turn.action_type == "dreamweaver_check" else []
    ctx = turn.extra_context if turn.action_type == "witch_decide" else None

    def check(ans: WerewolfAnswer) -> tuple[dict[str, Any], list[str]]:
        wire = _finish(ans, say).wire()
        return wire, problems(turn.action_type, wire, view.targets, teammates=view.teammates,
                              last_guarded=last_guard, witch_ctx=ctx, last_pair=last_pair)

    return check


def _ask_policy(policy: Policy, view: View, say: Say, deadline: Deadline, check: Check,
                logger: Any) -> tuple[dict[str, Any] | None, list[str], str]:
    """The policy's answer if it gave a valid one: (answer or None, its problems, why it was not used).
    A policy must not change the game memory (``record`` does): any change it made is undone; the memory a
    user agent keeps for itself is stored beside ours (``view.memory`` may be a new object afterwards)."""
    mem, turn = view.memory, view.turn
    snapshot = mem.fingerprint()
    agent_memory: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None
    issues: list[str] = []
    policy_error = ""
    proposed: WerewolfAnswer | Proposal | None
    try:
        proposed = policy.decide(view, say, deadline)
    except Exception as exc:  # noqa: BLE001 - a policy failure falls back to the deterministic answer
        proposed = None
        policy_error = f"{getattr(exc, 'reason', 'error')}: {getattr(exc, 'detail', '') or type(exc).__name__}"
    if isinstance(proposed, Proposal):
        agent_memory, proposed = proposed.agent_memory, proposed.answer
    if proposed is not None:
        wire, issues = check(proposed)
        if not issues:
            answer = wire
        else:
            policy_error = "invalid: " + "; ".join(issues[:3])
    elif not policy_error:
        policy_error = "declined: no answer"
    if mem.fingerprint() != snapshot:
        view.memory = GameMemory.from_item({"data": snapshot}, turn.game_id, _seat(turn))
    if agent_memory is not None:
        view.memory.agent = agent_memory
    if policy_error and logger and policy.name == "agent":
        logger.warning("werewolf agent answer not used; our strategy answers",
                       extra={"agent_fallback": policy_error.split(":", 1)[0], "reason": policy_error[:300],
                              "action_type": turn.action_type[:32]})
    return answer, issues, policy_error


def _our_answer(view: View, say: Say, check: Check, logger: Any) -> tuple[dict[str, Any], list[str], str]:
    """The deterministic strategy's answer if the contract accepts it, else the safest one:
    (answer, problems, source)."""
    try:
        wire, issues = check(decide(view, say).answer)
        if not issues:
            return wire, issues, "deterministic"
    except Exception:  # noqa: BLE001
        if logger:
            logger.exception("werewolf strategy failed")
        issues = ["strategy failed"]
    return _finish(safest(view, say), say).wire(), issues, "fallback"


def _save(store: StoreLike | None, mem: GameMemory, save_deadline: Deadline | None, logger: Any) -> None:
    """The changed memory (one write), unless the turn's deadline is near: the answer matters more than the
    memory."""
    if store is not None and save_deadline is not None and save_deadline.expired:
        if logger:
            logger.warning("werewolf memory write skipped: the turn deadline is near")
        return
    try:
        memory_mod.save(store, mem)
    except Exception:  # noqa: BLE001
        if logger:
            logger.warning("werewolf memory write failed")


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
