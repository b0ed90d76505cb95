"""Wire shapes of the agents.json Interaction API (``specs/agents-json-interaction-api.md``).

Input models are lenient (unknown fields ignored, numbers given as strings accepted); output models
are strict (``extra="forbid"``) so a response can only carry what the spec names.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- agents.json ------------------------------------------------------------------------------

class Param(_Out):
    type: Literal["string", "integer", "number", "boolean", "object", "array"]
    required: bool = False
    description: str = ""
    default: Any = None
    enum: list[Any] | None = None


class Capability(_Out):
    name: str
    description: str
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
    endpoint: str
    params: dict[str, Param] = Field(default_factory=dict)
    requires_session: bool = False
    human_handoff: bool = False


class Site(_Out):
    name: str
    url: str
    description: str | None = None
    contact: str | None = None


class SessionInfo(_Out):
    create: str
    delete: str
    ttl_seconds: int


class Flow(_Out):
    name: str
    description: str
    steps: list[str] = Field(min_length=2)


class RateLimit(_Out):
    requests_per_minute: int


class Audit(_Out):
    enabled: bool
    endpoint: str | None = None
    description: str | None = None


class AgentsJson(_Out):
    schema_version: str
    site: Site
    capabilities: list[Capability] = Field(min_length=1)
    session: SessionInfo | None = None
    flows: list[Flow] = Field(default_factory=list)
    rate_limit: RateLimit | None = None
    audit: Audit | None = None


# ---- requests ---------------------------------------------------------------------------------

class CartAdd(_In):
    item_id: str = Field(min_length=1, max_length=200)
    quantity: int = 1
    # ``name`` and ``price`` may be sent by agents (the spec's example does); they are ignored:
    # names and prices always come from the catalog.


class CartUpdate(_In):
    item_id: str = Field(min_length=1, max_length=200)
    quantity: int


class CartRemove(_In):
    item_id: str = Field(min_length=1, max_length=200)


class Contact(_In):
    name: str = Field(min_length=1, max_length=200)
    email: str = Field(min_length=3, max_length=320, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
    message: str = Field(min_length=1, max_length=5000)
    subject: str | None = Field(default=None, max_length=300)


# ---- responses (the ``data`` of the envelope) ------------------------------------------------

class SessionCreated(_Out):
    session_token: str
    expires_at: str
    capabilities: list[str]


class SessionEnded(_Out):
    ended: Literal[True] = True


class CartAdded(_Out):
    item_id: str
    quantity: int
    cart_size: int


class CartUpdated(_Out):
    item_id: str
    quantity: int


class CartRemoved(_Out):
    item_id: str
    removed: Literal[True] = True


class CartLine(_Out):
    item_id: str
    #: the same id in camelCase, for clients written against SDKs that name cart lines that way
    itemId: str  # noqa: N815 - a wire name
    name: str
    quantity: int
    price: float
    price_minor: int
    line_total: float
    line_total_minor: int
    currency: str
    available: bool


class CartView(_Out):
    items: list[CartLine]
    subtotal: float
    subtotal_minor: int
    currency: str
    item_count: int


class CheckoutHandoff(_Out):
    checkout_url: str
    human_handoff: Literal[True] = True
    expires_at: str


class ContactSent(_Out):
    sent: Literal[True] = True
