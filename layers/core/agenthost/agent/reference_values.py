"""The values a clause wants in the controls it points to: stated in the task, or found on the page.

A value for a referenced field is what the clause states (:func:`stated_value`: a quoted value, a date, a
time or a number), with a case change the clause asks for ("in upper case", :func:`cased`); or, for "type
that"/"paste it"/"your answer", a value the page holds that an earlier clause points to
(:func:`derived_value`): the n-th or last word of a paragraph or text area, the text of a text area to copy,
the value a label/value table gives for a label (:func:`table_value`), the text shown below or above the
page's own sentence asking for it (:func:`shown_text`). Values never come from the task's descriptive words.

Hand-written: the phrases are general English ways of pointing at a value; no library reads them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agenthost.agent.actions import norm
from agenthost.agent.page import Element, Page
from agenthost.agent.pointing import ORDINAL, TICK_VERB, TYPE_VERB, candidates, kind_of, ordinal
from agenthost.agent.wording import QUOTED

DATE = re.compile(r"\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b")
TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?(?![\w:])", re.I)
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,]\d+)?(?![\w/:])")
_UPPER = re.compile(r"\b(?:upper[\s-]?case|all caps|capital letters|capitals)\b", re.I)
_LOWER = re.compile(r"\blower[\s-]?case\b", re.I)
#: "the 4th word in the paragraph", "the last word in the text area"
NTH_WORD = re.compile(r"\b(?:the\s+)?(?P<ord>" + ORDINAL + r")\s+word\b(?:\s+(?:in|of|from)\s+(?:the\s+)?"
                       r"(?:(?P<ord2>" + ORDINAL + r")\s+)?(?P<where>paragraph|text\s*area|textarea|text|sentence|"
                       r"passage))?", re.I)
#: "type the text below", "enter the code shown above": the page's own text next to the sentence asking for it
SHOWN = re.compile(r"\bthe\s+(?:text|words?|code|characters|letters|string|phrase|sentence|number)\s+"
                    r"(?:(?:that\s+is\s+|that's\s+)?(?:shown|written|displayed|printed|given)\s+)?(?P<side>below|above)\b",
                    re.I)
#: "copy the text in the textarea", "copy the text from the 2nd text area"
_COPY = re.compile(r"\bcopy\b.*?\b(?:in|from|of)\s+(?:the\s+)?(?:(?P<ord>" + ORDINAL + r")\s+)?"
                   r"(?P<where>text\s*area|textarea|paragraph|box|field)", re.I)


def stated_value(clause: str) -> str | None:
    """The value a clause states: a quoted one, else a date, a time or a number after its verb."""
    for m in QUOTED.finditer(clause):
        v = next(g for g in m.groups() if g is not None)
        if kind_of(v) or re.fullmatch(r"\s*(?:submit|ok|search|login|log in)\s*", v, re.I):
            continue  # a quoted control kind or button name, not a value
        return v
    verb = TYPE_VERB.search(clause) or TICK_VERB.search(clause)
    rest = clause[verb.end():] if verb else clause
    for rx in (DATE, TIME, NUMBER):
        found = rx.search(rest)
        if found:
            return found.group(0).strip()
    return None


def cased(value: str, clause: str) -> str:
    if _UPPER.search(clause):
        return value.upper()
    if _LOWER.search(clause):
        return value.lower()
    return value


def _words_of(text: str) -> list[str]:
    """The words of ``text``, without the punctuation around them."""
    return [w.strip("\"'“”()[].,;:!?") for w in text.split() if w.strip("\"'“”()[].,;:!?")]


def _blocks(page: Page, task: str) -> list[Element]:
    """The page's elements with each run of sentences a flat snapshot's text was cut into (``text-N``
    paragraphs with no control between them: one piece of shown text) joined back into one paragraph, less the
    sentences the task's own words make up (a page that shows its request right before its text): a paragraph's
    words run on over its sentences. An ARIA tree's paragraphs are the page's own and stay as they are."""
    low_task = norm(task)
    out: list[Element] = []
    run: list[Element] = []

    def close() -> None:
        own = [e for e in run if not (norm(e.value) and norm(e.value) in low_task)]
        if len(own) > 1:
            out.append(Element(own[0].ref, "paragraph", "", " ".join(e.value for e in own)))
        else:
            out.extend(own)
        run.clear()

    for e in page.elements:
        if e.role == "paragraph" and e.ref.startswith("text-") and not e.name:
            run.append(e)
            continue
        close()
        out.append(e)
    close()
    return out


def _text_sources(page: Page, where: str, ordinal: int | None, task: str) -> list[str]:
    """Texts a clause points to: the n-th text area's text, or the page's paragraphs (not the task's own)."""
    where = re.sub(r"\s+", "", where.lower())
    if where in ("textarea", "box", "field"):
        areas = [e.value for e in candidates(page, "textarea") if e.value]
        if ordinal is not None:
            i = ordinal - 1 if ordinal > 0 else len(areas) + ordinal
            return [areas[i]] if 0 <= i < len(areas) else []
        return areas[:1]
    low_task = norm(task)
    texts = [e for e in _blocks(page, task) if e.role in ("paragraph", "text", "blockquote", "note")
             and (e.value or e.name) and norm(e.value or e.name) != low_task
             and not norm(e.value or e.name).startswith(low_task[:40])]
    # a paragraph is a run of text, not a heading or a label: the page's paragraphs first, else longer texts
    paras = [e.value or e.name for e in texts if e.role == "paragraph" and len((e.value or e.name).split()) >= 3] \
        or [e.value or e.name for e in texts if len((e.value or e.name).split()) >= 4]
    if ordinal is not None:
        i = ordinal - 1 if ordinal > 0 else len(paras) + ordinal
        return [paras[i]] if 0 <= i < len(paras) else []
    return paras[:1]


#: "the value of Gender", "the value for Year of Birth"
_VALUE_OF = re.compile(r"\bthe\s+value\s+(?:of|for)\s+(?:the\s+)?(?P<key>[^,;.]+?)"
                       r"(?=\s+(?:into|in|to|and|from)\b|[,;.]|$)", re.I)


def table_value(page: Page, key: str) -> str | None:
    """The value a page's label/value table gives for ``key`` (a row of two cells: the label, its value);
    a row of a wider table is no label/value pair (its header's next cell is another header)."""
    k = norm(key).rstrip(":")
    for table in page.tables:
        for row in table:
            cells = [c for c in row if c.strip()]
            if len(cells) == 2 and norm(cells[0]).rstrip(":") == k:
                return cells[1].strip()
    return None


def derived_value(page: Page, earlier: Sequence[str], task: str) -> str | None:
    """The value earlier clauses point to on the page: the n-th/last word of a paragraph or text area, the
    text of a text area to copy, or the value a table gives for a label ("the value of Gender")."""
    for clause in reversed(earlier):
        m = _VALUE_OF.search(clause)
        if m:
            found = table_value(page, m.group("key"))
            if found is not None:
                return found
        m = NTH_WORD.search(clause)
        if m:
            texts = _text_sources(page, m.group("where") or "paragraph", ordinal(m.group("ord2")), task)
            n = ordinal(m.group("ord"))
            if texts and n is not None:
                ws = _words_of(texts[0])
                i = n - 1 if n > 0 else len(ws) + n
                if 0 <= i < len(ws):
                    return ws[i]
            return None
        m = _COPY.search(clause)
        if m:
            texts = _text_sources(page, m.group("where"), ordinal(m.group("ord")), task)
            return texts[0] if texts else None
        m = SHOWN.search(clause)
        if m:
            return shown_text(page, task, below=m.group("side").lower() == "below")
    return None


def shown_text(page: Page, task: str, *, below: bool) -> str | None:
    """The text the page shows right below (or above) its own sentence asking for it (the task's words shown
    on the page): the next text that is not more of the task. None when the page does not show the task."""
    low_task = norm(task)
    texts = [e for e in page.elements if e.role in ("paragraph", "text", "blockquote", "note", "heading", "code")
             and (e.value or e.name).strip()]
    at = next((i for i, e in enumerate(texts) if norm(e.value or e.name) and norm(e.value or e.name) in low_task
               and len(norm(e.value or e.name)) >= min(20, len(low_task))), None)
    if at is None:
        if not below:
            return None
        # an ARIA tree runs the task's sentence and the text below it together in one text; letters drawn one
        # by one (each in its own box) read as single characters apart
        for e in texts:
            t = (e.value or e.name).strip()
            if norm(t).startswith(low_task) and len(t) > len(task.strip()):
                rest = t[len(task.strip()):].split()
                return "".join(rest) if rest and all(len(w) == 1 for w in rest) else " ".join(rest) or None
        return None
    order = texts[at + 1:] if below else reversed(texts[:at])
    for e in order:
        t = (e.value or e.name).strip()
        if norm(t) in low_task:
            continue  # more of the task's own sentences
        return t
    return None
