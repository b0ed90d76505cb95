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
    """A ceiling, not a player: one seat that sees every role (the engine's true state: roles, lovers, potions)
    and plays simple rules with that knowledge: votes and shoots a known enemy (the lowest seat); wolves never
    name a living wolf-side player's lover (heartbreak would take their teammate too) and spare the hunter while
    any other village player is left (a hunter voted out or killed shoots back); they kill and vote out first
    the witch while she holds a potion (a save undoes a kill, a poison takes a wolf), then a knight who has not
    flipped, the guard, the seer; the guard protects a village player (the witch first), never last night's;
    the witch saves the victim and poisons a wolf; everything else is the seat's random bot. What it gains over
    a random bot in the same seat bounds what any strategy in one seat can gain from its votes and night
    actions against random play. Its answers pass the strict validator."""

    #: the order wolves kill in (lower first; a witch without potions counts as a villager): the elder survives
    #: the first kill, the hunter shoots back
    KILL_ORDER = {"witch": 0, "knight": 1, "guard": 2, "seer": 3, "elder": 7, "hunter": 9}
    #: the order wolves vote out in (the elder has no spare life against a vote)
    VOTE_ORDER = {"witch": 0, "knight": 1, "guard": 2, "seer": 3, "hunter": 9}
    GUARD_ORDER = {"witch": 0, "hunter": 2}
    #: a living wolf-side player's lover: last of all (their death takes the teammate too)
    LOVER = 20

    def __init__(self, game: Any, seat: int, sees_roles: bool = True):
        self.game = game
        self.seat = seat
        #: False: a wolf that knows only its wolf teammates (what a real one knows against a village that claims
        #: nothing): it kills and votes the lowest seat outside them; every other seat plays its random bot
        self.sees_roles = sees_roles

    def _wolf_order(self, enemy: Any, order: dict[str, int]) -> tuple[int, int]:
        from infra.werewolf_sim.engine import team_of

        g = self.game
        role = enemy.role
        if role == "witch" and not (g.save_potion or g.poison_potion):
            role = "villager"
        if role == "knight" and g.knight_used:
            role = "villager"
        rank = order.get(role, 5)
        if g.lovers and enemy.seat in g.lovers:
            other = g.by_seat(g.lovers[0] if g.lovers[1] == enemy.seat else g.lovers[1])
            if other.alive and team_of(other.role) == "wolf":
                rank = self.LOVER
        return rank, enemy.seat

    def __call__(self, payload: dict[str, Any]) -> tuple[Any, str | None]:
        from infra.werewolf_sim.engine import WOLVES, team_of

        g = self.game
        me = g.by_seat(self.seat)
        alive = sorted((x for x in g.alive() if x is not me), key=lambda x: x.seat)
        mine = team_of(me.role)
        enemies = [x for x in alive if team_of(x.role) != mine]
        wolves = [x for x in alive if team_of(x.role) == "wolf" and x.role != "madman"]
        action = payload["action_type"]
        if not self.sees_roles:
            outside = [x for x in alive if x.role not in WOLVES]
            if me.role in WOLVES and action in ("vote", "choose_kill_target") and outside:
                return {"target": outside[0].name}, None
            return g.bots[self.seat](payload)
        if mine == "wolf" and action in ("vote", "choose_kill_target") and enemies:
            order = self.KILL_ORDER if action == "choose_kill_target" else self.VOTE_ORDER
            return {"target": min(enemies, key=lambda x: self._wolf_order(x, order)).name}, None
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
