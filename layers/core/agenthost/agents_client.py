"""Client for sites that speak the agents.json Interaction API (``specs/agents-json-interaction-api.md``).

Discovery reads ``/.well-known/agents.json`` (falling back to ``/.well-known/agents.txt``), resolves
relative endpoints against the document's URL, and keeps each capability's method, endpoint and whether
it needs a session. Calls then follow the spec's rules:

* a session is created on first need, renewed once when the site answers 401, and ended on request;
* 429 waits ``Retry-After`` seconds (exponential 1/2/4 s when absent) and retries, up to ``max_retries``;
* 5xx and network errors back off exponentially, up to ``max_retries`` (3) retries; POSTs carry one
  ``Idempotency-Key`` across their retries so a retry never adds twice; a 409 (the site is still running
  the first request with that key) is retried once after ``Retry-After`` (1 s when absent);
* requests are paced to the site's ``rate_limit.requests_per_minute`` (the spec's SHOULD): never more than
  that many in any 60 s, waiting for the oldest to leave the window (``pace=False`` turns this off);
* 400 and 404 are never retried: :class:`AgentsApiError` carries the site's message;
* checkout returns a :class:`Handoff` with the URL for the human; the client never follows it.

Outbound requests go through :func:`agenthost.netguard.guarded_client` unless an ``httpx.Client`` is
given. Example::

    >>> from agenthost.agents_client import AgentsClient
    >>> with AgentsClient("https://shop.example") as shop:  # doctest: +SKIP
    ...     mug = shop.search("blue mug", limit=1)[0]
    ...     shop.add_to_cart(mug["id"], 2)
    ...     print(shop.checkout().url)          # give this to the human

Command line: ``python -m agenthost.agents_client https://shop.example search "blue mug"``.
"""

from __future__ import annotations

import argparse
import email.utils
import json
import sys
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import httpx

from agenthost.netguard import Blocked

BASE_PATH = "/.well-known/agents/api"
USER_AGENT = "agenthost-agents-client/0.1"

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


class AgentsApiError(Exception):
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


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


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


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class AgentsClient:
    """A client for one site. ``sleep`` and ``http`` are injectable (tests)."""

    def __init__(
        self,
        site_url: str,
        *,
        http: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
        user_agent: str = USER_AGENT,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        max_wait_s: float = 60.0,
        timeout_s: float = 15.0,
        token: str | None = None,
        pace: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.site_url = site_url.rstrip("/")
        if http is None:
            from agenthost.netguard import guarded_client

            http = guarded_client(timeout=timeout_s, follow_redirects=False)
        self.http = http
        self.sleep = sleep
        self.user_agent = user_agent
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_wait_s = max_wait_s
        self.token = token
        self.session_expires_at: str | None = None
        self.pace = pace
        self.clock = clock
        self._sent: deque[float] = deque()  # when recent requests were sent (pacing)
        self._site: Site | None = None
        #: (method, url, status) of every HTTP exchange, for logs and tests
        self.history: list[tuple[str, str, int]] = []

    # ---- context manager
    def __enter__(self) -> AgentsClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    # ---- discovery
    @property
    def site(self) -> Site:
        if self._site is None:
            self._site = self.discover()
        return self._site

    def discover(self) -> Site:
        """Read agents.json (or agents.txt when agents.json is missing or invalid)."""
        if self.site_url.endswith(".json"):
            json_url = self.site_url
        else:
            json_url = _origin(self.site_url) + "/.well-known/agents.json"
        problem = ""
        try:
            doc = self._get_doc(json_url)
            self._site = self._from_json(doc, json_url)
            return self._site
        except DiscoveryError as exc:
            problem = exc.message
        txt_url = urljoin(json_url, "/.well-known/agents.txt")
        try:
            text = self._get_text(txt_url)
        except DiscoveryError as exc:
            raise DiscoveryError(exc.status, f"no usable agents.json ({problem}) nor agents.txt ({exc.message})") \
                from None
        info = parse_agents_txt(text)
        other = info.get("agents-json")
        if other and urljoin(txt_url, other) != json_url:
            try:
                self._site = self._from_json(self._get_doc(urljoin(txt_url, other)), urljoin(txt_url, other))
                return self._site
            except DiscoveryError:
                pass
        self._site = self._from_txt(info, txt_url)
        return self._site

    def _paced(self) -> None:
        """Wait, if needed, so that no 60 s window holds more requests than the site's declared limit."""
        now = self.clock()
        while self._sent and self._sent[0] <= now - 60:
            self._sent.popleft()
        rpm = self._site.requests_per_minute if self._site is not None else None
        if self.pace and rpm and rpm > 0 and len(self._sent) >= rpm:
            wait = min(self.max_wait_s, self._sent[len(self._sent) - rpm] + 60 - now)
            if wait > 0:
                self.sleep(wait)
                now = self.clock()
        self._sent.append(now)
        while len(self._sent) > max(rpm or 0, 1) * 2:
            self._sent.popleft()

    def _fetch(self, url: str) -> httpx.Response:
        for attempt in range(self.max_retries + 1):
            self._paced()
            try:
                resp = self.http.get(url, headers={"User-Agent": self.user_agent,
                                                   "Accept": "application/json, text/plain"})
            except httpx.HTTPError as exc:
                if attempt == self.max_retries:
                    raise DiscoveryError(0, f"could not reach {url}: {type(exc).__name__}") from None
                self.sleep(self.backoff_s * 2 ** attempt)
                continue
            self.history.append(("GET", url, resp.status_code))
            if resp.status_code == 429 and attempt < self.max_retries:
                self.sleep(min(self.max_wait_s, _retry_after(resp.headers.get("retry-after")) or 2 ** attempt))
                continue
            if resp.status_code >= 500 and attempt < self.max_retries:
                self.sleep(self.backoff_s * 2 ** attempt)
                continue
            if resp.status_code != 200:
                raise DiscoveryError(resp.status_code, f"{url} answered {resp.status_code}")
            return resp
        raise DiscoveryError(0, f"{url} kept failing")

    def _get_doc(self, url: str) -> dict[str, Any]:
        resp = self._fetch(url)
        try:
            doc = resp.json()
        except ValueError:
            raise DiscoveryError(resp.status_code, f"{url} is not JSON") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("capabilities"), list) or not doc["capabilities"]:
            raise DiscoveryError(resp.status_code, f"{url} has no capabilities")
        return doc

    def _get_text(self, url: str) -> str:
        return self._fetch(url).text

    def _from_json(self, doc: dict[str, Any], source: str) -> Site:
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

    def _from_txt(self, info: dict[str, Any], source: str) -> Site:
        caps = {}
        for name in info["allow"]:
            method, path, needs_session, handoff = DEFAULTS.get(name, ("POST", "/" + name.replace(".", "/"),
                                                                       False, False))
            caps[name] = Capability(name=name, method=method, endpoint=urljoin(source, BASE_PATH + path),
                                    requires_session=needs_session, human_handoff=handoff)
        if not caps:
            raise DiscoveryError(200, f"{source} allows no capabilities")
        session = urljoin(source, BASE_PATH + "/session")
        return Site(name=str(info.get("site") or ""), url=str(info.get("url") or _origin(source) + "/"),
                    source=source, capabilities=caps, session_create=session, session_delete=session,
                    session_ttl_s=info.get("session_ttl"), requests_per_minute=info.get("rate_limit"))

    # ---- sessions
    def start_session(self) -> str:
        data = self._send("POST", self.site.session_create, capability="session", with_session=False)
        if not isinstance(data, dict) or not data.get("session_token"):
            raise AgentsApiError(0, "the site did not return a session_token", "session")
        self.token = str(data["session_token"])
        self.session_expires_at = data.get("expires_at")
        return self.token

    def end_session(self) -> bool:
        """End the current session (if any). Returns whether the site confirmed it."""
        if not self.token:
            return False
        try:
            data = self._send("DELETE", self.site.session_delete, capability="session", with_session=True,
                              renew=False)
        except AgentsApiError as exc:
            if exc.status == 401:  # already expired or ended
                self.token = None
                return False
            raise
        self.token = None
        return bool(isinstance(data, dict) and data.get("ended"))

    # ---- calls
    def capability(self, name: str) -> Capability:
        found = self.site.capabilities.get(name)
        if found is None:
            raise AgentsApiError(0, f"the site does not offer {name!r} "
                                    f"(it offers {', '.join(sorted(self.site.capabilities))})", name)
        return found

    def call(self, name: str, params: dict[str, Any] | None = None) -> Any:
        """Call capability ``name``: GET params go in the query, others in a JSON body; path placeholders
        (``{id}``, ``:id``) are filled from ``params``. Returns the envelope's ``data``."""
        cap = self.capability(name)
        args = dict(params or {})
        url = cap.endpoint
        for key in list(args):
            for placeholder in ("{" + key + "}", ":" + key):
                if placeholder in url:
                    url = url.replace(placeholder, quote(str(args.pop(key)), safe=""))
                    break
        if "{" in url or "/:" in urlsplit(url).path:
            missing = url[url.find("{"):].split("}")[0] + "}" if "{" in url else "a path parameter"
            raise AgentsApiError(0, f"missing parameter {missing}", name)
        if cap.method == "GET":
            return self._send("GET", url, params=args or None, capability=name, with_session=cap.requires_session)
        return self._send(cap.method, url, json_body=args, capability=name, with_session=cap.requires_session)

    def _send(self, method: str, url: str, *, params: dict[str, Any] | None = None,
              json_body: dict[str, Any] | None = None, capability: str = "", with_session: bool = False,
              renew: bool = True) -> Any:
        if with_session and not self.token:
            self.start_session()
        idem = str(uuid.uuid4()) if method == "POST" else None
        failures = limited = 0
        renewed = not renew
        waited_409 = False
        while True:
            self._paced()
            headers = {"User-Agent": self.user_agent, "Accept": "application/json"}
            if with_session and self.token:
                headers["Authorization"] = f"Bearer {self.token}"
            if idem:
                headers["Idempotency-Key"] = idem
            try:
                resp = self.http.request(method, url, params=params,
                                         json=json_body if method != "GET" else None, headers=headers)
            except httpx.HTTPError as exc:
                failures += 1
                if failures > self.max_retries:
                    raise AgentsApiError(0, f"network error: {type(exc).__name__}", capability) from None
                self.sleep(self.backoff_s * 2 ** (failures - 1))
                continue
            self.history.append((method, url, resp.status_code))
            status = resp.status_code
            if status == 429:
                limited += 1
                if limited > self.max_retries:
                    raise AgentsApiError(429, _message(resp), capability)
                wait = _retry_after(resp.headers.get("retry-after"))
                self.sleep(min(self.max_wait_s, wait if wait is not None else 2 ** (limited - 1)))
                continue
            if status == 409 and idem and not waited_409:
                # the site still runs the first request with this key (a retry raced it): ask once more
                waited_409 = True
                wait = _retry_after(resp.headers.get("retry-after"))
                self.sleep(min(self.max_wait_s, wait if wait is not None else 1.0))
                continue
            if status >= 500:
                failures += 1
                if failures > self.max_retries:
                    raise AgentsApiError(status, _message(resp), capability)
                self.sleep(self.backoff_s * 2 ** (failures - 1))
                continue
            if status == 401 and with_session and not renewed:
                renewed = True
                self.start_session()
                if idem:
                    idem = str(uuid.uuid4())  # a new session is a new request
                continue
            if status >= 400:
                raise AgentsApiError(status, _message(resp), capability)
            try:
                body = resp.json()
            except ValueError:
                raise AgentsApiError(status, "the site answered with invalid JSON", capability) from None
            if isinstance(body, dict) and "ok" in body:
                if body.get("ok") is False:
                    raise AgentsApiError(status, str(body.get("error") or "error"), capability)
                return body.get("data")
            return body

    # ---- typed helpers
    def search(self, q: str, limit: int | None = None, **filters: Any) -> list[dict[str, Any]]:
        return list(self.call("search", {"q": q, **({"limit": limit} if limit else {}), **filters}) or [])

    def browse(self, page: int = 1, limit: int | None = None, category: str | None = None,
               **filters: Any) -> dict[str, Any]:
        args: dict[str, Any] = {"page": page, **filters}
        if limit:
            args["limit"] = limit
        if category:
            args["category"] = category
        return dict(self.call("browse", args) or {})

    def detail(self, item_id: str) -> dict[str, Any]:
        return dict(self.call("detail", {"id": item_id}) or {})

    def add_to_cart(self, item_id: str, quantity: int = 1) -> dict[str, Any]:
        return dict(self.call("cart.add", {"item_id": item_id, "quantity": quantity}) or {})

    def view_cart(self) -> dict[str, Any]:
        return dict(self.call("cart.view") or {})

    def update_cart(self, item_id: str, quantity: int) -> dict[str, Any]:
        return dict(self.call("cart.update", {"item_id": item_id, "quantity": quantity}) or {})

    def remove_from_cart(self, item_id: str) -> dict[str, Any]:
        return dict(self.call("cart.remove", {"item_id": item_id}) or {})

    def checkout(self) -> Handoff:
        """Start checkout; returns the URL for the human (never followed here)."""
        data = self.call("checkout")
        if not isinstance(data, dict) or not data.get("checkout_url"):
            raise AgentsApiError(0, "the site returned no checkout_url", "checkout")
        return Handoff(url=str(data["checkout_url"]), expires_at=data.get("expires_at"))

    def contact(self, name: str, email: str, message: str, **extra: Any) -> bool:
        data = self.call("contact", {"name": name, "email": email, "message": message, **extra})
        return bool(isinstance(data, dict) and data.get("sent"))


def _message(resp: httpx.Response) -> str:
    try:
        body = resp.json()
    except ValueError:
        return resp.reason_phrase or f"HTTP {resp.status_code}"
    if isinstance(body, dict):
        return str(body.get("error") or body.get("message") or resp.reason_phrase)
    return resp.reason_phrase


# ---- command line -----------------------------------------------------------------------------

def main(argv: list[str] | None = None, http: httpx.Client | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agenthost.agents_client",
                                     description="Try an agents.json site by hand.")
    parser.add_argument("site", help="site URL (or its agents.json URL)")
    parser.add_argument("--session", help="reuse this session token")
    parser.add_argument("--keep", action="store_true", help="do not end the session at exit")
    parser.add_argument("--no-pace", action="store_true",
                        help="do not pace requests to the site's declared requests_per_minute")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("discover", help="print the capabilities")
    p = sub.add_parser("search")
    p.add_argument("q")
    p.add_argument("--limit", type=int)
    p = sub.add_parser("browse")
    p.add_argument("--page", type=int, default=1)
    p.add_argument("--limit", type=int)
    p.add_argument("--category")
    p = sub.add_parser("detail")
    p.add_argument("id")
    p = sub.add_parser("add", help="add to cart (then shows the cart)")
    p.add_argument("id")
    p.add_argument("quantity", type=int, nargs="?", default=1)
    sub.add_parser("cart")
    p = sub.add_parser("buy", help="add ITEM, then print the checkout URL for you to open")
    p.add_argument("id")
    p.add_argument("quantity", type=int, nargs="?", default=1)
    p = sub.add_parser("call", help="call any capability with JSON params")
    p.add_argument("capability")
    p.add_argument("params", nargs="?", default="{}")
    args = parser.parse_args(argv)

    client = AgentsClient(args.site, http=http, token=args.session, pace=not args.no_pace)
    out: Any
    try:
        if args.command == "discover":
            s = client.site
            out = {"site": s.name, "source": s.source, "requests_per_minute": s.requests_per_minute,
                   "capabilities": {c.name: f"{c.method} {c.endpoint}" + (" [session]" if c.requires_session
                                                                         else "") for c in s.capabilities.values()}}
        elif args.command == "search":
            out = client.search(args.q, args.limit)
        elif args.command == "browse":
            out = client.browse(args.page, args.limit, args.category)
        elif args.command == "detail":
            out = client.detail(args.id)
        elif args.command == "add":
            client.add_to_cart(args.id, args.quantity)
            out = client.view_cart()
        elif args.command == "cart":
            out = client.view_cart()
        elif args.command == "buy":
            client.add_to_cart(args.id, args.quantity)
            handoff = client.checkout()
            out = {"cart": client.view_cart(), "checkout_url": handoff.url,
                   "note": "open this URL yourself to review and confirm; the agent does not follow it"}
        else:
            out = client.call(args.capability, json.loads(args.params))
        print(json.dumps(out, indent=2, ensure_ascii=False))
        if client.token and args.keep:
            print(f"session token (reuse with --session): {client.token}", file=sys.stderr)
        return 0
    except AgentsApiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Blocked as exc:
        print(f"error: {blocked_message(exc)}", file=sys.stderr)
        return 2
    finally:
        if client.token and not args.keep and not args.session:
            try:
                client.end_session()
            except (AgentsApiError, Blocked):
                pass
        client.close()


def blocked_message(exc: Blocked) -> str:
    """One line for a URL the outbound guard refused, naming the setting that would allow it."""
    if "metadata" in exc.reason:
        hint = "cloud metadata endpoints are refused unless listed in AGENTHOST_NETGUARD_ALLOW"
    elif exc.reason.startswith("address "):
        hint = ("to allow private and loopback sites set AGENTHOST_NETGUARD_ALLOW_PRIVATE=true, or list the "
                "host in AGENTHOST_NETGUARD_ALLOW")
    else:
        hint = "check the site URL"
    return f"{exc.url} refused: {exc.reason} ({hint})"


if __name__ == "__main__":
    sys.exit(main())
