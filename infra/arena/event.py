"""Print a freshly signed API Gateway (HTTP API v2) event for ``POST /olympics/turn``, shaped like the
platform's first turn on the registration task (a stored event would fall outside the 5-minute replay
window). Invoke it through the local stack's Lambda API (``make dev`` running)::

    python -m infra.arena.event > /tmp/olympics-turn.json
    aws lambda invoke --endpoint-url http://127.0.0.1:3002 --function-name OlympicsFunction \\
        --payload fileb:///tmp/olympics-turn.json /dev/stdout

The secret is ``AGENTHOST_OLYMPICS_SECRET`` from the environment, else the local stack's default.
"""

from __future__ import annotations

import json
import os
import time

from infra.arena.runner import SYSTEM_PROMPT, TOOLS, sign
from infra.local.defaults import LOCAL_SECRETS
from infra.local.events import http_event

TREE = """- heading "Create your account" [level=1]
- textbox "First Name"
- textbox "Last Name"
- textbox "Email"
- combobox "Country":
  - option "Choose..." [selected]
  - option "Germany"
- checkbox "I accept the terms of service"
- button "Submit Registration\""""


def event(secret: str, agent_id: str = "local-agent") -> dict:
    ts = int(time.time() * 1000)
    body = {"version": "1.0", "timestamp": ts, "agentId": agent_id, "agentName": "Local Agent",
            "task": {"systemPrompt": SYSTEM_PROMPT,
                     "taskPrompt": "Register Maria Lopez (maria@example.com) from Germany and accept the terms."},
            "pageState": {"url": "http://127.0.0.1:8000/registration/index.html", "title": "Create your account",
                          "accessibilityTree": TREE},
            "previousActions": [], "turnNumber": 1, "availableTools": TOOLS}
    raw = json.dumps(body).encode()
    headers = {"content-type": "application/json", "x-ai-olympics-signature": sign(secret, raw),
               "x-ai-olympics-timestamp": str(ts), "x-ai-olympics-agent-id": agent_id}
    return http_event("POST", "/olympics/turn", body=raw, headers=headers, route_key="ANY /olympics/turn")


if __name__ == "__main__":
    secret = os.environ.get("AGENTHOST_OLYMPICS_SECRET") or LOCAL_SECRETS["AGENTHOST_OLYMPICS_SECRET"]
    print(json.dumps(event(secret), indent=2))
