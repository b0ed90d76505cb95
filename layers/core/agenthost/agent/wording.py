"""Words of a task or a page: content words (stemmed, stop words dropped), joined pairs, phrase matching,
quoted spans.

Hand-written on purpose: a crude stemmer of a few suffixes is all the matching needs (price/prices,
check out/checkout), and it costs microseconds where a linguistic library would cost a load and more.
"""

from __future__ import annotations

import re
from functools import lru_cache

STOP = frozenset("""a an the to of in on at for and or with from by into onto is are be this that it its as
then than please your you my me i we our field box input button link page form click type enter fill select
choose pick set go navigate open find value text named called which what who where when how should must
all any each every some also just only now here there after before""".split())


#: a span the task puts in double quotes, straight or curly ("Ana", “Ana”): group 1 or 2 is what it quotes
QUOTED = re.compile(r"\"([^\"]*)\"|“([^”]*)”")

NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a": 1, "an": 1, "single": 1}


def stem(w: str) -> str:
    """A crude stem so that price/prices/pricing, plan/plans and painting/paintings meet."""
    if w.isdigit():
        return w
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        w = w[:-1]
    for suffix in ("ing", "ed", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


@lru_cache(maxsize=8192)
def words(s: str) -> frozenset[str]:
    """Content words of ``s``, stemmed (stop words and single letters dropped; numbers kept)."""
    return frozenset(stem(t) for t in re.findall(r"[a-z0-9]+", (s or "").lower())
                     if t not in STOP and (len(t) > 1 or t.isdigit()))


@lru_cache(maxsize=8192)
def joined(s: str) -> frozenset[str]:
    """Adjacent word pairs of ``s`` written as one word and stemmed, so that "check out" meets "Checkout"
    and "sign in" meets "Signin"."""
    raw = re.findall(r"[a-z0-9]+", (s or "").lower())
    return frozenset(stem(stem(a) + b) for a, b in zip(raw, raw[1:], strict=False) if a.isalpha() and b.isalpha())


def unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] in "\"'“" and v[-1] in "\"'”":
        return v[1:-1]
    return v.rstrip(".")


#: an identifier: alphanumeric parts joined by - . or / with a digit somewhere (``PO-2023-08``, ``ORD-7781``,
#: ``v2.10``, ``2024-03-15``); it names one thing only as a whole
ID = re.compile(r"(?<![\w./-])(?=[\w./-]*\d)[a-z0-9]+(?:[-./][a-z0-9]+)+(?![\w-]|[./][a-z0-9])", re.I)


@lru_cache(maxsize=8192)
def identifiers(s: str) -> frozenset[str]:
    """The identifiers ``s`` names, in lower case."""
    return frozenset(m.group(0).lower() for m in ID.finditer(s or ""))


def id_kind(ident: str) -> str:
    """The kind of an identifier: its letters and separators, each run of digits as 9 (``po-2023-08`` ->
    ``po-9-9``, ``v2.10`` -> ``v9.9``), so that ORD-7781 and ORD-7782 are two of one kind."""
    return re.sub(r"\d+", "9", ident.lower())


def has_phrase(text: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``text`` (both lower case) between non-alphanumeric boundaries."""
    start = text.find(phrase)
    while start >= 0:
        end = start + len(phrase)
        if (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            return True
        start = text.find(phrase, start + 1)
    return False
