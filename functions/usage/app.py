"""Cost report: ``GET /usage`` (usage per day, agent and protocol with a cost estimate).

Filters (query string): ``agent``, ``protocol``, ``from`` and ``to`` (``YYYY-MM-DD``, UTC, inclusive;
default the last 7 days; at most 366 days). Needs ``x-api-key`` (or ``Authorization: Bearer``) equal
to ``AGENTHOST_USAGE_API_KEY`` (deployed: ``AGENTHOST_USAGE_API_KEY_PARAM``); a deployment without a
key configured answers 503, the local stack without one is open.
"""

from __future__ import annotations

import hmac
from datetime import UTC, date, datetime, timedelta
from typing import Any

from fastapi import Query, Request

from agenthost.config import settings
from agenthost.pricing import prices
from agenthost.secrets import secret
from agenthost.store import Store
from agenthost.webapp import ApiError, create_app, make_handler
from usage.report import MAX_DAYS, build, collect

app = create_app("usage")


def _authorize(request: Request) -> None:
    expected = secret("AGENTHOST_USAGE_API_KEY")
    if not expected:
        if settings().local:
            return
        raise ApiError(503, "the usage report needs an API key: set the UsageApiKeyParam parameter")
    given = request.headers.get("x-api-key", "")
    auth = request.headers.get("authorization", "")
    if not given and auth.lower().startswith("bearer "):
        given = auth[7:].strip()
    if not given:
        raise ApiError(401, "missing API key (send it in the x-api-key header)")
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise ApiError(401, "invalid API key")


def _day(value: str | None, name: str, default: date) -> date:
    if value is None or not value.strip():
        return default
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise ApiError(400, f"{name} must be a date as YYYY-MM-DD, got {value.strip()[:40]!r}") from None


def _filter(value: str | None) -> str | None:
    return value.strip() if value and value.strip() else None


@app.get("/usage")
def usage(
    request: Request,
    agent: str | None = None,
    protocol: str | None = None,
    from_: str | None = Query(None, alias="from"),
    to: str | None = None,
) -> dict[str, Any]:
    """Usage and cost estimate per day, agent and protocol, with totals."""
    _authorize(request)
    today = datetime.now(UTC).date()
    end = _day(to, "to", today)
    start = _day(from_, "from", end - timedelta(days=6))
    if start > end:
        raise ApiError(400, f"from ({start}) is after to ({end})")
    if (end - start).days + 1 > MAX_DAYS:
        raise ApiError(400, f"the date range covers {(end - start).days + 1} days; at most {MAX_DAYS} are allowed")
    agent, protocol = _filter(agent), _filter(protocol)
    table = prices()
    report = build(collect(Store(), start, end, agent=agent, protocol=protocol), table)
    return {
        "from": start.isoformat(), "to": end.isoformat(),
        "filters": {"agent": agent, "protocol": protocol},
        **report,
        "prices": {"source": table.table.get("_source", ""), "currency": table.table.get("currency", "USD"),
                   "architecture": table.architecture},
    }


handler = make_handler(app)
