"""Actors that play our agent: in-process (the player function, for fast strength runs), through the
Lambda handler (a full API Gateway event), or over real signed HTTP (local stack or a deployed URL)."""

from __future__ import annotations

import json
from typing import Any

from agenthost import signing


def encode(payload: dict[str, Any]) -> bytes:
    """The platform's body: UTF-8 JSON with Chinese characters unescaped."""
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


class InProcessPlayer:
    """Calls :func:`werewolf.player.play` directly with a dict-backed memory store."""

    def __init__(self, store: Any = None, say: Any = None):
        from werewolf.memory import InMemoryStore

        self.store = store if store is not None else InMemoryStore()
        self.say = say

    def __call__(self, payload: dict[str, Any]) -> tuple[Any, str | None]:
        from werewolf.player import play

        # round-trip through JSON bytes like the wire does
        outcome = play(json.loads(encode(payload)), self.store, say=self.say)
        return outcome.answer, None


class HandlerPlayer:
    """Calls the Lambda handler with a signed API Gateway v2 event (memory in whatever table is mocked)."""

    def __init__(self, api_key: str | None):
        from werewolf.app import handler

        self.handler = handler
        self.key = api_key

    def __call__(self, payload: dict[str, Any]) -> tuple[Any, str | None]:
        from infra.local.events import LambdaContext, http_event, http_response

        body = encode(payload)
        headers = {"content-type": "application/json"}
        if self.key:
            headers["x-werewolf-signature"] = signing.sign(self.key, body)
        status, _h, out = http_response(self.handler(http_event("POST", "/werewolf/turn", body=body,
                                                                headers=headers), LambdaContext("werewolf")))
        if status != 200:
            return None, f"HTTP {status}"
        try:
            return json.loads(out), None
        except ValueError:
            return None, "response is not JSON"


class HttpPlayer:
    """Real signed HTTP to ``url`` (``.../werewolf/turn``), 30 s timeout like the platform."""

    def __init__(self, url: str, api_key: str | None, client: Any = None):
        import httpx

        self.url = url
        self.key = api_key
        self.client = client or httpx.Client(timeout=30.0)

    def __call__(self, payload: dict[str, Any]) -> tuple[Any, str | None]:
        import httpx

        body = encode(payload)
        headers = {"content-type": "application/json"}
        if self.key:
            headers["X-Werewolf-Signature"] = signing.sign(self.key, body)
        try:
            r = self.client.post(self.url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            return None, f"request failed: {type(exc).__name__}"
        if r.status_code != 200:
            return None, f"HTTP {r.status_code}"
        try:
            return r.json(), None
        except ValueError:
            return None, "response is not JSON"


class Oracle:
    """A ceiling, not a player: one seat that sees every role (the engine's true state) and plays simple rules
    with that knowledge: votes and shoots a known enemy (the lowest seat); wolves spare the hunter while any other
    village player is left (a hunter voted out or killed shoots back) and kill the witch first (her save undoes
    a kill); the guard protects a village player (the witch first), never last night's; the witch saves the
    victim and poisons a wolf; everything else is the seat's random bot. What it gains over a random bot in the
    same seat bounds what any strategy in one seat can gain from its votes and night actions against random
    play. Its answers pass the strict validator."""

    #: the order wolves kill in (lower first) and the guard protects in
    KILL_ORDER = {"witch": 0, "guard": 1, "hunter": 9}
    GUARD_ORDER = {"witch": 0, "hunter": 2}

    def __init__(self, game: Any, seat: int):
        self.game = game
        self.seat = seat

    def __call__(self, payload: dict[str, Any]) -> tuple[Any, str | None]:
        from infra.werewolf_sim.engine import team_of

        g = self.game
        me = g.by_seat(self.seat)
        alive = sorted((x for x in g.alive() if x is not me), key=lambda x: x.seat)
        mine = team_of(me.role)
        enemies = [x for x in alive if team_of(x.role) != mine]
        wolves = [x for x in alive if team_of(x.role) == "wolf" and x.role != "madman"]
        action = payload["action_type"]
        if mine == "wolf" and action in ("vote", "choose_kill_target") and enemies:
            order = self.KILL_ORDER if action == "choose_kill_target" else {"hunter": 9}
            return {"target": min(enemies, key=lambda x: (order.get(x.role, 5), x.seat)).name}, None
        if action in ("vote", "hunter_shoot", "wolf_king_revenge") and enemies:
            return {"target": enemies[0].name}, None
        if action == "guard_protect" and mine == "village":
            last = next((x.name for x in g.players if x.pid == g.guard_last), None)
            good = [x for x in alive if team_of(x.role) == "village" and x.name != last]
            if good:
                return {"target": min(good, key=lambda x: (self.GUARD_ORDER.get(x.role, 1), x.seat)).name}, None
            others = [x for x in alive if x.name != last]
            if others:
                return {"target": others[0].name}, None
        if action == "witch_decide" and mine == "village":
            ctx = payload["extra_context"]
            if ctx.get("wolfVictimName") and ctx.get("hasSavePotion"):
                return {"witch_action": "save"}, None
            if ctx.get("hasPoisonPotion") and wolves:
                return {"witch_action": "poison", "target": wolves[0].name}, None
            return {"witch_action": "none"}, None
        return g.bots[self.seat](payload)
