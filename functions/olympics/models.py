"""Wire shapes of the AI Olympics webhook, named after the spec.

Input models are lenient (unknown fields ignored, real-traffic variants accepted: ``previousActions`` as
``{name, arguments}`` or ``{tool, args}``, missing ``competitionId``/``error``, ``availableTools`` as JSON-schema
definitions, bare names or ``[]``). Output models are strict: they are what the platform parses.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: The nine tools of the spec; they apply when ``availableTools`` is empty (dashboard test pings).
SPEC_TOOLS: tuple[str, ...] = ("navigate", "click", "type", "select", "scroll", "wait", "submit", "api_call", "done")

#: The runner keeps only the first 10 actions of a turn.
MAX_ACTIONS = 10


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class Task(_Lenient):
    systemPrompt: str = ""  # noqa: N815 - the spec's field names
    taskPrompt: str = ""  # noqa: N815

    @field_validator("systemPrompt", "taskPrompt", mode="before")
    @classmethod
    def _text(cls, v: Any) -> str:
        return "" if v is None else str(v)


class PageState(_Lenient):
    url: str = ""
    title: str = ""
    accessibilityTree: str = ""  # noqa: N815
    error: str | None = None

    @field_validator("url", "title", "accessibilityTree", mode="before")
    @classmethod
    def _text(cls, v: Any) -> str:
        return "" if v is None else str(v)

    @field_validator("error", mode="before")
    @classmethod
    def _error(cls, v: Any) -> str | None:
        return None if v in (None, "") else str(v)


class PreviousAction(_Lenient):
    """One earlier action; the real runner sends ``{name, arguments}``, the spec's response shape is
    ``{tool, args}``. Both normalise to ``tool``/``args``."""

    tool: str = ""
    args: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return {"tool": str(data or "")}
        tool = data.get("tool") or data.get("name") or data.get("action") or ""
        args = data.get("args")
        if args is None:
            args = data.get("arguments")
        if isinstance(args, str):  # OpenAI-style tool calls carry JSON text
            import json

            try:
                args = json.loads(args)
            except ValueError:
                args = {"value": args}
        return {"tool": str(tool), "args": args if isinstance(args, dict) else {}}


def tool_name(definition: Any) -> str:
    """Name of one ``availableTools`` entry: ``{name}``, ``{function: {name}}`` or a bare string."""
    if isinstance(definition, str):
        return definition.strip()
    if isinstance(definition, dict):
        if isinstance(definition.get("name"), str):
            return definition["name"].strip()
        fn = definition.get("function")
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            return fn["name"].strip()
    return ""


class TurnRequest(_Lenient):
    version: str = "1.0"
    timestamp: float | None = None
    agentId: str = ""  # noqa: N815
    agentName: str = ""  # noqa: N815
    competitionId: str | None = None  # noqa: N815
    task: Task = Field(default_factory=Task)
    pageState: PageState = Field(default_factory=PageState)  # noqa: N815
    previousActions: list[PreviousAction] = Field(default_factory=list)  # noqa: N815
    turnNumber: int = 1  # noqa: N815
    availableTools: list[Any] = Field(default_factory=list)  # noqa: N815

    @field_validator("task", "pageState", mode="before")
    @classmethod
    def _object(cls, v: Any) -> Any:
        return v if isinstance(v, dict) else {}

    @field_validator("previousActions", "availableTools", mode="before")
    @classmethod
    def _list(cls, v: Any) -> Any:
        return v if isinstance(v, list) else []

    @field_validator("turnNumber", mode="before")
    @classmethod
    def _turn(cls, v: Any) -> int:
        try:
            return max(1, int(v))
        except (TypeError, ValueError):
            return 1

    @field_validator("timestamp", mode="before")
    @classmethod
    def _ts(cls, v: Any) -> float | None:
        try:
            return float(v) if v is not None and not isinstance(v, bool) else None
        except (TypeError, ValueError):
            return None

    @field_validator("agentId", "agentName", "version", mode="before")
    @classmethod
    def _str(cls, v: Any) -> str:
        return "" if v is None else str(v)

    @field_validator("competitionId", mode="before")
    @classmethod
    def _opt(cls, v: Any) -> str | None:
        return None if v in (None, "") else str(v)

    def tools(self) -> tuple[str, ...]:
        """The tools offered this turn (the spec's nine when the list is empty or unreadable)."""
        names = tuple(dict.fromkeys(n for n in (tool_name(t) for t in self.availableTools) if n))
        return names or SPEC_TOOLS


class Action(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool: str
    args: dict[str, Any]


class TurnResponse(BaseModel):
    """What the webhook answers. ``result`` is present only when ``done``."""

    model_config = ConfigDict(extra="forbid")

    thinking: str = ""
    actions: list[Action] = Field(default_factory=list, max_length=MAX_ACTIONS)
    done: bool = False
    result: Any = None

    def wire(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "thinking": self.thinking,
            "actions": [{"tool": a.tool, "args": a.args} for a in self.actions],
            "done": self.done,
        }
        if self.done:
            body["result"] = self.result if self.result is not None else {"success": True}
            gave_up = isinstance(self.result, dict) and self.result.get("success") is False
            said = any(a["tool"] == "done" for a in body["actions"])  # a replayed give-up carries it already
            if gave_up and not said and len(body["actions"]) < MAX_ACTIONS:
                # an honest give-up also as the spec's `done` tool with success false, so a runner that reads
                # the tool (rather than the response's done/result) never scores it as a success
                reason = str(self.result.get("reason") or "not completed")[:500]
                body["actions"].append({"tool": "done", "args": {"success": False, "result": reason}})
        return body
