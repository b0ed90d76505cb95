"""LLM providers behind one interface: ``complete_json(messages, schema, deadline) -> (object, usage)``.

* ``messages``: ``[{"role": "system"|"user"|"assistant", "content": str}, ...]``.
* ``schema``: the JSON schema the answer must follow (an object schema).
* ``deadline``: an :class:`agenthost.deadline.Deadline` (or a ``time.monotonic()`` instant). The call
  returns before it or raises :class:`LlmTimeout`;
  it never blocks the caller past it (the HTTP/AWS call runs on a worker thread that is abandoned at the
  deadline, with connect/read timeouts derived from the time left). At most one retry, only if time allows.
* ``usage``: :class:`Usage` (``input_tokens``, ``output_tokens``, ``calls``, ``latency_ms``).

Providers, chosen by ``AGENTHOST_LLM``: ``none`` (default: no LLM; the deterministic policy plays),
``bedrock:<model-id>`` (boto3 ``bedrock-runtime`` Converse with a forced tool call), ``openai:<model>``
(any OpenAI-compatible ``/chat/completions`` at ``AGENTHOST_LLM_BASE_URL`` with ``AGENTHOST_LLM_API_KEY``
or ``AGENTHOST_LLM_API_KEY_PARAM``: JSON-schema response format, falling back to JSON-object mode).

Example::

    >>> from agenthost.llm import provider_from_settings
    >>> provider_from_settings() is None   # AGENTHOST_LLM=none
    True
"""

from __future__ import annotations

from typing import Any

from agenthost.deadline import Deadline
from agenthost.llm.base import (
    LlmError,
    LlmInvalid,
    LlmTimeout,
    Provider,
    Usage,
    parse_json,
    totals,
)

__all__ = ["LlmError", "LlmInvalid", "LlmTimeout", "Provider", "Usage", "complete_json", "parse_json",
           "provider_from_settings", "totals"]

_cached: dict[str, Provider | None] = {}


def provider_from_settings() -> Provider | None:
    """The provider ``AGENTHOST_LLM`` selects (None for ``none``); cached per setting."""
    from agenthost.config import settings
    from agenthost.secrets import secret

    cfg = settings()
    key = f"{cfg.llm}|{cfg.llm_base_url}"
    if key in _cached:
        return _cached[key]
    provider: Provider | None = None
    if cfg.llm_provider == "bedrock":
        from agenthost.llm.bedrock import BedrockProvider

        provider = BedrockProvider(cfg.llm_model, endpoint_url=cfg.llm_base_url or None)
    elif cfg.llm_provider == "openai":
        from agenthost.llm.openai import OpenAIProvider

        provider = OpenAIProvider(cfg.llm_model, base_url=cfg.llm_endpoint,
                                  api_key=lambda: secret("AGENTHOST_LLM_API_KEY"))
    elif cfg.llm_provider != "none":
        raise ValueError(f"AGENTHOST_LLM must be none, bedrock:<model-id> or openai:<model>, got {cfg.llm!r}")
    if provider is not None:
        from agenthost.metering import metered

        provider = metered(provider)  # budget check + usage per call for the current turn
    _cached[key] = provider
    return provider


def reset() -> None:
    """Forget the cached provider (tests change the environment)."""
    _cached.clear()


def complete_json(messages: list[dict[str, Any]], schema: dict[str, Any], deadline: Deadline | float,
                  provider: Provider | None = None) -> tuple[dict[str, Any], Usage]:
    """Complete with the configured provider (or ``provider``); raises :class:`LlmError` if there is none."""
    p = provider or provider_from_settings()
    if p is None:
        raise LlmError("no LLM configured (AGENTHOST_LLM=none)")
    return p.complete_json(messages, schema, deadline)
