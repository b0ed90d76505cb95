"""A box scrolled to its end: "scroll the text area to the bottom", "scroll the terms box all the way up",
"scroll the notes to the beginning of the text", "scroll to the end of the terms box".

The page-wide ``scroll`` tool moves the window, not a text area or a list with its own scroll bar. The
keyboard reaches one: Control+End moves the caret (and the view) to the end of a text area or a list box,
Control+Home to its start. The control is the one the task points to by kind ("the textarea", "the second
text box", "the list") or by its own name ("the terms box"); the key is pressed on it once (the task memory
keeps ``memory["scrolled"]``: the controls and ends already reached), and the rest of the task goes on. A
protocol whose key press cannot aim at a control (the AI Olympics runner presses on whatever has the focus)
does not take this rule.

Written by hand: a regular expression over the task and the kinds `pointing` reads; no library reads
"scroll X to the bottom".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agenthost.agent.actions import Action, norm
from agenthost.agent.page import Element, Page
from agenthost.agent.pointing import referenced, refs_in
from agenthost.agent.task import TaskFacts

#: "scroll the text area (all the way) to the bottom", "scroll down the list to its end"
_SCROLL_TO = re.compile(r"\bscroll(?:\s+(?:down|up))?\s+(?P<what>(?:the|this|that|your)\s+[^.;,]{1,50}?)\s+"
                        r"(?:(?:all the way|right|down|up)\s+)?(?:to|until)\s+(?:the\s+|its\s+|their\s+)?"
                        r"(?P<end>bottom|end|top|start|beginning|very\s+(?:top|bottom|end))\b", re.I)
#: "scroll to the bottom of the text area", "scroll all the way down to the end of the terms box, then ..."
_SCROLL_OF = re.compile(r"\bscroll(?:\s+(?:down|up))?\s+(?:all the way\s+)?(?:down\s+|up\s+)?to\s+(?:the\s+)?"
                        r"(?P<end>bottom|end|top|start|beginning|very\s+(?:top|bottom|end))\s+of\s+"
                        r"(?P<what>(?:the|this|that|your)\s+[^.;,]{1,50}?)(?=\s*[.;,]|\s+(?:and|then)\b|\s*$)", re.I)
#: what is the window, not a control with its own scroll bar
_WINDOW = re.compile(r"^(?:the|this|that|your)\s+(?:web\s*)?(?:page|window|screen|site|document)$", re.I)
#: the roles that scroll on their own: text areas and lists
_SCROLLERS = ("textbox", "listbox", "list", "tree", "grid", "log", "document", "region", "generic")


def _target(what: str, facts: TaskFacts, page: Page) -> Element | None:
    refs = refs_in(what)
    if refs:
        found = referenced(page, refs[0])
        return found[0] if len(found) == 1 else None
    named = [e for e in page.elements if e.role in _SCROLLERS and e.name and not e.disabled and
             facts.mentions(e.name, min_cover=1.0) >= 1.0 and norm(e.name) in norm(what)]
    return named[0] if len(named) == 1 else None


def scrolled(memory: dict[str, Any]) -> set[str]:
    """The refs of the controls already scrolled: the task points to them to scroll, not to click."""
    return {str(m).split("|", 1)[0] for m in memory.get("scrolled") or []}


def scroll_actions(facts: TaskFacts, page: Page, memory: dict[str, Any], names: Sequence[str]) -> \
        list[Action] | None:
    """The key that scrolls the control the task names to the end it asks for; ``[]`` once it was pressed
    (the rest of the task goes on); None when the task scrolls no control this protocol can aim a key at."""
    if "press" not in names:
        return None
    m = _SCROLL_TO.search(facts.text) or _SCROLL_OF.search(facts.text)
    if not m or _WINDOW.match(m.group("what").strip()):
        return None
    target = _target(m.group("what"), facts, page)
    if target is None or target.disabled:
        return None  # a disabled box takes no focus, so no key reaches it
    end = m.group("end").lower().split()[-1]
    key = "Control+Home" if end in ("top", "start", "beginning") else "Control+End"
    done = list(memory.get("scrolled") or [])
    mark = f"{target.ref}|{key}"
    if mark in done:
        return []
    memory["scrolled"] = done + [mark]
    return [Action("press", {"element": target.name, "key": key}, resolved=target,
                   why=f"scroll {m.group('what').strip()} to its {end} with the keyboard")]
