"""Tables recovered from a page's text (the Proxy API snapshot's ``visibleText``, whose whitespace the
extension collapses): tab-separated lines when they survive, else rows of word and number cells of one
shape under a header of as many cells. Used by :mod:`runs.agent_adapter` to give the brain's page model the
tables an ARIA tree would have shown. Written here: no library reads tables back out of flattened text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NUMBER = re.compile(r"^[-+(]?[$€£¥]?\d(?:[\d,.:/-]*\d)?%?\)?$")
_CELL_START = re.compile(r"^[A-Z\d$€£¥+\-\u00C0-\u00DE]")


def _tab_tables(text: str) -> list[list[list[str]]]:
    """Tables written as tab-separated lines (a table's ``innerText``): runs of lines with as many cells."""
    tables: list[list[list[str]]] = []
    run: list[list[str]] = []
    for line in text.splitlines() + [""]:
        cells = [c.strip() for c in line.split("\t")] if "\t" in line else []
        if cells and (not run or len(cells) == len(run[0])):
            run.append(cells)
            continue
        if len(run) >= 3:
            tables.append(run)
        run = [cells] if cells else []
    return tables


def _cells(tokens: list[str]) -> list[str]:
    """Words grouped into cells the way headings are written: a cell starts with a capital letter, a digit
    or a sign; lower-case words and parenthesised units belong to the cell before ("Area (km²)",
    "Date of birth")."""
    out: list[str] = []
    for t in tokens:
        if out and not _CELL_START.match(t) and not _NUMBER.match(t) and not _NUMBER.match(out[-1]):
            out[-1] += " " + t
        else:
            out.append(t)
    return out


def _header_cell(c: str, number: bool) -> bool:
    """A column heading: short, capitalised, no number, no sentence."""
    return not number and c[-1] not in ".!?:;," and not c[0].islower() and not c[0].isdigit() \
        and c.count(" ") < 5


def _cell_like(cell: str, number: bool) -> bool:
    """A table cell rather than a piece of a sentence (which ends with a full stop, comma...)."""
    return number or cell[-1] not in ".!?:;,"


def _prefix(flags: list[bool]) -> list[int]:
    out = [0]
    for f in flags:
        out.append(out[-1] + f)
    return out


def _flat_tables(cells: list[str], max_cols: int, labels: set[str]) -> list[list[list[str]]]:
    """Runs of rows of one shape (which cells are numbers), at least one number and one word per row,
    under a header of as many short capitalised cells with no number; rows that are the names of links or
    buttons ("Room 3 Room 12 Room 7") are a list of controls, not a table."""
    n = len(cells)
    number = [bool(_NUMBER.match(c)) for c in cells]
    kinds = "".join("N" if x else "W" for x in number)
    numbers = _prefix(number)
    headers = _prefix([_header_cell(c, x) for c, x in zip(cells, number, strict=True)])
    sentence = _prefix([not _cell_like(c, x) for c, x in zip(cells, number, strict=True)])
    found: list[list[list[str]]] = []
    i = 2
    while i < n:
        best: tuple[int, int] | None = None  # (rows, period)
        for p in range(2, min(max_cols, i) + 1):
            if headers[i] - headers[i - p] < p:
                break  # a longer header would hold this one's non-heading cell too
            if i + 2 * p > n:
                break
            nums = numbers[i + p] - numbers[i]
            if not 0 < nums < p:
                continue
            shape = kinds[i:i + p]
            rows = 1
            while i + (rows + 1) * p <= n and kinds[i + rows * p:i + (rows + 1) * p] == shape:
                rows += 1
            if rows < 2 or (rows < 3 and p < 3) or (best is not None and rows * p <= best[0] * best[1]):
                continue
            if sentence[i + rows * p] - sentence[i]:
                continue
            if any(" ".join(cells[i + r * p:i + (r + 1) * p]).lower() in labels for r in range(rows)):
                continue
            best = (rows, p)
        if best is None:
            i += 1
            continue
        rows, p = best
        found.append([cells[i - p:i]] + [cells[i + r * p:i + (r + 1) * p] for r in range(rows)])
        i += rows * p
    return found


def tables_from_text(text: str, *, labels: Iterable[str] = (), max_cols: int = 10) -> list[list[list[str]]]:
    """Tables in a page's visible text, header row first: tab-separated lines, or, in text whose whitespace
    was collapsed into single spaces (the extension's ``visibleText``), a run of rows of one shape (which
    cells are numbers: ``Graz Austria 298,479 127.6``) right after a header of as many cells
    (``City Country Population Area (km²)``). Cells are single words, or capitalised words with the
    lower-case words after them; tables of words only cannot be told from prose and are not found.
    ``labels``: the names of the page's controls (a run of them is not a table)."""
    if not text:
        return []
    tabbed = _tab_tables(text) if "\t" in text else []
    if tabbed:
        return tabbed
    if sum(ch.isdigit() for ch in text) < 2:
        return []  # rows need a number each
    names = {" ".join(str(x).lower().split()) for x in labels if x}
    found: list[list[list[str]]] = []
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) < 6:
            continue
        tables = _flat_tables(_cells(tokens), max_cols, names)
        if not tables:
            tables = _flat_tables(tokens, max_cols, names)
        found.extend(tables)
    return found[:5]
