"""Protocol-neutral actions and decisions, and their wire forms for each protocol.

Tools (neutral names): ``navigate{url}``, ``click{element}``, ``type{element, text, clear?}``,
``select{element, option}``, ``check{element, checked?}``, ``scroll{direction, amount?}``, ``press{key}``,
``wait{condition?, timeout?}``, ``submit{form?}``, ``extract{}``, ``ask_user{question}``,
``done{success, result?}``. ``element`` is what the action targets: an accessible name (AI Olympics) or an
element id (Proxy API); guards resolve it to a page :class:`~agenthost.agent.page.Element` (``resolved``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agenthost.agent.page import Element

TOOLS = ("navigate", "click", "type", "select", "check", "scroll", "press", "wait", "submit", "extract",
         "ask_user", "done")
#: tools whose ``element`` argument must name something on the page
TARGETED = frozenset({"click", "type", "select", "check"})
#: the AI Olympics runner's tools
OLYMPICS_TOOLS = ("navigate", "click", "type", "select", "scroll", "wait", "submit", "api_call", "done")
#: the Proxy Server API's tools
PROXY_TOOLS = ("observe", "navigate", "click", "type", "scroll", "press", "ask_user", "finish")


@dataclass
class Action:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    #: the page element the action was resolved to by the guards
    resolved: Element | None = None
    #: risk category for careful mode (``payment``, ``deletion``, ``send``, ``credential``) or None
    risk: str | None = None
    #: why the policy chose it (short; shown in ``thinking``)
    why: str = ""

    @property
    def target(self) -> str:
        return str(self.args.get("element") or self.args.get("id") or "")

    def to_olympics(self) -> dict[str, Any]:
        """``{"tool", "args"}`` for the AI Olympics runner (element by accessible name)."""
        args = dict(self.args)
        tool = self.tool
        el = self.resolved
        if el is not None and "element" in args:
            args["element"] = el.name or el.placeholder or args["element"]
        if tool == "check":
            tool = "click"
            args.pop("checked", None)
        elif tool == "press":
            tool = "submit" if str(args.get("key", "")).lower() == "enter" else "wait"
            args = {} if tool == "submit" else {"condition": "load", "timeout": 1000}
        elif tool == "extract":
            tool, args = "wait", {"condition": "load", "timeout": 500}
        return {"tool": tool, "args": args}

    def to_proxy(self) -> dict[str, Any]:
        """``{"name", "parameters"}`` for the Proxy Server API extension (element by ``data-agent-id``)."""
        args = dict(self.args)
        tool = self.tool
        el = self.resolved
        if "element" in args:
            args.pop("element")
            if el is not None:
                args["id"] = el.ref
        if tool in ("check", "select"):
            if tool == "select":
                args["text"] = args.pop("option", "")
                tool = "type"
            else:
                args.pop("checked", None)
                tool = "click"
        elif tool == "done":
            tool = "finish"
            args = {"result": args.get("result", "")}
        elif tool in ("extract", "wait"):
            tool, args = "observe", {}
        elif tool == "submit":
            tool, args = "press", {"key": "Enter"}
        return {"name": tool, "parameters": args}

    def to_browser(self) -> dict[str, Any]:
        """The browser function's action shape (``{"tool", ...args}``, element by id when known)."""
        out: dict[str, Any] = {"tool": self.tool, **self.args}
        if self.resolved is not None and "element" in out:
            out["element"] = self.resolved.ref if self.resolved.ref.startswith("agent-") else self.resolved.name
        return out


@dataclass
class Decision:
    """What a policy decided for one turn."""

    actions: list[Action] = field(default_factory=list)
    done: bool = False
    result: str | None = None
    #: with ``done``: True when the page shows the task achieved, False when the agent gives up (the task is
    #: over or stuck, not achieved); None when not done
    success: bool | None = None
    thinking: str = ""
    #: ``deterministic`` | ``llm`` | ``llm+fallback``
    source: str = "deterministic"
    #: token usage of the LLM call(s), if any: ``{"input_tokens", "output_tokens"}``
    usage: dict[str, int] = field(default_factory=dict)
    #: the memory to keep for the next turn (JSON-serialisable)
    memory: dict[str, Any] = field(default_factory=dict)
    #: set by loop detection when repeats persist; the caller should stop the run
    stop: bool = False
    #: the first action needing approval in careful mode (question for ask_user), if any
    needs_approval: str | None = None
    prompt_chars: int = 0

    def olympics(self, max_actions: int = 10) -> dict[str, Any]:
        """The AI Olympics response body."""
        body: dict[str, Any] = {"thinking": self.thinking[:2000],
                                "actions": [a.to_olympics() for a in self.actions[:max_actions]],
                                "done": self.done}
        if self.done and self.success is False:
            body["result"] = {"success": False, "reason": self.result or "not achieved"}
        elif self.done and self.result is not None:
            body["result"] = self.result
        return body

    def failure_text(self) -> str:
        """What a give-up reports (``Not completed: ...``), for protocols whose finish takes a text."""
        text = (self.result or "").strip()
        return text if text.lower().startswith("not completed") else f"Not completed: {text or 'no progress'}"
