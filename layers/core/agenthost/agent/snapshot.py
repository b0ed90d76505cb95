"""A page read from a flat element snapshot: the Proxy API's ``PageSnapshot``, the browser function's observation.

:func:`from_snapshot` builds a :class:`~agenthost.agent.page.Page` from the snapshot's elements (a role from
each one's tag and type, secret values masked, options, states) and gives it the structure an ARIA tree has
(:mod:`agenthost.agent.layout`: an open combobox's list, the text between the controls).
:func:`from_observation` reads the browser function's observation: the element snapshot first, the ARIA tree
(:func:`agenthost.agent.aria.from_aria`) filling in tables and text.
"""

from __future__ import annotations

from typing import Any

from agenthost.agent import layout
from agenthost.agent.aria import LABELLED, from_aria
from agenthost.agent.page import MASK, TEXT_ROLES, Element, Page, is_sensitive

_TAG_ROLE = {
    "a": "link", "button": "button", "select": "combobox", "textarea": "textbox", "option": "option",
    "summary": "button", "h1": "heading", "h2": "heading", "h3": "heading", "h4": "heading",
    "h5": "heading", "h6": "heading", "img": "img", "li": "listitem", "p": "paragraph",
}
_INPUT_ROLE = {
    "checkbox": "checkbox", "radio": "radio", "submit": "button", "button": "button", "reset": "button",
    "image": "button", "range": "slider", "number": "spinbutton", "search": "searchbox",
}


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
    where: dict[int, tuple[float, float]] = {}
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
        if not name and hint and role not in LABELLED:
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
        el.focused, el.has_popup, el.multiple = (raw.get(k) is True for k in ("focused", "haspopup", "multiple"))
        if el.multiple and isinstance(raw.get("chosen"), list):
            el.chosen = [str(o) for o in raw["chosen"]]
        elements.append(el)
        shown[id(el)] = text or str(raw.get("label") or "") or hint
        at = raw.get("at")
        if isinstance(at, int) and not isinstance(at, bool) and at >= 0:
            starts[id(el)] = at
        box = raw.get("bbox")
        if isinstance(box, dict):
            try:
                where[id(el)] = (float(box.get("y") or 0), float(box.get("x") or 0))
            except (TypeError, ValueError):
                pass
    if starts and len(starts) == len(elements):
        # controls that start at the same place in the text (none shows text of its own there) in the order the
        # page shows them, top to bottom, left to right: the snapshot lists the enabled ones first
        order = {id(el): i for i, el in enumerate(elements)}
        elements.sort(key=lambda el: (starts[id(el)], *where.get(id(el), (0.0, 0.0)), order[id(el)]))
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
