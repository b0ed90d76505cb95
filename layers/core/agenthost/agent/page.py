"""The page model: one shape for every source of page state.

Three sources produce a :class:`Page`:

* :func:`from_aria` - the AI Olympics ``accessibilityTree`` text (Playwright's ``aria_snapshot`` of
  ``body``: ``- role "name" [attrs]: value`` lines, nested by two-space indents, ``/url:`` and
  ``/placeholder:`` property lines, ``- text: ...`` nodes). Elements get refs ``e1``, ``e2``... in
  document order; the AI Olympics runner itself addresses elements by name, never by ref.
* :func:`from_snapshot` - the Proxy Server API ``PageSnapshot`` (``elements`` with ``data-agent-id``).
* :func:`from_observation` - the browser function's observation (ARIA snapshot plus the element snapshot,
  merged); :func:`agenthost.agent.dom.from_playwright` observes a live Playwright page into one.

Example::

    >>> page = from_aria('- textbox "Email"\\n- button "Send"', url="https://x.test/")
    >>> [(e.role, e.name) for e in page.interactive()]
    [('textbox', 'Email'), ('button', 'Send')]
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agenthost.agent import layout

#: roles a user can act on
INTERACTIVE_ROLES = frozenset({
    "button", "link", "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "switch",
    "slider", "spinbutton", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "tab", "treeitem",
})
#: roles that take typed text
TEXT_ROLES = frozenset({"textbox", "searchbox", "spinbutton"})
#: roles whose whole content is text for reading
TEXT_NODE_ROLES = frozenset({"text", "paragraph", "heading", "cell", "columnheader", "rowheader", "listitem",
                             "status", "alert", "generic", "strong", "emphasis", "code", "blockquote",
                             "caption", "term", "definition", "note", "log", "marquee", "figure"})

#: labels/names/autocomplete tokens of fields whose values must never leave the page (passwords, card data);
#: every match must contain a word of ``_SECRET_HINT`` below (the ARIA parser's quick pre-check): keep both in step
SENSITIVE = re.compile(r"(password|passcode|passphrase|pass[ _-]?word|\bpin\b|\bcvc2?\b|\bcvv2?\b|\bcsc\b|"
                       r"security[ _-]?code|card[ _-]?(?:number|no\b|num)|\bcard\b|cc[-_ ]?(?:number|num|csc|exp)|"
                       r"\bcc-|\bccnum|\biban\b|credit[ _-]?card|one[ -]?time code|\botp\b)", re.I)
#: what a masked value looks like in snapshots, prompts and stored memory
MASK = "••••••"


def is_sensitive(*labels: str, input_type: str = "", autocomplete: str = "") -> bool:
    """Whether a field is a password or payment-card field (by type, autocomplete token or label)."""
    if input_type.lower() == "password" or autocomplete.lower().startswith(("cc-", "current-password",
                                                                             "new-password", "one-time-code")):
        return True
    return any(lbl and SENSITIVE.search(lbl) for lbl in labels)


def mask(value: str) -> str:
    """``value`` as it may be shown: the mask when there is one (so "filled" stays visible), else empty."""
    return MASK if value else ""


_TAG_ROLE = {
    "a": "link", "button": "button", "select": "combobox", "textarea": "textbox", "option": "option",
    "summary": "button", "h1": "heading", "h2": "heading", "h3": "heading", "h4": "heading",
    "h5": "heading", "h6": "heading", "img": "img", "li": "listitem", "p": "paragraph",
}
_INPUT_ROLE = {
    "checkbox": "checkbox", "radio": "radio", "submit": "button", "button": "button", "reset": "button",
    "image": "button", "range": "slider", "number": "spinbutton", "search": "searchbox",
}


@dataclass(slots=True)
class Element:
    """One node of the page, interactive or text."""

    ref: str
    role: str
    name: str = ""
    value: str = ""
    tag: str = ""
    placeholder: str = ""
    href: str = ""
    input_type: str = ""
    field_name: str = ""
    checked: bool | None = None
    selected: bool = False
    disabled: bool = False
    level: int | None = None
    depth: int = 0
    options: list[str] = field(default_factory=list)
    selected_option: str = ""
    #: the element's form (its id, name or ``form#<index>``) when the source knows it (live pages, snapshots)
    form: str = ""
    in_viewport: bool = True
    parent: str = ""
    #: a password or card field: its value is masked wherever it is shown
    sensitive: bool = False
    #: an expandable control's state (a tab, a section header, a menu button): True open, False closed, None
    #: when the source does not say
    expanded: bool | None = None
    #: what the page shows as this control's label when it has no accessible name (the text right before it in
    #: its block, a table row's header): for understanding the control, never for addressing it
    hint: str = ""
    #: a text field that lists suggestions of its own as one types (the browser's are turned off:
    #: ``autocomplete="off"``): what was typed may need completing from its list
    suggests: bool = False

    @property
    def interactive(self) -> bool:
        return self.role in INTERACTIVE_ROLES

    @property
    def label(self) -> str:
        """What a person would call it: the accessible name, else the placeholder, else the value, else the
        text the page shows as its label."""
        return self.name or self.placeholder or (self.value if self.role in ("button", "link") else "") or self.hint

    def is_secret(self) -> bool:
        """A password/card field (flagged by the source, or named like one)."""
        return self.sensitive or (self.role in TEXT_ROLES and is_sensitive(
            self.name, self.placeholder, self.field_name, input_type=self.input_type))

    def describe(self) -> str:
        """A compact one-line description for prompts and logs."""
        bits = [self.role, json.dumps(self.name, ensure_ascii=False) if self.name else ""]
        if self.placeholder and self.placeholder != self.name:
            bits.append(f"placeholder={json.dumps(self.placeholder, ensure_ascii=False)}")
        if self.hint and not self.name:
            bits.append(f"labelled={json.dumps(self.hint, ensure_ascii=False)}")
        if self.value and self.role not in TEXT_NODE_ROLES:
            value = mask(self.value) if self.is_secret() else self.value[:80]
            bits.append(f"value={json.dumps(value, ensure_ascii=False)}")
        if self.options:
            shown = [o + (" (selected)" if o == self.selected_option else "") for o in self.options[:25]]
            bits.append("options=" + json.dumps(shown, ensure_ascii=False))
        if self.checked is not None:
            bits.append("[checked]" if self.checked else "[unchecked]")
        if self.disabled:
            bits.append("[disabled]")
        if self.href:
            bits.append(f"href={self.href[:120]}")
        if self.input_type and self.input_type not in ("text",):
            bits.append(f"type={self.input_type}")
        return " ".join(b for b in bits if b)


@dataclass
class Page:
    """A page as the policies see it."""

    url: str = ""
    title: str = ""
    elements: list[Element] = field(default_factory=list)
    #: visible text (for reading answers; at most a few thousand characters)
    text: str = ""
    #: ``aria`` | ``snapshot`` | ``live`` | ``empty``
    source: str = "empty"
    #: table rows as lists of cell texts (from the ARIA tree or the live page)
    tables: list[list[list[str]]] = field(default_factory=list)

    def interactive(self) -> list[Element]:
        return [e for e in self.elements if e.interactive and e.role != "option"]

    def by_ref(self, ref: str) -> Element | None:
        for e in self.elements:
            if e.ref == ref:
                return e
        return None

    @property
    def fingerprint(self) -> str:
        """A short hash of what can change on the page: interactive elements, their state, and the text.

        Computed once per page object (a page is a snapshot: build a new one when the page changes)."""
        cached = self.__dict__.get("_fingerprint")
        if cached is not None:
            return str(cached)
        h = hashlib.sha1(usedforsecurity=False)
        h.update(self.url.split("#", 1)[0].encode())
        for e in self.interactive():
            h.update(f"|{e.role}|{e.name}|{e.value}|{e.checked}|{e.selected_option}|{e.disabled}".encode())
        h.update(self.text[:4000].encode())
        self.__dict__["_fingerprint"] = fp = h.hexdigest()[:16]
        return fp

    def is_empty(self) -> bool:
        return not self.elements and not self.text.strip()


# --------------------------------------------------------------------------- ARIA text

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
_LABELLED = frozenset({"textbox", "searchbox", "spinbutton", "combobox", "listbox", "checkbox", "radio", "switch",
                       "slider"})
#: the longest text taken as a control's label (longer text is a sentence or a paragraph, not a label)
_MAX_HINT = 40


def label_unnamed(elements: list[Element]) -> None:
    """Give each unnamed control the text the page shows as its label (:attr:`Element.hint`): the short text
    right before it in the same block (``Username`` then a box, ``Date:`` then a box), or the header of its
    table row. Controls that follow each other share no label: only the nearest text counts."""
    by_ref = {e.ref: e for e in elements}
    for i, e in enumerate(elements):
        if e.name or e.role not in _LABELLED:
            continue
        for prev in reversed(elements[max(0, i - 4):i]):
            if prev.role in ("text", "paragraph", "strong", "emphasis", "generic", "rowheader", "columnheader",
                             "cell", "term", "heading") and prev.role != "cell" or (prev.role == "cell" and prev.value):
                t = (prev.value or prev.name).strip()
                same_block = prev.parent == e.parent or by_ref.get(e.parent, Element("", "")).parent == prev.parent
                if t and len(t) <= _MAX_HINT and same_block and t[-1] not in ".!?":  # a sentence is no label
                    e.hint = t.rstrip(":").strip()
                break
            if prev.role in _LABELLED or prev.interactive:
                break


def _add_row(tables: list[list[list[str]]], row: list[str]) -> None:
    if not tables:
        tables.append([])
    tables[-1].append(list(row))


# --------------------------------------------------------------------------- Proxy API snapshot

def _role_for(tag: str, input_type: str, role: str) -> str:
    if role:
        return role.lower()
    tag = tag.lower()
    if tag == "input":
        return _INPUT_ROLE.get(input_type.lower(), "textbox")
    return _TAG_ROLE.get(tag, "generic")


def from_snapshot(snapshot: dict[str, Any] | None) -> Page:
    """Build a page from a Proxy Server API ``PageSnapshot`` (unknown fields ignored)."""
    if not snapshot:
        return Page()
    elements: list[Element] = []
    shown: dict[int, str] = {}
    starts: dict[int, int] = {}
    for i, raw in enumerate(snapshot.get("elements") or []):
        if not isinstance(raw, dict):
            continue
        tag = str(raw.get("tag") or "")
        itype = str(raw.get("type") or "")
        role = _role_for(tag, itype, str(raw.get("role") or ""))
        if role == "generic":
            role = "button"  # a snapshot lists only what can be acted on: a div or span made clickable by script
        text = str(raw.get("text") or "")
        hint = str(raw.get("hint") or "")
        name = str(raw.get("ariaLabel") or raw.get("label") or "") or text
        if not name and hint and role not in _LABELLED:
            name = hint  # an icon's only description (its class or image file): what it is called
            hint = ""
        value = str(raw.get("value") or "")
        el = Element(
            ref=str(raw.get("id") or f"agent-{i}"), role=role, name=name.strip(), value=value, tag=tag,
            placeholder=str(raw.get("placeholder") or ""), href=str(raw.get("href") or ""), input_type=itype,
            field_name=str(raw.get("name") or ""), disabled=bool(raw.get("disabled")),
            form=str(raw.get("form") or ""), hint=hint,
        )
        autocomplete = str(raw.get("autocomplete") or "")
        if raw.get("sensitive") or (role in TEXT_ROLES and is_sensitive(
                el.name, el.placeholder, el.field_name, input_type=itype, autocomplete=autocomplete)):
            el.sensitive = True
            if value and value != MASK:
                el.value = MASK  # a snapshot from elsewhere may carry the real value: it goes no further
        if role in TEXT_ROLES and autocomplete.strip().lower() == "off":
            el.suggests = True
        if role in ("textbox", "searchbox") and not el.name:
            el.name = el.placeholder or el.field_name
        if role in ("checkbox", "radio", "switch"):
            el.checked = bool(raw.get("checked"))
        opts = raw.get("options")
        if isinstance(opts, list):
            el.options = [str(o.get("text") or o.get("label") or o.get("value") if isinstance(o, dict) else o)
                          for o in opts]
            el.selected_option = next((o for o in el.options if o == value), "")
        if raw.get("inViewport") is False:
            el.in_viewport = False
        if isinstance(raw.get("expanded"), bool):
            el.expanded = raw["expanded"]
        if raw.get("selected") is True:
            el.selected = True
        elements.append(el)
        shown[id(el)] = text or str(raw.get("label") or "") or hint
        at = raw.get("at")
        if isinstance(at, int) and not isinstance(at, bool) and at >= 0:
            starts[id(el)] = at
    # the structure the flat snapshot lost: an open combobox's list, the text between the controls
    elements = layout.group_options(elements, Element)
    elements, text = layout.interleave(elements, shown, str(snapshot.get("visibleText") or ""), Element, starts)
    tables = [[[str(c) for c in row if c is not None] for row in t if isinstance(row, list)]
              for t in snapshot.get("tables") or [] if isinstance(t, list)]
    return Page(url=str(snapshot.get("url") or ""), title=str(snapshot.get("title") or ""), elements=elements,
                text=text, source="snapshot", tables=[t for t in tables if t])


def from_observation(observation: dict[str, Any]) -> Page:
    """Build a page from the browser function's ``observation`` (ARIA text and/or element snapshot).

    The element snapshot (with ids) is the primary source when present; the ARIA tree fills in tables,
    options and text structure.
    """
    aria = observation.get("aria") or ""
    snap = observation.get("elements")
    url = str(observation.get("url") or "")
    title = str(observation.get("title") or "")
    if isinstance(snap, list):
        page = from_snapshot({"url": url, "title": title, "elements": snap,
                              "visibleText": observation.get("text") or ""})
        if aria:
            tree = from_aria(aria, url=url, title=title)
            page.tables = tree.tables
            if not page.text:
                page.text = tree.text
        page.source = "live"
        return page
    page = from_aria(aria, url=url, title=title)
    if observation.get("text"):
        page.text = str(observation["text"])
    return page


def names(elements: Iterable[Element]) -> list[str]:
    return [e.name for e in elements if e.name]
