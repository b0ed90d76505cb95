"""Requests shaped like the real AI Olympics runner's, signed like it."""

from __future__ import annotations

import json
import time
from typing import Any

from agenthost import signing
from infra.arena.runner import SYSTEM_PROMPT, TOOLS

SECRET = "whs_" + "5e" * 32

FORM_TREE = """- heading "Create your account" [level=1]
- textbox "First Name"
- textbox "Last Name"
- textbox "Email"
- textbox "Password"
- combobox "Country":
  - option "Choose..." [selected]
  - option "Germany"
  - option "United States"
- checkbox "I accept the terms of service"
- text: I accept the terms of service
- button "Submit Registration"
- link "Home":
  - /url: /"""


def turn_body(turn: int = 1, *, tree: str = FORM_TREE, prompt: str = "Register Maria Lopez from Germany.",
              url: str = "http://127.0.0.1:8000/registration/index.html", previous: list | None = None,
              agent_id: str = "agent-1", tools: list | None = None, ts_ms: int | None = None,
              **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "version": "1.0",
        "timestamp": ts_ms if ts_ms is not None else int(time.time() * 1000),
        "agentId": agent_id,
        "agentName": "Test Agent",
        "task": {"systemPrompt": SYSTEM_PROMPT, "taskPrompt": prompt},
        "pageState": {"url": url, "title": "Create your account", "accessibilityTree": tree},
        "previousActions": previous or [],
        "turnNumber": turn,
        "availableTools": TOOLS if tools is None else tools,
    }
    body.update(extra)
    return body


def signed(body: dict[str, Any] | bytes, secret: str = SECRET, *, agent_id: str | None = "agent-1",
           ts_ms: int | None = None, timestamp_header: bool = True, test: bool = False) -> tuple[bytes, dict[str, str]]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"content-type": "application/json", "X-AI-Olympics-Signature": signing.sign(secret, raw)}
    if timestamp_header:
        headers["X-AI-Olympics-Timestamp"] = str(ts_ms if ts_ms is not None else int(time.time() * 1000))
    if agent_id:
        headers["X-AI-Olympics-Agent-Id"] = agent_id
    if test:
        headers["X-AI-Olympics-Test"] = "true"
    return raw, headers
