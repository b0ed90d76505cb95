"""Metering's configuration, all read from :func:`agenthost.config.settings`: the daily LLM budgets
(``AGENTHOST_LLM_BUDGET_TOKENS``, ``AGENTHOST_LLM_BUDGET_USD``, ``AGENTHOST_LLM_BUDGETS``), the budget
cache's lifetime and the function's memory and architecture (for the cost model)."""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from agenthost.config import Settings
from agenthost.config import settings as core_settings


@dataclass(frozen=True)
class Budget:
    """A daily LLM budget; ``None`` means no limit on that measure."""

    tokens: int | None = None
    usd: float | None = None

    @property
    def limited(self) -> bool:
        return self.tokens is not None or self.usd is not None


def _positive_float(raw: Any, name: str) -> float | None:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    try:
        value = float(raw)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc
    return value if value > 0 else None


def _budgets(raw: str) -> dict[str, Budget]:
    """``AGENTHOST_LLM_BUDGETS``: a JSON object of agent -> {tokens, usd}."""
    budgets: dict[str, Budget] = {}
    if not raw:
        return budgets
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"AGENTHOST_LLM_BUDGETS is not valid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise ValueError("AGENTHOST_LLM_BUDGETS must be a JSON object of agent -> {tokens, usd}")
    for agent, spec in data.items():
        if not isinstance(spec, dict):
            raise ValueError(f"AGENTHOST_LLM_BUDGETS[{agent!r}] must be an object with tokens and/or usd")
        t = _positive_float(spec.get("tokens"), f"AGENTHOST_LLM_BUDGETS[{agent!r}].tokens")
        u = _positive_float(spec.get("usd"), f"AGENTHOST_LLM_BUDGETS[{agent!r}].usd")
        budgets[str(agent)] = Budget(int(t) if t else None, u)
    return budgets


@dataclass(frozen=True)
class MeteringConfig:
    default_budget: Budget
    budgets: dict[str, Budget]
    budget_cache_s: float
    memory_mb: int
    arch: str

    @classmethod
    def from_env(cls) -> MeteringConfig:
        cfg = core_settings()
        tokens = _positive_float(cfg.llm_budget_tokens, "AGENTHOST_LLM_BUDGET_TOKENS")
        usd = _positive_float(cfg.llm_budget_usd, "AGENTHOST_LLM_BUDGET_USD")
        machine = platform.machine().lower()
        return cls(
            default_budget=Budget(int(tokens) if tokens else None, usd),
            budgets=_budgets(cfg.llm_budgets.strip()),
            budget_cache_s=cfg.budget_cache_s,
            memory_mb=cfg.memory,
            arch="arm64" if machine in ("aarch64", "arm64") else "x86_64",
        )

    def budget_for(self, agent: str) -> Budget:
        return self.budgets.get(agent, self.default_budget)


def core() -> Settings:
    """The core settings (service name, metrics namespace, table, LLM call reserve)."""
    return core_settings()


@lru_cache(maxsize=1)
def config() -> MeteringConfig:
    return MeteringConfig.from_env()


def log_warning(message: str, *, exc_info: bool = True) -> None:
    """Log ``message`` (with the exception being handled); never raises (metering must not fail a turn)."""
    try:
        from aws_lambda_powertools import Logger

        Logger(service=core().service_name).warning(message, exc_info=exc_info)
    except Exception:  # noqa: BLE001, S110 - logging must not fail the turn either
        pass
