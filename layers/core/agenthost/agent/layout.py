"""What a flat element snapshot loses, put back: the text between the controls, and the list a combobox opened.

A Proxy API ``PageSnapshot`` (and the browser function's element snapshot) lists the interactive elements
and, apart, the page's visible text with its whitespace collapsed into one line. An ARIA tree keeps more:
paragraphs and headings sit between the controls in document order, each on its own line, and a
combobox's open list is a ``listbox`` holding its options. The policy reads both (a question right before
its answer field, the page's sentences about the goal, the list a typed combobox opened), so a snapshot page
is given the same structure here:

* :func:`interleave`: each control is placed where the snapshot says it starts in the visible text (our own
  extension and browser function send ``at``), else its shown text (a link's or button's text, a field's
  label) is found in the visible text in order; the text before it becomes ``paragraph`` elements right
  before the control, one per sentence, and the page's text becomes those sentences and labels, one per line
  (nothing is dropped: a control whose text is not found further on just gets no paragraph);
* :func:`group_options`: ``option`` elements listed right after an editable combobox (one with no options of
  its own) are put under a ``listbox`` element, as the ARIA tree nests them.

Pure functions over the page model's elements; the element class is passed in (``make(ref, role, name,
value)``) so that this module does not import :mod:`agenthost.agent.page`. Written by hand: it is a small
scan over strings the page model already holds; no library models a collapsed snapshot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: a sentence ends at ``.``, ``!`` or ``?`` followed by a space and a capital letter, a digit or a quote (not
#: after an item number: ``1. How many...`` is one sentence), and a numbered item starts a new one
_SENTENCE_END = re.compile(r"(?<=[?!.])(?<!\b\d\.)(?<!\b\d\d\.)\s+(?=[A-Z0-9\"'“(¿])|\s+(?=\d{1,2}[.)]\s+[A-Z])")
#: text pieces shorter than this are labels' leftovers (a colon, a bullet), not paragraphs, unless a digit or letter
_MIN_PIECE = 2


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (stripped, empty ones dropped)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _pattern(label: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(label) + r"(?!\w)")


def _positions(labels: Sequence[str], text: str) -> list[int]:
    """Where each label is shown in ``text``, in order (-1: not found further on). First the earliest
    occurrence after the previous label's; then each label but the last moves to its last occurrence before
    the next label's, so that a field's label is the one right before the field, not the same word in a
    table header or a sentence further up (``Town`` in a table, then ``Town`` over its select)."""
    pos: list[int] = []
    cursor = 0
    for label in labels:
        m = _pattern(label).search(text, cursor) if label else None
        pos.append(m.start() if m else -1)
        if m:
            cursor = m.end()
    limit = -1
    for i in range(len(labels) - 1, -1, -1):
        if pos[i] < 0:
            continue
        if limit >= 0:
            found = [m.start() for m in _pattern(labels[i]).finditer(text, pos[i], limit)]
            pos[i] = found[-1] if found else pos[i]
        limit = pos[i]
    return pos


def interleave(elements: Sequence[Any], shown: Mapping[int, str], text: str,
               make: Callable[[str, str, str, str], Any],
               starts: Mapping[int, int] | None = None) -> tuple[list[Any], str]:
    """``elements`` with ``paragraph`` elements (refs ``text-1``, ``text-2``...) for the text between them, and
    the text as lines (sentences and controls' labels). ``shown[id(element)]`` is the text the element
    shows on the page (its text, or its label for a field); elements not in it show none. ``starts``: where
    each element starts in ``text`` when the snapshot says so (then they are placed there, in that order)."""
    out: list[Any] = []
    lines: list[str] = []
    cursor = 0
    n = 0

    def add_text(piece: str) -> None:
        nonlocal n
        for s in sentences(piece):
            if len(s) < _MIN_PIECE and not s.isalnum():
                continue  # a colon, a bullet; a lone digit or letter is shown text (a number in a row)
            n += 1
            out.append(make(f"text-{n}", "paragraph", "", s))
            lines.append(s)

    def place(label: str, at: int) -> None:
        """The text before an element, then the element's own label."""
        nonlocal cursor
        add_text(text[cursor:at])
        lines.append(label)
        cursor = at + len(label)

    if starts and all(id(el) in starts for el in elements):
        # the snapshot says where each element starts in the text: page order, no guessing
        elements = sorted(elements, key=lambda el: starts[id(el)])
        labels = [" ".join(shown.get(id(el), "").split()) for el in elements]
        positions = []
        for el, label in zip(elements, labels, strict=True):
            at = max(0, min(starts[id(el)], len(text)))
            while at < len(text) and text[at] == " ":
                at += 1  # the space that sets the element's text apart from what comes before
            positions.append(at if label and text.startswith(label, at) else -1)
            if positions[-1] < 0 and at > cursor:
                add_text(text[cursor:at])  # the text before an element whose own text is not shown there
                cursor = at
            elif positions[-1] >= 0 and at >= cursor:
                place(label, at)
            out.append(el)
        add_text(text[cursor:])
        return out, "\n".join(lines)
    labels = [" ".join(shown.get(id(el), "").split()) for el in elements]
    for el, label, at in zip(elements, labels, _positions(labels, text), strict=True):
        if at >= 0:
            place(label, at)
        out.append(el)
    add_text(text[cursor:])
    return out, "\n".join(lines)


def group_options(elements: Sequence[Any], make: Callable[[str, str, str, str], Any]) -> list[Any]:
    """``elements`` with each run of ``option`` elements that comes right after an editable combobox (no
    options of its own) put under a new unnamed ``listbox`` (ref: the combobox's ref + ``-list``; its options
    listed on it and each option's ``parent`` set), as an ARIA tree shows an open autocomplete list."""
    out: list[Any] = []
    listbox: Any = None
    for el in elements:
        if el.role != "option":
            listbox = None
            out.append(el)
            continue
        if listbox is None and out and out[-1].role == "combobox" and not out[-1].options:
            listbox = make(out[-1].ref + "-list", "listbox", "", "")
            out.append(listbox)
        if listbox is not None and not el.parent:
            el.parent = listbox.ref
            listbox.options.append(el.name or el.value)
            if el.selected:
                listbox.selected_option = el.name or el.value
        out.append(el)
    return out
