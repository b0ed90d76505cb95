"""Controls a task refers to by their kind and place instead of a name, and the values it wants in them.

Pages often leave controls unnamed, and tasks then say which one they mean by what it is and where it is:
"enter "Ana" into the text field", "type the number "16" into the 3rd textbox", "both text fields", "check
the 1st radio button", "click the 2nd checkbox", "focus into the textbox", "click the button", "choose 5 ft
from the dropdown", "select 7 with the spinner". This module reads such references from each clause of the
task (:func:`clauses`), finds the controls they point to (:func:`referenced`: the only one of its kind, the
n-th in page order, or all of them for "both"/"all"), and proposes the actions (:func:`reference_actions`).

A value for a referenced field is what the clause states (a quoted value, a date, a time or a number), with a
case change the clause asks for ("in upper case"); or, for "type that"/"paste it"/"your answer", a value
the page holds that an earlier clause points to: the n-th or last word of a paragraph or text area, the text
of a text area to copy, a problem the page poses (through the skills). Values never come from the task's
descriptive words.

Hand-written: the phrases are general English ways of pointing at a control; no library reads them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agenthost.agent import scope
from agenthost.agent.actions import Action, norm
from agenthost.agent.page import TEXT_ROLES, Element, Page
from agenthost.agent.progress import Seen
from agenthost.agent.task import TaskFacts

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
_TYPE_VERB = re.compile(r"\b(enter|type|input|write|put|fill(?:\s+in)?|paste|insert|key\s+in)\b", re.I)
_CLICK_VERB = re.compile(r"\b(click|press|push|tap|hit)\b", re.I)
_TICK_VERB = re.compile(r"\b(check|tick|select|mark|choose|pick)\b", re.I)
_FOCUS_VERB = re.compile(r"\bfocus\b", re.I)
_QUOTED = re.compile(r"\"([^\"]*)\"|“([^”]*)”")
_DATE = re.compile(r"\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b")
_TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?(?![\w:])", re.I)
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,]\d+)?(?![\w/:])")
#: a text to put in a message ("reply with the text "Thanks"", "a note saying "On my way"", "tell him that
#: it "works now"")
_WITH_TEXT = re.compile(r"\b(?:(?:with|saying|reading|that says)\s+|(?:tell|telling)\s+(?:him|her|them|us|me|the\s+\w+)"
                        r"(?:\s+that)?(?:\s+it)?\s*:?\s*|say\s+(?:that\s+)?)(?:the\s+)?(?:text|message|words?|note|"
                        r"comment|reply)?\s*[\"“]", re.I)
#: a value right after a typing verb ("Enter 09/10/2012 as ...", "type "Ana" ...", "enter the number 16")
_DIRECT = re.compile(r"\b(?:enter|type|input|write|key\s+in)\s+(?:the\s+(?:number|value|text|date|time|word)\s+)?"
                     r"(?:\"[^\"]+\"|“[^”]+”|\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}|\d{1,2}:\d{2}|[-+]?\d+(?:[.,]\d+)?)", re.I)
#: a clause's value comes from an earlier clause ("type that", "paste it", "your answer")
_PRONOUN = re.compile(r"\b(?:that|it|this|them|the (?:answer|result|word|text|value)|your (?:answer|result))\b",
                      re.I)
_UPPER = re.compile(r"\b(?:upper[\s-]?case|all caps|capital letters|capitals)\b", re.I)
_LOWER = re.compile(r"\blower[\s-]?case\b", re.I)
#: "the 4th word in the paragraph", "the last word in the text area"
_NTH_WORD = re.compile(r"\b(?:the\s+)?(?P<ord>" + ORDINAL + r")\s+word\b(?:\s+(?:in|of|from)\s+(?:the\s+)?"
                       r"(?:(?P<ord2>" + ORDINAL + r")\s+)?(?P<where>paragraph|text\s*area|textarea|text|sentence|"
                       r"passage))?", re.I)
#: "type the text below", "enter the code shown above": the page's own text next to the sentence asking for it
_SHOWN = re.compile(r"\bthe\s+(?:text|words?|code|characters|letters|string|phrase|sentence|number)\s+"
                    r"(?:(?:that\s+is\s+|that's\s+)?(?:shown|written|displayed|printed|given)\s+)?(?P<side>below|above)\b",
                    re.I)
#: "copy the text in the textarea", "copy the text from the 2nd text area"
_COPY = re.compile(r"\bcopy\b.*?\b(?:in|from|of)\s+(?:the\s+)?(?:(?P<ord>" + ORDINAL + r")\s+)?"
                   r"(?P<where>text\s*area|textarea|paragraph|box|field)", re.I)
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


def _kind_of(word: str) -> str:
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
                "textbox": "text"}.get(re.sub(r"\s+", " ", m.group(1).lower()), _kind_of(m.group(1)))
        if kind:
            one = re.search(r"\b(?:a|an|any|one)\s+$", clause[:m.start()], re.I) is not None
            out.append(Ref(kind, start=m.start(), end=m.end(), any=one))
    for m in _KIND_RX.finditer(clause):
        kind = _kind_of(m.group("kind"))
        quant = (m.group("quant") or "").lower()
        if not kind or any(r.start <= m.start("kind") < r.end for r in out):
            continue
        out.append(Ref(kind, ordinal(m.group("ord")), quant in ("both", "all", "each", "every"), m.start(), m.end(),
                       any=quant in ("a", "an", "any", "one") and not m.group("ord")))
    return sorted(out, key=lambda r: r.start)


def _verbs_text(clause: str, refs: Sequence[Ref]) -> str:
    """The clause with the controls it names blanked out (an "input textbox" is no verb "input")."""
    out = clause
    for r in refs:
        out = out[:r.start] + " " * (r.end - r.start) + out[r.end:]
    return out


_INTO = re.compile(r"\b(?:into|in|to|onto|inside|with)\s+(?:the\s+|both\s+|all\s+|each\s+)?(?:" + ORDINAL +
                   r"\s+)?$", re.I)


def _destinations(clause: str, refs: Sequence[Ref]) -> list[Ref]:
    """The controls a typing clause puts its value into ("... into the 3rd textbox", "... with the spinner"),
    not those it reads from ("copy the text in the text area", "the last word in the text area, enter it")."""
    verb = _TYPE_VERB.search(_verbs_text(clause, refs))
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

    hidden = _QUOTED.sub(hide, text or "")
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


# --------------------------------------------------------------------------- values

def _stated_value(clause: str) -> str | None:
    """The value a clause states: a quoted one, else a date, a time or a number after its verb."""
    for m in _QUOTED.finditer(clause):
        v = next(g for g in m.groups() if g is not None)
        if _kind_of(v) or re.fullmatch(r"\s*(?:submit|ok|search|login|log in)\s*", v, re.I):
            continue  # a quoted control kind or button name, not a value
        return v
    verb = _TYPE_VERB.search(clause) or _TICK_VERB.search(clause)
    rest = clause[verb.end():] if verb else clause
    for rx in (_DATE, _TIME, _NUMBER):
        found = rx.search(rest)
        if found:
            return found.group(0).strip()
    return None


def _cased(value: str, clause: str) -> str:
    if _UPPER.search(clause):
        return value.upper()
    if _LOWER.search(clause):
        return value.lower()
    return value


def _words_of(text: str) -> list[str]:
    """The words of ``text``, without the punctuation around them."""
    return [w.strip("\"'“”()[].,;:!?") for w in text.split() if w.strip("\"'“”()[].,;:!?")]


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
    texts = [e for e in page.elements if e.role in ("paragraph", "text", "blockquote", "note")
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
#: a form whose fields take the values a table gives for their labels
_BY_LABEL = re.compile(r"\b(?:correspond\w*|each\s+label|matching\s+(?:label|value)s?)\b", re.I)


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
        m = _NTH_WORD.search(clause)
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
        m = _SHOWN.search(clause)
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


# --------------------------------------------------------------------------- actions

def reference_actions(facts: TaskFacts, page: Page, seen: Seen, names: Sequence[str], *,
                      taken: set[int] = frozenset(),  # type: ignore[assignment]
                      answer: str | None = None) -> list[Action]:
    """The actions the task's references by kind ask for on this page: values typed into the fields they
    point to, options chosen, boxes ticked, controls clicked or focused. ``taken``: ids of elements other
    rules already act on; ``answer``: a problem's answer the page poses (for "type your answer")."""
    out: list[Action] = []
    done: set[int] = set(taken)
    parts = clauses(facts.text)
    for i, clause in enumerate(parts):
        refs = refs_in(clause)
        verbs = _verbs_text(clause, refs)
        typing = _TYPE_VERB.search(verbs)
        if (typing and not _destinations(clause, refs) and (_DIRECT.search(clause) or _SHOWN.search(clause))) or \
                (not refs and _WITH_TEXT.search(clause)):
            # "Enter 09/10/2012 as the date", "reply with the text "Thanks"", "enter the code shown below": a value
            # for a field the clause does not point to by kind: the page's only empty text field (a text area too),
            # when no rule fills one
            refs = [*refs, Ref("field", start=len(clause), end=len(clause))]
            typing = typing or _WITH_TEXT.search(clause)
        if typing and _BY_LABEL.search(clause) and "type" in names:
            out.extend(a for a in _by_label(page, done) if id(a.resolved) not in done)
            done.update(id(a.resolved) for a in out if a.resolved is not None)
        for ref in refs:
            if typing and ref.kind in ("text", "textarea", "spinbutton", "field") and \
                    ref not in _destinations(clause, refs) and ref.start < len(clause):
                continue  # a field the clause reads from, not one it types into
            act = _act_on(ref, clause, verbs, [*parts[:i], clause], page, facts, seen, names, answer)
            for a in act:
                if a.resolved is not None and id(a.resolved) not in done:
                    done.add(id(a.resolved))
                    out.append(a)
    return out


#: a click on something the clause names in quotes ("click on the link "quisque."", "the file named "Livia"",
#: "the item labeled "Prev"")
_CLICK_QUOTED = re.compile(r"\b(?:click|press|tap|open|pick)\b[^\"“]{0,60}?[\"“]([^\"”]{1,80})[\"”]", re.I)
#: controls that show more of a page when opened (a menu button, an expander, a tree's toggle, the next page)
_REVEALS = re.compile(r"\b(?:expand(?:able)?|collapsed|show\s+more|more|menu|toggle|hitarea|next(?:\s+page)?|older)\b|"
                      r"^\s*(?:[+▸▶>»›]|next\s*[>»›])\s*$", re.I)


#: the glyphs a close button shows, and what such a button is called when its glyph is an icon
_CLOSE_GLYPHS = frozenset({"x", "×", "✕", "✖", "✗", "╳"})
_CLOSE_NAME = re.compile(r"^\s*(?:close|closethick|dismiss|[x×✕✖✗╳])\s*$", re.I)


def shown_as(page: Page, text: str, task: str = "") -> Element | None:
    """The element that shows exactly ``text``: a control by its name, else a piece of text (page order). An
    "x" is a close button's glyph: the button called Close shows it. Else a control whose name is ``text``
    followed only by words of the ``task`` (a menu's "Mute @nathalie" for "the Mute button" of @nathalie's
    post)."""
    t = norm(text)
    if not t:
        return None
    if t in _CLOSE_GLYPHS:
        close = next((e for e in page.elements if e.role in ("button", "link") and not e.disabled
                      and _CLOSE_NAME.match(e.name or e.hint or "")), None)
        if close is not None:
            return close
    lists = {e.ref for e in page.elements if e.role == "listbox"}
    best = None
    for e in page.elements:
        if e.role in ("textbox", "searchbox", "combobox") or (e.role == "option" and e.parent not in lists):
            continue
        shown = norm(e.name if e.interactive or e.name else e.value)
        if shown == t or shown.rstrip(".,;:") == t.rstrip(".,;:"):
            if e.interactive:
                return e
            best = best or e
    if best is None and task:
        said = set(re.findall(r"[@\w]+", norm(task)))
        for e in page.elements:
            shown = norm(e.name)
            if not e.disabled and e.role in ("button", "link", "menuitem", "listitem", "option") and \
                    shown.startswith(t + " ") and set(re.findall(r"[@\w]+", shown[len(t):])) <= said:
                return e
    return best


def reveal(page: Page, seen: Seen, facts: TaskFacts | None = None) -> Element | None:
    """The next control that may show what the page does not show yet: a tab not open yet, a closed section,
    a menu button, an expander, the next page; each tried once (page order). Of several alike (every post's
    "more" menu), the one of the task's item (:func:`agenthost.agent.scope.scoped`)."""
    found: list[Element] = []
    for e in page.elements:
        if e.disabled or not (e.name or e.value) or seen.clicks.get(norm(e.ref)) or seen.clicked_here(e):
            continue
        if (e.role == "tab" and not (e.selected or e.expanded)) or \
                (e.expanded is False and e.role in ("button", "link", "tab", "treeitem", "menuitem")) or \
                (e.role in ("button", "link", "menuitem", "treeitem") and _REVEALS.search(e.name or "")):
            found.append(e)
    for e in found:
        alike = [x for x in found if norm(x.name) == norm(e.name)]
        if len(alike) > 1 and facts is not None:
            mine = scope.scoped(page, alike, facts)
            if mine:
                return mine[0]
        if len(alike) == 1 and seen.clicked(e):
            continue
        return e
    return None


#: a clause asking to open the page's closed parts ("expand the section below", "open all the panels")
_EXPAND = re.compile(r"\b(?:expand|unfold|uncollapse|open)\b[^.;\"“]{0,30}?\b(?P<all>all\b[^.;\"“]{0,15})?"
                     r"(?:sections?|panels?|accordions?|collapsibles?|headers?|headings?|parts?)\b", re.I)


def expand_clicks(facts: TaskFacts, page: Page, seen: Seen) -> list[Action]:
    """The closed sections a clause asks to expand (a header whose ``aria-expanded`` is false, a tab of an
    accordion not open yet): the first, or all of them when the clause says all or speaks of several; each
    clicked once."""
    out: list[Action] = []
    for clause in clauses(facts.text):
        m = _EXPAND.search(clause)
        if m is None:
            continue
        several = bool(m.group("all")) or m.group(0).lower().rstrip().endswith("s")
        for e in page.elements:
            closed = e.expanded is False or (e.role == "tab" and not (e.selected or e.expanded))
            if e.disabled or not closed or e.role not in ("button", "link", "tab", "treeitem", "heading") or \
                    not (e.name or e.value) or seen.clicks.get(norm(e.ref)) or seen.clicked(e):
                continue
            out.append(Action("click", {"element": e.name or e.value}, resolved=e,
                              why=f"expand {e.name or e.value!r} (the task asks to expand)"))
            if not several:
                break
        break
    return out


def quoted_clicks(facts: TaskFacts, page: Page, seen: Seen, *, reveals: bool = True) -> list[Action]:
    """What a clause asks to click by a quoted name: the element showing it, once; when the page does not
    show it yet, the next control that may reveal it (a tab, a section, a menu, a folder's expander), or
    nothing with ``reveals=False``."""
    for clause in clauses(facts.text):
        for m in _CLICK_QUOTED.finditer(clause):
            name = m.group(1).strip()
            if _kind_of(name):
                continue
            el = shown_as(page, name, facts.text)
            if el is not None:
                alike = [e for e in page.elements if e.role == el.role and norm(e.name) == norm(el.name)]
                if len(alike) > 1:  # the task's item's own (several when it says "on 3 posts"): the next not clicked
                    mine = scope.scoped(page, alike, facts) or [el]
                    el = next((x for x in mine if not (seen.clicks.get(norm(x.ref)) or seen.clicked_here(x))), mine[0])
                if seen.clicks.get(norm(el.ref)) or seen.clicked_here(el) or (len(alike) == 1 and seen.clicked(el)):
                    continue
                return [Action("click", {"element": el.name if el.interactive and el.name else name}, resolved=el,
                               why=f"the task's {name!r}")]
            more = reveal(page, seen, facts)
            if more is not None:
                return [Action("click", {"element": more.name or more.value}, resolved=more,
                               why=f"open {more.name or more.value!r}: {name!r} is not shown yet")] if reveals else []
    return []


def _by_label(page: Page, done: set[int]) -> list[Action]:
    """Each empty field whose label a table of the page lists, given the table's value for it."""
    out = []
    for e in page.elements:
        if e.role not in TEXT_ROLES or e.disabled or id(e) in done or (e.value or "").strip():
            continue
        value = table_value(page, e.label)
        if value is not None:
            out.append(Action("type", {"element": e.name or e.placeholder, "text": value, "clear": True},
                              resolved=e, why=f"the table's value for {e.label!r}"))
    return out


def _act_on(ref: Ref, clause: str, verbs: str, earlier: Sequence[str], page: Page, facts: TaskFacts, seen: Seen,
            names: Sequence[str], answer: str | None) -> list[Action]:
    typing = _TYPE_VERB.search(verbs) is not None
    if ref.kind == "field" or (ref.kind in ("text", "textarea", "spinbutton") and (typing or ref.kind == "spinbutton")):
        if "type" not in names:
            return []
        value = _stated_value(clause)
        if value is None and (_PRONOUN.search(verbs) or _SHOWN.search(clause)):
            value = derived_value(page, earlier, facts.text) or answer
        if value is None:
            return []
        value = _cased(value, clause)
        targets = referenced(page, ref, empty_first=True)
        out = []
        for e in targets:
            v = _for_input(value, e.input_type)
            if not e.input_type and not (e.value or "").strip() and norm(v) in seen.typed:
                # typed before and the field is still empty: a date or time field of a kind the page does not
                # say refused that form of it; its standard form instead
                v = next((alt for alt in (_for_input(value, "date"), _for_input(value, "time"))
                          if alt != value and norm(alt) not in seen.typed), v)
            if not e.input_type and (e.value or "").strip() and \
                    norm(e.value) in (norm(_for_input(value, "date")), norm(_for_input(value, "time"))):
                continue  # the field shows the value in the standard form it took: it is in
            if norm(e.value) != norm(v):
                out.append(Action("type", {"element": e.name or e.placeholder, "text": v, "clear": True}, resolved=e,
                                  why=f"the task's value for the {ref.kind} it points to"))
        return out
    if ref.kind == "combobox":
        value = _stated_value(clause)
        acts = []
        for e in referenced(page, ref):
            opt = _option(e, value, clause)
            if opt and opt != e.selected_option:
                acts.append(Action("select", {"element": e.name, "option": opt}, resolved=e,
                                   why=f"the option the task names in the {ref.kind}"))
        return acts
    if ref.kind in ("checkbox", "radio"):
        if not (_TICK_VERB.search(verbs) or _CLICK_VERB.search(verbs)):
            return []
        return [Action("click", {"element": e.name}, resolved=e, why=f"the {ref.kind} the task points to")
                for e in referenced(page, ref) if not e.checked]
    if _FOCUS_VERB.search(verbs) and ref.kind in ("text", "textarea"):
        return [Action("click", {"element": e.name}, resolved=e, why="focus the field the task points to")
                for e in referenced(page, ref)]
    if _CLICK_VERB.search(verbs) and ref.kind in ("button", "link", "tab", "text", "textarea"):
        targets = referenced(page, ref)
        named = [q for pair in re.findall(r"\"([^\"]+)\"|“([^”]+)”", clause) for q in pair
                 if q and not _kind_of(q)]  # a quoted kind ('a "button" widget') names no button
        if named and ref.kind in ("button", "link", "tab"):
            # "the "Mute" button": a button of that name, not whichever button the page has
            targets = [e for e in targets if any(norm(q) in norm(e.name) for q in named)]
        return [Action("click", {"element": e.name}, resolved=e, why=f"the {ref.kind} the task points to")
                for e in targets if not (seen.clicked(e) or seen.clicked_here(e))]  # once, as the task says
    return []


def unverified(acts: Sequence[Action], page: Page) -> bool:
    """Whether one of ``acts`` types a date or a time into a field whose kind the page does not say (an ARIA
    tree shows a date input as a plain text box): whether the field took that form shows only afterwards."""
    def dated(a: Action) -> bool:
        text = str(a.args.get("text", "")).strip()
        return bool(_DATE.fullmatch(text) or _TIME.fullmatch(text))

    return page.source == "aria" and any(a.tool == "type" and a.resolved is not None and not a.resolved.input_type
                                         and dated(a) for a in acts)


def _for_input(value: str, input_type: str) -> str:
    """``value`` as a date or time input takes it (``09/10/2012`` -> ``2012-09-10``, ``8:22 AM`` -> ``08:22``);
    other fields take it as written."""
    t = (input_type or "").lower()
    if t == "date":
        m = re.fullmatch(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})", value.strip())
        if m:
            return f"{m.group(3)}-{int(m.group(1)):02d}-{int(m.group(2)):02d}"
    if t == "time":
        m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::\d{2})?\s*([ap])?\.?m?\.?", value.strip(), re.I)
        if m:
            h = int(m.group(1)) % 12 if m.group(3) else int(m.group(1))
            if (m.group(3) or "").lower() == "p":
                h += 12
            return f"{h:02d}:{m.group(2)}"
    return value


def _option(e: Element, value: str | None, clause: str) -> str | None:
    """The option of ``e`` the clause names (its stated value, else an option the clause mentions whole)."""
    opts = [o for o in e.options if o.strip()]
    if value:
        for o in opts:
            if norm(o) == norm(value):
                return o
    low = norm(clause)
    named = [o for o in opts if len(norm(o)) >= 2 and re.search(r"(?<![\w])" + re.escape(norm(o)) + r"(?![\w])", low)]
    return max(named, key=len) if named else None
