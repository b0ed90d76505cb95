"""What the evaluation server's parts share: its options, the table keys and limits, the view of the server
each part works through (:class:`Context`), and small helpers (timestamps, echoing client values, logging).

The server is split by concern: :mod:`evals.outbox` posts to clients, :mod:`evals.registry` registers
clients and binds connections, :mod:`evals.scheduler` hands out slots and sends evaluations (queue,
deadlines, retries), :mod:`evals.results` records what clients answer, and :mod:`evals.server` parses
messages and routes each method to its part.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from agenthost.store import Store
from agenthost.webapp import logger
from evals.definitions import Catalog
from evals.judging import JsRunner, LlmJudge

CLIENT_INDEX_PK = "EVALCLIENTS"
DEFS_PK = "EVALDEFS"
CONN_TTL_S = 3 * 3600  # API Gateway closes a connection after 2 h
CLIENT_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
#: client-supplied values (ids, methods, types) echoed in replies are cut to this many characters, so no reply
#: can come near API Gateway's 32 KB frame / 128 KB message limits whatever the client sent
MAX_ECHO = 128
MAX_TEXT = 1000  # longest message text in an error reply or notice
ST = {"#st": "status"}  # "status" is a DynamoDB reserved word

# False (or 0) when the connection is gone, else True or the bytes posted; raises TooLarge / SendFailed
Send = Callable[[str, dict[str, Any]], bool | int]


@dataclass
class Options:
    """Server behaviour; :meth:`from_env` reads it from the environment."""

    secret: str = field(default="", repr=False)
    #: the reference server's handshake, which sends a secret in ``auth_required`` for unmodified DevTools
    #: builds: "" (never), "registered" (only to client ids with a client file, and only that file's own
    #: ``secret_key``), "all" (the server secret to anyone; ``True`` means the same)
    disclose_secret: str | bool = ""
    auto_create: bool = True
    default_concurrency: int = 3
    max_concurrency: int = 20
    server_id: str = "agenthost-evals"
    pages_url: str = ""

    @classmethod
    def from_env(cls) -> Options:
        from agenthost.config import settings
        from agenthost.secrets import secret

        cfg = settings()
        return cls(
            secret=secret("AGENTHOST_EVALS_SECRET"),
            disclose_secret=disclosure_mode(cfg.evals_disclose_secret),
            auto_create=bool(cfg.evals_auto_create),
            default_concurrency=cfg.evals_default_concurrency,
            max_concurrency=cfg.evals_max_concurrency,
            server_id=cfg.evals_server_id,
            pages_url=cfg.evals_pages_url,
        )


class Context(Protocol):
    """The server's dependencies as its parts read them (at call time: a test may swap ``send``).

    The callables are read-only properties here: the parts only read them, and a dataclass field typed as a
    callable is not a settable variable to mypy, so the server would not match a protocol of plain fields."""

    store: Store
    timers: Any
    options: Options
    js_runner: JsRunner | None
    llm_judge: LlmJudge | None

    @property
    def send(self) -> Send: ...
    @property
    def catalog(self) -> Callable[[str | None], Catalog]: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    @property
    def close(self) -> Callable[[str], None]: ...


def disclosure_mode(value: Any) -> str:
    """``AGENTHOST_EVALS_DISCLOSE_SECRET`` read: "registered", "all" (also true/yes/1/on), else "" (off)."""
    if value is True:
        return "all"
    raw = str(value or "").strip().lower()
    if raw == "registered":
        return "registered"
    return "all" if raw in ("all", "true", "1", "yes", "on") else ""


def now_iso(clock: Callable[[], float] = time.time) -> str:
    return datetime.fromtimestamp(clock(), UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def echo(value: Any) -> str:
    """A client-supplied value, quoted and cut to :data:`MAX_ECHO` characters, for a reply's message text."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)[:MAX_ECHO + 1]
    return repr(text[:MAX_ECHO]) + ("..." if len(text) > MAX_ECHO else "")


def echo_id(rpc_id: Any) -> Any:
    """A request's id for its reply: a short string or a number, else null (anything else could make the
    reply exceed the frame limit; JSON-RPC 2.0 answers null when the id could not be determined)."""
    if (isinstance(rpc_id, str) and len(rpc_id) <= MAX_ECHO) or \
            (isinstance(rpc_id, int | float) and not isinstance(rpc_id, bool)):
        return rpc_id
    return None


def clip(value: Any, limit: int = 300_000) -> Any:
    """Keep stored results under DynamoDB's 400 KB item limit."""
    text = json.dumps(value, default=str)
    if len(text) <= limit:
        return value
    return {"truncated": True, "bytes": len(text), "preview": text[:2000]}


def log_warning(message: str, **extra: Any) -> None:
    logger.warning(message, extra=extra)
