"""One MiniWoB++ episode in a live page: started from a seed with the time limit lifted, and its reward read.

``core.startEpisodeReal()`` generates the instance from ``Math.seedrandom(seed)`` (as the package's own
environment does); ``core.EPISODE_MAX_TIME`` is raised so the page never ends the episode on time, as
benchmark harnesses do (the agent's own turn budget still applies). The page judges itself through
``core.endEpisode(reward)``, which sets ``WOB_DONE_GLOBAL`` and ``WOB_RAW_REWARD_GLOBAL``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: the page's time limit while the harness plays (ms): long enough never to end an episode
NO_LIMIT_MS = 3_600_000

_START = """([seed, limit]) => {
  Math.seedrandom(seed);
  core.EPISODE_MAX_TIME = limit;
  core.startEpisodeReal();
  document.title = '';
  return true;
}"""
#: the task sentence as the page shows it in its query box (some tasks' ``core.getUtterance()`` returns an
#: object with the sentence and its fields: the agent gets only the sentence)
_QUERY = "() => (document.getElementById('query') || document.body).textContent.replace(/\\s+/g, ' ').trim()"
_READY = "() => typeof WOB_TASK_READY === 'undefined' || WOB_TASK_READY === true"
_STATE = """() => ({done: !!WOB_DONE_GLOBAL, raw: Number(WOB_RAW_REWARD_GLOBAL) || 0,
                 reason: WOB_REWARD_REASON == null ? '' : String(WOB_REWARD_REASON)})"""


@dataclass
class State:
    #: the page ended the episode (``core.endEpisode``)
    done: bool = False
    #: the raw reward (no time penalty); 0 while the episode runs
    raw: float = 0.0
    reason: str = ""


def start(page: Any, url: str, seed: str, *, timeout_ms: float = 15_000) -> str:
    """Open ``url``, start an episode from ``seed`` and return the task sentence (the query box's text)."""
    page.goto(url, timeout=timeout_ms)
    page.wait_for_function("() => typeof core !== 'undefined' && typeof core.startEpisodeReal === 'function'",
                           timeout=timeout_ms)
    page.evaluate(_START, [str(seed), NO_LIMIT_MS])
    page.wait_for_function(_READY, timeout=timeout_ms)
    return str(page.evaluate(_QUERY))


def state(page: Any) -> State:
    """The episode's state as the page records it."""
    try:
        raw: dict[str, Any] = page.evaluate(_STATE)
    except Exception:  # noqa: BLE001 - a page that cannot answer has recorded nothing
        return State()
    return State(bool(raw.get("done")), float(raw.get("raw") or 0.0), str(raw.get("reason") or ""))
