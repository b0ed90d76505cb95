"""Our own last check before answering: is this answer valid for this turn under the strict contract?

The player runs every answer through :func:`problems`; an answer with problems is replaced by the
deterministic one (and that one, if it still fails, by :func:`werewolf.strategy.safest`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from werewolf.models import PAIR_ACTIONS, SPEECH_ACTIONS, TARGET_ACTIONS
from werewolf.sanitize import platform_sanitize, platform_target


def problems(action: str, answer: dict[str, Any], targets: list[str], *, teammates: Sequence[str] = (),
             last_guarded: str | None = None, witch_ctx: dict[str, Any] | None = None,
             last_pair: Sequence[str] = ()) -> list[str]:
    """Reasons ``answer`` would be rejected (or would be a blunder we never make). Empty: valid."""
    out: list[str] = []
    valid = set(targets)
    if action in SPEECH_ACTIONS:
        if action == "knight_speak" and answer.get("flip") is True:
            _target(answer, "target", valid, out)
        _message(answer, True, out)
    elif action in TARGET_ACTIONS:
        t = _target(answer, "target", valid, out)
        if action == "choose_kill_target" and t in set(teammates):
            out.append("wolves never target a teammate")
        if action == "guard_protect" and t is not None and t == last_guarded:
            out.append("guard repeats last night's target")
        _message(answer, False, out)
    elif action == "witch_decide":
        _witch(answer, valid, witch_ctx or {}, out)
    elif action in PAIR_ACTIONS:
        _pair(action, answer, valid, last_pair, out)
    else:
        out.append(f"unknown action type {action!r}")
    return out


def _target(answer: dict[str, Any], key: str, valid: set[str], out: list[str]) -> str | None:
    """``answer[key]`` when it names a valid target (as the platform reads it); else a problem in ``out``."""
    value = answer.get(key)
    if not isinstance(value, str) or not value.strip():
        out.append(f"{key} missing")
        return None
    if platform_target(value) not in valid:
        out.append(f"{key} is not an alive player other than us")
        return None
    return value


def _message(answer: dict[str, Any], required: bool, out: list[str]) -> None:
    msg = answer.get("message")
    if msg is None and not required:
        return
    if not isinstance(msg, str) or not platform_sanitize(msg):
        out.append("message empty after sanitizing")
    elif len(msg) > 500:
        out.append("message longer than 500 characters")


def _witch(answer: dict[str, Any], valid: set[str], ctx: dict[str, Any], out: list[str]) -> None:
    """A witch may save only tonight's victim and poison only an alive player, each with a potion left."""
    wa = answer.get("witch_action")
    if wa not in ("save", "poison", "none"):
        out.append("witch_action must be save, poison or none")
    elif wa == "poison":
        _target(answer, "target", valid, out)
        if ctx.get("hasPoisonPotion") is False:
            out.append("no poison potion left")
    elif wa == "save":
        if not ctx.get("wolfVictimName"):
            out.append("nobody to save")
        if ctx.get("hasSavePotion") is False:
            out.append("no save potion left")


def _pair(action: str, answer: dict[str, Any], valid: set[str], last_pair: Sequence[str], out: list[str]) -> None:
    """Two different valid targets; a dreamweaver does not repeat last night's pair (when it has a choice)."""
    a, b = _target(answer, "target", valid, out), _target(answer, "second_target", valid, out)
    if a is not None and b is not None and platform_target(a) == platform_target(b):
        out.append("pair must be two different players")
    elif a is not None and b is not None and action == "dreamweaver_check" and len(valid) > 2 and \
            {platform_target(a), platform_target(b)} == {platform_target(n) for n in last_pair}:
        out.append("dreamweaver repeats last night's pair")  # the engine would skip the check
