"""Authentication of AI Olympics requests.

``X-AI-Olympics-Signature`` is ``sha256=<hex HMAC-SHA256(secret, exact body)>``. The secret is chosen by
agent id (``X-AI-Olympics-Agent-Id`` header, else the body's ``agentId``):

* ``AGENTHOST_OLYMPICS_AGENTS`` = ``<agentId>=<SETTING>,...`` maps agent ids to the name of a secret setting,
  read through :func:`agenthost.config.secret` (a literal env variable locally, ``<SETTING>_PARAM`` naming an
  SSM parameter or Secrets Manager secret when deployed);
* ``AGENTHOST_OLYMPICS_SECRET`` (or ``_PARAM``) is the secret of any agent not listed.

Replay window: 5 minutes from ``X-AI-Olympics-Timestamp`` (ms), or from the signed body's ``timestamp`` when
the header is missing (dashboard test pings send only the signature and ``X-AI-Olympics-Test: true``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agenthost import signing
from agenthost.config import secret

DEFAULT_SECRET = "AGENTHOST_OLYMPICS_SECRET"  # noqa: S105 - the setting's name, not a secret
AGENTS_SETTING = "AGENTHOST_OLYMPICS_AGENTS"
WINDOW_S = 300.0


@dataclass(frozen=True)
class Caller:
    agent_id: str
    test_ping: bool


def agent_secret_names() -> dict[str, str]:
    """``agentId -> secret setting name`` from ``AGENTHOST_OLYMPICS_AGENTS``."""
    out: dict[str, str] = {}
    for part in os.environ.get(AGENTS_SETTING, "").split(","):
        if "=" in part:
            agent, name = (p.strip() for p in part.split("=", 1))
            if agent and name:
                out[agent] = name
    return out


def secret_for(agent_id: str) -> str:
    name = agent_secret_names().get(agent_id, DEFAULT_SECRET)
    return secret(name)


def authenticate(headers: Mapping[str, str], raw: bytes, body: Any, now: float | None = None) -> Caller:
    """Return the caller or raise :class:`signing.SignatureError` (its ``reason`` is safe to return).

    ``headers`` are lower-cased; ``body`` is the parsed JSON (used only for ``agentId``/``timestamp``, both
    covered by the signature that is checked over ``raw``)."""
    signature = headers.get("x-ai-olympics-signature", "")
    if not signature:
        raise signing.SignatureError("missing X-AI-Olympics-Signature header")
    fields = body if isinstance(body, dict) else {}
    agent_id = (headers.get("x-ai-olympics-agent-id") or str(fields.get("agentId") or "")).strip()
    key = secret_for(agent_id)
    if not key:
        raise signing.SignatureError("no webhook secret is configured for this agent")
    if not signing.verify(key, raw, signature):
        raise signing.SignatureError("invalid signature")
    timestamp = headers.get("x-ai-olympics-timestamp") or fields.get("timestamp")
    signing.check_fresh(timestamp, WINDOW_S, now)
    test = headers.get("x-ai-olympics-test", "").strip().lower() == "true"
    return Caller(agent_id=agent_id or "default", test_ping=test)
