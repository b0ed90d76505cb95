"""Hosted browsing (beyond the spec): the server drives its own browser for a run.

Needs the browser function (``agenthost.browser``); until it is part of the deployment, starting a run
with ``"browser": "hosted"`` answers 501 with a message saying so.
"""

from __future__ import annotations

from typing import Any

from agenthost.http import ApiError


def available() -> bool:
    try:
        import agenthost.browser  # noqa: F401
    except ImportError:
        return False
    return True


def check_available() -> None:
    if not available():
        raise ApiError(501, "hosted browsing needs the browser function, which this deployment does not have; "
                            "start the run without \"browser\": \"hosted\" and drive it from the extension")


def launch(run_id: str, req: Any) -> None:
    check_available()


def resume_if_hosted(run_id: str, engine: Any) -> None:
    return None
