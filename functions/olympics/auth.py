"""Authentication of AI Olympics requests.

``X-AI-Olympics-Signature`` is ``sha256=<hex HMAC-SHA256(secret, exact body)>``. The secret is chosen by
agent id: the body's ``agentId`` (covered by the signature), or the ``X-AI-Olympics-Agent-Id`` header only
when the body has none (the header is not signed, so it never overrides the body):

* ``AGENTHOST_OLYMPICS_AGENTS`` = ``<agentId>=<secret>,...`` maps agent ids to where their secret is:
  ``<SETTING>``, the name of a secret setting read through :func:`agenthost.secrets.secret` (a literal env
  variable locally, ``<SETTING>_PARAM`` naming an SSM parameter or Secrets Manager secret when deployed), or
  the SSM/Secrets Manager name itself (``/agenthost/olympics/agent-2``, ``ssm:/agenthost/...``,
  ``secretsmanager:agenthost/...`` or an ARN), read through :func:`agenthost.secrets.resolve` (the same
  cache and short-timeout client as every secret) and cached for 5 minutes - so several agents work when
  deployed without one environment variable each. When the list is set, only the ids it names are agents:
  any other id is refused (401), never checked against the default secret (list the default agent as
  ``<its id>=AGENTHOST_OLYMPICS_SECRET`` to keep it);
* ``AGENTHOST_OLYMPICS_SECRET`` (or ``_PARAM``) is the secret of every agent when no list is set.

The caller's identity (which keys the task memory and so the replay of an answered body, and which the
turn is metered to) comes only from what the signature covers: the body's ``agentId``, else ``default``.
The same signed bytes resent with another ``X-AI-Olympics-Agent-Id`` are the same caller's same request.

Replay window: 5 minutes, measured on the signed body's ``timestamp`` (ms). The ``X-AI-Olympics-Timestamp``
header is not covered by the signature, so it can only confirm the body: a header that disagrees with the
body's timestamp by more than :data:`AGREE_S` is refused (401), and a fresh header never makes an old body
fresh. Dashboard test pings send no timestamp header (only the signature and ``X-AI-Olympics-Test: true``);
the header alone is used only when the signed body has no readable ``timestamp`` (a body that is not a JSON
object: it is answered with an idle turn anyway). A signed body replayed within the window gets the answer
already given (``olympics.memory``), never a second turn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agenthost import signing
from agenthost.config import settings
from agenthost.secrets import resolve, secret

DEFAULT_SECRET = "AGENTHOST_OLYMPICS_SECRET"  # noqa: S105 - the setting's name, not a secret
WINDOW_S = 300.0
#: most seconds the timestamp header may differ from the signed body's (both are taken when the request is made)
AGREE_S = 5.0


@dataclass(frozen=True)
class Caller:
    agent_id: str
    test_ping: bool


def agent_secret_names() -> dict[str, str]:
    """``agentId -> secret setting name`` from ``AGENTHOST_OLYMPICS_AGENTS``."""
    out: dict[str, str] = {}
    for part in settings().olympics_agents.split(","):
        if "=" in part:
            agent, name = (p.strip() for p in part.split("=", 1))
            if agent and name:
                out[agent] = name
    return out


_PARAM_REF = re.compile(r"^(/|ssm:|secretsmanager:|arn:aws[\w-]*:(ssm|secretsmanager):)")
REF_MAX_AGE_S = 300


def is_parameter_ref(value: str) -> bool:
    """Whether ``value`` is an SSM parameter / Secrets Manager name rather than a setting's name."""
    return bool(_PARAM_REF.match(value))


def secret_for(agent_id: str) -> str:
    """The secret ``agent_id`` signs with: its entry in ``AGENTHOST_OLYMPICS_AGENTS``, else the default secret
    when no list is set; "" (no secret: refused) for an id the list does not name."""
    listed = agent_secret_names()
    if listed and agent_id not in listed:
        return ""
    name = listed.get(agent_id, DEFAULT_SECRET)
    if is_parameter_ref(name):  # the one resolver: its cache, its short-timeout client
        return resolve(name, max_age=REF_MAX_AGE_S, name=f"{agent_id}'s secret")
    return secret(name)


def authenticate(headers: Mapping[str, str], raw: bytes, body: Any, now: float | None = None) -> Caller:
    """Return the caller or raise :class:`signing.SignatureError` (its ``reason`` is safe to return).

    ``headers`` are lower-cased; ``body`` is the parsed JSON (used only for ``agentId``/``timestamp``, both
    covered by the signature that is checked over ``raw``)."""
    signature = headers.get("x-ai-olympics-signature", "")
    if not signature:
        raise signing.SignatureError("missing X-AI-Olympics-Signature header")
    fields = body if isinstance(body, dict) else {}
    signed_id = str(fields.get("agentId") or "").strip()
    claimed = signed_id or headers.get("x-ai-olympics-agent-id", "").strip()
    listed = agent_secret_names()
    if listed and claimed not in listed:
        raise signing.SignatureError("this agent id is not configured on this webhook")
    key = secret_for(claimed)
    if not key:
        raise signing.SignatureError("no webhook secret is configured for this agent")
    if not signing.verify(key, raw, signature):
        raise signing.SignatureError("invalid signature")
    header_ts = headers.get("x-ai-olympics-timestamp")
    body_ts = fields.get("timestamp")
    if body_ts is not None:
        signing.check_fresh(body_ts, WINDOW_S, now)  # the signed time decides
        if header_ts is not None:
            signed_s, header_s = signing.to_epoch_seconds(body_ts), signing.to_epoch_seconds(header_ts)
            if header_s is None or signed_s is None or abs(header_s - signed_s) > AGREE_S:
                raise signing.SignatureError("X-AI-Olympics-Timestamp disagrees with the signed body's timestamp")
    else:
        signing.check_fresh(header_ts, WINDOW_S, now)
    test = headers.get("x-ai-olympics-test", "").strip().lower() == "true"
    # the identity is what the signature covers, never the unsigned header: it keys the replay of this body
    return Caller(agent_id=signed_id or "default", test_ping=test)
