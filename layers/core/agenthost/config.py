"""Typed settings, read once from the environment.

Every setting has an embedded default so the local stack runs with no configuration at all.
Secrets are never stored in settings directly when deployed: a setting ``X`` may instead be given
as ``X_PARAM`` naming an SSM parameter (``/path`` or ``ssm:/path``) or a Secrets Manager secret
(``secretsmanager:name``); :func:`secret` resolves it through Powertools Parameters (short timeouts),
cached for ``max_age`` seconds (rotation reaches warm containers; a failed refresh keeps the old value).

Example::

    >>> from agenthost.config import settings
    >>> settings().table_name
    'agenthost'
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

_TRUE = {"1", "true", "yes", "on"}


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def _env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return raw.strip().lower() in _TRUE


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from exc


def _env_float(name: str, default: float, low: float = 0.0, high: float = float("inf"), *,
               strict: bool = True) -> float:
    """A number, clamped to ``low..high``; a value that is not a number raises (``strict``) or gives the
    default."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        if not strict:
            return default
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc
    return max(low, min(value, high))


def _env_list(name: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in os.environ.get(name, "").split(",") if p.strip())


@dataclass(frozen=True)
class Settings:
    """All agenthost settings. Build with :func:`settings` (cached) or :meth:`from_env`."""

    table_name: str = "agenthost"
    region: str = "us-east-1"
    local: bool = False
    #: ``none`` | ``bedrock:<model-id>`` | ``openai:<model>``
    llm: str = "none"
    llm_base_url: str = ""
    max_body_bytes: int = 1_048_576
    #: hosts (or CIDRs) that netguard lets through even though they are private/loopback
    netguard_allow: tuple[str, ...] = field(default_factory=tuple)
    netguard_allow_private: bool = False
    ws_endpoint: str = ""
    browser_function: str = "BrowserFunction"
    cors_origins: tuple[str, ...] = field(default_factory=tuple)
    # -- turn budgets and the reserves cut from them (see agenthost.deadline), in seconds
    #: an AI Olympics turn, cold start included (2..25; the platform cuts off at 30)
    olympics_budget_s: float = 20.0
    #: kept back from the Olympics LLM for the deterministic policy, the guard and the memory write
    olympics_reserve_s: float = 3.0
    #: kept back from the deterministic policy for the guard and the memory write
    guard_reserve_s: float = 1.0
    #: the last seconds of a turn, left for sending the answer (no memory write starts in them)
    answer_reserve_s: float = 0.5
    #: kept back from a model call inside the web policy for validating its answer and the fallback
    llm_validation_reserve_s: float = 1.0
    #: kept for the model call itself: the LLM budget check gives up this long before the call's deadline
    llm_call_reserve_s: float = 0.5
    #: a policy's budget when its caller gives no deadline
    decide_budget_s: float = 20.0
    #: a Proxy API step's decision
    runs_decide_budget_s: float = 18.0
    #: a Werewolf turn (the platform waits 30 s, the Lambda 25 s)
    werewolf_budget_s: float = 20.0
    #: kept back from a Werewolf decision for the memory write (one attempt: 1 s connect + 2 s read)
    werewolf_write_reserve_s: float = 3.0
    #: kept back from the Werewolf model call for checking and assembling the answer
    werewolf_answer_reserve_s: float = 1.5

    @classmethod
    def from_env(cls) -> Settings:
        local = _env_bool("AGENTHOST_LOCAL")
        return cls(
            table_name=_env("AGENTHOST_TABLE", "agenthost"),
            region=_env("AWS_REGION") or _env("AWS_DEFAULT_REGION") or "us-east-1",
            local=local,
            llm=_env("AGENTHOST_LLM", "none") or "none",
            llm_base_url=_env("AGENTHOST_LLM_BASE_URL"),
            max_body_bytes=_env_int("AGENTHOST_MAX_BODY_BYTES", 1_048_576),
            netguard_allow=_env_list("AGENTHOST_NETGUARD_ALLOW"),
            netguard_allow_private=_env_bool("AGENTHOST_NETGUARD_ALLOW_PRIVATE", default=local),
            ws_endpoint=_env("AGENTHOST_WS_ENDPOINT"),
            browser_function=_env("AGENTHOST_BROWSER_FUNCTION", "BrowserFunction"),
            cors_origins=_env_list("AGENTHOST_CORS_ORIGINS"),
            olympics_budget_s=_env_float("AGENTHOST_OLYMPICS_BUDGET_S", 20.0, 2.0, 25.0, strict=False),
            olympics_reserve_s=_env_float("AGENTHOST_OLYMPICS_RESERVE_S", 3.0),
            guard_reserve_s=_env_float("AGENTHOST_GUARD_RESERVE_S", 1.0),
            answer_reserve_s=_env_float("AGENTHOST_ANSWER_RESERVE_S", 0.5),
            llm_validation_reserve_s=_env_float("AGENTHOST_LLM_VALIDATION_RESERVE_S", 1.0),
            llm_call_reserve_s=_env_float("AGENTHOST_LLM_CALL_RESERVE_S", 0.5),
            decide_budget_s=_env_float("AGENTHOST_DECIDE_BUDGET_S", 20.0, 0.1),
            runs_decide_budget_s=_env_float("AGENTHOST_RUNS_DECIDE_BUDGET_S", 18.0, 0.1),
            werewolf_budget_s=_env_float("AGENTHOST_WEREWOLF_BUDGET_S", 20.0, 0.1, 25.0),
            werewolf_write_reserve_s=_env_float("AGENTHOST_WEREWOLF_WRITE_RESERVE_S", 3.0),
            werewolf_answer_reserve_s=_env_float("AGENTHOST_WEREWOLF_ANSWER_RESERVE_S", 1.5),
        )

    @property
    def llm_provider(self) -> str:
        """``none``, ``bedrock`` or ``openai``."""
        return self.llm.split(":", 1)[0].strip().lower() or "none"

    @property
    def llm_model(self) -> str:
        """The model id after the provider prefix (``deterministic`` for ``none``)."""
        if self.llm_provider == "none":
            return "deterministic"
        return self.llm.split(":", 1)[1].strip() if ":" in self.llm else ""

    @property
    def llm_endpoint(self) -> str:
        """The base URL the LLM is reached at (empty for ``none``)."""
        if self.llm_provider == "bedrock":
            return self.llm_base_url or f"https://bedrock-runtime.{self.region}.amazonaws.com"
        if self.llm_provider == "openai":
            return (self.llm_base_url or "https://api.openai.com/v1").rstrip("/")
        return ""


@lru_cache(maxsize=1)
def settings() -> Settings:
    """The process-wide settings, read from the environment on first use."""
    return Settings.from_env()


def reset() -> None:
    """Forget cached settings and secrets (tests change the environment between cases)."""
    settings.cache_clear()
    with _secret_lock:
        _secret_cache.clear()
        _providers.clear()


#: the parameter store / Secrets Manager client: a slow call on a cold start must not eat a 20 s turn
SECRET_CONNECT_TIMEOUT_S = 1
SECRET_READ_TIMEOUT_S = 2
SECRET_MAX_ATTEMPTS = 2
#: after a failed refresh, the cached value is served and the refresh retried this many seconds later
SECRET_RETRY_S = 30

_secret_lock = threading.Lock()
_secret_cache: dict[str, tuple[float, str]] = {}  # ref -> (fetched at, value)
_providers: dict[str, tuple[Any, Any]] = {}  # kind -> (boto3 client, Powertools provider)
_now = time.monotonic
log = logging.getLogger("agenthost.config")


class SecretNotConfigured(LookupError):
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
    literal = os.environ.get(name)
    if literal:
        return literal.strip()
    ref = os.environ.get(f"{name}_PARAM", "").strip()
    if not ref:
        if required:
            raise SecretNotConfigured(f"{name} is not configured (set {name} or {name}_PARAM)")
        return ""
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
        log.warning("could not refresh %s (%s); using the cached value", name, type(exc).__name__)
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
                        max_attempts=SECRET_MAX_ATTEMPTS)
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
    else:
        path = ref.split(":", 1)[1] if ref.startswith("ssm:") else ref
        value = _provider("ssm").get(path, decrypt=True, force_fetch=True)
    if isinstance(value, bytes):
        value = value.decode()
    return str(value).strip()
