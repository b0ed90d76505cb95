"""A page read from the AI Olympics ``accessibilityTree`` text.

:func:`from_aria` reads Playwright's ``aria_snapshot`` of ``body``: ``- role "name" [attrs]: value`` lines,
nested by two-space indents, ``/url:`` and ``/placeholder:`` property lines, ``- text: ...`` nodes, in one
regex pass over the whole tree. Elements get refs ``e1``, ``e2``... in document order (the AI Olympics runner
itself addresses elements by name, never by ref); tables are kept as rows of cells; secret fields are marked
and their values masked; unnamed controls get the text the page shows as their label
(:func:`label_unnamed`).

Example::

    >>> page = from_aria('- textbox "Email"\\n- button "Send"', url="https://x.test/")
    >>> [(e.role, e.name) for e in page.interactive()]
    [('textbox', 'Email'), ('button', 'Send')]
"""

from __future__ import annotations

import json
import re

from agenthost.agent.page import SENSITIVE, TEXT_NODE_ROLES, TEXT_ROLES, Element, Page

#: one line of the tree (the fallback for lines re-read after unquoting)
_LINE = re.compile(
    r'^(?P<indent> *)- (?:(?P<role>[a-zA-Z]+)(?: "(?P<name>[^"\\]*(?:\\.[^"\\]*)*)")?(?P<attrs>(?: \[[^\]]*\])*)'
    r'(?P<rest>.*)|(?P<other>.*))$'
)
#: every line of the tree in one pass: (indent, body after "- ", role, name, attrs, value after ":", other rest);
#: the same reading as _LINE per line (no class may cross a line end)
_LINES = re.compile(
    r'^( *)- ((?:([a-zA-Z]+)(?: "([^"\\\n]*(?:\\.[^"\\\n]*)*)")?((?: \[[^\]\n]*\])*)(?::(.*)|(.*)))|.*)$',
    re.M,
)
_ATTR = re.compile(r"\[([a-z-]+)(?:=([^\]]*))?\]")
_CHECKABLE = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox"})
_CELLS = frozenset({"cell", "columnheader", "rowheader"})
_READ_ROLES = TEXT_NODE_ROLES | {"img"}
_QUOTES = ("'", '"')
#: attribute strings seen (" [checked]", " [level=2]"...): (checked, selected, disabled, level, expanded)
_ATTRS: dict[str, tuple[bool | None, bool, bool, int | None, bool]] = {}
#: a word every SENSITIVE match contains (lower case): a label without one needs no full search
_SECRET_HINT = re.compile(r"pass|pin|cv|csc|security|card|cc|iban|credit|one|otp")
#: element refs "e0", "e1"... made once (grown to the largest tree seen, at most 8,192)
_REFS: tuple[str, ...] = ()


def _unquote_yaml(s: str) -> str:
    s = s.strip()
    if len(s) >= 2:
        q = s[0]
        if q == '"' and s[-1] == '"':
            if "\\" not in s:
                return s[1:-1]  # what json.loads gives, or its fallback when it refuses (an inner quote)
            try:
                return str(json.loads(s))
            except ValueError:
                return s[1:-1]
        if q == "'" and s[-1] == "'":
            return s[1:-1].replace("''", "'")
    return s


def _json_str(s: str) -> str:
    if "\\" not in s:
        return s
    try:
        return str(json.loads(f'"{s}"'))
    except ValueError:
        return s


def _attrs(attrs: str) -> tuple[bool | None, bool, bool, int | None, bool]:
    got = _ATTRS.get(attrs)
    if got is None:
        checked: bool | None = None
        selected = disabled = expanded = False
        level: int | None = None
        for a, v in _ATTR.findall(attrs):
            if a == "checked":
                checked = v != "false"
            elif a == "selected":
                selected = True
            elif a == "disabled":
                disabled = True
            elif a == "expanded":
                expanded = v != "false"
            elif a == "level" and v.isdigit():
                level = int(v)
        got = (checked, selected, disabled, level, expanded)
        if len(_ATTRS) < 512:
            _ATTRS[attrs] = got
    return got


def _secret_label(label: str) -> bool:
    """``SENSITIVE.search(label)``, answered without it for ASCII labels holding none of its words."""
    if label.isascii() and _SECRET_HINT.search(label.lower()) is None:
        return False
    return SENSITIVE.search(label) is not None


def _refs(count: int) -> tuple[str, ...]:
    global _REFS
    refs = _REFS
    if len(refs) <= count and len(refs) < 8192:
        refs = _REFS = tuple(f"e{i}" for i in range(min(max(count + 1, 256), 8192)))
    return refs


def from_aria(tree: str, *, url: str = "", title: str = "") -> Page:
    """Parse Playwright's ``aria_snapshot`` text (the AI Olympics ``accessibilityTree``)."""
    elements: list[Element] = []
    texts: list[str] = []
    add_element, add_text = elements.append, texts.append
    stack: list[tuple[int, Element]] = []  # (indent, element) ancestors
    push, pop = stack.append, stack.pop
    tables: list[list[list[str]]] = []
    row: list[str] | None = None
    row_indent = -1
    n = 0
    fields: list[Element] = []  # text fields: checked for secrets once their placeholder is known
    combos: list[Element] = []
    known_attrs = _ATTRS.get
    # one regex pass over the whole text, its lines split exactly where str.splitlines() splits them
    lines = _LINES.findall("\n".join(tree.splitlines())) if tree else []
    refs = _refs(len(lines))
    for g_indent, body, role, name, attrs, value, junk in lines:
        indent = len(g_indent)
        if not role or (junk and junk[0] != " "):
            other = body
            body = body.rstrip()
            if body[:1] in _QUOTES:
                # a quoted line; one with children is a quoted key ('tab "Tab #1"':), its colon outside
                colon = ":" if body[-1:] == ":" and body[-2:-1] == body[:1] else ""
                m = _LINE.match(" " * indent + "- " + _unquote_yaml(body[:-1] if colon else body) + colon)
                if m is None:
                    continue
                _, role, name, attrs, rest, other = m.groups()
                if role is None:
                    other = (other or "").strip()
                    if other and not other.startswith("/"):
                        add_text(other)
                        continue
                else:
                    value = rest[1:] if rest[:1] == ":" else ""
            while stack and stack[-1][0] >= indent:
                pop()
            parent = stack[-1][1] if stack else None
            if row is not None and indent <= row_indent:
                if row:
                    _add_row(tables, row)
                row = None
            if not role:
                body = (other or "").strip()
                if body[:1] == "/":
                    if parent is not None:
                        key, _, val = body[1:].partition(":")
                        if key == "url":
                            parent.href = _unquote_yaml(val)
                        elif key == "placeholder":
                            parent.placeholder = _unquote_yaml(val)
                elif body:
                    add_text(_unquote_yaml(body))
                continue
        else:
            while stack and stack[-1][0] >= indent:
                pop()
            parent = stack[-1][1] if stack else None
            if row is not None and indent <= row_indent:
                if row:
                    _add_row(tables, row)
                row = None
        if name:
            if "\\" in name:
                name = _json_str(name)
        else:
            name = ""
        if value:
            value = value.strip()
            if value[:1] in _QUOTES:
                value = _unquote_yaml(value)
        else:
            value = ""
        if role == "text":
            t = value or name
            if t:
                add_text(t)
                if row is not None:
                    row.append(t)
                # a text node is an element too: where it stands decides what the runner's text match hits
                # first, and which control it labels
                n += 1
                tx = Element(refs[n] if n < 8192 else f"e{n}", "text", "", t)
                tx.depth = indent // 2
                if parent is not None:
                    tx.parent = parent.ref
                add_element(tx)
            continue
        n += 1
        el = Element(refs[n] if n < 8192 else f"e{n}", role, name, value)
        el.depth = indent // 2
        if parent is not None:
            el.parent = parent.ref
        if attrs:
            el.checked, el.selected, el.disabled, el.level, expanded = known_attrs(attrs) or _attrs(attrs)
            if expanded:
                el.expanded = True
        if role in _CHECKABLE:
            if el.checked is None:
                el.checked = False
        elif role == "option":
            if parent is not None and parent.role in ("combobox", "listbox"):
                parent.options.append(name or value)
                if el.selected:
                    parent.selected_option = name or value
        elif role in _READ_ROLES:
            t = value or name
            if t:
                add_text(t)
            if row is not None and role in _CELLS and indent > row_indent:
                row.append(t)
        elif role in TEXT_ROLES:
            fields.append(el)
        elif role == "combobox":
            combos.append(el)
        elif role == "row":
            if row:
                _add_row(tables, row)
            row, row_indent = [], indent
        elif name and (role == "button" or role == "link"):
            add_text(name)
        add_element(el)
        push((indent, el))
    if row:
        _add_row(tables, row)
    for el in combos:
        if el.options and not el.selected_option and el.value in el.options:
            el.selected_option = el.value
    label_unnamed(elements)
    for el in fields:  # is_sensitive(el.name, el.placeholder)
        if (el.name and _secret_label(el.name)) or (el.placeholder and _secret_label(el.placeholder)) \
                or (el.hint and _secret_label(el.hint)):
            el.sensitive = True
    return Page(url=url, title=title, elements=elements, text="\n".join(texts), source="aria", tables=tables)


#: controls a label is looked for when they have no accessible name
LABELLED = frozenset({"textbox", "searchbox", "spinbutton", "combobox", "listbox", "checkbox", "radio", "switch",
                       "slider"})
#: the longest text taken as a control's label (longer text is a sentence or a paragraph, not a label)
_MAX_HINT = 40


def label_unnamed(elements: list[Element]) -> None:
    """Give each unnamed control the text the page shows as its label (:attr:`Element.hint`): the short text
    right before it in the same block (``Username`` then a box, ``Date:`` then a box), or the header of its
    table row. Controls that follow each other share no label: only the nearest text counts."""
    by_ref = {e.ref: e for e in elements}
    for i, e in enumerate(elements):
        if e.name or e.role not in LABELLED:
            continue
        for prev in reversed(elements[max(0, i - 4):i]):
            if prev.role in ("text", "paragraph", "strong", "emphasis", "generic", "rowheader", "columnheader",
                             "cell", "term", "heading") and prev.role != "cell" or (prev.role == "cell" and prev.value):
                t = (prev.value or prev.name).strip()
                same_block = prev.parent == e.parent or by_ref.get(e.parent, Element("", "")).parent == prev.parent
                if t and len(t) <= _MAX_HINT and same_block and t[-1] not in ".!?":  # a sentence is no label
                    e.hint = t.rstrip(":").strip()
                break
            if prev.role in LABELLED or prev.interactive:
                break


def _add_row(tables: list[list[list[str]]], row: list[str]) -> None:
    if not tables:
        tables.append([])
    tables[-1].append(list(row))
