"""The evaluation server as deployed: its table, the ``@connections`` poster, EventBridge Scheduler timers,
the packaged and uploaded definitions, and the judges. The WebSocket handler (:mod:`evals.app`) and the admin
API (:mod:`evals.admin`) both build their :class:`~evals.server.Server` here."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from agenthost.config import settings
from agenthost.store import Store
from agenthost.webapp import logger
from evals import connections
from evals.common import DEFS_PK, Options
from evals.definitions import Catalog, DefinitionError, definitions_dir, load_dir, parse_document
from evals.judging import default_js_runner, default_llm_judge
from evals.server import Server
from evals.timers import Timers


def self_function(context: Any) -> str:
    """Where this function's own follow-ups (``welcome``) go: the ARN it was invoked with, qualified by the
    alias or version when it was invoked through one (deployed: the ``live`` alias, so SnapStart's published
    version serves them too), else ``AGENTHOST_SELF_FUNCTION``, else its name."""
    invoked = getattr(context, "invoked_function_arn", "") or ""
    if invoked.startswith("arn:"):
        return invoked
    return settings().self_function or getattr(context, "function_name", "EvalsFunction")


def timer_target(context: Any) -> str:
    arn = settings().evals_timer_target.strip()
    if arn:
        return arn
    invoked = getattr(context, "invoked_function_arn", "") or ""
    return invoked if invoked.startswith("arn:") else self_function(context)


@lru_cache(maxsize=4)
def packaged_catalog(root: str) -> Catalog:
    cat = load_dir(root)
    for err in cat.errors:
        logger.warning("evaluation definition skipped", extra={"problem": err})
    return cat


def catalog(store: Store, client_id: str | None = None) -> Catalog:
    return stored_catalog(store, packaged_catalog(str(definitions_dir())), client_id)


def _send(connection_id: str, message: dict[str, Any]) -> int:
    """Post; the bytes posted (0 when the connection is gone)."""
    try:
        return connections.post(connection_id, message)
    except connections.Gone:
        return 0


def build_server(context: Any = None, store: Store | None = None) -> Server:
    store = store or Store()

    def client_catalog(client_id: str | None = None) -> Catalog:
        return catalog(store, client_id)

    return Server(store=store, send=_send, timers=Timers(timer_target(context)),
                  catalog=client_catalog, options=Options.from_env(),
                  js_runner=default_js_runner(), llm_judge=default_llm_judge(), close=connections.close)


def stored_catalog(store: Store, base: Catalog, client_id: str | None = None) -> Catalog:
    """Packaged definitions plus those uploaded through the admin API (uploads win). With ``client_id``,
    only the uploaded global evaluations and that client's file are read (two requests)."""
    cat = Catalog(dict(base.evaluations), dict(base.clients), list(base.errors))
    if client_id is None:
        items = list(store.query(DEFS_PK))
    else:
        items = list(store.query(DEFS_PK, "DEF#"))
        own = store.get(DEFS_PK, f"CLIENTFILE#{client_id}")
        if own is not None:
            items.append(own)
    for item in items:
        try:
            part = parse_document(item.get("doc"), f"upload:{item['sk']}", str(item.get("category", "default")))
        except DefinitionError as exc:
            cat.errors.extend(exc.errors)
            continue
        cat.merge(part)
    return cat
