"""Pages that stop answering: a probe with a timeout (a busy script holds the page's main thread, and
Playwright's ``Page.evaluate``/``Page.title``/``Locator.count`` have no timeout of their own), the stuck page
replaced by a fresh one in the same context (cookies and storage stay), and the page as the observer uses it,
each script run only once the page answered."""

from __future__ import annotations

import time
from typing import Any

from browser.lifecycle import log, sessions

PROBE_MS = 800       # a responsive page answers a trivial script well within this
OBSERVE_MS = 1500    # of the budget, kept for observing and saving after the actions


def left_ms(deadline: float) -> int:
    """Milliseconds left before the invocation's ``deadline`` (a ``time.monotonic()`` instant)."""
    return int((deadline - time.monotonic()) * 1000)


def probe_ms(deadline: float) -> int:
    """A probe's timeout: :data:`PROBE_MS`, less when the budget has less left (at least 100 ms)."""
    return min(PROBE_MS, max(left_ms(deadline), 100))


def replaced_note(url: str) -> str:
    return f"the page {url} stopped responding (a busy script); it was closed and a fresh page opened"


def responsive(page: Any, timeout_ms: int = PROBE_MS) -> bool:
    """Whether the page's main thread runs a trivial script within ``timeout_ms`` (raises if it is dead).

    One round trip in Playwright's utility world (the ARIA snapshot needs that world's script anyway);
    ``Locator.evaluate`` would take three (wait for the element, evaluate, dispose the handle) and load
    Playwright's script into the page's main world as well, on every new document."""
    from playwright.sync_api import TimeoutError as PwTimeout

    try:
        page.locator(":root").get_attribute("data-agenthost-probe", timeout=max(100, timeout_ms))
        return True
    except PwTimeout:
        return False


def replace_page(sid: str) -> Any:
    """Close session ``sid``'s stuck page and give it a fresh one in the same context (cookies and storage
    stay)."""
    ctx, page = sessions[sid]
    try:
        page.close(run_before_unload=False)
    except Exception as exc:  # noqa: BLE001 - closing a stuck page still frees it
        log.debug("ignored: %s", type(exc).__name__)
    fresh = ctx.new_page()
    sessions[sid] = (ctx, fresh)
    return fresh


class TimedPage:
    """The page as :func:`agenthost.agent.dom.observe` uses it, each script run only once the page answered
    within the timeout (``Page.evaluate`` and ``Page.title`` have none, and a busy page would hold them
    forever; ``Locator.evaluate``'s timeout, too, covers only finding the element, not the script)."""

    def __init__(self, page: Any, timeout_ms: int):
        self._page = page
        self._timeout = max(100, timeout_ms)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._page, name)

    def _answering(self) -> None:
        if not responsive(self._page, self._timeout):
            from playwright.sync_api import TimeoutError as PwTimeout

            raise PwTimeout(f"Timeout {self._timeout}ms exceeded: the page is not responding (a busy script)")

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        self._answering()
        return self._page.evaluate(expression, arg)

    def title(self) -> str:
        self._answering()
        return str(self._page.title())
