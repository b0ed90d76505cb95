"""The page model: one shape for every source of page state.

A :class:`Page` (URL, title, text, tables, its :class:`Element` s in document order, a
:meth:`~Page.fingerprint` of what it shows) and what every reader of it shares: the roles a user acts on
(:data:`INTERACTIVE_ROLES`), text fields (:data:`TEXT_ROLES`) and text nodes (:data:`TEXT_NODE_ROLES`), and
which labels name a secret (:func:`is_sensitive`; secret values are shown as :data:`MASK`).

Three sources produce a page, each read in its own module:

* :func:`agenthost.agent.aria.from_aria` - the AI Olympics ``accessibilityTree`` text (Playwright's
  ``aria_snapshot`` of ``body``);
* :func:`agenthost.agent.snapshot.from_snapshot` - the Proxy Server API ``PageSnapshot`` (``elements`` with
  ``data-agent-id``);
* :func:`agenthost.agent.snapshot.from_observation` - the browser function's observation (ARIA snapshot plus
  the element snapshot, merged); :func:`agenthost.agent.dom.from_playwright` observes a live Playwright page
  into one.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

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
    #: where the keyboard is (the focused element, or the item a focused menu or list points to as its active
    #: one), when the source says
    focused: bool = False
    #: an item that opens a submenu or popup of its own (``aria-haspopup``)
    has_popup: bool = False
    #: a list box where several options may be chosen (``<select multiple>``), and the options chosen now
    multiple: bool = False
    chosen: list[str] = field(default_factory=list)

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
            picked = self.chosen if self.multiple else [self.selected_option]
            shown = [o + (" (selected)" if o in picked else "") for o in self.options[:25]]
            bits.append("options=" + json.dumps(shown, ensure_ascii=False))
        if self.checked is not None:
            bits.append("[checked]" if self.checked else "[unchecked]")
        if self.focused:
            bits.append("[focused]")
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
            if e.multiple:
                h.update("|".join(e.chosen).encode())
        h.update(self.text.encode())  # all of it: a long log's or terminal's new line comes at its end
        self.__dict__["_fingerprint"] = fp = h.hexdigest()[:16]
        return fp

    def is_empty(self) -> bool:
        return not self.elements and not self.text.strip()


def names(elements: Iterable[Element]) -> list[str]:
    return [e.name for e in elements if e.name]
