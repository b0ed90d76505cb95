"""Shared pieces of the providers: errors, usage, deadline-bounded calls with one retry, tolerant JSON parsing."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from agenthost.deadline import Deadline
from agenthost.deadline import remaining as remaining
from agenthost.errors import Unavailable, Upstream


class LlmError(Upstream):
    """The LLM could not give an answer. The message never contains keys or prompts.

    ``usage`` holds what the failed call still cost (replies that came back invalid, attempts before a
    retry): tokens are billed whether or not the answer was usable, so metering records them too."""

    def __init__(self, *args: object, usage: Usage | None = None):
        super().__init__(*args)
        self.usage: Usage = usage if usage is not None else Usage()


class LlmTimeout(LlmError, Unavailable, TimeoutError):
    """The deadline passed (or too little time was left to try)."""


class LlmInvalid(LlmError):
    """The model answered, but not with a JSON object matching the schema."""


class LlmRetryable(LlmError, Unavailable):
    """A transient failure (throttled, unreachable, a 5xx): worth one more attempt if time allows."""


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    latency_ms: int = 0

    def add(self, other: Usage) -> Usage:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.calls += other.calls
        self.latency_ms += other.latency_ms
        return self

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


_totals = Usage()
_totals_lock = threading.Lock()


def record(usage: Usage) -> None:
    with _totals_lock:
        _totals.add(usage)


def totals() -> Usage:
    """Token usage of every call this process made (warm container lifetime)."""
    with _totals_lock:
        return Usage(**_totals.to_dict())


class Provider(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def base_url(self) -> str: ...

    def complete_json(self, messages: list[dict[str, Any]], schema: dict[str, Any],
                      deadline: Deadline | float) -> tuple[dict[str, Any], Usage]: ...


_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="llm")

#: below this many seconds left, a call (or retry) is not started
MIN_CALL_S = 0.5


def run_before[T](deadline: Deadline | float, fn: Callable[[], T]) -> T:
    """Run ``fn`` on a worker thread; return its result or raise :class:`LlmTimeout` at the deadline.

    A call abandoned at the deadline may still be answered (and billed) later: its usage then goes to
    :func:`totals` when it arrives."""
    left = remaining(deadline)
    if left < MIN_CALL_S:
        raise LlmTimeout(f"only {max(left, 0):.2f}s left before the deadline")
    fut = _pool.submit(fn)
    try:
        return fut.result(timeout=left)
    except FutureTimeout:
        if not fut.cancel():
            fut.add_done_callback(_record_late)
        raise LlmTimeout("the model did not answer before the deadline") from None


#: attempts per call: the first and at most one retry
MAX_ATTEMPTS = 2
#: a retry is only started with at least this many seconds left
RETRY_MIN_S = max(MIN_CALL_S, 1.0)


def complete_with_retry[T](deadline: Deadline | float, once: Callable[[], tuple[T, Usage]]) -> tuple[T, Usage]:
    """Run ``once`` (one request: the answer and its usage) before the deadline, retrying once after a
    :class:`LlmRetryable` or :class:`LlmInvalid` failure if :data:`RETRY_MIN_S` are left.

    Returns the answer with the usage of every attempt (an invalid first reply's tokens included); a
    failure raises an :class:`LlmError` carrying that usage. Each attempt's usage is also :func:`record`-ed
    (a timed-out attempt's usage is recorded when it arrives, by :func:`run_before`)."""
    usage = Usage()
    last: LlmError | None = None
    for attempt in range(MAX_ATTEMPTS):
        if attempt and remaining(deadline) < RETRY_MIN_S:
            break
        try:
            obj, u = run_before(deadline, once)
            usage.add(u)
            record(u)
            return obj, usage
        except LlmTimeout as exc:
            exc.usage = usage.add(exc.usage)
            raise
        except (LlmRetryable, LlmInvalid) as exc:
            usage.add(exc.usage)
            record(exc.usage)
            last = exc
        except LlmError as exc:
            usage.add(exc.usage)
            record(exc.usage)
            exc.usage = usage
            raise
    if isinstance(last, LlmInvalid):
        last.usage = usage
        raise last
    raise LlmError(str(last) if last else "the model gave no answer", usage=usage)


def _record_late(fut: Any) -> None:
    try:
        result = fut.result()
        usage = result[1] if isinstance(result, tuple) and len(result) > 1 else None
    except LlmError as exc:
        usage = exc.usage
    except Exception:  # noqa: BLE001 - nothing was billed that we know of
        return
    if isinstance(usage, Usage) and (usage.input_tokens or usage.output_tokens):
        record(usage)


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def parse_json(text: str) -> dict[str, Any]:
    """The JSON object in ``text``: bare, fenced in ```json, or inside chatty prose; raises :class:`LlmInvalid`."""
    if not isinstance(text, str) or not text.strip():
        raise LlmInvalid("the model returned no text")
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    candidates += list(_balanced_objects(text))
    for c in candidates:
        for variant in (c, re.sub(r",\s*([}\]])", r"\1", c)):
            try:
                obj = json.loads(variant)
            except ValueError:
                continue
            if isinstance(obj, dict):
                return obj
    raise LlmInvalid("the model's answer holds no JSON object")


def _balanced_objects(text: str):  # type: ignore[no-untyped-def]
    depth, start, in_str, esc = 0, -1, False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth > 0:
            in_str = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                yield text[start:i + 1]


def check_required(obj: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Raise :class:`LlmInvalid` when a top-level required key is missing or has the wrong JSON type."""
    props = schema.get("properties") or {}
    for key in schema.get("required") or []:
        if key not in obj:
            raise LlmInvalid(f"the answer lacks {key!r}")
    types = {"string": str, "boolean": bool, "array": list, "object": dict, "integer": int, "number": (int, float)}
    for key, spec in props.items():
        t = spec.get("type") if isinstance(spec, dict) else None
        if key in obj and isinstance(t, str) and t in types and obj[key] is not None \
                and not isinstance(obj[key], types[t]):  # type: ignore[arg-type]
            raise LlmInvalid(f"{key!r} should be {t}")
    return obj


def split_system(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    system = "\n\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    rest = [m for m in messages if m.get("role") != "system"]
    return system, rest
