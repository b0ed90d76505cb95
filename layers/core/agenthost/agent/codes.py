"""Codes the pages show ("Gym locker code: 4482"), remembered across pages, and the fields that wait for one.

A task may need a value shown on another page than the field it goes into (a locker code on a note in another
room, a voucher on a flyer page). Each turn, :func:`remember` keeps the codes the page shows after a label
naming a code (``code``, ``pin``, ``passcode``, ``combination``, ``key``): a page that calls a code old,
changed or crossed out gives none, and a one-time code (a one-time passcode, OTP, verification, sign-in or
two-factor code, or a bare "Your code is ..." on a page about one) is never kept: the memory is stored between
turns, and such a code is a secret of the moment, not to be written at rest. It also keeps, per field label,
the page of an empty field the task refers to that had no value yet. :func:`code_for` gives a remembered code
for a field; :func:`waiting_page` the page of a waiting field once its code is known. All in the policy's
memory (JSON-safe, a few entries).
"""

from __future__ import annotations

import re
from typing import Any

from agenthost.agent.page import TEXT_ROLES, Page
from agenthost.agent.task import TaskFacts
from agenthost.agent.wording import words

_CODE_LINE = re.compile(r"(?P<label>(?:[A-Za-z][\w-]*\s+){0,4}(?:code|pin|passcode|combination|key))\s*"
                        r"(?:is|reads|:|=)?\s*[\"'“]?(?P<code>[A-Z0-9][A-Z0-9._/#-]{2,39})(?![\w-])", re.I)
_CODE = re.compile(r"^(?=[A-Z0-9._/#-]*\d|[A-Z]{3,})[A-Z0-9][A-Z0-9._/#-]{2,39}$")
#: the page says its code is no longer good
_STALE = re.compile(r"\b(?:old code|crossed (?:it )?out|no longer|outdated|expired|changed|invalid|not valid|"
                    r"wrong code|not the (?:right|current) code)\b", re.I)
#: a code meant for one use (a one-time passcode, OTP, a verification, sign-in or two-factor code)
_ONE_TIME = re.compile(r"\b(?:one[- ]?time|otp|verification|verify|two[- ]factor|2fa|mfa|authenticat\w*|"
                       r"security code|(?:sign[- ]?in|log[- ]?in) code)\b", re.I)
_BARE = frozenset({"cod", "pin", "passcod"})  # (stems of) a label naming no particular code
_CODE_WORD = re.compile(r"code|pin|passcode|combination|key")
_FIELD = re.compile(r"\b(?:code|pin|passcode|combination|key)\b", re.I)


def remember(page: Page, memory: dict[str, Any]) -> None:
    """Keep the codes ``page`` shows (newest last) unless it calls them stale or they are one-time codes."""
    codes = [c for c in memory.get("codes") or []  # (one-time codes an earlier version kept go too)
             if isinstance(c, list) and len(c) == 2 and not _ONE_TIME.search(str(c[0]))]
    lines = [line for line in _lines_naming_a_code(page.text) if not _ONE_TIME.search(line)]
    if _STALE.search(page.text):
        lines = []
    # on a page about a one-time code (a "Verify it's you" heading), a bare "Your code is ..." is that code
    one_time_page = bool(lines) and bool(_ONE_TIME.search(page.text))
    for m in (hit for line in lines for hit in _CODE_LINE.finditer(line)):
        label, code = m.group("label").strip(), m.group("code").rstrip(".")
        if one_time_page and words(label) <= _BARE:
            continue
        if _CODE.match(code) and [label, code] not in codes:
            codes.append([label, code])
    if codes:
        memory["codes"] = codes[-10:]
    else:
        memory.pop("codes", None)


def _lines_naming_a_code(text: str) -> list[str]:
    """The lines of ``text`` holding a code word (one scan of the whole text: a 2,000-node page stays fast)."""
    lines: dict[int, str] = {}
    low = text.lower()
    # no \b and no re.I: four times faster (_CODE_LINE decides); a lower case of another length keeps re.I
    for m in (_CODE_WORD.finditer(low) if len(low) == len(text) else _FIELD.finditer(text)):
        start = text.rfind("\n", 0, m.start()) + 1
        if start not in lines:
            end = text.find("\n", m.end())
            lines[start] = text[start:end if end >= 0 else len(text)]
    return list(lines.values())


def code_for(memory: dict[str, Any], label: str) -> str | None:
    """The newest remembered code whose label holds every word of the field's ``label`` (``Locker code`` ->
    ``Gym locker code: 4482``)."""
    want = words(label)
    if not want or not _FIELD.search(label):
        return None
    for seen_label, code in reversed(memory.get("codes") or []):
        if want <= words(seen_label):
            return str(code)
    return None


def note_waiting(page: Page, facts: TaskFacts, memory: dict[str, Any]) -> None:
    """Remember the page of each empty code field the task refers to that no remembered code fills yet."""
    waiting = dict(memory.get("waiting") or {})
    for e in page.elements:
        label = e.name or e.placeholder or e.hint or ""
        if e.role in TEXT_ROLES and not e.disabled and not (e.value or "").strip() and _FIELD.search(label) and \
                facts.mentions(label, min_cover=0.5) > 0 and code_for(memory, label) is None and page.url:
            waiting[label] = page.url.split("#", 1)[0]
    if waiting:
        memory["waiting"] = dict(list(waiting.items())[-5:])


def waiting_page(memory: dict[str, Any], here: str) -> str | None:
    """The page of a field that waited for a code now remembered (not the page we are on)."""
    for label, url in (memory.get("waiting") or {}).items():
        if isinstance(url, str) and url != here.split("#", 1)[0] and code_for(memory, label) is not None:
            return url
    return None
