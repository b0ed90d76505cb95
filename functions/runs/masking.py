"""What a Proxy API run never stores or shows in clear: card numbers anywhere, and every value the run typed
into a secret field (or found in one) wherever a page, a tool result or a decision repeats it.

* :func:`mask_card_numbers` - Luhn over every window of 13-19 digits made of whole digit groups that
  spaces or dashes separate, so a card number is found next to other digit runs (``Card2
  4111-1111-1111-1111``, ``Row 3 5555 5555 5555 4444``). Groups of one or two digits are never part of a
  window (card numbers are printed in groups of 4-6; a list of small numbers is no card).
* :class:`RunSecrets` - the run's secrets, kept on the run item only as salted fingerprints (``secrets``
  on ``META``: a random salt and ``[length, keyed BLAKE2b digest]`` per value and per spelling a page or
  URL gives it: as typed, percent-encoded, form-encoded, HTML-escaped). :meth:`RunSecrets.mask` finds them
  by fingerprinting every window of those lengths in a text; a run that typed no secret pays nothing.

Written here rather than taken from a library: no package masks values known only by fingerprint, and the
card rule is the issue's (Luhn over separated windows), a few lines over the standard library.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

#: what a secret is replaced with (non-empty, so the policy still sees a field is filled)
MASK = "********"
#: shorter values are not masked in text (they would mask ordinary words and numbers)
MIN_SECRET = 4
#: at most this many fingerprints are kept on a run (the oldest go first)
MAX_PRINTS = 64
DIGEST_BYTES = 12

#: digit groups separated by one space, no-break space or dash, not glued to other digits
_DIGIT_RUN = re.compile(r"(?<![\d])\d+(?:[ \u00a0\-\u2010-\u2013]\d+)*(?![\d])")
_GROUP = re.compile(r"\d+")
_CARDLIKE = re.compile(r"^\d[\d \-]{11,22}\d$")


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_spans(run: str) -> list[tuple[int, int]]:
    """Spans (within ``run``) of the windows of whole groups holding 13-19 digits that pass Luhn."""
    groups = [(m.start(), m.end(), m.group()) for m in _GROUP.finditer(run)]
    spans: list[tuple[int, int]] = []
    for i, (start, _, first) in enumerate(groups):
        if len(first) < 3 and len(groups) > 1:
            continue
        digits = ""
        for _, end, g in groups[i:]:
            if len(g) < 3 and len(groups) > 1:
                break
            digits += g
            if len(digits) > 19:
                break
            if len(digits) >= 13 and luhn(digits):
                spans.append((start, end))
    return spans


def mask_card_numbers(text: str) -> str:
    """``text`` with every Luhn-valid card number (see the module docstring) replaced by :data:`MASK`."""
    if not text or sum(ch.isdigit() for ch in text) < 13:
        return text

    def one(m: re.Match[str]) -> str:
        run = m.group()
        spans = _card_spans(run)
        if not spans:
            return run
        return _replace(run, spans)

    return _DIGIT_RUN.sub(one, text)


def _replace(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with the (possibly overlapping) ``spans`` replaced by one :data:`MASK` each merged span."""
    merged: list[list[int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    out, at = [], 0
    for s, e in merged:
        out.append(text[at:s])
        out.append(MASK)
        at = e
    out.append(text[at:])
    return "".join(out)


def looks_like_card_number(value: str) -> bool:
    """13-19 digits (spaces/dashes allowed) that pass the Luhn check."""
    if not _CARDLIKE.match(value.strip()):
        return False
    digits = re.sub(r"\D", "", value)
    return 13 <= len(digits) <= 19 and luhn(digits)


def mask_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with each of ``secrets`` (values known in clear, :data:`MIN_SECRET` characters or more) and
    every card number replaced by :data:`MASK`."""
    for value in sorted({v for v in secrets if v and len(v) >= MIN_SECRET}, key=len, reverse=True):
        text = text.replace(value, MASK)
    return mask_card_numbers(text)


def spellings(value: str) -> set[str]:
    """The ways a page or a URL may repeat ``value``: as is, percent-encoded, form-encoded, HTML-escaped."""
    return {value, quote(value, safe=""), quote(value), quote_plus(value), html.escape(value)}


class RunSecrets:
    """The secrets of one run, by fingerprint: :meth:`add` what the run typed into a secret field (or a
    snapshot held in one), :meth:`mask` any text, :meth:`mask_all` any JSON-like value, :meth:`save` back
    onto the run item.

    A fingerprint is ``[byte length, sum of the bytes, keyed BLAKE2b of the value]``: a window of a known
    length whose byte sum (kept rolling, one addition per position) matches is confirmed with the keyed
    digest, so a 6,000-character text costs a few milliseconds, not the tens a digest of every window
    would. The sum tells about 10 bits of a value and the digest is fast: what keeps a secret safe is its
    own strength (a generated password has 12+ random characters); a password the task states is stored
    with the task anyway."""

    def __init__(self, stored: Any = None):
        stored = stored if isinstance(stored, dict) else {}
        salt = stored.get("salt")
        self.salt = bytes.fromhex(salt) if isinstance(salt, str) and salt else os.urandom(16)
        self.prints: list[tuple[int, int, str]] = [
            (int(p[0]), int(p[1]), str(p[2])) for p in stored.get("prints") or []
            if isinstance(p, (list, tuple)) and len(p) == 3][-MAX_PRINTS:]
        self._index()

    def _index(self) -> None:
        self._by_length: dict[int, dict[int, set[str]]] = {}
        for n, total, digest in self.prints:
            self._by_length.setdefault(n, {}).setdefault(total, set()).add(digest)

    def _digest(self, data: bytes) -> str:
        return hashlib.blake2b(data, key=self.salt, digest_size=DIGEST_BYTES).hexdigest()

    def add(self, value: str | None) -> None:
        """Remember ``value`` (and its other spellings) as a secret of this run."""
        value = (value or "").strip()
        if len(value) < MIN_SECRET or value == MASK:
            return
        for form in spellings(value):
            data = form.encode("utf-8", "surrogatepass")
            key = (len(data), sum(data), self._digest(data))
            if key not in self.prints:
                self.prints.append(key)
        self.prints = self.prints[-MAX_PRINTS:]
        self._index()

    def __bool__(self) -> bool:
        return bool(self.prints)

    def mask(self, text: str) -> str:
        """``text`` with every secret of the run (in any of its spellings) and every card number masked."""
        if not isinstance(text, str) or not text:
            return text
        if self._by_length:
            data = text.encode("utf-8", "surrogatepass")
            spans = []
            for n, by_sum in self._by_length.items():
                if len(data) < n:
                    continue
                total = sum(data[:n])
                for i in range(len(data) - n + 1):
                    if i:
                        total += data[i + n - 1] - data[i - 1]
                    digests = by_sum.get(total)
                    if digests is not None and self._digest(data[i:i + n]) in digests:
                        spans.append((i, i + n))
            if spans:
                # a match is a whole UTF-8 value (it starts on a character), so byte spans cut cleanly
                text = _replace_bytes(data, spans).decode("utf-8", "surrogatepass")
        return mask_card_numbers(text)

    def mask_all(self, value: Any, skip: frozenset[str] = frozenset()) -> Any:
        """``value`` (dicts, lists, strings) with every string masked; keys in ``skip`` are kept as they are."""
        if isinstance(value, str):
            return self.mask(value)
        if isinstance(value, dict):
            return {k: (v if k in skip else self.mask_all(v, skip)) for k, v in value.items()}
        if isinstance(value, list):
            return [self.mask_all(v, skip) for v in value]
        return value

    def save(self) -> dict[str, Any]:
        """What is kept on the run item (no secret in clear)."""
        return {"salt": self.salt.hex(), "prints": [list(p) for p in self.prints]}


def _replace_bytes(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    return _replace(data.decode("latin-1"), spans).encode("latin-1")
