"""Playing one MiniWoB++ episode through one protocol path, judged by the page's reward only.

``olympics``: an AI Olympics turn per round trip (:class:`infra.arena.runner.Runner`, the platform's element
resolution by accessible name, its pace and its 10-action cap). ``proxy``: Proxy API steps from the
browser-extension emulator (:class:`infra.extension.emulator.Emulator`, elements by ``data-agent-id``).
Either way the episode ends when the page ends it (no action runs after that), when the agent says it is
done, at the turn/step limit, or once its wall-clock limit has passed (no turn or step starts after it).
``success`` is a positive raw reward (as BrowserGym counts it); a **false done** is the agent claiming
success where the raw reward is not positive.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from infra.arena import runner as platform
from infra.extension.emulator import Emulator
from infra.miniwob import episode

PATHS = ("olympics", "proxy")


@dataclass
class Episode:
    task: str
    seed: str
    path: str
    #: the task sentence the agent was given
    utterance: str = ""
    #: the page's raw reward (no time penalty); 0 when the page did not end the episode
    reward: float = 0.0
    success: bool = False
    #: the page ended the episode (a positive or a negative verdict)
    page_done: bool = False
    #: the agent said the task succeeded
    claimed: bool = False
    #: the agent claimed success and the page's reward is not positive
    false_done: bool = False
    #: the agent said it could not finish
    gave_up: bool = False
    turns: int = 0
    seconds: float = 0.0
    end: str = ""
    #: what was done, turn by turn (tool, target, value, outcome; secrets masked by the runners)
    trace: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Settings:
    """How episodes are played (the platform's defaults unless changed)."""

    url: str  # the local stack's HTTP API (both paths' endpoints hang off it), or a deployed one
    secret: str = ""  # the AI Olympics webhook secret
    olympics_url: str = ""  # default: url + /olympics/turn
    agent_id: str = "miniwob-agent"
    api_key: str = ""  # the Proxy API's key, when the stack has one
    max_turns: int = 20
    max_steps: int = 40
    pace_s: float = 1 / 3
    action_timeout_s: float = 5.0
    #: wall-clock seconds an episode may take before no further turn or step starts (the agent is stopped)
    episode_s: float = 120.0
    headed: bool = False


class Player:
    """Plays episodes on one Chromium (launched on first use), whichever the path; one per process."""

    def __init__(self, cfg: Settings, transport: platform.Transport | None = None):
        self.cfg = cfg
        #: how AI Olympics turns reach the webhook (default: HTTP POST to the webhook URL)
        self.transport = transport
        self._pw: Any = None
        self._browser: Any = None
        self._runner: platform.Runner | None = None
        self._emulator: Emulator | None = None

    def close(self) -> None:
        if self._emulator is not None:
            self._emulator.__exit__(None, None, None)
        if self._browser is not None:
            self._browser.close()
        if self._pw is not None:
            self._pw.stop()
        self._pw = self._browser = self._runner = self._emulator = None

    def __enter__(self) -> Player:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def browser(self) -> Any:
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            from infra.extension.emulator import CHROMIUM_ARGS

            self._pw = sync_playwright().start()
            self._browser = self._pw.chromium.launch(executable_path="/usr/bin/chromium",
                                                     headless=not self.cfg.headed, args=CHROMIUM_ARGS)
        return self._browser

    # -- the two paths ----------------------------------------------------------------------------
    def runner(self, trace: list[str]) -> platform.Runner:
        if self._runner is None:
            c = self.cfg
            send = self.transport or platform.http_transport(c.olympics_url or c.url.rstrip("/") + "/olympics/turn")
            self._runner = platform.Runner(
                send, c.secret,
                agent_id=c.agent_id, agent_name="MiniWoB agent", max_turns=c.max_turns, pace_s=c.pace_s,
                action_timeout_s=c.action_timeout_s, browser=self.browser())
        self._runner.print = trace.append
        return self._runner

    def emulator(self, trace: list[str]) -> Emulator:
        if self._emulator is None:
            c = self.cfg
            self._emulator = Emulator(c.url, api_key=c.api_key, max_steps=c.max_steps, browser=self.browser())
        self._emulator.print = trace.append
        return self._emulator

    def play(self, task: str, seed: str, path: str, url: str) -> Episode:
        """One episode of ``task`` from ``seed`` through ``path`` (``olympics`` or ``proxy``), its page opened
        at ``url`` (:meth:`infra.miniwob.pages.Server.episode_url`)."""
        if path not in PATHS:
            raise ValueError(f"unknown path {path!r} (one of {', '.join(PATHS)})")
        ep = Episode(task, str(seed), path)
        started = time.monotonic()
        tool: Any = self.runner(ep.trace) if path == "olympics" else self.emulator(ep.trace)
        ctx = self.browser().new_context(viewport={"width": 1280, "height": 800})
        page = ctx.new_page()
        try:
            ep.utterance = episode.start(page, url, ep.seed)

            def solved() -> bool:
                s = episode.state(page)
                return s.done and s.raw > 0

            limit = started + self.cfg.episode_s

            def over() -> bool:
                return episode.state(page).done or time.monotonic() > limit

            # the episode is played under an opaque id: the runners print it, never the task's name
            label = f"episode {ep.seed}"
            if path == "olympics":
                res = tool.play_page(page, label, ep.utterance, solved, over=over)
                ep.turns, ep.claimed, ep.end = res.turns, res.claimed, res.end
                ep.trace += [f"turn {log.n} thinking: {log.thinking}" for log in res.log if log.thinking]
                ep.gave_up = res.done and not res.claimed
            else:
                out = tool.run_page(page, label, ep.utterance, solved, over=over)
                ep.turns, ep.claimed, ep.end = out.steps, out.claimed, out.end
                ep.gave_up = out.end.startswith("finish") and not out.claimed
            final = episode.state(page)
            ep.page_done, ep.reward = final.done, final.raw if final.done else 0.0
            if not final.done and time.monotonic() > limit:
                ep.end = f"episode time limit ({self.cfg.episode_s:g} s); {ep.end}"
        except Exception as exc:  # noqa: BLE001 - one broken episode must not stop the run
            ep.end = f"harness error: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        finally:
            ctx.close()
        ep.success = ep.page_done and ep.reward > 0
        ep.false_done = ep.claimed and not ep.success
        ep.seconds = round(time.monotonic() - started, 2)
        return ep
