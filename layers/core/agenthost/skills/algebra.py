"""Algebra: the value of the unknown in a linear equation of one variable.

Input: text that asks to solve for a variable (``"Solve for x"``, ``"find the value of y"``, ``"what is n?"``)
and shows an equation in it, such as ``"x + 2 = 43"``, ``"17 - y = 5"``, ``"3x = 12"``, ``"(n + 4) / 2 = 9"``
(the equation may sit among other text, as a page shows it: ``"... x + 2 = 43 x ="``).
Output: :class:`~agenthost.skills.Solution` with ``skill="algebra"``, ``answer`` the value (formatted as the
arithmetic skill formats numbers) and ``detail`` the equation; ``None`` without a cue, without an equation in
that variable, or when it is not linear (no single answer).

Why by hand: each side is evaluated by the arithmetic skill's ``ast`` walker at three values of the unknown,
which says whether the equation is linear and gives its root exactly; a computer-algebra system (sympy, about
30 MB) would be most of the layer for one line of school algebra.
"""

from __future__ import annotations

import re
from fractions import Fraction

from agenthost.skills import Context, Solution
from agenthost.skills.arithmetic import Number, evaluate, format_number, normalise

_CUE = re.compile(r"\b(?:solve\s+for|find|value\s+of|what\s+is|compute|work\s+out)\s+(?:the\s+)?(?:value\s+of\s+)?"
                  r"([a-z])\b", re.I)
#: one side of an equation: numbers, operators, brackets and single letters (no words)
_SIDE = r"(?:\s*(?:\d+(?:\.\d+)?|(?<![a-z])[a-z](?![a-z])|[-+*/×÷−^()]))+"


def from_question(question: str, context: Context | None = None, deadline: float | None = None) -> Solution | None:
    cue = _CUE.search(question) or (_CUE.search(context.text) if context is not None and context.text else None)
    if cue is None:
        return None
    var = cue.group(1).lower()
    for m in re.finditer(r"=", question):
        left = re.search(_SIDE + r"\s*$", question[:m.start()], re.I)
        right = re.match(_SIDE, question[m.end():], re.I)
        if left is None or right is None:
            continue
        root = _solve(left.group(0), right.group(0), var)
        if root is not None:
            shown = f"{left.group(0).strip()} = {right.group(0).strip()}"
            answer = format_number(root)
            return Solution("algebra", answer, f"{shown}: {var} = {answer}")
    return None


def _side(text: str, var: str, value: Number) -> Number:
    s = normalise(text.lower())
    s = re.sub(rf"(?<=[\d)])(?={var}\b)", "*", s)  # 3x -> 3*x (not "43 x": a label after the number)
    s = re.sub(rf"\b{var}\b", f"({value})", s)
    if re.search(r"[a-z]", s.replace("sqrt", "")):
        raise ValueError("another unknown")
    return evaluate(s)


def _solve(left: str, right: str, var: str) -> Number | None:
    """The root of ``left = right`` in ``var`` (trailing pieces of ``right`` that do not parse, such as the
    answer's own "x" label, are dropped), or None."""
    if not re.search(rf"\b{var}\b|\d{var}\b", left + " " + right, re.I):
        return None
    tokens = right.split()
    while tokens:
        try:
            diff = [_side(left, var, Fraction(v)) - _side(" ".join(tokens), var, Fraction(v)) for v in (0, 1, 2)]
        except (ValueError, ZeroDivisionError, SyntaxError, TypeError, OverflowError):
            tokens.pop()
            continue
        slope = diff[1] - diff[0]
        if slope == 0 or diff[2] - diff[1] != slope:
            return None  # no unknown left, or not linear
        return -diff[0] / slope
    return None
