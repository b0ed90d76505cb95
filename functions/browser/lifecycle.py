"""The browser's lifecycle in a warm container: Playwright and Chromium started on first use (Debian's headless
shell by default), relaunched when they died (the driver restarted once if it is gone too), killed by the
watchdog when a call is stuck past the budget; and the egress proxy all of Chromium's traffic goes through
(:mod:`browser.egress`), whose netguard check :func:`guard_reason` also makes before a navigation.

Sync Playwright objects belong to the thread that made them: all browser work runs on :data:`worker`, one
thread (a Lambda container handles one invocation at a time anyway; locally, calls queue like one container).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from agenthost import netguard
from browser.egress import EgressProxy

# a switch Chromium ignores, naming this process's browsers so the watchdog can find (and kill) them
_MARKER = f"--agenthost-browser={os.getpid()}-{uuid.uuid4().hex[:8]}"
LAUNCH_ARGS = ["--no-sandbox", "--no-zygote", "--disable-gpu", "--disable-dev-shm-usage",
               "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
               # WebRTC may only use the proxy (no direct UDP to any address)
               "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
               "--webrtc-ip-handling-policy=disable_non_proxied_udp", _MARKER]

worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="browser")
state: dict[str, Any] = {"pw": None, "browser": None, "launches": 0, "kills": 0, "egress": None}
#: live sessions, id -> (context, page), least recently used first: they die with the browser
sessions: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
log = logging.getLogger("agenthost.browser")


HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"  # Debian's chromium-headless-shell package


def chromium_path() -> str | None:
    """``AGENTHOST_CHROMIUM``, else Debian's headless shell, else the full ``chromium``.

    The headless shell (Chromium's old headless mode, which Playwright itself uses for headless runs) opens a
    fresh context and its first page about four times faster than the full browser's headless mode and
    launches in a third of the time; pages, ARIA snapshots and the proxy behave the same."""
    from agenthost.config import settings

    path = settings().chromium.strip()
    if path:
        return path
    if os.access(HEADLESS_SHELL, os.X_OK):
        return HEADLESS_SHELL
    return (shutil.which("chromium-headless-shell") or shutil.which("chromium")
            or shutil.which("chromium-browser"))


def egress() -> EgressProxy:
    """The egress proxy (started once per process; restarted if its thread died)."""
    proxy = state["egress"]
    if proxy is None or not proxy.alive():
        if proxy is not None:
            proxy.stop()
        proxy = EgressProxy().start()
        state["egress"] = proxy
    return proxy


def _launch_args() -> list[str]:
    return [*LAUNCH_ARGS, f"--proxy-server={egress().url}", "--proxy-bypass-list=<-loopback>"]


def browser() -> Any:
    b = state["browser"]
    proxy_ok = state["egress"] is not None and state["egress"].alive()
    if b is not None and b.is_connected() and proxy_ok:
        return b
    sessions.clear()  # contexts died with the browser (or lose their proxy)
    if b is not None:
        try:
            b.close()
        except Exception as exc:  # noqa: BLE001 -it is already dead
            log.debug("ignored: %s", type(exc).__name__)
    pw = state["pw"]
    if pw is None:
        from playwright.sync_api import sync_playwright

        pw = sync_playwright().start()
        state["pw"] = pw
    try:
        b = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=_launch_args())
    except Exception:  # noqa: BLE001 - the driver itself may be gone: restart it once
        try:
            pw.stop()
        except Exception as exc:  # noqa: BLE001
            log.debug("ignored: %s", type(exc).__name__)
        from playwright.sync_api import sync_playwright

        pw = sync_playwright().start()
        state["pw"] = pw
        b = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=_launch_args())
    state["browser"] = b
    state["launches"] += 1
    return b


def forget_browser() -> None:
    """Drop a dead browser so that :func:`browser` launches a new one."""
    b = state["browser"]
    state["browser"] = None
    sessions.clear()
    if b is not None:
        try:
            b.close()
        except Exception as exc:  # noqa: BLE001 - it is already dead
            log.debug("ignored: %s", type(exc).__name__)


def kill_browsers() -> int:
    """SIGKILL this process's Chromium browsers (found by their marker switch); any thread may call it.
    Playwright calls waiting on them then fail at once, and the next invocation relaunches."""
    marker = _MARKER.encode()
    killed = 0
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if marker in (d / "cmdline").read_bytes():
                os.kill(int(d.name), signal.SIGKILL)
                killed += 1
        except (OSError, ValueError):
            continue
    state["kills"] += killed
    return killed


def clear_guard_cache() -> None:
    """Forget cached netguard answers (tests change the allow-list between cases)."""
    proxy = state["egress"]
    if proxy is not None:
        proxy.clear_cache()


def guard_reason(url: str) -> str | None:
    """Why ``url`` may not be opened (None when allowed); the same check the proxy makes."""
    if not re.match(r"^(https?|wss?)://", url, re.I):
        return None  # data:, blob:, about: stay inside the browser
    try:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme.lower() in ("https", "wss") else 80)
    except ValueError as exc:
        return f"malformed URL ({exc})"
    if not host:
        return "no host"
    try:
        egress().addresses(host, port)
    except netguard.Blocked as exc:
        return exc.reason
    return None
