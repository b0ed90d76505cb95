"""An item inside a menu whose submenus open when the pointer rests on their parent, reached with the keyboard.

Menus built on the WAI-ARIA menu pattern (``role=menu`` / ``menuitem``, a parent item marked
``aria-haspopup``) open a submenu on hover, and many select the item under the pointer on a click, a parent as
much as a leaf: a click on the parent ends the choice with the wrong item. No protocol tool hovers. The
keyboard is what the pattern guarantees: the focused menu's active item moves with the up and down arrows, the
right arrow opens the active item's submenu and moves into it, the left arrow closes it again. So: while the
item the task names is not shown, the agent focuses the menu (``Home``: its first item), walks to the parent
to open with the arrows (the snapshot says which item is active: ``Element.focused``), opens it with the right
arrow, and once the item is shown clicks it (the pointer lands on the item itself, so the choice is that item).

The item is named either as a path (``Files > Recent > notes.txt``: each parent in turn) or alone (quoted, or
"the item labeled X"): then each parent is opened in turn until the item shows, and the agent gives up when
none holds it. Needs the ``press`` tool and a snapshot that says where the keyboard is (the Proxy API's);
elsewhere the rule stays out.

Written by hand: a few lines over the page model; no library drives an unknown page's menu.
"""

from __future__ import annotations

import re
from typing import Any

from agenthost.agent.actions import Action
from agenthost.agent.page import Element, Page
from agenthost.agent.task import TaskFacts

_ITEM_ROLES = ("menuitem", "menuitemcheckbox", "menuitemradio")
_MENU_ROLES = ("menu", "menubar")
#: a path of menu items: "A > B > C", "A>B", "A → B"
_SEP = re.compile(r"\s*[>›»→]\s*")
_PATH = re.compile(r"[^\s>›»→][^>›»→\n]*(?:\s*[>›»→]\s*[^>›»→\n]+)+")
#: words after the last item of a path that are not part of its name
_TAIL = re.compile(r"\s+(?:from|in|on|of|under|and|then|using|via)\b.*$|[.,;:!?\"'”]+(?:\s.*)?$", re.I)
#: "the item labeled X", "the option called X"
_MENU_WORD = re.compile(r"\bmenu\b", re.I)
_PICK = re.compile(r"\b(?:click|select|choose|pick|open|tap)\b", re.I)
_LABELLED = re.compile(r"\b(?:labell?ed|called|named|titled)\s+[\"“']?([^\"”'.,;]+)", re.I)


def _key(s: str) -> str:
    return " ".join(s.split()).casefold()


def _path(text: str, items: list[Element]) -> list[str]:
    """The items a path in the task names, parents first; [] when the task gives no path."""
    m = _PATH.search(text)
    if not m:
        return []
    parts = [p.strip() for p in _SEP.split(m.group(0))]
    head = _key(parts[0])
    # the words before the first item ("Select File") are not part of it: the longest item name it ends with
    known = sorted({_key(e.name) for e in items if e.name}, key=len, reverse=True)
    first = next((k for k in known if head == k or head.endswith(" " + k)), head.split(" ")[-1])
    last = _TAIL.sub("", parts[-1]).strip()
    out = [first, *(_key(p) for p in parts[1:-1]), _key(last)]
    return out if all(out) else []


def _leaf(facts: TaskFacts, page: Page) -> str:
    """The one item the task names without a path ("the item labeled X", or quoted where the task speaks of a
    menu), not shown on the page; "" when it names none or several."""
    shown = {_key(e.name) for e in page.elements if e.name}
    names = [m.group(1) for m in _LABELLED.finditer(facts.text)]
    if _MENU_WORD.search(facts.text) and _PICK.search(facts.text):
        names += facts.quoted
    missing = [_key(n) for n in names if n.strip() and _key(n) not in shown]
    return missing[0] if len(set(missing)) == 1 else ""


def menu_actions(facts: TaskFacts, page: Page, memory: dict[str, Any], names: Any) -> list[Action] | None:
    """The next step toward the menu item the task names: a key that moves toward its parent or opens it, or
    the click on the item once shown; ``[]`` when every parent that could hold it was opened and it is in none
    (the task cannot go on); None when the page has no such menu or the task names no item in it."""
    if "press" not in names or "click" not in names:
        return None
    items = [e for e in page.elements if e.role in _ITEM_ROLES and not e.disabled]
    if not any(e.has_popup for e in items):
        return None
    state: dict[str, Any] = memory.setdefault("menu", {})
    path = _path(facts.text, items)
    leaf = path[-1] if path else (_leaf(facts, page) or str(state.get("leaf") or ""))
    if not leaf:
        return None
    state["leaf"] = leaf
    shown = {_key(e.name): e for e in items if e.name}
    if leaf in shown:
        memory.pop("menu", None)
        target = shown[leaf]
        return [Action("click", {"element": target.name}, resolved=target, why="the menu item the task names")]
    opened: list[str] = list(state.get("opened") or [])
    focused = next((e for e in items if e.focused), None)
    if path:
        reached = [p for p in path[:-1] if p in shown]
        if not reached or reached != path[:len(reached)]:
            return None  # the path does not start in this menu
        parent = shown[reached[-1]]
        if _key(parent.name) in opened and focused is not None and _key(focused.name) != _key(parent.name):
            return []  # opened, and the next item of the path is not in it
    else:
        if state.get("open") and focused is not None and _key(focused.name) != state["open"]:
            # the submenu just opened does not hold the item: back to its parent, then the next one
            state.pop("open")
            return [Action("press", {"key": "ArrowLeft"}, why="close a submenu without the item")]
        state.pop("open", None)
        left = [e for e in items if e.has_popup and _key(e.name) not in opened]
        if not left:
            return []
        parent = left[0]
    if focused is None:
        menu = next((e for e in page.elements if e.role in _MENU_ROLES), None)
        target = menu or parent
        return [Action("press", {"element": target.name, "key": "Home"}, resolved=target,
                       why="focus the menu (the pointer would open its submenus by hovering)")]
    if _key(focused.name) == _key(parent.name):
        state["opened"] = [*opened, _key(parent.name)]
        state["open"] = _key(parent.name)
        # the active item is no part of the page's fingerprint: back on the closed menu, the next parent's
        # ArrowRight is another press than the last one's (the parent it opens tells them apart; so for the arrows)
        return [Action("press", {"key": "ArrowRight"}, why=f"open the submenu of {parent.name!r}",
                       progress=_key(parent.name))]
    order = {id(e): i for i, e in enumerate(page.elements)}
    key = "ArrowDown" if order[id(parent)] > order[id(focused)] else "ArrowUp"
    return [Action("press", {"key": key}, why=f"move to {parent.name!r} in the menu", progress=_key(focused.name))]
