"""The secret resolver: one cache, one short-timeout client, for every secret agenthost reads.

A secret ``NAME`` (declared in :data:`agenthost.config.SECRETS`) is either the literal environment variable
``NAME`` (the local stack) or ``NAME_PARAM`` naming an SSM parameter (``/path`` or ``ssm:/path``) or a Secrets
Manager secret (``secretsmanager:name`` or an ARN). :func:`secret` reads it through Powertools Parameters on
an :mod:`agenthost.aws` client with short timeouts, cached for ``max_age`` seconds: rotation reaches warm
containers, and a failed refresh keeps serving the old value. Values are never logged.

Example::

    >>> from agenthost.secrets import secret
    >>> secret("AGENTHOST_NOT_SET")
    ''
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from agenthost.config import raw
from agenthost.errors import NotFound

#: the parameter store / Secrets Manager client: a slow call on a cold start must not eat a 20 s turn
SECRET_CONNECT_TIMEOUT_S = 1
SECRET_READ_TIMEOUT_S = 2
SECRET_TOTAL_ATTEMPTS = 2  # requests per fetch, the first included
#: after a failed refresh, the cached value is served and the refresh retried this many seconds later
SECRET_RETRY_S = 30

_secret_lock = threading.Lock()
_secret_cache: dict[str, tuple[float, str]] = {}  # ref -> (fetched at, value)
_providers: dict[str, tuple[Any, Any]] = {}  # kind -> (boto3 client, Powertools provider)
_now = time.monotonic
log = logging.getLogger("agenthost.secrets")


class SecretNotConfigured(NotFound, LookupError):
    """Raised by :func:`secret` with ``required=True`` when neither form of a secret is set."""


def secret(name: str, *, required: bool = False, max_age: int = 300) -> str:
    """Return secret ``name`` (e.g. ``AGENTHOST_OLYMPICS_SECRET``).

    The literal environment variable wins (the local stack); otherwise ``<name>_PARAM`` names an SSM
    parameter or Secrets Manager secret, fetched with decryption through Powertools Parameters (a client
    with 1 s connect / 2 s read timeouts, 2 attempts) and cached for ``max_age`` seconds, so a rotated
    value is picked up by warm containers. When a refresh fails, the cached value keeps being served (and
    the refresh is retried after ``SECRET_RETRY_S``); with nothing cached the error is raised. Returns
    ``""`` when not configured (or raises when ``required``). The value is never logged.
    """
    literal = raw(name)
    if literal:
        return literal
    ref = raw(f"{name}_PARAM")
    if not ref:
        if required:
            raise SecretNotConfigured(f"{name} is not configured (set {name} or {name}_PARAM)")
        return ""
    return resolve(ref, max_age=max_age, name=name)


def resolve(ref: str, *, max_age: int = 300, name: str = "") -> str:
    """The value of the SSM parameter or Secrets Manager secret ``ref`` (``/path``, ``ssm:/path``,
    ``secretsmanager:name``, or either's ARN), through the one cache and the one short-timeout client
    :func:`secret` uses: fetched again after ``max_age`` seconds; a failed refresh serves the cached value
    (retried after ``SECRET_RETRY_S``); with nothing cached the error is raised. ``name`` is what a log line
    calls it (never the value)."""
    now = _now()
    with _secret_lock:
        hit = _secret_cache.get(ref)
    if hit is not None and now - hit[0] < max_age:
        return hit[1]
    try:
        value = _fetch_parameter(ref)
    except Exception as exc:
        if hit is None:
            raise
        log.warning("could not refresh %s (%s); using the cached value", name or "a secret", type(exc).__name__)
        with _secret_lock:  # try again in a while, not on every call
            _secret_cache[ref] = (now - max_age + min(SECRET_RETRY_S, max_age), hit[1])
        return hit[1]
    with _secret_lock:
        _secret_cache[ref] = (now, value)
    return value


def _provider(kind: str) -> Any:
    """The Powertools provider for ``ssm`` or ``secretsmanager``, on a short-timeout client (rebuilt when
    :mod:`agenthost.aws` hands out a new client)."""
    from agenthost import aws

    client = aws.client(kind, connect_timeout=SECRET_CONNECT_TIMEOUT_S, read_timeout=SECRET_READ_TIMEOUT_S,
                        total_max_attempts=SECRET_TOTAL_ATTEMPTS)
    with _secret_lock:
        found = _providers.get(kind)
        if found is not None and found[0] is client:
            return found[1]
    from aws_lambda_powertools.utilities import parameters

    provider = parameters.SSMProvider(boto3_client=client) if kind == "ssm" else \
        parameters.SecretsProvider(boto3_client=client)
    with _secret_lock:
        _providers[kind] = (client, provider)
    return provider


def _fetch_parameter(ref: str) -> str:
    # Imported lazily: Parameters pulls in boto3 clients that only deployed functions need. Our cache
    # decides when to refetch, so Powertools' own cache is bypassed.
    if ref.startswith("secretsmanager:"):
        value = _provider("secretsmanager").get(ref.split(":", 1)[1], force_fetch=True)
    elif ref.startswith("arn:") and ":secretsmanager:" in ref:
        value = _provider("secretsmanager").get(ref, force_fetch=True)
    else:
        path = ref.split(":", 1)[1] if ref.startswith("ssm:") else ref
        value = _provider("ssm").get(path, decrypt=True, force_fetch=True)
    if isinstance(value, bytes):
        value = value.decode()
    return str(value).strip()


def reset() -> None:
    """Forget cached secrets and providers (tests)."""
    with _secret_lock:
        _secret_cache.clear()
        _providers.clear()
