"""Wire shapes of the Werewolf Arena webhook, named after the spec.

Input is lenient: unknown fields are ignored and malformed values fall back to empty defaults, so a
broken payload still produces the safest valid answer instead of an error. Output is strict: one
model per answer shape, only the fields the action type allows.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

ACTION_TYPES = (
    "speak", "speak_rebuttal", "vote", "choose_kill_target", "seer_check", "witch_decide",
    "guard_protect", "cupid_link", "dreamweaver_check", "enchant_target", "knight_speak",
    "hunter_shoot", "wolf_king_revenge", "last_words",
)
SPEECH_ACTIONS = frozenset({"speak", "speak_rebuttal", "last_words", "knight_speak"})
TARGET_ACTIONS = frozenset({"vote", "seer_check", "guard_protect", "hunter_shoot", "wolf_king_revenge",
                            "choose_kill_target", "enchant_target"})
PAIR_ACTIONS = frozenset({"cupid_link", "dreamweaver_check"})
WOLF_ROLES = frozenset({"werewolf", "white_wolf", "wolf_king", "enchantress"})
TARGET_MAX = 50
MESSAGE_MAX = 500


def _str(value: Any) -> str:
    if value is None or isinstance(value, (dict, list, bool)):
        return ""
    return str(value)


def _int(value: Any, default: int | None = None) -> int | None:
    if isinstance(value, bool):
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


class Player(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = ""
    seat: int | None = None

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v: Any) -> str:
        return _str(v)

    @field_validator("seat", mode="before")
    @classmethod
    def _seat(cls, v: Any) -> int | None:
        return _int(v)


class ChatLine(BaseModel):
    model_config = ConfigDict(extra="ignore")
    speaker: str = ""
    content: str = ""

    @field_validator("speaker", "content", mode="before")
    @classmethod
    def _text(cls, v: Any) -> str:
        return _str(v)


def _players(value: Any) -> list[Player]:
    out = []
    for raw in value if isinstance(value, list) else []:
        if isinstance(raw, dict):
            p = Player.model_validate(raw)
        elif isinstance(raw, str):
            p = Player(name=raw)
        else:
            continue
        if p.name.strip():
            out.append(p)
    return out


class WerewolfTurn(BaseModel):
    """The request the platform POSTs when it is our turn (``Webhook Request`` in the spec)."""

    model_config = ConfigDict(extra="ignore")
    game_id: str = ""
    round: int = 0
    phase: str = ""
    action_type: str = ""
    your_role: str = ""
    your_seat: int | None = None
    alive_players: list[Player] = []
    dead_players: list[Player] = []
    chat_history: list[ChatLine] = []
    known_info: list[str] = []
    extra_context: dict[str, Any] = {}

    @field_validator("game_id", "phase", "action_type", "your_role", mode="before")
    @classmethod
    def _text(cls, v: Any) -> str:
        return _str(v).strip()

    @field_validator("round", mode="before")
    @classmethod
    def _round(cls, v: Any) -> int:
        return _int(v, 0) or 0

    @field_validator("your_seat", mode="before")
    @classmethod
    def _seat(cls, v: Any) -> int | None:
        return _int(v)

    @field_validator("alive_players", "dead_players", mode="before")
    @classmethod
    def _roster(cls, v: Any) -> list[Player]:
        return _players(v)

    @field_validator("chat_history", mode="before")
    @classmethod
    def _chat(cls, v: Any) -> list[ChatLine]:
        out = []
        for raw in v if isinstance(v, list) else []:
            if isinstance(raw, dict):  # plain strings after _str: no per-line validation needed
                out.append(ChatLine.model_construct(speaker=_str(raw.get("speaker")),
                                                    content=_str(raw.get("content"))))
            elif isinstance(raw, str):
                out.append(ChatLine.model_construct(speaker="", content=raw))
        return out

    @field_validator("known_info", mode="before")
    @classmethod
    def _info(cls, v: Any) -> list[str]:
        if isinstance(v, str):
            return [v]
        return [_str(x) for x in v if _str(x)] if isinstance(v, list) else []

    @field_validator("extra_context", mode="before")
    @classmethod
    def _extra(cls, v: Any) -> dict[str, Any]:
        return v if isinstance(v, dict) else {}

    @classmethod
    def lenient(cls, raw: Any) -> WerewolfTurn:
        """Parse anything: a non-object becomes an empty turn (the safest answer is still produced)."""
        return cls.model_validate(raw if isinstance(raw, dict) else {})


class WerewolfAnswer(BaseModel):
    """Our answer. Only the fields set for the action type are serialized."""

    model_config = ConfigDict(extra="forbid")
    message: str | None = None
    target: str | None = None
    second_target: str | None = None
    witch_action: Literal["save", "poison", "none"] | None = None
    flip: bool | None = None

    def wire(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)
