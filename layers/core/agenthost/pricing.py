"""The price table and the per-turn cost model.

Defaults are list prices in ``prices.json`` next to this module (us-east-1, on-demand). Override any
entry with ``AGENTHOST_PRICES``: a path to a JSON file or inline JSON, merged key by key into the
defaults (so ``{"llm": {"my-model": {"input_per_million": 1, "output_per_million": 2}}}`` adds a model
and keeps the rest).

The cost of usage counters (see :mod:`agenthost.metering`) is::

    lambda compute   = mb_ms / 1024 / 1000 * lambda[arch].gb_second      (GB-seconds x price)
    lambda requests  = invocations * lambda[arch].requests_per_million / 1e6
    API              = (turns - url_turns) * http_api.requests_per_million / 1e6
                       + url_turns * function_url.requests_per_million / 1e6 (HTTP protocols; url_turns:
                       turns that came through a Lambda function URL, which bills no API request)
                     | ws_messages * websocket.messages_per_million / 1e6
                       + ws_connection_minutes * websocket.connection_minutes_per_million / 1e6
    DynamoDB         = ddb_wru * write_units_per_million / 1e6 + ddb_rru * read_units_per_million / 1e6
    LLM              = tokens_in * llm[model].input_per_million / 1e6 + tokens_out * output_per_million / 1e6

Example::

    >>> from agenthost.pricing import Prices
    >>> round(Prices.load().llm_usd("gpt-4o-mini", 1_000_000, 0), 2)
    0.15
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

DEFAULTS = Path(__file__).with_name("prices.json")
MILLION = 1_000_000


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _override(raw: str) -> dict[str, Any]:
    text = raw.strip()
    if not text:
        return {}
    if not text.startswith("{"):
        text = Path(text).read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("AGENTHOST_PRICES must be a JSON object")
    return data


@dataclass(frozen=True)
class Prices:
    """A price table (plain nested dict from JSON) with lookups used by the cost model."""

    table: dict[str, Any]

    @classmethod
    def load(cls, override: str | Mapping[str, Any] | None = None) -> Prices:
        """Defaults merged with ``override`` (JSON text, a file path, a mapping) or ``AGENTHOST_PRICES``."""
        base = json.loads(DEFAULTS.read_text(encoding="utf-8"))
        if override is None:
            from agenthost.config import settings

            extra = _override(settings().prices)
        elif isinstance(override, Mapping):
            extra = dict(override)
        else:
            extra = _override(override)
        return cls(_merge(base, extra))

    # lookups
    @property
    def architecture(self) -> str:
        return str(self.table.get("architecture", "arm64"))

    def lambda_prices(self, arch: str | None = None) -> dict[str, float]:
        lam = self.table["lambda"]
        return lam.get(arch or self.architecture) or lam[self.architecture]

    def transport(self, protocol: str) -> str:
        """``http_api`` or ``websocket``: how a turn of ``protocol`` reaches its function."""
        return str(self.table.get("protocols", {}).get(protocol, "http_api"))

    def llm_price(self, model: str | None) -> dict[str, float]:
        """Per-million-token prices of ``model``: exact id, then the id after a provider prefix
        (``openai/gpt-4o-mini``), then ``default``. ``deterministic`` (no LLM) costs nothing."""
        table = self.table.get("llm", {})
        name = (model or "deterministic").strip()
        for candidate in (name, name.rsplit("/", 1)[-1], name.split(".", 1)[-1] if name.count(".") > 1 else ""):
            if candidate and candidate in table:
                return table[candidate]
        return table.get("default", {"input_per_million": 0.0, "output_per_million": 0.0})

    def llm_usd(self, model: str | None, tokens_in: float, tokens_out: float) -> float:
        p = self.llm_price(model)
        return (tokens_in * float(p.get("input_per_million", 0)) +
                tokens_out * float(p.get("output_per_million", 0))) / MILLION

    # the cost model
    def estimate(self, usage: Mapping[str, Any], *, protocol: str, model: str | None = None,
                 arch: str | None = None) -> dict[str, float]:
        """Dollar cost of a set of usage counters (one turn, a day, a report row), by line item.

        Returns ``lambda_compute``, ``lambda_requests``, ``api``, ``dynamodb``, ``infra`` (their sum),
        ``llm`` and ``total``."""
        def n(key: str) -> float:
            return float(usage.get(key) or 0)

        lam = self.lambda_prices(arch or usage.get("arch"))
        turns = n("turns")
        invocations = n("invocations") or turns
        compute = n("mb_ms") / 1024 / 1000 * float(lam["gb_second"])
        requests = invocations * float(lam["requests_per_million"]) / MILLION
        if self.transport(protocol) == "websocket":
            ws = self.table["websocket"]
            api = (n("ws_messages") * float(ws["messages_per_million"]) +
                   n("ws_connection_minutes") * float(ws["connection_minutes_per_million"])) / MILLION
        else:
            via_url = min(n("url_turns"), turns)
            url_price = float(self.table.get("function_url", {}).get("requests_per_million", 0.0))
            api = ((turns - via_url) * float(self.table["http_api"]["requests_per_million"]) +
                   via_url * url_price) / MILLION
        ddb = self.table["dynamodb"]
        dynamodb = (n("ddb_wru") * float(ddb["write_units_per_million"]) +
                    n("ddb_rru") * float(ddb["read_units_per_million"])) / MILLION
        llm = self.llm_usd(model or usage.get("model"), n("tokens_in"), n("tokens_out"))
        infra = compute + requests + api + dynamodb
        return {"lambda_compute": compute, "lambda_requests": requests, "api": api, "dynamodb": dynamodb,
                "infra": infra, "llm": llm, "total": infra + llm}


@lru_cache(maxsize=1)
def prices() -> Prices:
    """The process-wide price table (defaults + ``AGENTHOST_PRICES``), loaded once."""
    return Prices.load()


def reset() -> None:
    """Forget the cached table (tests change ``AGENTHOST_PRICES``)."""
    prices.cache_clear()
