"""Colour fields: a colour the task names, given as the hex value a colour field takes.

A colour field is an ``input type=color`` or a text field that shows a hex colour (``#3c7a10``, or a bare
``3C7A10`` under a label that names a colour, as script colour pickers show it). The colour the task names
(a CSS colour name: ``green``, ``navy``, ``light blue``) is written the way the field shows its own value:
with or without the ``#``, in the same case. A colour field takes nothing else: a word that is no colour is
never typed into it.

The names and their values are the CSS colour keywords of the ``webcolors`` library (no table kept here).
"""

from __future__ import annotations

import re
from functools import lru_cache

import webcolors

from agenthost.agent.page import Element

#: a hex colour as a field shows it ("#3c7a10", "#fa0", "3C7A10")
_HEX = re.compile(r"(#)?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})")
#: a label that names a colour ("Color", "Colour", "Background colour", "Hue", "Shade")
_COLOUR_LABEL = re.compile(r"\b(?:colou?rs?|hue|shade|tint)\b", re.I)


def is_colour_field(e: Element) -> bool:
    """Whether ``e`` takes a colour as a hex value."""
    if e.input_type == "color":
        return True
    m = _HEX.fullmatch((e.value or "").strip())
    if not m:
        return False
    label = " ".join(x for x in (e.name, e.placeholder, e.field_name, e.hint) if x)
    # a bare "123456" is a colour only under a colour label; "#123456" is one wherever it stands
    return bool(m.group(1)) or bool(_COLOUR_LABEL.search(label))


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    """CSS colour name (lower case, no spaces) -> ``#rrggbb``."""
    return {n: webcolors.name_to_hex(n) for n in webcolors.names("css3")}


def colour_hex(name: str) -> str | None:
    """``#rrggbb`` of a CSS colour name ("navy", "Light Blue"); None when it names none."""
    return _names().get(re.sub(r"[\s-]+", "", name.strip().lower()))


def named_colours(text: str) -> list[str]:
    """The distinct CSS colours ``text`` names, as ``#rrggbb``, in the order it names them (a two-word name such
    as "light blue" before its second word)."""
    words = re.findall(r"[A-Za-z]+", text)
    out: list[str] = []
    i = 0
    while i < len(words):
        two = colour_hex(words[i] + words[i + 1]) if i + 1 < len(words) else None
        hx = two or colour_hex(words[i])
        if hx and hx not in out:
            out.append(hx)
        i += 2 if two else 1
    return out


def as_field_value(hx: str, e: Element) -> str:
    """``hx`` (``#rrggbb``) written as ``e`` shows its own value: with or without the ``#``, in its case."""
    if e.input_type == "color":
        return hx.lower()
    shown = (e.value or "").strip()
    m = _HEX.fullmatch(shown)
    out = hx if m is None or m.group(1) else hx.lstrip("#")
    digits = m.group(2) if m else ""
    return out.upper() if digits and digits == digits.upper() and any(c.isalpha() for c in digits) else out.lower()


def colour_value(value: str | None, task: str, e: Element) -> str | None:
    """What to type into the colour field ``e``: the task's value when it is a hex colour already, its hex when
    it names a colour, else the one colour the task names (None when it names none, or several and the value
    does not say which)."""
    if value is not None:
        v = value.strip()
        m = _HEX.fullmatch(v)
        if m and (m.group(1) or re.search(r"\d", v)):
            return as_field_value("#" + m.group(2), e) if len(m.group(2)) == 6 else v
        hx = colour_hex(v)
        if hx:
            return as_field_value(hx, e)
    named = named_colours(task)
    return as_field_value(named[0], e) if len(named) == 1 else None
