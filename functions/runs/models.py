"""Wire shapes of the Proxy Server API, named after the spec."""

from __future__ import annotations

from pydantic import BaseModel


class Health(BaseModel):
    status: str
    model: str
    baseUrl: str  # noqa: N815 - the spec's field name
    timestamp: str
