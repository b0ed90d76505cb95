"""What a site says about itself: the agents.json document (or its agents.txt fallback) as a :class:`Site`
of :class:`Capability` s with absolute endpoints, and the errors a call can raise."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from agenthost import urls
from agenthost.errors import Upstream

BASE_PATH = "/.well-known/agents/api"

#: endpoints and methods assumed for capabilities named in agents.txt (which lists names only)
DEFAULTS: dict[str, tuple[str, str, bool, bool]] = {
    # name: (method, path under BASE_PATH, requires_session, human_handoff)
    "search": ("GET", "/search", False, False),
    "browse": ("GET", "/browse", False, False),
    "detail": ("GET", "/detail/:id", False, False),
    "cart.add": ("POST", "/cart/add", True, False),
    "cart.view": ("GET", "/cart/view", True, False),
    "cart.update": ("PUT", "/cart/update", True, False),
    "cart.remove": ("DELETE", "/cart/remove", True, False),
    "checkout": ("POST", "/checkout", True, True),
    "contact": ("POST", "/contact", False, False),
}


class AgentsApiError(Upstream):
    """The site refused a call (or kept failing). ``status`` is the HTTP status (0: no response)."""

    def __init__(self, status: int, message: str, capability: str = ""):
        super().__init__(f"{capability + ': ' if capability else ''}{status} {message}")
        self.status = status
        self.message = message
        self.capability = capability


class DiscoveryError(AgentsApiError):
    pass


@dataclass
class Capability:
    name: str
    method: str
    endpoint: str  # absolute
    params: dict[str, Any] = field(default_factory=dict)
    requires_session: bool = False
    human_handoff: bool = False
    description: str = ""


@dataclass
class Site:
    name: str
    url: str
    source: str  # the URL the description came from (agents.json or agents.txt)
    capabilities: dict[str, Capability]
    session_create: str
    session_delete: str
    session_ttl_s: int | None = None
    requests_per_minute: int | None = None
    flows: list[dict[str, Any]] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Handoff:
    """A URL for the human (checkout). The agent must not follow it."""

    url: str
    expires_at: str | None = None
    human_handoff: bool = True


def parse_agents_txt(text: str) -> dict[str, Any]:
    """``Site:``, ``URL:``, ``Agents-JSON:``, ``Allow:`` (repeated), ``Rate-Limit: N/minute``,
    ``Session-TTL: Ns`` into a dict (unknown lines ignored)."""
    out: dict[str, Any] = {"allow": []}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or ":" not in line:
            continue
        key, value = (p.strip() for p in line.split(":", 1))
        key = key.lower()
        if key == "allow":
            out["allow"].append(value)
        elif key == "rate-limit":
            digits = value.split("/", 1)[0].strip()
            if digits.isdigit():
                out["rate_limit"] = int(digits)
        elif key == "session-ttl":
            digits = value.rstrip("s").strip()
            if digits.isdigit():
                out["session_ttl"] = int(digits)
        elif key in ("site", "url", "agents-json"):
            out[key] = value
    return out


def site_from_json(doc: dict[str, Any], source: str) -> Site:
    """The :class:`Site` an agents.json document at ``source`` describes (endpoints made absolute)."""
    caps: dict[str, Capability] = {}
    for raw in doc["capabilities"]:
        if not isinstance(raw, dict) or not raw.get("name") or not raw.get("endpoint"):
            continue
        name = str(raw["name"])
        caps[name] = Capability(
            name=name, method=str(raw.get("method") or "GET").upper(),
            endpoint=urljoin(source, str(raw["endpoint"])), params=dict(raw.get("params") or {}),
            requires_session=bool(raw.get("requires_session")), human_handoff=bool(raw.get("human_handoff")),
            description=str(raw.get("description") or ""))
    if not caps:
        raise DiscoveryError(200, f"{source} has no usable capabilities")
    site: dict[str, Any] = doc["site"] if isinstance(doc.get("site"), dict) else {}
    session: dict[str, Any] = doc["session"] if isinstance(doc.get("session"), dict) else {}
    default_session = urljoin(source, BASE_PATH + "/session")
    rate: dict[str, Any] = doc["rate_limit"] if isinstance(doc.get("rate_limit"), dict) else {}
    return Site(
        name=str(site.get("name") or ""), url=urljoin(source, str(site.get("url") or "/")), source=source,
        capabilities=caps,
        session_create=urljoin(source, str(session.get("create") or default_session)),
        session_delete=urljoin(source, str(session.get("delete") or default_session)),
        session_ttl_s=session.get("ttl_seconds") if isinstance(session.get("ttl_seconds"), int) else None,
        requests_per_minute=rate.get("requests_per_minute") if isinstance(
            rate.get("requests_per_minute"), int) else None,
        flows=[f for f in doc.get("flows") or [] if isinstance(f, dict)], raw=doc)

def site_from_txt(info: dict[str, Any], source: str) -> Site:
    """The :class:`Site` a parsed agents.txt at ``source`` describes: its allowed capability names at the
    endpoints :data:`DEFAULTS` assumes."""
    caps = {}
    for name in info["allow"]:
        method, path, needs_session, handoff = DEFAULTS.get(name, ("POST", "/" + name.replace(".", "/"),
                                                                   False, False))
        caps[name] = Capability(name=name, method=method, endpoint=urljoin(source, BASE_PATH + path),
                                requires_session=needs_session, human_handoff=handoff)
    if not caps:
        raise DiscoveryError(200, f"{source} allows no capabilities")
    session = urljoin(source, BASE_PATH + "/session")
    return Site(name=str(info.get("site") or ""), url=str(info.get("url") or urls.origin(source) + "/"),
                source=source, capabilities=caps, session_create=session, session_delete=session,
                session_ttl_s=info.get("session_ttl"), requests_per_minute=info.get("rate_limit"))
