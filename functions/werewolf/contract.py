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

    def check_target(key: str) -> str | None:
        value = answer.get(key)
        if not isinstance(value, str) or not value.strip():
            out.append(f"{key} missing")
            return None
        if platform_target(value) not in valid:
            out.append(f"{key} is not an alive player other than us")
            return None
        return value

    def check_message(required: bool) -> None:
        msg = answer.get("message")
        if msg is None and not required:
            return
        if not isinstance(msg, str) or not platform_sanitize(msg):
            out.append("message empty after sanitizing")
        elif len(msg) > 500:
            out.append("message longer than 500 characters")

    if action in SPEECH_ACTIONS:
        if action == "knight_speak" and answer.get("flip") is True:
            check_target("target")
        check_message(True)
    elif action in TARGET_ACTIONS:
        t = check_target("target")
        if action == "choose_kill_target" and t in set(teammates):
            out.append("wolves never target a teammate")
        if action == "guard_protect" and t is not None and t == last_guarded:
            out.append("guard repeats last night's target")
        check_message(False)
    elif action == "witch_decide":
        wa = answer.get("witch_action")
        ctx = witch_ctx or {}
        if wa not in ("save", "poison", "none"):
            out.append("witch_action must be save, poison or none")
        elif wa == "poison":
            check_target("target")
            if ctx.get("hasPoisonPotion") is False:
                out.append("no poison potion left")
        elif wa == "save":
            if not ctx.get("wolfVictimName"):
                out.append("nobody to save")
            if ctx.get("hasSavePotion") is False:
                out.append("no save potion left")
    elif action in PAIR_ACTIONS:
        a, b = check_target("target"), check_target("second_target")
        if a is not None and b is not None and platform_target(a) == platform_target(b):
            out.append("pair must be two different players")
        elif a is not None and b is not None and action == "dreamweaver_check" and len(valid) > 2 and \
                {platform_target(a), platform_target(b)} == {platform_target(n) for n in last_pair}:
            out.append("dreamweaver repeats last night's pair")  # the engine would skip the check
    else:
        out.append(f"unknown action type {action!r}")
    return out
