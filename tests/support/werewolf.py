"""Werewolf test helpers: turn payloads shaped like the platform's, and real ones recorded from the
simulator."""

from __future__ import annotations

import json
from typing import Any

from infra.werewolf_sim.engine import MODES, Game

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
        bot = game.bot

        def rec(p: dict[str, Any], bot: Any = bot, game: Game = game) -> tuple[Any, str | None]:
            out.append((json.loads(json.dumps(p)), {x.name for x in game.alive()}))
            return bot(p)

        for s in range(1, len(MODES[mode]) + 1):
            recorder[s] = rec
        game.run()
    return out
