"""The HTTP side of the agents.json client: :class:`AgentsClient` (discovery, sessions, the spec's retries
and pacing, typed helpers). What a site describes is in :mod:`agenthost.agents_client.site`."""

from __future__ import annotations

import email.utils
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import httpx

from agenthost import urls
from agenthost.agents_client.site import (
    AgentsApiError,
    Capability,
    DiscoveryError,
    Handoff,
    Site,
    parse_agents_txt,
    site_from_json,
    site_from_txt,
)

USER_AGENT = "agenthost-agents-client/0.1"


@dataclass
class _Tries:
    """What one call has used of its retries (:meth:`AgentsClient._send`)."""

    idem: str | None  # the Idempotency-Key of a POST, kept across its retries
    renewed: bool  # the session was renewed (or must not be)
    failures: int = 0  # network errors and 5xx
    limited: int = 0  # 429s
    waited_409: bool = False


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
            json_url = urls.origin(self.site_url) + "/.well-known/agents.json"
        problem = ""
        try:
            doc = self._get_doc(json_url)
            self._site = site_from_json(doc, json_url)
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
                self._site = site_from_json(self._get_doc(urljoin(txt_url, other)), urljoin(txt_url, other))
                return self._site
            except DiscoveryError:
                pass
        self._site = site_from_txt(info, txt_url)
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
        tries = _Tries(idem=str(uuid.uuid4()) if method == "POST" else None, renewed=not renew)
        while True:
            self._paced()
            headers = {"User-Agent": self.user_agent, "Accept": "application/json"}
            if with_session and self.token:
                headers["Authorization"] = f"Bearer {self.token}"
            if tries.idem:
                headers["Idempotency-Key"] = tries.idem
            try:
                resp = self.http.request(method, url, params=params,
                                         json=json_body if method != "GET" else None, headers=headers)
            except httpx.HTTPError as exc:
                self._back_off(tries, AgentsApiError(0, f"network error: {type(exc).__name__}", capability))
                continue
            self.history.append((method, url, resp.status_code))
            if not self._again(resp, tries, capability, with_session):
                return _data(resp, capability)

    def _back_off(self, tries: _Tries, error: AgentsApiError) -> None:
        """One more failure (network or 5xx): wait exponentially, or raise ``error`` past ``max_retries``."""
        tries.failures += 1
        if tries.failures > self.max_retries:
            raise error from None
        self.sleep(self.backoff_s * 2 ** (tries.failures - 1))

    def _again(self, resp: httpx.Response, tries: _Tries, capability: str, with_session: bool) -> bool:
        """Whether to send the request again after ``resp`` (having waited as the spec says); raises
        :class:`AgentsApiError` for an answer that is final and not a success."""
        status = resp.status_code
        if status == 429:
            tries.limited += 1
            if tries.limited > self.max_retries:
                raise AgentsApiError(429, _message(resp), capability)
            wait = _retry_after(resp.headers.get("retry-after"))
            self.sleep(min(self.max_wait_s, wait if wait is not None else 2 ** (tries.limited - 1)))
            return True
        if status == 409 and tries.idem and not tries.waited_409:
            # the site still runs the first request with this key (a retry raced it): ask once more
            tries.waited_409 = True
            wait = _retry_after(resp.headers.get("retry-after"))
            self.sleep(min(self.max_wait_s, wait if wait is not None else 1.0))
            return True
        if status >= 500:
            self._back_off(tries, AgentsApiError(status, _message(resp), capability))
            return True
        if status == 401 and with_session and not tries.renewed:
            tries.renewed = True
            self.start_session()
            if tries.idem:
                tries.idem = str(uuid.uuid4())  # a new session is a new request
            return True
        if status >= 400:
            raise AgentsApiError(status, _message(resp), capability)
        return False

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


def _data(resp: httpx.Response, capability: str) -> Any:
    """The envelope's ``data`` (or the whole body when the site sends no envelope)."""
    try:
        body = resp.json()
    except ValueError:
        raise AgentsApiError(resp.status_code, "the site answered with invalid JSON", capability) from None
    if isinstance(body, dict) and "ok" in body:
        if body.get("ok") is False:
            raise AgentsApiError(resp.status_code, str(body.get("error") or "error"), capability)
        return body.get("data")
    return body
