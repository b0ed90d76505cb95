"""How a runner that addresses elements by name reaches an element: the AI Olympics runner's resolution, and
the name that makes it hit a given element.

The AI Olympics runner has no element ids: ``click`` tries buttons whose accessible name contains the
given text, then links, then any element whose text contains it; ``type`` tries text boxes by accessible
name, then controls by label, then by placeholder; ``select`` tries comboboxes by name, then controls by
label (matching is a case-insensitive substring; the first element in page order wins within a stage).
An empty name matches every element of a role: ``type`` with ``""`` fills the page's first text box.

:func:`runner_hit` is that resolution over the page model (an ARIA page, whose text nodes are elements in
page order); :func:`address` is the inverse: the name to send so that the runner hits a chosen element, or
None when no name reaches it (a second unnamed box, an icon without a name, a text the instruction above
it repeats). A policy's action on such an element cannot be expressed on this protocol and is not sent.

Written here because no library models a remote runner's resolution; the rules are the platform's own.
"""

from __future__ import annotations

import re

from agenthost.agent.page import TEXT_NODE_ROLES, Element, Page

#: controls getByLabel can reach (a label or an accessible name)
_LABELLED = frozenset({"textbox", "searchbox", "spinbutton", "combobox", "listbox", "checkbox", "radio", "switch",
                       "slider"})
#: elements getByText can reach: text, and the controls whose name is their own text (a box named by its label)
_TEXT_HOLDERS = TEXT_NODE_ROLES | {"button", "link", "tab", "menuitem", "listitem", "option", "img", "row", "checkbox",
                                    "radio", "switch", "menuitemcheckbox", "menuitemradio", "treeitem"}


#: controls small enough that a click on them lands on what they hold
_SMALL = frozenset({"button", "link", "tab", "menuitem", "option", "treeitem", "checkbox", "radio"})


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", (s or "").strip().lower())


def _text_of(e: Element) -> str:
    """The text an element shows (what getByText matches)."""
    if e.role in ("textbox", "searchbox", "combobox", "spinbutton"):
        return ""  # a field's value is no text of the page
    return e.value if e.role in TEXT_NODE_ROLES and e.value else (e.name or e.value)


def _stages(tool: str) -> tuple[tuple[str, ...], ...]:
    """For each stage of ``tool``'s resolution: which test it applies (see :func:`_matches`)."""
    return {"click": (("role", "button"), ("role", "link"), ("text",)),
            "type": (("role", "textbox"), ("label",), ("placeholder",)),
            "select": (("role", "combobox"), ("label",))}.get(tool, ())


def _matches(stage: tuple[str, ...], e: Element, t: str, lists: frozenset[str] = frozenset()) -> bool:
    kind = stage[0]
    if e.disabled and kind != "text":
        return False
    if kind == "role":
        return e.role == stage[1] and t in _norm(e.name)
    if kind == "label":
        return e.role in _LABELLED and bool(e.name) and t in _norm(e.name)
    if kind == "placeholder":
        return bool(e.placeholder) and t in _norm(e.placeholder)
    if (e.role == "option" and e.parent not in lists) or e.role not in _TEXT_HOLDERS:
        return False  # a <select>'s options show no text of their own; an open list's options do
    return bool(t) and t in _norm(_text_of(e))


def runner_hit(page: Page, tool: str, name: str) -> Element | None:
    """The element the runner acts on for ``tool`` named ``name`` (None: it would wait for one in vain)."""
    t = _norm(name)
    if not t and tool == "click":
        return None  # an empty click name hits the first button of any name: never meant
    lists = frozenset(e.ref for e in page.elements if e.role == "listbox")
    for stage in _stages(tool):
        for e in page.elements:
            if _matches(stage, e, t, lists):
                return e
    return None


def address(page: Page, tool: str, el: Element, prefer: str = "") -> str | None:
    """The name that makes the runner's ``tool`` hit ``el`` on ``page``; None when no name does. ``prefer``:
    the name the policy gave (a value inside a longer text: a phone number in a contact card), tried after the
    element's own name."""
    tried: list[str] = []
    for cand in (el.name, prefer, el.placeholder if tool == "type" else "", _text_of(el) if tool == "click" else ""):
        c = (cand or "").strip()
        if c and c not in tried:
            tried.append(c)
            if _reaches(page, tool, runner_hit(page, tool, c), el):
                return c
    if tool in ("type", "select") and runner_hit(page, tool, "") is el:
        return ""  # the first control of its kind: the runner takes it for an empty name
    return None


def _reaches(page: Page, tool: str, hit: Element | None, el: Element) -> bool:
    """Whether acting on ``hit`` acts on ``el``: the same element, or for a click one inside the other (the
    link inside a tab, the text inside a button)."""
    if hit is None or hit is el:
        return hit is el
    if tool != "click":
        return False
    by_ref = {e.ref: e for e in page.elements}
    pairs = [(hit, el)]
    if hit.role in _SMALL:
        pairs.append((el, hit))  # a click lands on a control's middle: inside a big container it may miss el
    for inner, outer in pairs:
        up = by_ref.get(inner.parent or "")
        while up is not None:
            if up is outer:
                return True
            up = by_ref.get(up.parent or "")
    return False
