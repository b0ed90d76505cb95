"""One nesting-depth limit for every body agenthost parses (HTTP bodies, WebSocket frames, YAML documents).

Python's parsers and everything that walks their output (pydantic, our own code) recurse once per level: a
small body nested a few thousand levels deep (``[[[[...]]]]``, 4 KB) raises ``RecursionError``, which is not
a ``ValueError`` and used to escape as an HTTP 500. No message of any protocol we speak nests anywhere near
:data:`MAX_DEPTH` levels, so a body deeper than that is refused *before* it is parsed:

* :func:`check_json` scans the raw text without parsing it (strings are skipped, then only brackets are
  counted), so the cost is linear and nothing recurses;
* :func:`loads` is ``json.loads`` after that check (a ``RecursionError`` is still turned into
  :class:`TooDeep`, belt and braces);
* :func:`check_object` measures an already-parsed value (a YAML document) without recursion.

Written by hand because the standard library has no depth option for ``json``/``yaml`` and a scanner this
small is easier to audit than a dependency. Callers decide the answer: a webhook plays its "nothing to do"
turn, an API answers 400 in its own error shape with :attr:`TooDeep.message`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agenthost.errors import BadInput

#: most levels of arrays/objects (or YAML collections) a body may nest
MAX_DEPTH = 64

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")


class TooDeep(BadInput, ValueError):
    """A body nests deeper than :data:`MAX_DEPTH`. ``message`` is safe to return to the caller."""

    def __init__(self, limit: int = MAX_DEPTH):
        self.limit = limit
        self.message = f"the body nests deeper than the limit of {limit} levels of arrays/objects"
        super().__init__(self.message)


def json_depth(raw: str | bytes, stop_after: int | None = None) -> int:
    """Deepest array/object nesting of the JSON text ``raw`` (brackets inside strings do not count; text that
    is not JSON is measured the same way). Stops counting once ``stop_after`` is passed."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else bytes(raw)
    if b"[" not in data and b"{" not in data:
        return 0
    if b'"' in data:
        data = _STRING.sub(b"", data)
    brackets = _NOT_BRACKET.sub(b"", data)
    depth = deepest = 0
    for ch in brackets:
        if ch in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_after is not None and deepest > stop_after:
                    return deepest
        elif depth:
            depth -= 1
    return deepest


def check_json(raw: str | bytes, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`TooDeep` when the JSON text ``raw`` nests deeper than ``limit``."""
    if json_depth(raw, stop_after=limit) > limit:
        raise TooDeep(limit)


def loads(raw: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` that refuses bodies nested deeper than ``limit`` with :class:`TooDeep` (a ``ValueError``,
    so ``except ValueError`` around a parse keeps catching everything a bad body can raise)."""
    check_json(raw, limit)
    try:
        return json.loads(raw)
    except RecursionError:
        raise TooDeep(limit) from None


def object_depth(value: Any, stop_after: int | None = None) -> int:
    """Deepest list/dict nesting of a parsed value, measured without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen: set[int] = set()
    while stack:
        item, level = stack.pop()
        if not isinstance(item, dict | list | tuple):
            continue
        if id(item) in seen:  # YAML anchors can share (or loop back to) a collection: count it once
            continue
        seen.add(id(item))
        deepest = max(deepest, level)
        if stop_after is not None and deepest > stop_after:
            return deepest
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, level + 1) for child in children)
    return deepest


def check_object(value: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`TooDeep` when the parsed ``value`` nests deeper than ``limit``."""
    if object_depth(value, stop_after=limit) > limit:
        raise TooDeep(limit)


def check_yaml(text: str, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`TooDeep` when the YAML ``text`` nests collections deeper than ``limit``. Reads the parser's
    events (no document is built, nothing recurses) and stops at the first level past the limit; YAML syntax
    errors are left to the loader that runs next."""
    import yaml

    depth = 0
    try:  # the loader ``yaml.safe_load`` uses, so both see the same document
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > limit:
                    raise TooDeep(limit)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return
    except RecursionError:
        raise TooDeep(limit) from None


# DynamoDB numbers: up to 38 significant digits, magnitude 1E-130 .. 9.99...E+125 (anything else is refused)
NUMBER_MAX = float("9.9999999999999999e125")
NUMBER_MIN = 1e-130
INT_MAX = 10**38 - 1


def clamp_number(value: int | float) -> int | float | None:
    """``value`` brought into what DynamoDB can store: NaN -> None, infinities and huge values to the largest
    storable magnitude (sign kept), values too small to store -> 0, integers past 38 digits to the largest
    38-digit integer."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return max(-INT_MAX, min(INT_MAX, value))
    if value != value:  # NaN
        return None
    if abs(value) > NUMBER_MAX:
        return NUMBER_MAX if value > 0 else -NUMBER_MAX
    if value != 0 and abs(value) < NUMBER_MIN:
        return 0.0
    return value


def storable_numbers(value: Any) -> Any:
    """A copy of the parsed JSON ``value`` with every number clamped by :func:`clamp_number` (iterative: the
    value may be as deep as :data:`MAX_DEPTH`)."""
    if isinstance(value, int | float):
        return clamp_number(value)
    if not isinstance(value, dict | list):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        src, dst = stack.pop()
        items = src.items() if isinstance(src, dict) else enumerate(src)
        for key, item in items:
            if isinstance(item, dict | list):
                child: Any = {} if isinstance(item, dict) else []
                stack.append((item, child))
                out: Any = child
            elif isinstance(item, int | float):
                out = clamp_number(item)
            else:
                out = item
            if isinstance(dst, dict):
                dst[key] = out
            else:
                dst.append(out)
    return root


def bounded_int(value: Any, low: int, high: int, default: int) -> int:
    """A client-sent count as an int within ``low..high``: a number (or numeric string) is rounded down and
    clamped; anything else (a bool, NaN, text) gives ``default``."""
    if isinstance(value, bool) or value is None:
        return default
    if isinstance(value, int):
        return max(low, min(high, value))
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return default
    if number != number:
        return default
    if number >= high:
        return high
    if number <= low:
        return low
    return int(number)
