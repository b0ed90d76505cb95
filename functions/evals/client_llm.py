"""A client's LLM configuration: what ``configure_llm`` stores, and the ``model`` each ``evaluate`` carries."""

from __future__ import annotations

from typing import Any

LLM_PROVIDERS_MAX = 40
LLM_FIELD_MAX = 200


def llm_config(params: Any, current: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stored form of ``configure_llm`` params (``{provider, main_model, mini_model?, nano_model?,
    endpoint?}``); with ``partial: true`` it is merged into ``current``. Raises ValueError naming the field."""
    if not isinstance(params, dict):
        raise ValueError("params must be an object with provider and models")
    partial = params.get("partial") is True
    out: dict[str, Any] = dict(current or {}) if partial else {}
    provider = params.get("provider")
    if provider is not None or not partial:
        if not isinstance(provider, str) or not provider.strip() or len(provider) > LLM_PROVIDERS_MAX:
            raise ValueError(f"provider must be a non-empty string of at most {LLM_PROVIDERS_MAX} characters")
        out["provider"] = provider.strip()
    models = params.get("models")
    if models is None and not partial:
        raise ValueError("models.main is required")
    if models is not None and not isinstance(models, dict):
        raise ValueError("models must be an object {main, mini?, nano?}")
    for name in ("main", "mini", "nano"):
        value = (models or {}).get(name)
        if value is None:
            if name == "main" and not partial:
                raise ValueError("models.main is required")
            continue
        if not isinstance(value, str) or not value.strip() or len(value) > LLM_FIELD_MAX:
            raise ValueError(f"models.{name} must be a non-empty string of at most {LLM_FIELD_MAX} characters")
        out[f"{name}_model"] = value.strip()
    endpoint = params.get("endpoint")
    if endpoint is not None:
        if not isinstance(endpoint, str) or not endpoint.startswith(("http://", "https://")) or \
                len(endpoint) > LLM_FIELD_MAX:
            raise ValueError("endpoint must be an http(s) URL")
        out["endpoint"] = endpoint
    return out


def eval_model(definition_model: Any, llm: dict[str, Any] | None) -> dict[str, Any]:
    """``params.model`` of an ``evaluate`` request, always present as the reference server sends it: the
    definition's own ``model`` (a name means the main model), else the client's ``configure_llm`` settings,
    else ``{}`` (the client keeps its own configuration)."""
    if isinstance(definition_model, dict):
        return dict(definition_model)
    if isinstance(definition_model, str) and definition_model.strip():
        return {"main_model": definition_model.strip()}
    return dict(llm or {})
