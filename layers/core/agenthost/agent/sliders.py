"""Sliders set to the values the task names, with the keyboard: "Select 5 with the slider", "set the sliders to
the combination [5, 11, 10]", "move the volume slider to 30".

A slider is a control whose role is ``slider`` or whose name says it is one (a handle named from its class,
``slider handle``); its value is its own (``aria-valuenow``) or the number the page shows right after it (the
readout most slider widgets keep beside the handle). Each step presses one key on the handle: an arrow moves
it one step toward the target; a page key (``PageUp``/``PageDown``) moves it a page, used only once the size of
a page is known (measured from an earlier page key, kept in the task memory as ``memory["slide"]``) and not
more than what is left. A protocol without a key press cannot move a slider (the AI Olympics runner).

Written by hand: a few lines over the page model; no library drives an unknown slider widget by keys.
"""

from __future__ import annotations

import re
from typing import Any

from agenthost.agent.actions import Action
from agenthost.agent.choices import number_alone, number_in
from agenthost.agent.page import Element, Page
from agenthost.agent.task import TaskFacts

_SLIDER_NAME = re.compile(r"\bslider\b", re.I)
_SLIDER_TASK = re.compile(r"\bsliders?\b", re.I)
#: "the combination [5,11,10]": the values of several sliders, in page order
_LIST = re.compile(r"\[\s*([-+−]?\d+(?:\.\d+)?(?:\s*,\s*[-+−]?\d+(?:\.\d+)?)+)\s*\]")
#: a page key is used only when at least this many steps are left
_PAGE_AT_LEAST = 6


def _num(s: str) -> float:
    return float(s.replace("−", "-"))


def _sliders(page: Page) -> list[tuple[Element, float | None]]:
    """The page's sliders in page order, each with its value (None when the page shows none)."""
    els = page.elements
    out: list[tuple[Element, float | None]] = []
    for i, e in enumerate(els):
        if e.disabled or not (e.role == "slider" or (e.role in ("button", "generic") and _SLIDER_NAME.search(
                f"{e.name} {e.hint}"))):
            continue
        value = number_alone(e.value) if e.role == "slider" else None
        if value is None and e.role != "slider" and i + 1 < len(els) and \
                els[i + 1].role in ("paragraph", "text", "generic"):
            value = number_alone(els[i + 1].value or els[i + 1].name)  # the readout beside the handle
        out.append((e, value))
    return out


def _targets(text: str, count: int) -> list[float] | None:
    """The values the task names for ``count`` sliders: a bracketed list of that many, or the one number in
    the sentence that speaks of the slider (one slider)."""
    m = _LIST.search(text)
    if m:
        vals = [_num(v) for v in m.group(1).split(",")]
        return vals if len(vals) == count else None
    if count != 1:
        return None
    for clause in re.split(r"[.;]|,\s*(?:then\s+)?|\bthen\b", text):
        if _SLIDER_TASK.search(clause):
            x = number_in(clause)
            if x is not None:
                return [x]
    return None


def slider_actions(facts: TaskFacts, page: Page, memory: dict[str, Any], names: Any) -> list[Action] | None:
    """One key press that moves a slider toward the value the task names; ``[]`` when every slider shows its
    value (the rest of the task goes on); None when the task sets no slider this protocol can move."""
    if "press" not in names or not _SLIDER_TASK.search(facts.text):
        return None
    sliders = _sliders(page)
    targets = _targets(facts.text, len(sliders)) if sliders else None
    if not targets or any(v is None for _, v in sliders):
        return None
    last = memory.get("slide")
    page_size: dict[str, float] = dict(memory.get("slide_page") or {})
    for (e, value), want in zip(sliders, targets, strict=True):
        assert value is not None
        if isinstance(last, list) and len(last) == 3 and last[0] == e.ref and str(last[2]).startswith("Page"):
            moved = abs(value - float(last[1]))
            if moved > 0:
                page_size[e.ref] = moved  # what one page key moved this slider
        if value == want:
            continue
        left = want - value
        size = page_size.get(e.ref)
        if abs(left) >= _PAGE_AT_LEAST and (size is None or abs(left) >= size) and \
                not (size is None and e.ref in (memory.get("slide_paged") or [])):
            key = "PageUp" if left > 0 else "PageDown"
            memory["slide_paged"] = sorted({*(memory.get("slide_paged") or []), e.ref})
        else:
            key = "ArrowRight" if left > 0 else "ArrowLeft"
        memory["slide"] = [e.ref, value, key]
        memory["slide_page"] = page_size
        # the same arrow turn after turn: the value it moves from tells the loop guard's streak one from the next
        return [Action("press", {"element": e.name, "key": key}, resolved=e,
                       why=f"move the slider from {value:g} toward {want:g}", progress=f"{value:g}")]
    memory.pop("slide", None)
    return []
