"""What goes over the wire: the ``{ok, data|error}`` envelope, product and price shapes, and the parsing
of query strings, JSON bodies and session tokens that every route shares.

Query and body values are parsed by hand rather than declared as FastAPI parameters so that every
refusal is the spec's envelope with a message naming the parameter and the bound it broke (a declared
parameter would answer FastAPI's own 422 shape), and so that the OpenAPI document stays as it is.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError

from agenthost.webapp import ApiError
from agents_api.catalog import Filters, Product

SORTS = ("relevance", "price_asc", "price_desc", "name")


def error_body(status: int, code: str, message: str) -> dict[str, Any]:
    """The spec's error envelope, for :func:`agenthost.webapp.create_app`."""
    return {"ok": False, "error": message}


def ok(data: Any, status: int = 200) -> JSONResponse:
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", exclude_none=True)
    return JSONResponse({"ok": True, "data": data}, status_code=status, media_type="application/json")


def compact(doc: Any) -> bytes:
    """JSON as the routes' responses write it (byte-identical replays)."""
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def major(minor: int) -> float:
    return round(int(minor) / 100, 2)


def product_out(p: Product) -> dict[str, Any]:
    out = {k: v for k, v in p.items() if k not in ("price_minor",)}
    out["price"] = major(p.get("price_minor", 0))
    out["price_minor"] = int(p.get("price_minor", 0))
    out["in_stock"] = int(p.get("stock", 0)) > 0
    return out


# ---- request parsing --------------------------------------------------------------------------

def query(request: Request, name: str) -> str | None:
    value = request.query_params.get(name)
    return value.strip() if value is not None else None


def integer(raw: Any, name: str, default: int, lo: int, hi: int) -> int:
    if raw is None or raw == "":
        return default
    if isinstance(raw, bool):
        raise ApiError(400, f"{name} must be an integer between {lo} and {hi}")
    try:
        value = int(raw) if not isinstance(raw, float) or raw.is_integer() else None
    except (TypeError, ValueError):
        value = None
    if value is None or not lo <= value <= hi:
        raise ApiError(400, f"{name} must be an integer between {lo} and {hi}, got {str(raw)[:40]!r}")
    return value


def _price(raw: str | None, name: str) -> int | None:
    if raw is None or raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value == value or value < 0 or value > 1e9:
        raise ApiError(400, f"{name} must be a non-negative price in {'major'} units, got {raw[:40]!r}")
    return round(value * 100)


def _bool(raw: str | None, name: str) -> bool | None:
    if raw is None or raw == "":
        return None
    if raw.lower() in ("1", "true", "yes"):
        return True
    if raw.lower() in ("0", "false", "no"):
        return False
    raise ApiError(400, f"{name} must be true or false, got {raw[:40]!r}")


def filters(request: Request) -> Filters:
    sort = query(request, "sort") or None
    if sort is not None and sort not in SORTS:
        raise ApiError(400, f"sort must be one of {', '.join(SORTS)}, got {sort[:40]!r}")
    lo = _price(query(request, "min_price"), "min_price")
    hi = _price(query(request, "max_price"), "max_price")
    if lo is not None and hi is not None and lo > hi:
        raise ApiError(400, "min_price must not exceed max_price")
    return Filters(category=query(request, "category") or None, min_price_minor=lo, max_price_minor=hi,
                   in_stock=_bool(query(request, "in_stock"), "in_stock"), sort=sort)


async def body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"Malformed JSON body: {str(exc)[:120]}") from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ApiError(400, "the request body must be a JSON object")
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        raise ApiError(400, "the request body contains invalid unicode (lone surrogate escapes)") from None
    return doc


def validate(model: type[BaseModel], data: dict[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err.get("loc", ())) or "body"
            if err.get("type") == "missing":
                problems.append(f"missing required parameter: {field}")
            else:
                problems.append(f"invalid parameter {field}: {err.get('msg', 'invalid')}")
        raise ApiError(400, "; ".join(problems)) from None


def token_of(headers: Any) -> str | None:
    """The session token from ``Authorization: Bearer``, ``X-Session-Token`` or ``X-Agent-Session``."""
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer " and auth[7:].strip():
        return str(auth[7:].strip())
    for name in ("x-session-token", "x-agent-session"):
        value = headers.get(name, "").strip()
        if value:
            return str(value)
    return None
