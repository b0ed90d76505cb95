"""Loading the user's agent: ``AGENTHOST_AGENT=package.module:factory``, created once per process; a spec
that cannot be loaded is remembered with the reason (our policies answer every turn)."""

from __future__ import annotations

import importlib
import logging
import os
import threading
import traceback
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger("agenthost.plugins")

ENV = "AGENTHOST_AGENT"


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
        return Loaded(name, error=f"{type(exc).__name__} at {where(exc)}")
    got = Loaded(name, agent)
    if not got.web() and not got.werewolf():
        return Loaded(name, error="the agent has neither decide_web nor decide_werewolf")
    return got


def reset() -> None:
    """Forget loaded agents (tests)."""
    with _load_lock:
        _loaded.clear()


def where(exc: BaseException) -> str:
    """``file:line in function`` where ``exc`` was raised (never its message, which may hold secrets)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    f = frames[-1]
    return f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}"
