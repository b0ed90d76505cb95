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


TARGET_ACTIONS = ("vote", "seer_check", "guard_protect", "hunter_shoot", "wolf_king_revenge", "choose_kill_target",
                  "enchant_target")


def check(action: str, answer: Any, alive_others: set[str], *, strict: bool = True,
          teammates: set[str] = frozenset(), last_guarded: str | None = None,
          witch: dict[str, Any] | None = None) -> list[str]:
    """Problems with ``answer``; ``strict`` adds the rules our agent promises (no teammate kill, no guard
    repeat, messages with every speech, potions only when held)."""
    if not isinstance(answer, dict):
        return ["answer is not a JSON object"]
    c = _Checker(answer, alive_others, strict)
    if action in ("speak", "speak_rebuttal", "last_words"):
        c.message(True)
    elif action == "knight_speak":
        if answer.get("flip") is True:
            c.target("target")
            c.message(strict)
        else:
            c.message(True)
    elif action in TARGET_ACTIONS:
        t = c.target("target")
        if strict and action == "choose_kill_target" and t in teammates:
            c.errs.append("wolf targeted a teammate")
        if strict and action == "guard_protect" and t is not None and t == last_guarded:
            c.errs.append("guard repeated last night's target")
        if strict and action == "enchant_target" and t in teammates:
            c.errs.append("enchanted a teammate")
        c.message(False)
    elif action == "witch_decide":
        _check_witch(c, witch or {})
    elif action in ("cupid_link", "dreamweaver_check"):
        a, b = c.target("target"), c.target("second_target")
        if a is not None and a == b:
            c.errs.append("pair targets must differ")
    else:
        c.errs.append(f"unknown action {action}")
    return c.errs


class _Checker:
    """One answer's checks, collecting the problems found in ``errs``."""

    def __init__(self, answer: dict[str, Any], alive_others: set[str], strict: bool) -> None:
        self.answer, self.alive_others, self.strict = answer, alive_others, strict
        self.errs: list[str] = []

    def message(self, required: bool) -> None:
        m = self.answer.get("message")
        if m is None and not required:
            return
        if not isinstance(m, str) or not sanitize(m):
            self.errs.append("message empty after sanitizing")
        elif self.strict and len(m) > 500:
            self.errs.append("message over 500 characters (would be cut)")
        elif self.strict and sanitize(m) != m.strip()[:500].strip():
            self.errs.append("message altered by the platform's sanitizer")

    def target(self, key: str) -> str | None:
        r = resolve(self.answer.get(key), self.alive_others)
        if r is None:
            self.errs.append(f"{key} {self.answer.get(key)!r} is not an alive player other than self")
        return r


def _check_witch(c: _Checker, w: dict[str, Any]) -> None:
    wa = c.answer.get("witch_action")
    if wa not in ("save", "poison", "none"):
        c.errs.append(f"witch_action {wa!r} is not save/poison/none")
    elif wa == "poison":
        c.target("target")
        if c.strict and not w.get("hasPoisonPotion"):
            c.errs.append("poison without a poison potion")
    elif wa == "save" and c.strict:
        if not w.get("wolfVictimName"):
            c.errs.append("save with no victim")
        if not w.get("hasSavePotion"):
            c.errs.append("save without a save potion")
