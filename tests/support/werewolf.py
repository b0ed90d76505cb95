"""Werewolf test helpers: turn payloads shaped like the platform's, and real ones recorded from the
simulator."""

from __future__ import annotations

import json
from typing import Any

from infra.werewolf_sim.engine import MODES, Game

COMMON_ACTIONS = frozenset({"speak", "speak_rebuttal", "vote", "choose_kill_target", "seer_check", "last_words"})
ROLE_ACTIONS = {"witch": "witch_decide", "guard": "guard_protect", "hunter": "hunter_shoot", "cupid": "cupid_link",
                "knight": "knight_speak", "wolf_king": "wolf_king_revenge", "enchantress": "enchant_target",
                "dreamweaver": "dreamweaver_check"}

ROSTER = [("柯南", 1), ("路飞", 2), ("MyBot", 3), ("小丸子", 4), ("银时", 5), ("鸣人", 6)]


def turn(action: str, *, role: str = "villager", seat: int = 3, rnd: int = 2, phase: str = "day_discuss",
         alive: list[tuple[str, int]] | None = None, dead: list[tuple[str, int]] | None = None,
         chat: list[tuple[str, str]] | None = None, known: list[str] | None = None,
         extra: dict[str, Any] | None = None, game_id: str = "game-1") -> dict[str, Any]:
    alive = ROSTER[:] if alive is None else alive
    return {"game_id": game_id, "round": rnd, "phase": phase, "action_type": action, "your_role": role,
            "your_seat": seat, "alive_players": [{"name": n, "seat": s} for n, s in alive],
            "dead_players": [{"name": n, "seat": s} for n, s in (dead or [])],
            "chat_history": [{"speaker": a, "content": b} for a, b in (chat or [])],
            "known_info": known or [], "extra_context": extra or {}}


def recorded_payloads(mode: str, seeds: range) -> list[tuple[dict[str, Any], set[str]]]:
    """Every payload the engine sends in full random games of ``mode`` (deep copies), each with the
    names truly alive at that moment (the payload's roster may be stale, as on the platform)."""
    out: list[tuple[dict[str, Any], set[str]]] = []
    for seed in seeds:
        recorder: dict[int, Any] = {}
        game = Game(mode, seed, recorder)

        def rec(p: dict[str, Any], game: Game = game) -> tuple[Any, str | None]:
            out.append((json.loads(json.dumps(p)), {x.name for x in game.alive()}))
            return game.bots[p["your_seat"]](p)

        for s in range(1, len(MODES[mode]) + 1):
            recorder[s] = rec
        game.run()
    return out


def mode_actions(mode: str) -> set[str]:
    """The action types a game of ``mode`` can ask for (its roles decide which)."""
    return set(COMMON_ACTIONS) | {ROLE_ACTIONS[r] for r in MODES[mode] if r in ROLE_ACTIONS}


def covering_payloads(mode: str, per_type: int = 4, max_seeds: int = 200) -> list[tuple[dict[str, Any], set[str]]]:
    """Recorded payloads of ``mode`` holding every action type the mode can ask for (up to ``per_type`` of
    each, from as many seeded random games as it takes; rare ones such as ``wolf_king_revenge`` need the
    wolf king voted out)."""
    wanted = mode_actions(mode)
    picked: dict[str, list[tuple[dict[str, Any], set[str]]]] = {a: [] for a in wanted}
    for seed in range(1, max_seeds + 1):
        for p, alive in recorded_payloads(mode, range(seed, seed + 1)):
            got = picked.setdefault(p["action_type"], [])
            if len(got) < per_type:
                got.append((p, alive))
        if all(len(picked[a]) >= per_type for a in wanted):
            break
    return [x for got in picked.values() for x in got]
