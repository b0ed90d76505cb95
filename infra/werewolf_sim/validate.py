"""The strict contract, checked from the engine's side with the true game state (as the platform does),
independently of the player's own checks."""

from __future__ import annotations

from typing import Any

MARKERS = ("【系统】", "[SYSTEM]", "[系统]", "【管理员】", "[ADMIN]", "【法官】", "[JUDGE]")


def sanitize(message: str) -> str:
    import re

    text = message[:500]
    for m in MARKERS:
        text = re.sub(re.escape(m), "", text, flags=re.IGNORECASE)
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    text = re.sub(r"https?://\S*", "", text, flags=re.IGNORECASE)
    return text.strip()


def resolve(value: Any, alive_others: set[str]) -> str | None:
    if not isinstance(value, str):
        return None
    t = value.strip()[:50]
    return t if t and t in alive_others else None


def check(action: str, answer: Any, alive_others: set[str], *, strict: bool = True,
          teammates: set[str] = frozenset(), last_guarded: str | None = None,
          witch: dict[str, Any] | None = None) -> list[str]:
    """Problems with ``answer``; ``strict`` adds the rules our agent promises (no teammate kill, no guard
    repeat, messages with every speech, potions only when held)."""
    if not isinstance(answer, dict):
        return ["answer is not a JSON object"]
    errs: list[str] = []

    def msg(required: bool) -> None:
        m = answer.get("message")
        if m is None and not required:
            return
        if not isinstance(m, str) or not sanitize(m):
            errs.append("message empty after sanitizing")
        elif strict and len(m) > 500:
            errs.append("message over 500 characters (would be cut)")
        elif strict and sanitize(m) != m.strip()[:500].strip():
            errs.append("message altered by the platform's sanitizer")

    def tgt(key: str) -> str | None:
        r = resolve(answer.get(key), alive_others)
        if r is None:
            errs.append(f"{key} {answer.get(key)!r} is not an alive player other than self")
        return r

    if action in ("speak", "speak_rebuttal", "last_words"):
        msg(True)
    elif action == "knight_speak":
        if answer.get("flip") is True:
            tgt("target")
            msg(strict)
        else:
            msg(True)
    elif action in ("vote", "seer_check", "guard_protect", "hunter_shoot", "wolf_king_revenge",
                    "choose_kill_target", "enchant_target"):
        t = tgt("target")
        if strict and action == "choose_kill_target" and t in teammates:
            errs.append("wolf targeted a teammate")
        if strict and action == "guard_protect" and t is not None and t == last_guarded:
            errs.append("guard repeated last night's target")
        if strict and action == "enchant_target" and t in teammates:
            errs.append("enchanted a teammate")
        msg(False)
    elif action == "witch_decide":
        wa = answer.get("witch_action")
        w = witch or {}
        if wa not in ("save", "poison", "none"):
            errs.append(f"witch_action {wa!r} is not save/poison/none")
        elif wa == "poison":
            tgt("target")
            if strict and not w.get("hasPoisonPotion"):
                errs.append("poison without a poison potion")
        elif wa == "save" and strict:
            if not w.get("wolfVictimName"):
                errs.append("save with no victim")
            if not w.get("hasSavePotion"):
                errs.append("save without a save potion")
    elif action in ("cupid_link", "dreamweaver_check"):
        a, b = tgt("target"), tgt("second_target")
        if a is not None and a == b:
            errs.append("pair targets must differ")
    else:
        errs.append(f"unknown action {action}")
    return errs
