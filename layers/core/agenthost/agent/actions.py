"""Protocol-neutral actions and decisions, and their wire forms for each protocol.

Tools (neutral names): ``navigate{url}``, ``click{element}``, ``type{element, text, clear?}``,
``select{element, option}``, ``check{element, checked?}``, ``scroll{direction, amount?}``, ``press{key}``,
``wait{condition?, timeout?}``, ``submit{form?}``, ``extract{}``, ``ask_user{question}``,
``done{success, result?}``. ``element`` is what the action targets: an accessible name (AI Olympics) or an
element id (Proxy API); guards resolve it to a page :class:`~agenthost.agent.page.Element` (``resolved``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
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
    #: the name of the deterministic rule that proposed it (:mod:`agenthost.agent.rules`); "" for others
    rule: str = field(default="", compare=False)
    #: what moves between repeats of this very action when it makes progress (the value a key press moved a
    #: readout to, the time a wait has left): the loop guards count a repeat only when it is the same
    progress: str = field(default="", compare=False)

    @property
    def target(self) -> str:
        return str(self.args.get("element") or self.args.get("id") or "")

    @property
    def value(self) -> Any:
        """What the action puts in: the text typed, the option chosen, the key pressed ("" for none). The loop
        keys count it as part of the action (Enter and Tab on one field are two actions)."""
        return self.args.get("text") or self.args.get("option") or self.args.get("key") or ""

    def to_olympics(self) -> dict[str, Any]:
        """``{"tool", "args"}`` for the AI Olympics runner (element by accessible name)."""
        args = dict(self.args)
        tool = self.tool
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
    #: the deterministic rules that acted, each once, in order (:mod:`agenthost.agent.rules`): the page's verdict
    #: when it shaped the decision, then the rules whose actions were sent, or the rule that ended the task; empty
    #: for a decision no rule made
    rules: list[str] = field(default_factory=list)

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


def tool_names(tools: Iterable[Any] | None) -> tuple[str, ...]:
    """Neutral tool names from a protocol's tool list (names or JSON-schema tool definitions).

    An empty or missing list means every tool (the AI Olympics test ping sends ``[]``).
    """
    out: list[str] = []
    for t in tools or ():
        name = t if isinstance(t, str) else (t.get("name") or (t.get("function") or {}).get("name")
                                              if isinstance(t, dict) else None)
        if not name:
            continue
        name = {"finish": "done", "observe": "extract"}.get(str(name), str(name))
        out.append(name)
    return tuple(out) or TOOLS


def norm(s: Any) -> str:
    return re.sub(r"\s+", " ", str(s or "").strip().lower())


def avoid_list(avoid: Iterable[Any]) -> list[tuple[str, str]]:
    """``avoid`` as (tool, target) pairs as given; accepts pairs, ``{"tool", "target"}`` dicts and
    ``"tool|target"`` / ``"tool target"`` strings."""
    out: list[tuple[str, str]] = []
    for item in avoid or ():
        tool, target = "", ""
        if isinstance(item, (tuple, list)) and len(item) >= 2:
            tool, target = str(item[0]), str(item[1])
        elif isinstance(item, dict):
            tool, target = str(item.get("tool", "")), str(item.get("target") or item.get("element") or "")
        elif isinstance(item, str):
            tool, _, target = item.replace("|", " ", 1).partition(" ")
        if tool and (tool.strip(), target.strip()) not in out:
            out.append((tool.strip(), target.strip()))
    return out


def avoid_set(avoid: Iterable[Any]) -> set[tuple[str, str]]:
    """``avoid`` as normalised (lower case) (tool, target) pairs, for matching."""
    return {(norm(t), norm(x)) for t, x in avoid_list(avoid)}


def is_avoided(action: Action, avoid: set[tuple[str, str]]) -> bool:
    if not avoid:
        return False
    el = action.resolved
    targets = {norm(action.target), norm(action.args.get("url", ""))}
    if el is not None:
        targets |= {norm(el.ref), norm(el.name), norm(el.placeholder)}
    targets.discard("")
    tools = {action.tool, {"check": "click", "select": "type"}.get(action.tool, action.tool)}
    return any((t, x) in avoid for t in tools for x in targets) or any((t, "") in avoid for t in tools
                                                                        if action.tool not in ("click", "type",
                                                                                               "select", "check"))


def approval_question(action: Action) -> str:
    what = action.resolved.name if action.resolved is not None else action.target or action.args.get("url", "")
    verb = {"payment": "make a payment or purchase", "deletion": "delete something",
            "send": "send or publish something", "credential": "enter a credential",
            "account": "change account or security settings"}.get(action.risk or "", "act")
    return f"Security check: about to {action.tool} {what!r}, which would {verb}. Proceed?"
