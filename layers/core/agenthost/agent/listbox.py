"""Several options chosen in one list box where more than one may be selected (``<select multiple>``), with the
keyboard: "Select Oslo, Lima from the list", "choose Red and Blue".

Choosing an option by its label replaces what the list held (that is what a plain click does too); adding one
takes a modifier. The keyboard of a multi-select list box does it without the pointer: ``Control`` with an arrow
moves the list's active option without changing the selection, ``Control+Space`` toggles the active option. So
the agent chooses the first option the task names (by its label: the list then holds that one, and it is the
active option), then walks down to each further one and toggles it. Options are taken in list order so the
walk only goes down; where the active option is is kept in the task memory (``memory["listbox"]``), since no
snapshot shows it. The snapshot says which options are chosen (``Element.chosen``): when they are exactly the
ones the task names the form goes on; when the list holds another, it starts over from the first.

Needs the ``press`` tool (the Proxy API's); elsewhere the rule stays out. Written by hand: a few lines over the
page model.
"""

from __future__ import annotations

import re
from typing import Any

from agenthost.agent.actions import Action
from agenthost.agent.page import Element, Page
from agenthost.agent.task import TaskFacts


def _named(text: str, box: Element) -> list[str]:
    """The list's options the task names (whole words, any case), in list order."""
    low = text.casefold()
    return [o for o in box.options if o.strip() and re.search(r"(?<!\w)" + re.escape(o.strip().casefold()) + r"(?!\w)",
                                                              low)]


def listbox_actions(facts: TaskFacts, page: Page, memory: dict[str, Any], names: Any) -> list[Action] | None:
    """The next step toward the options the task names chosen in a multi-select list: the first one by its
    label, then a key that moves toward or toggles the next; ``[]`` once the list holds exactly those; None when
    no such list has two options the task names (one is chosen by its label as any select is)."""
    if "press" not in names:
        return None
    for box in page.elements:
        if not box.multiple or box.disabled:
            continue
        want = _named(facts.text, box)
        if len(want) < 2:
            continue
        chosen = set(box.chosen)
        if chosen == set(want):
            memory.pop("listbox", None)
            return []
        state = memory.get("listbox")
        if chosen - set(want) or not chosen or not isinstance(state, dict) or state.get("ref") != box.ref:
            memory["listbox"] = {"ref": box.ref, "at": box.options.index(want[0])}
            return [Action("select", {"element": box.name or box.hint, "option": want[0]}, resolved=box,
                           why="the first option the task names (the list holds only it)")]
        at = int(state.get("at", 0))
        nxt = next(o for o in want if o not in chosen)
        goal = box.options.index(nxt)
        if goal == at:
            return [Action("press", {"element": box.name or box.hint, "key": "Control+Space"}, resolved=box,
                           why=f"add {nxt!r} to the options chosen")]
        step = 1 if goal > at else -1
        state["at"] = at + step
        # the active option shows nowhere on the page: where the walk stands tells one step from the next
        return [Action("press", {"element": box.name or box.hint, "key": "Control+ArrowDown" if step > 0
                                 else "Control+ArrowUp"}, resolved=box,
                       why=f"move to {nxt!r} without changing the options chosen", progress=str(at))]
    return None
