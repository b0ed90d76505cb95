"""Lazily created, cached boto3 clients, and what their errors mean.

Clients are created on first use (so ``moto.mock_aws`` in tests patches them, and a cold start that
never touches a service never pays for it). boto3 itself honours ``AWS_ENDPOINT_URL_<SERVICE>``
(e.g. ``AWS_ENDPOINT_URL_DYNAMODB``), which is how the local stack points functions at its embedded
services. Timeouts are short: a turn must never hang on AWS.

Retries say what they do: ``total_max_attempts`` is the number of requests botocore may send for one
call, the first included (``1``: never retried). botocore's own ``max_attempts`` counts *retries*, so it
is refused here rather than read two ways. A call that must not run twice (a browser action: a click or a
submit re-sent after a read timeout would run again while the first is still running) asks for ``1``.

What an AWS error means is decided here and nowhere else: :func:`fault` maps a botocore exception (a service's
error code, or a transport error that carries no answer at all: a timeout, a dropped or refused connection) to
a :class:`Fault` whose ``kind`` is one of :mod:`agenthost.errors`' kinds and says whether another attempt may
succeed; :func:`translate` turns the exception into one of ours of that kind (:class:`AwsFailure`), which is
what :class:`agenthost.store.Store` raises. Callers catch by kind (``except errors.Unavailable``) or read
:func:`error_code`; nobody reads ``exc.response`` by hand.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agenthost import errors

_lock = threading.Lock()
_clients: dict[tuple[Any, ...], Any] = {}
#: requests per call when the caller does not say: the first and three retries
DEFAULT_TOTAL_ATTEMPTS = 4
_session: Any = None  # one boto3 session: its loader reads each service model and endpoint table once
_on_new: dict[str, list[Callable[[Any], None]]] = {}


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
            for callback in _on_new.get(service, ()):
                callback(found)
            _clients[key] = found
    return found


def on_client(service: str, callback: Callable[[Any], None]) -> None:
    """Call ``callback(client)`` for every client of ``service``: each one cached now and each one made later
    (metering counts DynamoDB calls through hooks it registers this way, whichever client a store picks).
    A callback is registered once however often this is called; :func:`reset` keeps it."""
    with _lock:
        callbacks = _on_new.setdefault(service, [])
        if callback in callbacks:
            return
        callbacks.append(callback)
        existing = [c for k, c in _clients.items() if k[0] == service]
    for found in existing:
        callback(found)


def off_client(service: str, callback: Callable[[Any], None]) -> None:
    """Stop calling ``callback`` for new clients of ``service`` (what it did to existing ones stays)."""
    with _lock:
        callbacks = _on_new.get(service, [])
        if callback in callbacks:
            callbacks.remove(callback)


def clients(service: str) -> list[Any]:
    """The cached clients of ``service``."""
    with _lock:
        return [c for k, c in _clients.items() if k[0] == service]


def reset() -> None:
    """Drop cached clients (tests that switch between moto and a live endpoint)."""
    global _session
    with _lock:
        _clients.clear()
        _session = None


# --- what an AWS error means -----------------------------------------------------------------

@dataclass(frozen=True)
class Fault:
    """What a failed AWS call means. ``kind``: one of :mod:`agenthost.errors`' kinds (``Unavailable``: trying
    again later may help); ``code``: the service's error code, or the transport error's class name when no
    answer came; ``reason``: a few words for logs and messages; ``retryable``: another attempt of the same call
    may succeed now; ``status``: the HTTP status the service answered (0: none came); ``maybe_applied``: the
    request went out and no answer says what became of it (a read timeout, a connection closed mid-answer,
    the service's internal error), so a write may have been applied all the same."""

    kind: type[errors.AgentHostError]
    code: str
    reason: str
    retryable: bool = False
    status: int = 0
    maybe_applied: bool = False

    @property
    def unavailable(self) -> bool:
        return issubclass(self.kind, errors.Unavailable)

    @property
    def throttled(self) -> bool:
        return self.reason == "throttled"


_Meaning = tuple[type[errors.AgentHostError], str, bool]  # kind, reason, retryable
_THROTTLED: _Meaning = (errors.Unavailable, "throttled", True)
_SERVER: _Meaning = (errors.Unavailable, "server error", True)

#: error codes every service uses alike
_CODES: dict[str, _Meaning] = {
    **dict.fromkeys(("ProvisionedThroughputExceededException", "ThrottlingException", "Throttling",
                     "ThrottledException", "RequestLimitExceeded", "TooManyRequestsException", "RequestThrottled",
                     "RequestThrottledException", "SlowDown"), _THROTTLED),
    **dict.fromkeys(("InternalServerError", "InternalServerException", "InternalFailure", "InternalError",
                     "ServiceUnavailable", "ServiceUnavailableException"), _SERVER),
    **dict.fromkeys(("RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete"),
                    (errors.Unavailable, "timeout", True)),
    **dict.fromkeys(("TransactionInProgressException", "LimitExceededException"), (errors.Unavailable, "busy", True)),
    **dict.fromkeys(("ConditionalCheckFailedException", "TransactionCanceledException",
                     "TransactionConflictException", "ConflictException", "ResourceInUseException",
                     "IdempotentParameterMismatchException"), (errors.Conflict, "conflict", False)),
    **dict.fromkeys(("ValidationException", "SerializationException", "ItemCollectionSizeLimitExceededException",
                     "InvalidParameterValueException", "InvalidRequestException", "RequestEntityTooLargeException",
                     "PayloadTooLargeException"), (errors.BadInput, "refused", False)),
    **dict.fromkeys(("ResourceNotFoundException", "NotFoundException", "GoneException", "ParameterNotFound",
                     "ParameterVersionNotFound"), (errors.NotFound, "not found", False)),
    **dict.fromkeys(("AccessDeniedException", "AccessDenied", "UnrecognizedClientException",
                     "InvalidSignatureException", "ExpiredTokenException", "MissingAuthenticationTokenException",
                     "InvalidClientTokenId"), (errors.Upstream, "not allowed", False)),
}
#: where a service means something else by a code
_BY_SERVICE: dict[str, dict[str, _Meaning]] = {
    # the table itself is missing (a local database restarted, a table not deployed): an outage, not a
    # missing item; retrying the same call at once does not bring it back
    "dynamodb": {"ResourceNotFoundException": (errors.Unavailable, "table missing", False)},
    "bedrock-runtime": {"ServiceQuotaExceededException": _THROTTLED,
                        "ModelNotReadyException": (errors.Unavailable, "model not ready", True)},
}


def _transport(exc: BaseException) -> Fault | None:
    """The meaning of a botocore error that carries no service answer (its ``response``, if any, is None)."""
    from botocore import exceptions as bx

    name = type(exc).__name__
    if isinstance(exc, bx.ConnectTimeoutError):  # never connected: nothing was sent
        return Fault(errors.Unavailable, name, "timeout", True)
    if isinstance(exc, bx.ReadTimeoutError):
        return Fault(errors.Unavailable, name, "timeout", True, maybe_applied=True)
    if isinstance(exc, bx.ConnectionClosedError | bx.ResponseStreamingError | bx.IncompleteReadError):
        return Fault(errors.Unavailable, name, "connection dropped", True, maybe_applied=True)
    if isinstance(exc, bx.ConnectionError | bx.HTTPClientError):  # refused, unreachable, TLS, proxy
        return Fault(errors.Unavailable, name, "unreachable", True)
    if isinstance(exc, bx.NoCredentialsError | bx.PartialCredentialsError | bx.NoRegionError):
        return Fault(errors.Upstream, name, "not configured", False)
    if isinstance(exc, bx.ParamValidationError):
        return Fault(errors.BadInput, name, "invalid request", False)
    if isinstance(exc, bx.BotoCoreError):
        return Fault(errors.Upstream, name, "client error", False)
    return None


def response_of(exc: BaseException) -> dict[str, Any]:
    """The service's parsed answer carried by ``exc`` (``{}`` when none came: transport errors carry
    ``response=None``)."""
    found = getattr(exc, "response", None)
    return found if isinstance(found, dict) else {}


def answer_code(parsed: Any) -> str:
    """The error code in a service's parsed answer (a botocore hook's ``parsed``; "" when it holds none)."""
    error = parsed.get("Error") if isinstance(parsed, dict) else None
    return str(error.get("Code") or "") if isinstance(error, dict) else ""


def error_message(exc: BaseException) -> str:
    """The service's own message carried by ``exc`` ("" when no answer came)."""
    error = response_of(exc).get("Error")
    return str(error.get("Message") or "") if isinstance(error, dict) else ""


def fault(exc: BaseException, service: str = "") -> Fault | None:
    """What ``exc`` means, or None when it is not an AWS error. ``service`` (``"dynamodb"``...) picks the
    service's own meaning of a code where it differs from the common one."""
    if isinstance(exc, AwsFailure):
        return exc.fault
    from botocore.exceptions import ClientError

    if not isinstance(exc, ClientError):
        return _transport(exc)
    response = response_of(exc)
    code = answer_code(response)
    status = int((response.get("ResponseMetadata") or {}).get("HTTPStatusCode") or 0)
    meaning = _BY_SERVICE.get(service, {}).get(code) or _CODES.get(code)
    if meaning is None:
        if status == 429:
            meaning = _THROTTLED
        elif status >= 500:
            meaning = _SERVER
        else:
            meaning = (errors.Upstream, "refused", False)
    kind, reason, retryable = meaning
    return Fault(kind, code or f"HTTP {status}", reason, retryable, status, maybe_applied=meaning is _SERVER)


def error_code(exc: BaseException) -> str:
    """The AWS error code of ``exc`` (the transport error's class name when no answer came; "" for anything
    that is not an AWS error)."""
    found = fault(exc)
    return found.code if found is not None else ""


def throttle_code(code: str | None) -> bool:
    """Whether a service answered ``code`` because it throttles the caller."""
    return _CODES.get(code or "") is _THROTTLED


class AwsFailure(errors.AgentHostError):
    """An AWS call failed. ``fault`` says what it means (its ``kind`` is also a base of this exception's
    class); ``response`` is the service's parsed answer (``{}`` when none came); ``retried``: the call was sent
    more than once, so an earlier attempt may have been applied; ``maybe_applied``: some request of the call
    went out and got no answer (:attr:`Fault.maybe_applied` of any attempt)."""

    def __init__(self, found: Fault, message: str = "", *, response: dict[str, Any] | None = None,
                 retried: bool = False, service: str = "", operation: str = "", maybe_applied: bool = False):
        super().__init__(message or f"{service or 'AWS'} {operation or 'call'} failed: {found.code} ({found.reason})")
        self.fault = found
        self.code = found.code
        self.response = response or {}
        self.retried = retried
        self.maybe_applied = maybe_applied or found.maybe_applied
        self.service = service
        self.operation = operation


class AwsUnavailable(AwsFailure, errors.Unavailable):
    """The service did not answer in time, dropped or refused the connection, throttled, failed, or is missing
    the resource the whole call depends on (a DynamoDB table)."""


class AwsBadInput(AwsFailure, errors.BadInput):
    """The service refused the request as given (a value it cannot store, an item too large)."""


class AwsNotFound(AwsFailure, errors.NotFound):
    """What the call names is not there."""


class AwsConflict(AwsFailure, errors.Conflict):
    """A condition or another writer refused the call."""


class AwsUpstream(AwsFailure, errors.Upstream):
    """Any other failure: not allowed, not configured, an unknown error."""


_CLASSES: dict[type[errors.AgentHostError], type[AwsFailure]] = {
    errors.Unavailable: AwsUnavailable, errors.BadInput: AwsBadInput, errors.NotFound: AwsNotFound,
    errors.Conflict: AwsConflict, errors.Upstream: AwsUpstream,
}


def translate(exc: BaseException, service: str = "", operation: str = "", *, retried: bool = False,
              found: Fault | None = None, maybe_applied: bool = False) -> AwsFailure:
    """``exc`` (an AWS error) as one of ours of its kind, carrying the service's answer."""
    found = found or fault(exc, service) or Fault(errors.Upstream, type(exc).__name__, "client error")
    cls = _CLASSES.get(found.kind, AwsUpstream)
    return cls(found, response=response_of(exc), retried=retried, service=service, operation=operation,
               maybe_applied=maybe_applied)
