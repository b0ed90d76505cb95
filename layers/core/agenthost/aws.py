"""Lazily created, cached boto3 clients.

Clients are created on first use (so ``moto.mock_aws`` in tests patches them, and a cold start that
never touches a service never pays for it). boto3 itself honours ``AWS_ENDPOINT_URL_<SERVICE>``
(e.g. ``AWS_ENDPOINT_URL_DYNAMODB``), which is how the local stack points functions at its embedded
services. Timeouts are short: a turn must never hang on AWS.

Retries say what they do: ``total_max_attempts`` is the number of requests botocore may send for one
call, the first included (``1``: never retried). botocore's own ``max_attempts`` counts *retries*, so it
is refused here rather than read two ways. A call that must not run twice (a browser action: a click or a
submit re-sent after a read timeout would run again while the first is still running) asks for ``1``.
"""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_clients: dict[tuple[Any, ...], Any] = {}
#: requests per call when the caller does not say: the first and three retries
DEFAULT_TOTAL_ATTEMPTS = 4
_session: Any = None  # one boto3 session: its loader reads each service model and endpoint table once


def _shared_session() -> Any:
    """The process's boto3 session (call with ``_lock`` held: sessions are not thread-safe). A session per
    client would load the same models again: about 9 MB per extra client, at 128 MB functions."""
    global _session
    if _session is None:
        import boto3

        _session = boto3.session.Session()
    return _session


def client(service: str, endpoint_url: str | None = None, *, region_name: str | None = None, **config: Any) -> Any:
    """A cached boto3 client for ``service`` (one per endpoint, region and client configuration), made from the
    process's one session; ``region_name`` defaults to the configured region. Options: ``connect_timeout``
    (2 s), ``read_timeout`` (5 s), ``total_max_attempts`` (requests per call, the first included:
    :data:`DEFAULT_TOTAL_ATTEMPTS`), any other ``botocore.config.Config`` option."""
    if "max_attempts" in config:
        raise TypeError("aws.client: say total_max_attempts (requests per call, the first included); botocore's "
                        "max_attempts counts retries")
    key = (service, endpoint_url, region_name, tuple(sorted(config.items())))
    found = _clients.get(key)
    if found is not None:
        return found
    with _lock:
        found = _clients.get(key)
        if found is None:
            from botocore.config import Config

            from agenthost.config import settings

            cfg = Config(
                connect_timeout=config.pop("connect_timeout", 2),
                read_timeout=config.pop("read_timeout", 5),
                retries={"total_max_attempts": config.pop("total_max_attempts", DEFAULT_TOTAL_ATTEMPTS),
                         "mode": "standard"},
                **config,
            )
            found = _shared_session().client(
                service, region_name=region_name or settings().region, endpoint_url=endpoint_url, config=cfg
            )
            _clients[key] = found
    return found


def reset() -> None:
    """Drop cached clients (tests that switch between moto and a live endpoint)."""
    global _session
    with _lock:
        _clients.clear()
        _session = None
