"""JSON API questions: fetch the data through the guarded HTTP client, then compute with the table skill.

Input: a question about an API's data (``"Using the API at https://shop.test/api/products, what is the total
stock of the Fruit category?"``, ``"How many users does /api/users return with age over 30?"``) with the URL
in the question or in ``context.url``, or the data already at hand in ``context.json``.
Output: :class:`~agenthost.skills.Solution` with ``skill="json_api"``, ``answer`` the value and ``detail``
the URL and the table operation; ``None`` when the question is not about an API, the fetch is refused or
fails, or the data holds nothing the question names.

The fetch is a GET through :func:`agenthost.netguard.guarded_client` (private, loopback and metadata
addresses refused unless the deployment allows them; every redirect checked), with a timeout taken from the
deadline and at most :data:`MAX_BYTES` read. Records are the response itself when it is a list, else the
first list of objects inside it (``{"data": {"items": [...]}}``); nested objects become dotted columns
(``address.city``). A question about a single field of an object (``"What is the version in the API
response?"``) reads that field.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

from agenthost.errors import Upstream
from agenthost.skills import Context, Solution, Tool
from agenthost.skills.tables import answer, mentions, rows_to_table

MAX_BYTES = 2_000_000
#: seconds a fetch may take at most (the deadline may allow less)
FETCH_TIMEOUT_S = 5.0

_URL = re.compile(r"https?://[^\s\"'<>)\]]+", re.I)
_PATH = re.compile(r"(?<![\w.])(/[\w\-./]*(?:api|json|data)[\w\-./?=&%]*)", re.I)
_CUE = re.compile(r"\b(?:api|json|endpoint)\b", re.I)


_client: Any = None
_client_lock = threading.Lock()


def _shared_client() -> Any:
    """One guarded client per container (its TLS context is costly to build; timeouts are set per request)."""
    global _client
    if _client is None:
        with _client_lock:
            if _client is None:
                from agenthost.netguard import guarded_client

                _client = guarded_client(timeout=FETCH_TIMEOUT_S, follow_redirects=True)
    return _client


class FetchError(Upstream):
    """The data could not be fetched (refused by the network guard, an HTTP error, not JSON, too large)."""


def fetch_json(url: str, *, deadline: float | None = None, client: Any = None) -> Any:
    """The JSON document at ``url`` (GET through the guarded client). Raises :class:`FetchError`."""
    import httpx

    from agenthost.netguard import Blocked

    timeout = FETCH_TIMEOUT_S if deadline is None else min(FETCH_TIMEOUT_S, deadline - time.monotonic())
    if timeout < 0.1:
        raise FetchError("no time left to fetch")
    http = client or _shared_client()
    try:
        with http.stream("GET", url, headers={"Accept": "application/json"}, timeout=timeout) as resp:
            if resp.status_code >= 400:
                raise FetchError(f"{url} answered HTTP {resp.status_code}")
            body = b""
            for chunk in resp.iter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise FetchError(f"{url} sent more than {MAX_BYTES} bytes")
    except Blocked as exc:
        raise FetchError(f"refused: {exc.reason}") from None
    except httpx.HTTPError as exc:
        raise FetchError(f"cannot fetch {url} ({exc.__class__.__name__})") from None
    try:
        return json.loads(body)
    except ValueError:
        raise FetchError(f"{url} did not send JSON") from None


#: seconds a fetched document is reused (a page's questions are asked one after another in a turn)
CACHE_S = 20.0
_cache: dict[str, tuple[float, Any]] = {}


def _recent(url: str, deadline: float | None) -> Any:
    hit = _cache.get(url)
    if hit is not None and time.monotonic() - hit[0] < CACHE_S:
        return hit[1]
    data = fetch_json(url, deadline=deadline)
    if len(_cache) > 32:
        _cache.clear()
    _cache[url] = (time.monotonic(), data)
    return data


def _flatten(obj: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in obj.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten(v, key + "."))
        elif isinstance(v, list) and all(not isinstance(x, Mapping | list) for x in v):
            out[key] = ", ".join(str(x) for x in v)
        else:
            out[key] = v
    return out


def records(data: Any) -> list[dict[str, Any]] | None:
    """The list of objects in ``data`` (the data itself, or the first such list inside), flattened."""
    if isinstance(data, list) and data and all(isinstance(x, Mapping) for x in data):
        return [_flatten(x) for x in data]
    if isinstance(data, Mapping):
        for v in data.values():
            found = records(v)
            if found:
                return found
    return None


def _field(question: str, data: Any) -> tuple[str, str] | None:
    """A single field of an object the question names (the longest name wins)."""
    if not isinstance(data, Mapping):
        return None
    flat = _flatten(data)
    named = [(k, v) for k, v in flat.items() if not isinstance(v, list)
             and (mentions(question, k) or mentions(question, k.rsplit(".", 1)[-1]))]
    if not named:
        return None
    k, v = max(named, key=lambda kv: len(kv[0]))
    return k, "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)


def solve_data(question: str, data: Any) -> tuple[str, str] | None:
    """``(answer, detail)`` for ``question`` over already fetched ``data``, or ``None``."""
    rows = records(data)
    if rows:
        found = answer(question, rows_to_table(rows))
        if found is not None:
            return found.answer, found.detail
    field = _field(question, data)
    if field is not None:
        return field[1], f"field {field[0]}"
    return None


def _words(text: str) -> set[str]:
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z]{3,}", text.lower())}


def url_of(question: str, context: Context | None) -> str | None:
    """The API URL the question names; else, among the API URLs the page shows (absolute, or paths with
    ``api``/``json``/``data`` under the page's URL), the one whose path shares most words with the question
    (``"Number of orders with status shipped"`` -> ``/api/orders``)."""
    m = _URL.search(question)
    if m:
        return m.group(0).rstrip(".,;:!?")
    if context is not None and context.text and _CUE.search(context.text):
        # each URL with what the page says after it (up to the next URL): "/api/products: name, price, stock"
        spans = [(u.start(), u.end(), u.group(0).rstrip(".,;:!?")) for u in _URL.finditer(context.text)]
        if context.url:
            spans += [(p.start(), p.end(), urljoin(context.url, p.group(1).rstrip(".,;:!?")))
                      for p in _PATH.finditer(context.text)]
        spans.sort()
        found = []
        for i, (_, end, u) in enumerate(spans):
            nxt = spans[i + 1][0] if i + 1 < len(spans) else len(context.text)
            if "{" not in u and re.search(r"api|json|data", u, re.I):
                path = re.sub(r"^\w+://[^/]+", "", u).split("?")[0]
                found.append((u, path + " " + context.text[end:min(nxt, end + 200)]))
        asked = _words(question)
        scored = sorted(((len(asked & _words(about)), -i, u) for i, (u, about) in enumerate(found)), reverse=True)
        if scored and scored[0][0] > 0:
            return scored[0][2]
    base = context.url if context else ""
    p = _PATH.search(question)
    if p and base:
        return urljoin(base, p.group(1).rstrip(".,;:!?"))
    if base and re.search(r"(?:/api/|\.json\b)", base, re.I):
        return base
    return None


def from_question(question: str, context: Context | None = None, deadline: float | None = None) -> Solution | None:
    """The :class:`Solution` when ``question`` is about an API's data it can fetch and compute over."""
    if context is not None and context.data is not None:
        found = solve_data(question, context.data)
        return Solution("json_api", found[0], f"given data: {found[1]}") if found else None
    if not _CUE.search(question) and not (context is not None and _CUE.search(context.text)):
        return None
    url = url_of(question, context)
    if url is None:
        return None
    try:
        data = _recent(url, deadline)
    except FetchError:
        return None
    found = solve_data(question, data)
    return Solution("json_api", found[0], f"GET {url}: {found[1]}") if found else None


def _tool_call(args: dict[str, Any]) -> str:
    url = str(args.get("url") or "")
    try:
        data = fetch_json(url)
    except FetchError as exc:
        return f"cannot fetch: {exc}"
    question = str(args.get("question") or "")
    if question:
        found = solve_data(question, data)
        if found:
            return f"{found[0]} ({found[1]})"
    text = json.dumps(data, ensure_ascii=False)
    return text[:3000] + (" ... (cut)" if len(text) > 3000 else "")


def tools() -> list[Tool]:
    return [Tool(
        "json_api_query", "GET a JSON API and answer a question over its records exactly (totals, "
        "counts, max, lookups...); without a question, the JSON itself.",
        {"type": "object", "properties": {"url": {"type": "string"}, "question": {"type": "string"}},
         "required": ["url"]},
        _tool_call)]
