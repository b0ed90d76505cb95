"""Bring your own agent: the interfaces a user's agent implements, how it is loaded, and the guard that
keeps our guarantees around it.

``AGENTHOST_AGENT=package.module:factory`` names a callable (a class or a function) returning the agent.
The agent implements either or both of:

* :class:`WebAgent` ``decide_web(turn: WebTurn) -> Decision | None``: AI Olympics turns, Proxy API steps and the
  evaluation client's web tasks. ``turn`` carries the task, the page model, the history, the agent's own
  memory, the tools the protocol offers, the skills, the deadline, careful mode, what not to repeat, the
  engine's hints and the user's answers. The answer is a :class:`~agenthost.agent.Decision` of
  :class:`~agenthost.agent.Action` s, the types our own policies return (a list of actions will do);
  ``Decision.memory`` is kept and comes back as ``turn.memory`` next time; ``None`` lets our policy
  decide this turn.
* :class:`WerewolfAgent` ``decide_werewolf(state: WerewolfState) -> dict | None``: the answer object for
  ``state.action_type`` (``{"message"}``, ``{"target"}``, ``{"witch_action", "target"?}``,
  ``{"target", "second_target"}``...); ``None`` lets our strategy answer. ``state.memory`` is the agent's
  own dict for this game and seat: change it in place, it is kept.

What the agent does not implement, our policies answer. Around user code (:class:`GuardedWebPolicy`, and
``werewolf.agent_policy`` for Werewolf):

* it runs on its own thread and is abandoned at the turn's deadline (less a margin for our fallback);
  while earlier calls are still stuck (``MAX_STUCK``), no new one starts;
* an exception, a timeout, an answer of the wrong type, a target not on the page, a navigation netguard
  refuses, an action listed under ``avoid``, memory that is not JSON: the reason is logged (the exception
  type and where it was raised, never its message, which may hold page or user secrets), metered as a
  fallback (``agent_<reason>``), and our policy answers the turn;
* actions are re-resolved against the page by our guards (the agent cannot set ``resolved``/``risk``),
  risk is classified by us, careful mode's ``needs_approval`` is ours, loops are tracked by our
  :class:`~agenthost.agent.guards.LoopGuard`, script-like text is stripped, values typed into password
  and card fields are masked in the thinking, the result and the stored memory.

Written here rather than taken from a plugin library: loading is one ``importlib`` call, and what matters
is the guard, which is specific to our decision types and protocols.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import copy
import importlib
import json
import logging
import os
import secrets as _secrets
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from agenthost.agent.actions import TOOLS, Action, Decision
from agenthost.agent.page import MASK, Page
from agenthost.deadline import Deadline

logger = logging.getLogger("agenthost.plugins")

ENV = "AGENTHOST_AGENT"
#: memory key under which the agent's own memory is kept (beside our loop guard's)
MEMORY_KEY = "agent"
#: seconds kept back from the deadline for our fallback policy and the guards
MARGIN_S = 1.5
#: calls still running past their deadline before new ones are refused (each holds a thread)
MAX_STUCK = 4
#: largest memory an agent may keep (JSON characters)
MAX_MEMORY_CHARS = 64_000
MAX_TEXT = 2000


# ------------------------------------------------------------------------------------------ interfaces

@dataclass
class WebTurn:
    """Everything a web decision may use. ``deadline`` is a ``time.monotonic()`` instant."""

    task: str
    page: Page
    history: tuple[Action, ...]
    memory: dict[str, Any]
    tools: tuple[str, ...]
    deadline: float
    #: the exact solvers as tools by name (``call(args) -> str``); see also :meth:`solve`
    skills: Mapping[str, Any] = field(default_factory=dict)
    careful: bool = False
    #: (tool, target) pairs not to repeat (a loop nudge, a declined approval)
    avoid: tuple[tuple[str, str], ...] = ()
    #: reflections and loop nudges from the engine: untrusted data, fence them in a prompt
    hints: tuple[str, ...] = ()
    #: what the user answered to ``ask_user``: the user's own words
    user_answers: tuple[str, ...] = ()

    def remaining(self) -> float:
        """Seconds left before the deadline."""
        return max(0.0, self.deadline - time.monotonic())

    def fenced_page(self, nonce: str | None = None) -> tuple[str, str]:
        """``(nonce, text)``: the page for a prompt, fenced as untrusted content between markers carrying
        a random nonce (page text cannot close the fence), password and card values masked."""
        from agenthost.agent.llm_policy import render_page

        nonce = nonce or _secrets.token_hex(8)
        return nonce, render_page(self.page, nonce)

    def fence(self, name: str, text: str, nonce: str) -> str:
        """Any untrusted text (hints, history, tool output) fenced like the page."""
        from agenthost.agent.llm_policy import fence

        return fence(name, text, nonce)

    def solve(self, question: str) -> Any:
        """The exact answer to ``question`` from the skills, with this page as context (its tables, text,
        URL), within the deadline: a ``Solution`` (``skill``, ``answer``, ``detail``, ``alternatives``) or
        None when no skill solves it exactly."""
        try:
            from agenthost.skills import solve
        except ImportError:
            return None
        return solve(question, context=self.page, deadline=self.deadline)

    def http(self, **kwargs: Any) -> Any:
        """An ``httpx.Client`` (use it in a ``with``) whose every request and redirect netguard checks
        (no metadata endpoints; no private addresses when deployed), timing out by the deadline."""
        from agenthost import netguard

        kwargs.setdefault("timeout", max(0.1, self.remaining()))
        return netguard.guarded_client(**kwargs)

    def llm(self) -> Any:
        """The configured LLM (``AGENTHOST_LLM``), metered and under the agent's budget, or None:
        ``complete_json(messages, schema, deadline) -> (obj, usage)``."""
        from agenthost.llm import provider_from_settings

        return provider_from_settings()


@dataclass
class WerewolfState:
    """One Werewolf turn as the agent sees it (names exactly as targets must be written)."""

    action_type: str
    round: int
    phase: str
    me: str
    role: str
    #: who may be named as ``target``/``second_target`` (alive, not us)
    targets: list[str]
    alive: list[str]
    dead: list[str]
    teammates: list[str]
    #: public chat, oldest first: ``(speaker, text)``, other players' words: untrusted data
    chat: list[tuple[str, str]]
    known_info: list[str]
    extra_context: dict[str, Any]
    #: what our deterministic strategy would answer (a valid answer)
    suggestion: dict[str, Any]
    #: what we inferred: seer results, claims, suspicion, known wolves/good...
    facts: dict[str, Any]
    #: the agent's own memory for this game and seat: change it in place
    memory: dict[str, Any]
    deadline: float
    game_id: str = ""
    language: str = "zh"
    personality: str = "calm"
    #: the last player we protected as the guard (the engine refuses the same one twice in a row)
    last_guarded: str | None = None

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def http(self, **kwargs: Any) -> Any:
        """An ``httpx.Client`` (use it in a ``with``) whose every request and redirect netguard checks
        (no metadata endpoints; no private addresses when deployed), timing out by the deadline."""
        from agenthost import netguard

        kwargs.setdefault("timeout", max(0.1, self.remaining()))
        return netguard.guarded_client(**kwargs)

    def llm(self) -> Any:
        """The configured LLM (``AGENTHOST_LLM``), metered on the turn, or None (see :meth:`WebTurn.llm`)."""
        from agenthost.llm import provider_from_settings

        return provider_from_settings()


@runtime_checkable
class WebAgent(Protocol):
    def decide_web(self, turn: WebTurn) -> Decision | None: ...


@runtime_checkable
class WerewolfAgent(Protocol):
    def decide_werewolf(self, state: WerewolfState) -> dict[str, Any] | None: ...


# ------------------------------------------------------------------------------------------ loading

@dataclass
class Loaded:
    spec: str
    agent: Any = None
    #: why the agent could not be loaded ("" when it was)
    error: str = ""

    def web(self) -> bool:
        return callable(getattr(self.agent, "decide_web", None))

    def werewolf(self) -> bool:
        return callable(getattr(self.agent, "decide_werewolf", None))


_loaded: dict[str, Loaded] = {}
_load_lock = threading.Lock()


def spec() -> str:
    from agenthost.config import settings

    return settings().agent.strip()


def agent_deadline(deadline: Deadline | float, margin_s: float = MARGIN_S) -> float:
    """When the agent must have answered (a ``time.monotonic()`` instant): ``margin_s`` before the turn's
    ``deadline``, and at most ``AGENTHOST_AGENT_TIMEOUT_S`` seconds from now when that is set."""
    until = Deadline.of(deadline, 0.0).reserve(margin_s, "our fallback and guards").at
    from agenthost.config import settings

    limit = settings().agent_timeout_s
    return min(until, time.monotonic() + limit) if limit > 0 else until


def load(name: str | None = None) -> Loaded | None:
    """The agent ``AGENTHOST_AGENT`` (or ``name``) selects, created once per process; None when none is
    configured. A spec that cannot be loaded gives a :class:`Loaded` with ``error`` set (logged once):
    our policies answer and every turn meters the fallback."""
    name = spec() if name is None else name.strip()
    if not name:
        return None
    with _load_lock:
        got = _loaded.get(name)
        if got is None:
            got = _loaded[name] = _load(name)
            if got.error:
                logger.error("user agent %s not loaded: %s; our policies answer", name, got.error)
        return got


def _load(name: str) -> Loaded:
    module_name, _, attr = name.partition(":")
    if not module_name or not attr:
        return Loaded(name, error="AGENTHOST_AGENT must be package.module:factory")
    try:
        module = importlib.import_module(module_name)
        factory = module
        for part in attr.split("."):
            factory = getattr(factory, part)
        agent = factory() if callable(factory) else factory
    except Exception as exc:  # noqa: BLE001 - a broken agent must not break the function
        return Loaded(name, error=f"{type(exc).__name__} at {_where(exc)}")
    got = Loaded(name, agent)
    if not got.web() and not got.werewolf():
        return Loaded(name, error="the agent has neither decide_web nor decide_werewolf")
    return got


def reset() -> None:
    """Forget loaded agents (tests)."""
    with _load_lock:
        _loaded.clear()


# ------------------------------------------------------------------------------------------ the guard

class Refused(Exception):
    """User code did not give a usable answer; ``reason`` is a short code (``error``, ``timeout``,
    ``invalid``, ``unsafe``, ``declined``, ``busy``, ``load``) and ``detail`` says what, without secrets."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


_stuck = 0
_stuck_lock = threading.Lock()


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    f = frames[-1]
    return f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}"


def call_with_deadline(fn: Callable[..., Any], *args: Any, deadline: float) -> Any:
    """``fn(*args)`` on its own daemon thread (in this context: metering sees the turn), abandoned at
    ``deadline``. Raises :class:`Refused` (``timeout``, ``error``, ``busy``)."""
    global _stuck
    left = deadline - time.monotonic()
    if left <= 0.05:
        raise Refused("timeout", "no time left for the agent")
    with _stuck_lock:
        if _stuck >= MAX_STUCK:
            raise Refused("busy", f"{_stuck} earlier calls are still running past their deadline")
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()
    ctx = contextvars.copy_context()
    late = threading.Event()

    def run() -> None:
        global _stuck
        try:
            future.set_result(ctx.run(fn, *args))
        except BaseException as exc:  # noqa: BLE001 - reported to the caller
            future.set_exception(exc)
        finally:
            with _stuck_lock:  # the caller marks a call late under the same lock, only while it is not done
                if late.is_set():
                    _stuck -= 1

    threading.Thread(target=run, name="user-agent", daemon=True).start()
    try:
        return future.result(timeout=left)
    except concurrent.futures.TimeoutError:
        with _stuck_lock:
            finished = future.done()  # in the instant between the timeout and the lock
            if not finished:
                late.set()
                _stuck += 1
        if finished:
            return _result(future)
        raise Refused("timeout", f"no answer within {left:.1f} s") from None
    except Exception as exc:  # noqa: BLE001 - any user failure becomes a refusal
        raise Refused("error", f"{type(exc).__name__} at {_where(exc)}") from None


def _result(future: concurrent.futures.Future[Any]) -> Any:
    try:
        return future.result()
    except Exception as exc:  # noqa: BLE001
        raise Refused("error", f"{type(exc).__name__} at {_where(exc)}") from None


def stuck() -> int:
    """How many user calls are still running past their deadline."""
    return _stuck


def record_fallback(reason: str, detail: str, protocol: str = "") -> None:
    """Log why the agent's answer was not used and meter the turn as a fallback (``agent_<reason>``)."""
    from agenthost import metering

    logger.warning("user agent answer not used (%s): %s; our policy answers", reason, detail[:300],
                   extra={"agent_fallback": reason, "protocol": protocol})
    metering.current().fallback(f"agent_{reason}")


def json_memory(value: Any, secrets: Iterable[str] = ()) -> dict[str, Any]:
    """``value`` as JSON-safe memory with ``secrets`` masked; :class:`Refused` (``invalid``) otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Refused("invalid", f"memory must be a dict, not {type(value).__name__}")
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise Refused("invalid", f"memory is not JSON ({type(exc).__name__})") from None
    if len(text) > MAX_MEMORY_CHARS:
        raise Refused("invalid", f"memory over {MAX_MEMORY_CHARS} characters")
    masked = mask(text, secrets)
    return json.loads(masked) if masked != text else json.loads(text)


def mask(text: str, secrets: Iterable[str]) -> str:
    for s in sorted({s for s in secrets if s and len(s) >= 3 and s != MASK}, key=len, reverse=True):
        text = text.replace(s, MASK)
        text = text.replace(json.dumps(s, ensure_ascii=False)[1:-1], MASK)
    return text


def skills() -> Mapping[str, Any]:
    """The exact solvers (:mod:`agenthost.skills`) as tools by name: ``name``, ``description``,
    ``parameters`` (JSON schema), ``call(args) -> str``; empty when this build has none."""
    try:
        from agenthost.skills import tools
    except ImportError:
        return {}
    try:
        return {t.name: t for t in tools()}
    except Exception:  # noqa: BLE001 - skills are a help
        return {}


class GuardedWebPolicy:
    """Our ``Policy`` interface around a user's :class:`WebAgent`: the agent decides under the deadline,
    our guards check the answer, and ``fallback`` (our policy) answers whenever the agent's cannot be
    used. ``source`` is ``agent`` or ``agent+fallback``."""

    name = "agent"

    def __init__(self, agent: Any, fallback: Any, *, margin_s: float = MARGIN_S, load_error: str = ""):
        self.agent = agent
        self.fallback = fallback
        self.margin_s = margin_s
        self.load_error = load_error

    def decide(self, task: str, page: Page, history: Sequence[Action] = (), memory: dict[str, Any] | None = None,
               tools: Iterable[Any] | None = None, deadline: Deadline | float | None = None, *,
               careful: bool = False, avoid: Iterable[Any] = (), max_actions: int = 10) -> Decision:
        from agenthost import metering
        from agenthost.agent.actions import avoid_list, tool_names

        memory = dict(memory or {})
        theirs = memory.pop(MEMORY_KEY, None)
        theirs = dict(theirs) if isinstance(theirs, dict) else {}
        avoid = avoid_list(avoid)
        names = tool_names(tools)
        from agenthost.config import settings

        deadline = Deadline.of(deadline, settings().decide_budget_s)
        try:
            if self.agent is None:
                raise Refused("load", self.load_error or "no agent")
            turn = WebTurn(task=task, page=page, history=tuple(history), memory=copy.deepcopy(theirs),
                           tools=tuple(names), deadline=agent_deadline(deadline, self.margin_s), skills=skills(),
                           careful=careful, avoid=tuple(avoid),
                           hints=tuple(str(h) for h in memory.get("hints") or ()),
                           user_answers=tuple(str(a) for a in memory.get("user_answers") or ()))
            answer = call_with_deadline(self.agent.decide_web, turn, deadline=turn.deadline)
            decision = self._accept(answer, task, page, memory, names, careful, avoid, max_actions)
            metering.current().answered()
            return decision
        except Refused as exc:
            record_fallback(exc.reason, exc.detail, "web")
            d = self.fallback.decide(task, page, history, memory, names, deadline, careful=careful, avoid=avoid)
            d.source = "agent+fallback"
            d.memory = dict(d.memory or memory)
            d.memory[MEMORY_KEY] = theirs
            d.thinking = (d.thinking or "").strip()[:MAX_TEXT]
            return d

    def _accept(self, answer: Any, task: str, page: Page, memory: dict[str, Any], names: Sequence[str],
                careful: bool, avoid: list[Any], max_actions: int) -> Decision:
        from agenthost import netguard
        from agenthost.agent.actions import approval_question, avoid_set, is_avoided
        from agenthost.agent.guards import LoopGuard, check_actions, classify_risk, strip_script

        if answer is None:
            raise Refused("declined", "decide_web returned None: our policy decides this turn")
        if isinstance(answer, (list, tuple)):
            answer = Decision(actions=list(answer))
        if not isinstance(answer, Decision):
            raise Refused("invalid", f"decide_web returned {type(answer).__name__}, not a Decision")
        proposed: list[Action] = []
        done, result = bool(answer.done), answer.result
        for a in answer.actions or []:
            if not isinstance(a, Action) or not isinstance(a.tool, str) or not isinstance(a.args, dict):
                raise Refused("invalid", f"an action is {type(a).__name__}, not an Action(tool, args)")
            if a.tool not in TOOLS:
                raise Refused("invalid", f"unknown tool {a.tool[:40]!r}")
            if a.tool == "done":
                done = True
                result = result if result is not None else a.args.get("result")
                continue
            if a.tool == "navigate":
                url = str(a.args.get("url", ""))
                try:
                    netguard.check_url(url)
                except netguard.Blocked as exc:
                    raise Refused("unsafe", f"navigate refused by netguard: {exc.reason}") from None
            # fresh actions: the element, its risk and the approval are ours to work out
            proposed.append(Action(a.tool, dict(a.args), why=str(a.why or "")[:200]))
        checked = check_actions(proposed, page, tools=names, max_actions=max_actions)
        if checked.dropped:
            raise Refused("invalid", "; ".join(checked.dropped[:3]))
        pairs = avoid_set(avoid)
        if pairs and any(is_avoided(a, pairs) for a in checked.actions):
            raise Refused("invalid", "an action is listed under avoid")
        loops = LoopGuard(memory)
        kept, nudges, stop = loops.filter(checked.actions, page)
        secret_values = [str(a.args.get("text", "")) for a in kept
                         if a.tool == "type" and a.resolved is not None and a.resolved.is_secret()]
        theirs = json_memory(answer.memory, secret_values)
        if nudges:
            notes = memory.setdefault("notes", [])
            notes.extend(nudges)
            del notes[:-5]
        if stop and not kept:
            memory[MEMORY_KEY] = theirs
            return Decision(actions=[], done=True, stop=True, result="Stopped: no progress.",
                            thinking="Stopping: the same actions keep repeating on an unchanged page.",
                            source=self.name, memory=memory)
        if not kept and not done:
            raise Refused("invalid", "; ".join(nudges[:2]) or "no actions and not done")
        for a in kept:
            a.risk = classify_risk(a, page)
        loops.record(kept, page)
        if kept:
            memory["acted"] = True
        memory[MEMORY_KEY] = theirs
        d = Decision(actions=kept, done=done, source=self.name, memory=memory, usage=dict(answer.usage or {}),
                     thinking=mask(strip_script(str(answer.thinking or "")), secret_values)[:MAX_TEXT],
                     result=None if result is None else mask(strip_script(str(result)), secret_values)[:4000])
        if careful:
            risky = next((a for a in kept if a.risk), None)
            if risky is not None:
                d.needs_approval = approval_question(risky)
        return d


def web_policy(ours: Any) -> Any:
    """``ours`` wrapped around the configured agent when it implements :class:`WebAgent` (or failed to
    load: every turn then meters the fallback); else ``ours`` unchanged."""
    got = load()
    if got is None:
        return ours
    if got.error:
        return GuardedWebPolicy(None, ours, load_error=got.error)
    if not got.web():
        return ours
    return GuardedWebPolicy(got.agent, ours)
