"""Client of the browser function (same event contract locally and on Lambda).

Example::

    from agenthost.browser import Browser
    out = Browser().run("s1", [{"tool": "navigate", "url": "https://example.com"}])
    out["results"]        # [{"ok": True}]
    out["observation"]    # {"url", "title", "aria", "elements", "text"}
    page = agenthost.agent.snapshot.from_observation(out["observation"])

    Browser().evaluate_script("https://example.com", "document.title")   # 'Example Domain'

The function is invoked with boto3 ``lambda`` (RequestResponse); locally ``AWS_ENDPOINT_URL_LAMBDA``
points at the local stack's Lambda endpoint, which runs ``browser.app.handler`` with the machine's Chromium.
The function name comes from ``AGENTHOST_BROWSER_FUNCTION`` (default ``BrowserFunction``).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from agenthost.errors import Upstream

DEFAULT_OBSERVE = {"aria": True, "elements": True, "text": True, "screenshot": False}


class BrowserError(Upstream):
    """The browser function could not be invoked or raised; ``str()`` is safe to show."""


class Browser:
    def __init__(self, function_name: str | None = None, *, client: Any = None, read_timeout: int = 65):
        from agenthost.config import settings

        self.function_name = function_name or settings().browser_function
        self._client = client
        self.read_timeout = read_timeout

    @property
    def client(self) -> Any:
        if self._client is None:
            from agenthost import aws

            # at most once: an invocation runs actions (a click, a submit), and after a read timeout the first
            # invocation is still running, so a transport retry would run them twice
            self._client = aws.client("lambda", connect_timeout=3, read_timeout=self.read_timeout,
                                      total_max_attempts=1)
        return self._client

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        """Send a raw event; returns the function's result."""
        try:
            resp = self.client.invoke(FunctionName=self.function_name, InvocationType="RequestResponse",
                                      Payload=json.dumps(event).encode())
        except Exception as exc:  # noqa: BLE001 - boto/network errors become one error type
            raise BrowserError(f"cannot invoke the browser function ({exc.__class__.__name__})") from None
        raw = resp["Payload"].read()
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            raise BrowserError("the browser function returned invalid JSON") from None
        if resp.get("FunctionError"):
            msg = body.get("errorMessage", "error") if isinstance(body, dict) else "error"
            raise BrowserError(f"the browser function failed: {str(msg)[:300]}")
        if not isinstance(body, dict):
            raise BrowserError("the browser function returned no object")
        return body

    def run(self, session_id: str, actions: list[dict[str, Any]] | None = None, *,
            observe: dict[str, bool] | None = None, storage_state: dict[str, Any] | None = None,
            url: str | None = None, timeout_ms: int | None = None) -> dict[str, Any]:
        """Run ``actions`` in session ``session_id`` and observe the page afterwards."""
        session: dict[str, Any] = {"id": session_id}
        if storage_state is not None:
            session["storage_state"] = storage_state
        if url:
            session["url"] = url
        event: dict[str, Any] = {"session": session, "actions": actions or [],
                                 "observe": observe or DEFAULT_OBSERVE}
        if timeout_ms:
            event["timeout_ms"] = timeout_ms
        return self.invoke(event)

    def evaluate_script(self, url: str, script: str, *, timeout_ms: int = 5000) -> Any:
        """Open ``url`` in a fresh, unsaved session and return the JSON value of ``script`` there (an
        expression, a function, or a function body using ``return``). Raises :class:`BrowserError` when the
        page cannot be opened or the script fails (its error message included)."""
        out = self.invoke({
            "session": {"id": f"eval-{uuid.uuid4().hex[:16]}", "ephemeral": True},
            "actions": [{"tool": "navigate", "url": url},
                        {"tool": "evaluate", "script": script, "timeout_ms": timeout_ms}],
            "observe": {"aria": False, "elements": False, "text": False, "screenshot": False},
            "timeout_ms": max(timeout_ms, 3000), "budget_ms": timeout_ms + 10_000})
        results = out.get("results") or []
        if len(results) < 2:
            raise BrowserError(f"the browser function ran no script: {str(out.get('error') or 'no results')[:300]}")
        if not results[0].get("ok"):
            raise BrowserError(f"cannot open {url}: {str(results[0].get('error'))[:300]}")
        if not results[1].get("ok"):
            raise BrowserError(str(results[1].get("error"))[:300])
        return results[1].get("data")


def evaluate_script(url: str, script: str, *, timeout_ms: int = 5000) -> Any:
    """:meth:`Browser.evaluate_script` with the configured browser function."""
    return Browser().evaluate_script(url, script, timeout_ms=timeout_ms)
