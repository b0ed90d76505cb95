"""Tables: lookups and aggregates over the rows a page shows (or a JSON API returned).

Input: a question and ``context.tables`` (each table a list of rows of cell strings, the first row the header)
or ``context.rows`` (dicts). Questions the skill reads, with columns named by their header words:

* aggregates: ``"What is the total of column Price?"``, ``"average salary"``, ``"highest score"``,
  ``"lowest stock"``, ``"How many rows are there?"``, ``"How many orders have status Shipped?"``;
* which row: ``"Which product has the highest price?"`` (the row's label: the column the question names,
  else the first text column);
* lookups: ``"What is the price of Banana?"``, ``"Banana's price"``;
* filters, combinable: a cell value named in the question (``"... in the Fruit category"``, ``"for Alice"``)
  and comparisons (``"with price over 10"``, ``"quantity at least 3"``, ``"age under 30"``).

Output: :class:`~agenthost.skills.Solution` with ``skill="table"``, ``answer`` the value (numbers exact,
averages to 2 places unless exact; money signs and thousands separators dropped) and ``detail`` the
operation, column, filters and row count; ``None`` when there is no table or the question names no column of
it. :func:`aggregate` and :func:`lookup` are the reusable core.
Why by hand: the work is a few comparisons over at most a few hundred rows; a dataframe library would
add tens of megabytes to the layer and still not read the question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from agenthost.skills import Context, Solution, Tool
from agenthost.skills.arithmetic import format_number

OPS = ("sum", "average", "max", "min", "count", "argmax", "argmin", "lookup")

_OP_WORDS: list[tuple[str, re.Pattern[str]]] = [
    ("average", re.compile(r"\b(?:average|mean|avg)\b", re.I)),
    ("sum", re.compile(r"\b(?:total|sum|combined|altogether|in\s+all|add\s+up)\b", re.I)),
    ("max", re.compile(r"\b(?:max(?:imum)?|highest|largest|biggest|greatest|most\s+expensive|most|top|oldest|"
                       r"longest|heaviest|tallest)\b", re.I)),
    ("min", re.compile(r"\b(?:min(?:imum)?|lowest|smallest|least|cheapest|fewest|youngest|shortest|lightest)\b",
                       re.I)),
    ("count", re.compile(r"\b(?:how\s+many|number\s+of|count)\b", re.I)),
]
_WHICH = re.compile(r"\b(?:which|who|whose)\b|(?:^|[:;.]\s*)what\b(?!\s+is\s+the\s+(?:total|sum|average|mean|"
                    r"max|min|highest|lowest|largest|smallest|number|count)\b)", re.I)
_COMPARE = re.compile(r"(?P<col>[A-Za-z][\w ]{0,40}?)\s+(?:is\s+|of\s+|are\s+)?(?P<op>over|above|greater\s+than|"
                      r"more\s+than|higher\s+than|older\s+than|younger\s+than|exceeding|at\s+least|under|below|less\s+than|lower\s+than|"
                      r"at\s+most|>=|<=|>|<|=|equal\s+to)\s+\$?(?P<num>-?[\d,]*\.?\d+)", re.I)
_COMPARISONS = {"over": ">", "above": ">", "greater than": ">", "more than": ">", "higher than": ">",
                "exceeding": ">", "older than": ">", "younger than": "<", "at least": ">=", "under": "<",
                "below": "<", "less than": "<", "lower than": "<", "at most": "<=", "equal to": "==", "=": "=="}
_NUMBER = re.compile(r"^\s*[(]?\s*(?P<sign>[-−+]?)\s*[$€£¥]?\s*(?P<num>\d[\d,]*(?:\.\d+)?|\.\d+)\s*"
                     r"(?:%|[A-Za-z]{0,4}\.?)\s*[)]?\s*$")


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    _numeric: dict[int, bool] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, table: Sequence[Sequence[Any]]) -> Table | None:
        rows = [[str(c).strip() for c in r] for r in table if r]
        if len(rows) < 2:
            return None
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        return cls(rows[0], rows[1:])

    def column(self, name: str) -> int:
        key = _norm(name)
        for i, h in enumerate(self.header):
            if _norm(h) == key:
                return i
        raise KeyError(f"no column {name!r}")

    def numeric(self, i: int) -> bool:
        if i not in self._numeric:
            values = [r[i] for r in self.rows if r[i]]
            self._numeric[i] = bool(values) and sum(_NUMBER.match(v) is not None for v in values) >= 0.8 * len(values)
        return self._numeric[i]


def rows_to_table(rows: Iterable[Any]) -> list[list[str]]:
    """Dicts (JSON objects) or lists as a table: header first (keys in order of appearance)."""
    rows = list(rows)
    if rows and all(isinstance(r, Mapping) for r in rows):
        keys: list[str] = []
        for r in rows:
            keys += [str(k) for k in r if str(k) not in keys]
        return [keys, *[[_cell(r.get(k)) for k in keys] for r in rows]]
    return [[_cell(c) for c in r] if isinstance(r, list | tuple) else [_cell(r)] for r in rows]


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def parse_number(cell: str) -> Fraction | None:
    """``"$1,234.50"`` -> 1234.5; ``"12 kg"``, ``"15%"`` and ``"(3)"`` read too; ``None`` for text."""
    m = _NUMBER.match(str(cell))
    if not m:
        return None
    value = Fraction(m.group("num").replace(",", ""))
    return -value if m.group("sign") in ("-", "−") else value


@lru_cache(maxsize=1024)
def _norm_cached(s: str) -> str:
    return _norm(s)


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


def _stem(w: str) -> str:
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


@lru_cache(maxsize=4096)
def _stemmed(text: str) -> str:
    return " ".join(_stem(w) for w in _norm(text).split())


def mentions(question: str, phrase: str) -> bool:
    """Whether ``question`` names ``phrase`` as whole words (case, punctuation and plural -s ignored)."""
    p = _stemmed(phrase)
    return bool(p) and f" {p} " in f" {_stemmed(question)} "


@dataclass
class Filter:
    column: int
    op: str
    value: str

    def keep(self, row: list[str]) -> bool:
        cell = row[self.column]
        if self.op == "=":
            return _norm(cell) == _norm_cached(self.value)
        a, b = parse_number(cell), parse_number(self.value)
        if a is None or b is None:
            return False
        return {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b, "==": a == b}[self.op]

    def describe(self, table: Table) -> str:
        return f"{table.header[self.column]} {self.op} {self.value}"


def aggregate(table: Sequence[Sequence[Any]], op: str, column: str | None = None,
              where: Iterable[tuple[str, str, str]] = (), label: str | None = None) -> str:
    """``op`` (sum, average, max, min, count, argmax, argmin) over ``column`` of the rows passing ``where``
    (``(column, op, value)`` with op ``= > >= < <= ==``); argmax/argmin give the ``label`` column's cell.
    Raises ``KeyError`` for an unknown column, ``ValueError`` when no row or number is left."""
    t = Table.of(table)
    if t is None:
        raise ValueError("the table has no rows")
    filters = [Filter(t.column(c), o, v) for c, o, v in where]
    col = t.column(column) if column is not None else None
    lab = t.column(label) if label is not None else None
    return _compute(t, op, col, filters, lab)[0]


def lookup(table: Sequence[Sequence[Any]], column: str, key: str) -> str:
    """The ``column`` cell of the row holding ``key`` in any other cell (case and spacing ignored)."""
    t = Table.of(table)
    if t is None:
        raise ValueError("the table has no rows")
    col = t.column(column)
    for row in t.rows:
        if any(_norm(c) == _norm(key) for j, c in enumerate(row) if j != col):
            return row[col]
    raise ValueError(f"no row holds {key!r}")


def _compute(t: Table, op: str, col: int | None, filters: list[Filter], label: int | None) -> tuple[str, int]:
    rows = [r for r in t.rows if all(f.keep(r) for f in filters)]
    if op == "count":
        return str(len(rows)), len(rows)
    if col is None:
        raise ValueError(f"{op} needs a column")
    pairs = [(parse_number(r[col]), r) for r in rows]
    nums = [(v, r) for v, r in pairs if v is not None]
    if not nums:
        raise ValueError("no numbers in that column")
    values = [v for v, _ in nums]
    if op == "sum":
        return format_number(sum(values, Fraction(0))), len(nums)
    if op == "average":
        return format_number(sum(values, Fraction(0)) / len(values)), len(nums)
    if op in ("max", "min"):
        return format_number(max(values) if op == "max" else min(values)), len(nums)
    if op in ("argmax", "argmin"):
        best = max(values) if op == "argmax" else min(values)
        winners = [r for v, r in nums if v == best]
        lab = label if label is not None else _label_column(t, exclude=col)
        return winners[0][lab], len(nums)
    raise ValueError(f"unknown operation {op!r}")


def _group_extreme(rows: list[list[str]], label: int, col: int, per: str, kind: str) -> str:
    groups: dict[str, list[Fraction]] = {}
    for r in rows:
        v = parse_number(r[col])
        if v is not None:
            groups.setdefault(r[label], []).append(v)
    if not groups:
        raise ValueError("no numbers in that column")
    totals = {k: (sum(v, Fraction(0)) / (len(v) if per == "average" else 1)) for k, v in groups.items()}
    best = max(totals.values()) if kind == "argmax" else min(totals.values())
    return next(k for k, v in totals.items() if v == best)


def _label_column(t: Table, exclude: int | None = None) -> int:
    for i in range(len(t.header)):
        if i != exclude and not t.numeric(i):
            return i
    return 0


def _columns_named(question: str, t: Table) -> list[int]:
    """Columns whose header the question names, in the order it names them (a longer name first on a tie)."""
    named = [i for i, h in enumerate(t.header) if h and mentions(question, h)]
    q = " " + " ".join(_stem(w) for w in _norm(question).split()) + " "

    def at(i: int) -> int:
        return q.find(" " + " ".join(_stem(w) for w in _norm(t.header[i]).split()) + " ")

    return sorted(named, key=lambda i: (at(i), -len(t.header[i])))


def _filters(question: str, t: Table, skip: set[int]) -> list[Filter]:
    out: list[Filter] = []
    for m in _COMPARE.finditer(question):
        words = _norm(m.group("col")).split()
        col = None
        for n in range(1, len(words) + 1):  # the header named just before the comparison
            tail = " ".join(words[-n:])
            col = next((i for i, h in enumerate(t.header) if _norm(h) and mentions(tail, h)), None)
            if col is not None:
                break
        word = re.sub(r"\s+", " ", m.group("op").lower())
        if col is None and word in ("older than", "younger than"):  # age is implied
            col = next((i for i, h in enumerate(t.header) if _norm(h) in ("age", "age years", "years")), None)
        if col is None:
            continue
        op = _COMPARISONS.get(word, word)
        out.append(Filter(col, op, m.group("num").replace(",", "")))
    values: dict[tuple[int, str], str] = {}
    q = f" {_stemmed(question)} "
    headers = {_norm(h) for h in t.header}
    for j in range(len(t.header)):
        if j in skip:
            continue
        for cell in dict.fromkeys(r[j] for r in t.rows):
            if not cell or len(cell) > 60 or (j, _norm(cell)) in values:
                continue
            stem = _stemmed(cell)
            if stem and f" {stem} " in q and _norm(cell) not in headers and _NUMBER.match(cell) is None:
                values[(j, _norm(cell))] = cell
    for (j, _), cell in values.items():
        out.append(Filter(j, "=", cell))
    return out


def _op(question: str) -> str | None:
    for name, pattern in _OP_WORDS:
        if pattern.search(question):
            return name
    return None


def answer(question: str, table: Sequence[Sequence[Any]]) -> Solution | None:
    """The :class:`Solution` for one table, or ``None`` when the question is not about it."""
    t = Table.of(table)
    if t is None or len(question) > 300:  # one question, not a page's whole text (its header names every column)
        return None
    named = _columns_named(question, t)
    op = _op(question)
    which = _WHICH.search(question) is not None
    extreme = next((name for name, pattern in _OP_WORDS if name in ("max", "min") and pattern.search(question)), None)
    if which and extreme:
        op = extreme  # "which product had the highest total revenue": the row (or group) with the most
    many = re.search(r"\bhow\s+many\s+([a-z]+)", question, re.I)
    if op == "count" and many and any(t.numeric(i) and mentions(many.group(1), t.header[i]) for i in named):
        op = "sum"  # "how many units were sold": the units added up, not the rows counted
    mentions_rows = re.search(r"\b(?:rows?|entries|records|items|lines)\b", question, re.I) is not None
    if not named and not (op == "count" and (mentions_rows or _filters(question, t, skip=set()))):
        return None
    compared = {f.column for f in _filters(question, t, skip=set(range(len(t.header)))) if f.op != "="}
    numeric_named = [i for i in named if t.numeric(i) and i not in compared] or [i for i in named if t.numeric(i)]
    if op in ("max", "min") and which:
        if not numeric_named:
            return None
        col = numeric_named[0]
        label = next((i for i in named if i != col and not t.numeric(i)), None)
        filters = _filters(question, t, skip={col} | ({label} if label is not None else set()))
        kind = "argmax" if op == "max" else "argmin"
        lab = label if label is not None else _label_column(t, exclude=col)
        rows = [r for r in t.rows if all(f.keep(r) for f in filters)]
        if len({r[lab] for r in rows}) < len(rows):  # the label repeats: compare the groups' totals
            per = "average" if re.search(r"\b(?:average|mean)\b", question, re.I) else "sum"
            value = _group_extreme(rows, lab, col, per, kind)
            return Solution("table", value, f"{kind} of {per} {t.header[col]} per {t.header[lab]}"
                            + _describe(t, "", None, filters, len(rows))[len(""):])
        value, n = _compute(t, kind, col, filters, label)
        return Solution("table", value, _describe(t, kind, col, filters, n))
    if op == "count":
        filters = _filters(question, t, skip=set())
        value, n = _compute(t, "count", None, filters, None)
        return Solution("table", value, _describe(t, "count", None, filters, n))
    if op in ("sum", "average", "max", "min"):
        if not numeric_named:
            return None
        col = numeric_named[0]
        filters = _filters(question, t, skip={col})
        value, n = _compute(t, op, col, filters, None)
        return Solution("table", value, _describe(t, op, col, filters, n))
    # a lookup: the named column's cell in the row the question names
    for col in named:
        filters = [f for f in _filters(question, t, skip={col}) if f.column != col]
        rows = [r for r in t.rows if filters and all(f.keep(r) for f in filters)]
        if len(rows) == 1:
            return Solution("table", rows[0][col], _describe(t, "lookup", col, filters, 1))
    return None


def _describe(t: Table, op: str, col: int | None, filters: list[Filter], n: int) -> str:
    where = " where " + " and ".join(f.describe(t) for f in filters) if filters else ""
    what = f" of {t.header[col]}" if col is not None else ""
    return f"{op}{what}{where} over {n} row(s)"


def from_question(question: str, context: Context | None = None, deadline: float | None = None) -> Solution | None:
    """The :class:`Solution` from the first table in ``context`` the question is about, else ``None``."""
    if context is None:
        return None
    for table in context.tables[:10]:
        found = answer(question, table)
        if found is not None:
            return found
    return None


def _tool_call(args: dict[str, Any]) -> str:
    rows = args.get("rows")
    if not isinstance(rows, list) or not rows:
        return "rows must be a non-empty list (objects, or lists with the header first)"
    table = rows_to_table(rows)
    question = str(args.get("question") or "")
    try:
        if args.get("operation"):
            where = [(str(w.get("column")), str(w.get("op", "=")), str(w.get("value")))
                     for w in args.get("where") or [] if isinstance(w, dict)]
            op = str(args["operation"])
            if op == "lookup":
                return lookup(table, str(args.get("column")), str(args.get("key")))
            return aggregate(table, op, args.get("column"), where, args.get("label"))
        found = answer(question, table)
    except (KeyError, ValueError) as exc:
        return f"cannot compute: {exc}"
    return f"{found.answer} ({found.detail})" if found else "the question names no column of these rows"


def tools() -> list[Tool]:
    return [Tool(
        "table_query", "Exact sum/average/max/min/count/argmax/lookup over rows (objects, or lists "
        "with the header first): a question ('total Price where Category is Fruit') or operation+column+where.",
        {"type": "object", "properties": {
            "rows": {"type": "array"}, "question": {"type": "string"},
            "operation": {"type": "string", "enum": list(OPS)}, "column": {"type": "string"},
            "label": {"type": "string"}, "key": {"type": "string"},
            "where": {"type": "array", "items": {"type": "object", "properties": {
                "column": {"type": "string"}, "op": {"type": "string"}, "value": {"type": "string"}}}}},
         "required": ["rows"]},
        _tool_call)]
