"""Embedded defaults of the local stack: ports and the local (non-production) secrets.

These secrets exist only so the local stack works with no configuration; they are printed at start
so the arena, simulators and clients can sign requests. Never use them in a deployment.
"""

from __future__ import annotations

import hashlib

PORTS = {
    "AGENTHOST_HTTP_PORT": 3000,
    "AGENTHOST_WS_PORT": 3001,
    "AGENTHOST_LAMBDA_PORT": 3002,
    "AGENTHOST_DYNAMODB_PORT": 3003,
    # the webhooks' function URLs (template: AWS::Lambda::Url), AGENTHOST_<FUNCTION>_URL_PORT
    "AGENTHOST_OLYMPICS_URL_PORT": 3004,
    "AGENTHOST_WEREWOLF_URL_PORT": 3005,
}


def url_port_setting(function: str) -> str:
    """The port setting of ``function``'s function URL: OlympicsFunction -> AGENTHOST_OLYMPICS_URL_PORT."""
    return f"AGENTHOST_{function.removesuffix('Function').upper()}_URL_PORT"


def _local(name: str, prefix: str = "") -> str:
    return prefix + hashlib.sha256(f"agenthost-local-{name}".encode()).hexdigest()


# name -> value; protocol functions add theirs here (and read them through agenthost.secrets.secret)
LOCAL_SECRETS: dict[str, str] = {
    "AGENTHOST_OLYMPICS_SECRET": _local("olympics", "whs_"),
    "AGENTHOST_WEREWOLF_API_KEY": _local("werewolf")[:40],
    "AGENTHOST_EVALS_SECRET": _local("evals")[:32],
}
