"""Number sequences: the next term, or a missing one, when a simple rule explains every given term.

Input: a question holding at least four terms (three for a constant step or ratio) separated by commas or
spaces, with ``?``/``_`` where a term is asked (``"Next number: 2, 4, 8, ?"``, ``"1, 1, 2, 3, 5, __"``,
``"Find the missing number: 3, 6, ?, 12, 15"``), or a sequence under wording such as "what comes next".
Output: :class:`~agenthost.skills.Solution` with ``skill="sequence"``, ``answer`` the term (exact: integers
stay integers, fractions become decimals) and ``detail`` the rule; ``None`` when no rule fits every term
with at least one term to spare beyond what the rule needs (a guess is never offered).

Rules, simplest first: constant difference, constant ratio, consecutive primes, constant k-th
differences (squares, cubes, triangular numbers...), each term the sum of the previous two (Fibonacci-like)
or three, ``a*prev + b``, differences in a geometric progression, ratios in an arithmetic progression
(factorials), two interleaved progressions, and two alternating operations (``+3, x2, +3, x2``).
Why by hand: these are a few lines each over exact fractions; no maintained library predicts sequences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from agenthost.skills import Context, Solution, Tool
from agenthost.skills.arithmetic import format_number

Seq = list[Fraction]
Rule = tuple[str, Callable[[Seq], Fraction | None]]

_TERM = r"(?:-?\d+(?:\.\d+)?|\?+|_+|…|\.\.\.)"
# terms on one line only: numbers on separate lines (a list, a pager) are no sequence
_RUN = re.compile(_TERM + r"(?:(?:[ \t]*[,;][ \t]*|[ \t]+|[ \t]*(?:→|->)[ \t]*)" + _TERM + r")+")
_CUE = re.compile(r"\b(?:next\s+(?:number|term|value|one|item|element)|sequence|series|pattern|"
                  r"comes?\s+(?:next|after)|continue\s+the|missing\s+(?:number|term|value)|progression|"
                  r"what\s+follows|which\s+number)\b", re.I)
_GAP = re.compile(r"^(?:\?+|_+|…|\.\.\.)$")


def _const(values: Sequence[Fraction]) -> Fraction | None:
    return values[0] if values and all(v == values[0] for v in values) else None


def _diffs(s: Seq) -> Seq:
    return [b - a for a, b in zip(s, s[1:], strict=False)]


def _ratios(s: Seq) -> Seq | None:
    if any(v == 0 for v in s[:-1]):
        return None
    return [b / a for a, b in zip(s, s[1:], strict=False)]


def arithmetic(s: Seq) -> Fraction | None:
    d = _const(_diffs(s)) if len(s) >= 3 else None
    return None if d is None else s[-1] + d


def geometric(s: Seq) -> Fraction | None:
    r = _ratios(s) if len(s) >= 3 else None
    c = _const(r) if r else None
    return None if c is None or c in (0, 1) else s[-1] * c


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    f = 2
    while f * f <= n:
        if n % f == 0:
            return False
        f += 1
    return True


def primes(s: Seq) -> Fraction | None:
    if len(s) < 4 or any(v.denominator != 1 or not _is_prime(int(v)) for v in s) or s[-1] > 10**7:
        return None
    for a, b in zip(s, s[1:], strict=False):  # consecutive primes: none skipped
        if b <= a or any(_is_prime(k) for k in range(int(a) + 1, int(b))):
            return None
    k = int(s[-1]) + 1
    while not _is_prime(k):
        k += 1
    return Fraction(k)


def polynomial(s: Seq) -> Fraction | None:
    """Constant k-th differences (k >= 2) seen at least twice."""
    rows = [s]
    while len(rows[-1]) >= 3:
        rows.append(_diffs(rows[-1]))
        if len(rows) >= 3 and len(rows[-1]) >= 2 and _const(rows[-1]) is not None and any(rows[-1]):
            nxt = rows[-1][-1]
            for row in reversed(rows[:-1]):
                nxt = row[-1] + nxt
            return nxt
    return None


def fibonacci(s: Seq) -> Fraction | None:
    if len(s) >= 4 and all(s[i] == s[i - 1] + s[i - 2] for i in range(2, len(s))):
        return s[-1] + s[-2]
    return None


def tribonacci(s: Seq) -> Fraction | None:
    if len(s) >= 5 and all(s[i] == s[i - 1] + s[i - 2] + s[i - 3] for i in range(3, len(s))):
        return s[-1] + s[-2] + s[-3]
    return None


def affine(s: Seq) -> Fraction | None:
    """``next = a*prev + b`` (e.g. 2, 5, 11, 23: times 2 plus 1), checked on a fourth term at least."""
    if len(s) < 4 or s[1] == s[0]:
        return None
    a = (s[2] - s[1]) / (s[1] - s[0])
    b = s[1] - a * s[0]
    if a in (0, 1) or any(s[i] != a * s[i - 1] + b for i in range(1, len(s))):
        return None
    return a * s[-1] + b


def geometric_differences(s: Seq) -> Fraction | None:
    d = _diffs(s)
    nxt = geometric(d) if len(d) >= 3 else None
    return None if nxt is None else s[-1] + nxt


def arithmetic_ratios(s: Seq) -> Fraction | None:
    r = _ratios(s)
    nxt = arithmetic(r) if r and len(r) >= 3 else None
    return None if nxt is None else s[-1] * nxt


def interleaved(s: Seq) -> Fraction | None:
    """Two progressions on alternate positions (1, 10, 2, 20, 3, 30 -> 4)."""
    if len(s) < 5:
        return None
    part = s[len(s) % 2::2]  # the positions the next term belongs to
    other = s[1 - len(s) % 2::2]
    if len(part) < 3 or len(other) < 2:
        return None
    for rule in (arithmetic, geometric):
        nxt = rule(part)
        if nxt is not None and (len(other) < 3 or arithmetic(other) is not None or geometric(other) is not None):
            return nxt
    return None


def alternating_operations(s: Seq) -> Fraction | None:
    """Two operations taking turns, each a constant step or factor (1, 4, 8, 11, 22: +3, x2 -> 25)."""
    if len(s) < 5:
        return None
    ops: list[tuple[str, Fraction]] = []
    for parity in (0, 1):
        pairs = [(s[i], s[i + 1]) for i in range(parity, len(s) - 1, 2)]
        if len(pairs) < 2:
            return None
        add = _const([b - a for a, b in pairs])
        mul = None if any(a == 0 for a, _ in pairs) else _const([b / a for a, b in pairs])
        if add is not None:
            ops.append(("+", add))
        elif mul is not None:
            ops.append(("*", mul))
        else:
            return None
    if ops[0] == ops[1]:
        return None  # one operation: a simpler rule covers it
    kind, k = ops[(len(s) - 1) % 2]
    return s[-1] + k if kind == "+" else s[-1] * k


RULES: list[Rule] = [
    ("constant difference", arithmetic),
    ("constant ratio", geometric),
    ("consecutive primes", primes),
    ("constant higher differences", polynomial),
    ("sum of the previous two", fibonacci),
    ("sum of the previous three", tribonacci),
    ("a*previous + b", affine),
    ("differences grow geometrically", geometric_differences),
    ("ratios grow arithmetically", arithmetic_ratios),
    ("two interleaved progressions", interleaved),
    ("two alternating operations", alternating_operations),
]


def next_term(terms: Sequence[Any]) -> tuple[Fraction, str] | None:
    """The next term of ``terms`` (numbers) and the rule's name, or ``None`` when no rule fits."""
    s = [Fraction(str(t)) for t in terms]
    for name, rule in RULES:
        nxt = rule(s)
        if nxt is not None:
            return nxt, name
    return None


def missing_term(terms: Sequence[Any]) -> tuple[Fraction, str] | None:
    """``terms`` with exactly one ``None``: the value that lets one rule explain the whole sequence."""
    gaps = [i for i, t in enumerate(terms) if t is None]
    if len(gaps) != 1:
        return None
    i = gaps[0]
    if i == len(terms) - 1:
        return next_term(terms[:-1])
    known = [Fraction(str(t)) for t in terms if t is not None]
    if len(known) < 3:
        return None
    cands: list[Fraction] = []
    if i >= 3:
        found = next_term(terms[:i])
        if found:
            cands.append(found[0])
    after = [Fraction(str(t)) for t in terms[i + 1:]]
    if len(after) >= 3:
        found = next_term(list(reversed(after)))
        if found:
            cands.append(found[0])
    if 0 < i:
        prev = Fraction(str(terms[i - 1]))
        nxt = Fraction(str(terms[i + 1]))
        cands += [(prev + nxt) / 2]
        if prev and nxt and prev * nxt > 0:
            from math import isqrt

            p = prev * nxt
            if p.denominator == 1 and isqrt(p.numerator) ** 2 == p.numerator:
                cands.append(Fraction(isqrt(p.numerator)) * (1 if prev > 0 else -1))
        if i >= 2:
            cands.append(prev + Fraction(str(terms[i - 2])))
        cands.append(nxt - prev)
    else:
        cands += [2 * known[0] - known[1]]
        if known[1]:
            cands.append(known[0] * known[0] / known[1])
    interpolated = _polynomial_through([(k, Fraction(str(t))) for k, t in enumerate(terms) if t is not None], i)
    if interpolated is not None:
        cands.append(interpolated)
    for name, rule in RULES:
        for c in cands:
            full = [c if t is None else Fraction(str(t)) for t in terms]
            if rule(full[:-1]) == full[-1]:
                return c, name
    return None


def _polynomial_through(points: list[tuple[int, Fraction]], at: int) -> Fraction | None:
    """The value at ``at`` of the lowest-degree polynomial through all ``points`` with a point to spare."""
    for degree in range(1, len(points) - 1):
        base = points[:degree + 1]

        def p(x: int, base: list[tuple[int, Fraction]] = base) -> Fraction:
            total = Fraction(0)
            for j, (xj, yj) in enumerate(base):
                term = yj
                for m, (xm, _) in enumerate(base):
                    if m != j:
                        term *= Fraction(x - xm, xj - xm)
                total += term
            return total

        if all(p(x) == y for x, y in points[degree + 1:]):
            return p(at)
    return None


def parse_terms(question: str) -> list[Fraction | None] | None:
    """The longest run of terms in ``question`` (``None`` for a gap), or ``None``."""
    best: list[Fraction | None] | None = None
    for m in _RUN.finditer(question):
        run = m.group(0).strip()
        # a run written with commas holds only its comma-separated terms ("Round 1 of 5 27, 64, 125, ?")
        pieces = re.split(r"(?<=[\d?_.…])[ \t]+(?=[-\d?_.…])", run) if re.search(r"[,;→]|->", run) else [run]
        for piece in pieces:
            raw = re.split(r"[ \t]*[,;][ \t]*|[ \t]+|[ \t]*(?:→|->)[ \t]*", piece.strip())
            terms: list[Fraction | None] = [None if _GAP.match(t) else Fraction(t) for t in raw if t]
            if best is None or len(terms) > len(best):
                best = terms
    return best


def from_question(question: str, context: Context | None = None, deadline: float | None = None) -> Solution | None:
    """The :class:`Solution` when ``question`` shows a sequence and asks for a term, else ``None``."""
    terms = parse_terms(question)
    if not terms:
        return None
    numbers = [t for t in terms if t is not None]
    gaps = len(terms) - len(numbers)
    if len(numbers) < 3 or gaps > 1 or (gaps == 0 and not _CUE.search(question)):
        return None
    if gaps == 0:
        found = next_term(numbers)
        asked = "next term"
    else:
        found = missing_term(terms)
        asked = "missing term" if terms[-1] is not None else "next term"
    if found is None:
        return None
    value, rule = found
    shown = ", ".join("?" if t is None else format_number(t) for t in terms)
    return Solution("sequence", format_number(value), f"{asked} of {shown}: {rule}")


def _tool_call(args: dict[str, Any]) -> str:
    raw = args.get("terms")
    if not isinstance(raw, list) or not raw:
        return "terms must be a list of numbers (null for the missing term)"
    try:
        terms = [None if t is None or (isinstance(t, str) and _GAP.match(t.strip())) else Fraction(str(t))
                 for t in raw]
    except (ValueError, ZeroDivisionError):
        return "terms must be numbers"
    found = missing_term(terms) if None in terms else next_term(terms)  # type: ignore[arg-type]
    if found is None:
        return "no simple rule explains every term"
    return f"{format_number(found[0])} ({found[1]})"


def tools() -> list[Tool]:
    return [Tool(
        "next_in_sequence", "Next term of a number sequence, or the missing one (null where it is), "
        "when a simple rule explains every term.",
        {"type": "object", "properties": {"terms": {"type": "array", "items": {"type": ["number", "null"]}}},
         "required": ["terms"]},
        _tool_call)]
