"""How a task points at controls by their kind and place instead of a name.

Pages often leave controls unnamed, and tasks then say which one they mean by what it is and where it is:
"enter "Ana" into the text field", "type the number "16" into the 3rd textbox", "both text fields", "check
the 1st radio button", "click the 2nd checkbox", "focus into the textbox", "click the button", "choose 5 ft
from the dropdown", "select 7 with the spinner". This module cuts the task into clauses (:func:`clauses`),
reads the references each clause makes (:func:`refs_in`: a :class:`Ref` per control named by kind, with its
ordinal, "both"/"all", "a"/"any") and finds the controls they point to (:func:`referenced`: the only one of
its kind, the n-th in page order, or all of them). The values a clause wants are read in
:mod:`agenthost.agent.reference_values`; the actions they ask for are proposed in
:mod:`agenthost.agent.references`.

Hand-written: the phrases are general English ways of pointing at a control; no library reads them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agenthost.agent.page import TEXT_ROLES, Element, Page
from agenthost.agent.wording import QUOTED

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
             "ninth": 9, "tenth": 10, "last": -1}
ORDINAL = r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|\d{1,2}(?:st|nd|rd|th))"
#: what a clause calls a kind of control, most specific first: (pattern, kind)
_KINDS: list[tuple[str, str]] = [
    (r"text[\s-]?areas?", "textarea"),
    (r"check[\s-]?box(?:es)?", "checkbox"),
    (r"radio(?:[\s-]?buttons?)?", "radio"),
    (r"drop[\s-]?downs?(?:\s+(?:list|menu)s?)?|select(?:ion)?\s+(?:box|list|menu)(?:es|s)?|combo[\s-]?box(?:es)?",
     "combobox"),
    (r"sliders?", "slider"),
    (r"spinners?|spin[\s-]?buttons?|number\s+(?:field|box|input)s?", "spinbutton"),
    (r"(?:input\s+)?text[\s-]?(?:box(?:es)?|fields?|inputs?)|input(?:\s+(?:fields?|box(?:es)?))?s?|"
     r"(?:answer|entry|search)\s+(?:fields?|box(?:es)?)|fields?", "text"),
    (r"buttons?", "button"),
    (r"links?", "link"),
    (r"tabs?", "tab"),
]
_KIND_RX = re.compile(r"\b(?:(?P<quant>the|a|an|both|all|each|every|any|one)\s+)?(?:(?P<ord>" + ORDINAL + r")\s+)?"
                      r"(?P<kind>" + "|".join(f"(?:{p})" for p, _ in _KINDS) + r")\b", re.I)
_QUOTED_KIND = re.compile(r"[\"“']\s*(text\s*area|textarea|text|checkbox|radio|button|link|input|textbox)\s*[\"”']\s*"
                          r"(?:widget|element|control|item)?", re.I)
TYPE_VERB = re.compile(r"\b(enter|type|input|write|put|fill(?:\s+in)?|paste|insert|key\s+in)\b", re.I)
TICK_VERB = re.compile(r"\b(check|tick|select|mark|choose|pick)\b", re.I)
_CLAUSE_SPLIT = re.compile(r"(?<=[.;!?])\s+|,\s*(?:and\s+)?then\s+|,\s*then\b|\s+and\s+then\s+|\bthen\s+|,\s+and\s+"
                           r"(?=(?:click|press|type|enter|check|select|choose|pick|focus|hit|submit|put|write)\b)",
                           re.I)


@dataclass(frozen=True)
class Ref:
    """A control referred to by kind: ``kind`` (``text``, ``textarea``, ``checkbox``, ``radio``, ``combobox``,
    ``slider``, ``spinbutton``, ``button``, ``link``, ``tab``), ``ordinal`` (1-based, -1 for the last, None
    when the clause names no place), ``every`` ("both", "all", "each"); ``start``/``end``: where the clause
    names it; ``any``: the clause wants one of them, whichever ("a checkbox", "any button")."""

    kind: str
    ordinal: int | None = None
    every: bool = False
    start: int = 0
    end: int = 0
    any: bool = False


def kind_of(word: str) -> str:
    for pattern, kind in _KINDS:
        if re.fullmatch(pattern, word.strip(), re.I):
            return kind
    return ""


def ordinal(word: str | None) -> int | None:
    if not word:
        return None
    w = word.lower()
    if w in _ORDINALS:
        return _ORDINALS[w]
    m = re.match(r"(\d+)", w)
    return int(m.group(1)) if m else None


def refs_in(clause: str) -> list[Ref]:
    """The controls a clause refers to by kind, in the order it names them."""
    out: list[Ref] = []
    for m in _QUOTED_KIND.finditer(clause):
        kind = {"text area": "textarea", "textarea": "textarea", "text": "text", "input": "text",
                "textbox": "text"}.get(re.sub(r"\s+", " ", m.group(1).lower()), kind_of(m.group(1)))
        if kind:
            one = re.search(r"\b(?:a|an|any|one)\s+$", clause[:m.start()], re.I) is not None
            out.append(Ref(kind, start=m.start(), end=m.end(), any=one))
    for m in _KIND_RX.finditer(clause):
        kind = kind_of(m.group("kind"))
        quant = (m.group("quant") or "").lower()
        if not kind or any(r.start <= m.start("kind") < r.end for r in out):
            continue
        out.append(Ref(kind, ordinal(m.group("ord")), quant in ("both", "all", "each", "every"), m.start(), m.end(),
                       any=quant in ("a", "an", "any", "one") and not m.group("ord")))
    return sorted(out, key=lambda r: r.start)


def verbs_text(clause: str, refs: Sequence[Ref]) -> str:
    """The clause with the controls it names blanked out (an "input textbox" is no verb "input")."""
    out = clause
    for r in refs:
        out = out[:r.start] + " " * (r.end - r.start) + out[r.end:]
    return out


_INTO = re.compile(r"\b(?:into|in|to|onto|inside|with)\s+(?:the\s+|both\s+|all\s+|each\s+)?(?:" + ORDINAL +
                   r"\s+)?$", re.I)


def destinations(clause: str, refs: Sequence[Ref]) -> list[Ref]:
    """The controls a typing clause puts its value into ("... into the 3rd textbox", "... with the spinner"),
    not those it reads from ("copy the text in the text area", "the last word in the text area, enter it")."""
    verb = TYPE_VERB.search(verbs_text(clause, refs))
    after = verb.start() if verb else 0
    into = [r for r in refs if r.start >= after and (
        _INTO.search(clause[max(0, r.start - 30):r.start] + " ") or
        re.search(r"\b(?:into|in|to|onto|inside|with)\s+(?:the\s+|both\s+|all\s+|each\s+)?$",
                  clause[max(0, r.start - 30):r.start], re.I))]
    return [r for r in into if not re.search(r"\b(?:copy|from|read)\b[^,;]*$", clause[:r.start], re.I)
            or re.search(r"\b(?:paste|enter|type|put|write|insert)\b", clause[:r.start], re.I)]


def clauses(text: str) -> list[str]:
    """The task cut into clauses ("..., then ...", "... and then ...", sentences); never inside quotes."""
    quoted: list[str] = []

    def hide(m: re.Match[str]) -> str:
        quoted.append(m.group(0))
        return f"\x00{len(quoted) - 1}\x00"

    hidden = QUOTED.sub(hide, text or "")
    parts = [c.strip(" ,") for c in _CLAUSE_SPLIT.split(hidden) if c and c.strip(" ,")]
    return [re.sub(r"\x00(\d+)\x00", lambda m: quoted[int(m.group(1))], c) for c in parts]


def _is_textarea(e: Element) -> bool:
    if e.tag:
        return e.tag == "textarea"
    return e.role == "textbox" and len((e.value or "").split()) >= 3  # an ARIA tree shows a text area's text


def candidates(page: Page, kind: str) -> list[Element]:
    """The page's controls of ``kind``, in page order."""
    els = [e for e in page.elements if not e.disabled or kind in ("text", "textarea")]
    if kind == "textarea":
        return [e for e in els if e.role in TEXT_ROLES and _is_textarea(e)]
    if kind == "field":
        return [e for e in els if e.role in ("textbox", "searchbox")]
    if kind == "text":
        boxes = [e for e in els if e.role in ("textbox", "searchbox")]
        plain = [e for e in boxes if not (e.tag and e.tag == "textarea")]
        return plain or boxes
    roles = {"checkbox": ("checkbox", "switch"), "radio": ("radio",), "combobox": ("combobox", "listbox"),
             "slider": ("slider",), "spinbutton": ("spinbutton",), "button": ("button",), "link": ("link",),
             "tab": ("tab",)}.get(kind, ())
    return [e for e in els if e.role in roles and not (e.role == "listbox" and _popup(page, e))]


def _popup(page: Page, listbox: Element) -> bool:
    idx = page.elements.index(listbox)
    return any(e.role == "combobox" and not e.options for e in page.elements[max(0, idx - 3):idx])


def referenced(page: Page, ref: Ref, *, empty_first: bool = False) -> list[Element]:
    """The controls ``ref`` points to: the n-th of its kind, all of them, or the only one (with
    ``empty_first``, the only empty one among several)."""
    pool = candidates(page, ref.kind)
    if not pool:
        return []
    if ref.ordinal is not None:
        i = ref.ordinal - 1 if ref.ordinal > 0 else len(pool) + ref.ordinal
        return [pool[i]] if 0 <= i < len(pool) else []
    if ref.every:
        return pool
    if len(pool) == 1:
        return pool
    empty = [e for e in pool if not (e.value or "").strip()]
    if empty_first and len(empty) == 1:
        return empty
    if ref.any:  # one of them, whichever: the first (the first empty one to type into)
        return [(empty if empty_first and empty else pool)[0]]
    return []
