"""Arithmetic: the exact value of an expression written with symbols or words, without ``eval``.

Input: a question such as ``"What is 17 × 3?"``, ``"Calculate (12 + 8) / 4"``, ``"seven times six"``,
``"What is 15% of 240?"``, ``"the square root of 144"``, ``"2 to the power of 10"``,
``"subtract 9 from 20"``, ``"What is 10 divided by 3, rounded to 2 decimal places?"``.
Output: :class:`~agenthost.skills.Solution` with ``skill="arithmetic"``, ``answer`` the value (an integer
when whole, else a decimal: exact when it terminates within 6 places, else rounded to the places the
question asks for, 2 by default) and ``detail`` the expression evaluated; ``None`` when the text holds no
expression (a progress line such as ``"Question 3/10"`` or a date is not one).

Why by hand: the expression is parsed by Python's own ``ast`` module and walked here, allowing only numbers,
``+ - * / // % **`` (exponent bounded), unary signs and ``sqrt``; a general expression library would accept
far more than a page's question needs (names, calls, attributes) and would not read the words.
:func:`evaluate` is the reusable core; :func:`normalise` turns words and symbols into that syntax.
"""

from __future__ import annotations

import ast
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from agenthost.skills import Context, Solution, Tool

Number = Fraction | float

MAX_EXPONENT = 64
MAX_MAGNITUDE = 1e30

_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORD = re.compile(r"\b(?:(?:" + "|".join([*_UNITS, *_TENS, *_SCALES]) + r")(?:[\s-]+(?:and[\s-]+)?|\b))+",
                          re.IGNORECASE)

# phrases around two operands first, then single operator words
_PHRASES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?:the\s+)?sum\s+of\s+(.+?)\s+and\s+(-?[\d.]+)", re.I), r"(\1) + (\2)"),
    (re.compile(r"\b(?:the\s+)?product\s+of\s+(.+?)\s+and\s+(-?[\d.]+)", re.I), r"(\1) * (\2)"),
    (re.compile(r"\b(?:the\s+)?difference\s+(?:between|of)\s+(.+?)\s+and\s+(-?[\d.]+)", re.I), r"(\1) - (\2)"),
    (re.compile(r"\b(?:the\s+)?quotient\s+of\s+(.+?)\s+and\s+(-?[\d.]+)", re.I), r"(\1) / (\2)"),
    (re.compile(r"\b(?:the\s+)?remainder\s+(?:when|of)\s+(-?[\d.]+)\s+(?:is\s+)?divided\s+by\s+(-?[\d.]+)", re.I),
     r"(\1) % (\2)"),
    (re.compile(r"\bsubtract\s+(-?[\d.]+)\s+from\s+(-?[\d.]+)", re.I), r"(\2) - (\1)"),
    (re.compile(r"\bdivide\s+(-?[\d.]+)\s+by\s+(-?[\d.]+)", re.I), r"(\1) / (\2)"),
    (re.compile(r"\bmultiply\s+(-?[\d.]+)\s+(?:by|and)\s+(-?[\d.]+)", re.I), r"(\1) * (\2)"),
    (re.compile(r"\badd\s+(-?[\d.]+)\s+(?:to|and)\s+(-?[\d.]+)", re.I), r"(\1) + (\2)"),
    (re.compile(r"(-?[\d.]+)\s*(?:%|percent|per\s+cent)\s+of\s+(-?[\d.]+)", re.I), r"(\1 / 100 * \2)"),
    (re.compile(r"\b(?:the\s+)?square\s+root\s+of\s+(-?[\d.]+)", re.I), r"sqrt(\1)"),
    (re.compile(r"(?:√|\bsqrt)\s*\(?\s*(-?[\d.]+)\s*\)?", re.I), r"sqrt(\1)"),
    (re.compile(r"(-?[\d.]+|\))\s+squared\b", re.I), r"\1 ** 2"),
    (re.compile(r"(-?[\d.]+|\))\s+cubed\b", re.I), r"\1 ** 3"),
]
_WORDS: list[tuple[re.Pattern[str], str]] = [(re.compile(p, re.I), s) for p, s in [
    (r"\b(?:raised\s+)?to\s+the\s+power\s+of\b", " ** "),
    (r"\bmultiplied\s+by\b", " * "),
    (r"\bdivided\s+by\b", " / "),
    (r"\b(?:plus|added\s+to)\b", " + "),
    (r"\b(?:minus|take\s+away)\b", " - "),
    (r"\btimes\b", " * "),
    (r"\b(?:modulo|mod)\b", " % "),
    (r"\bover\b", " / "),
]]
_SYMBOLS = str.maketrans({"×": "*", "✕": "*", "·": "*", "∙": "*", "÷": "/", "−": "-", "–": "-", "—": "-",
                          "^": "#", "＋": "+", "＝": "="})
_X_TIMES = re.compile(r"(?<=\d)\s*[xX]\s*(?=[\d(])")
_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])")
_PIECE = r"(?:sqrt\(|\d+(?:\.\d+)?|\.\d+|[-+*/%#()])"
_CANDIDATE = re.compile(_PIECE + r"(?:\s*" + _PIECE + r")*")
_OPERATOR = re.compile(r"\d\s*\)*\s*(?:\*\*|[-+*/%#])\s*[-+]?\s*\(*\s*(?:sqrt\()?\s*\d|sqrt\(")
_CUE = re.compile(r"\b(?:what\s+is|what's|whats|calculate|compute|evaluate|solve|work\s+out|how\s+much|how\s+many|"
                  r"result|equals?|answer|value\s+of|captcha|sum|product|difference|quotient|remainder|"
                  r"subtract|multiply|divide|add|square|percent)\b|[=?]", re.I)
_PROGRESS = re.compile(r"(?:question|round|step|page|score|correct|level|slide|item|attempt|puzzle|task|"
                       r"stage|of|no\.?|#)\s*:?\s*$", re.I)
_DATE_OR_PHONE = re.compile(r"^\s*(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{3}-\d{3}-\d{4}|\d{3}-\d{4})\s*$")
_PLACES = re.compile(r"(\d+|one|two|three|four|five|six)\s+decimal\s+places?|nearest\s+(whole|integer|tenth|"
                     r"hundredth|thousandth)", re.I)


def words_to_numbers(text: str) -> str:
    """``"seventeen times three"`` -> ``"17 times 3"`` (number words up to the millions)."""

    def one(m: re.Match[str]) -> str:
        words = [w for w in re.split(r"[\s-]+", m.group(0).lower()) if w and w != "and"]
        total, current = 0, 0
        for w in words:
            if w in _UNITS:
                current += _UNITS[w]
            elif w in _TENS:
                current += _TENS[w]
            elif w == "hundred":
                current = max(current, 1) * 100
            else:
                total += max(current, 1) * _SCALES[w]
                current = 0
        trailing = " " if m.group(0)[-1:].isspace() or m.group(0).endswith("-") else ""
        return str(total + current) + trailing

    return _NUMBER_WORD.sub(one, text)


_SUPERSCRIPT = re.compile(r"([²³¹⁰⁴-⁹]+)")
_SUPER_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


def normalise(text: str) -> str:
    """Words and symbols turned into Python arithmetic syntax (``**`` written ``#`` until evaluation)."""
    s = _SUPERSCRIPT.sub(lambda m: " ** " + m.group(1).translate(_SUPER_DIGITS) + " ", text)
    s = s.translate(_SYMBOLS)
    s = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), s)
    s = words_to_numbers(s)
    s = _X_TIMES.sub(" * ", s)
    for pattern, repl in _PHRASES:
        s = pattern.sub(repl, s)
    for pattern, repl in _WORDS:
        s = pattern.sub(repl, s)
    return s.replace("**", "#")


def evaluate(expression: str) -> Number:
    """The value of an arithmetic expression in Python syntax (``^`` and ``#`` mean power, ``sqrt(x)`` allowed).

    Exact (a :class:`~fractions.Fraction`) unless a square root is irrational. Raises ``ValueError`` for
    anything that is not plain arithmetic, ``ZeroDivisionError`` for a division by zero."""
    src = expression.replace("^", "**").replace("#", "**").strip()
    if not src or len(src) > 500:
        raise ValueError("no expression")
    tree = ast.parse(src, mode="eval")
    return _walk(tree.body)


def _walk(node: ast.AST) -> Number:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        v = _walk(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sqrt" \
            and len(node.args) == 1 and not node.keywords:
        return _sqrt(_walk(node.args[0]))
    if isinstance(node, ast.BinOp):
        a, b = _walk(node.left), _walk(node.right)
        op = node.op
        r: Number
        if isinstance(op, ast.Add):
            r = a + b
        elif isinstance(op, ast.Sub):
            r = a - b
        elif isinstance(op, ast.Mult):
            r = a * b
        elif isinstance(op, ast.Div):
            r = a / b
        elif isinstance(op, ast.FloorDiv):
            r = Fraction(math.floor(a / b))
        elif isinstance(op, ast.Mod):
            r = a % b
        elif isinstance(op, ast.Pow):
            r = _pow(a, b)
        else:
            raise ValueError(f"operator {type(op).__name__} is not arithmetic")
        if abs(float(r)) > MAX_MAGNITUDE:
            raise OverflowError("result too large")
        return r
    raise ValueError(f"{type(node).__name__} is not arithmetic")


def _pow(a: Number, b: Number) -> Number:
    if isinstance(b, Fraction) and b.denominator == 1:
        if abs(b) > MAX_EXPONENT:
            raise OverflowError("exponent too large")
        if a == 0 and b < 0:
            raise ZeroDivisionError("zero to a negative power")
        return a ** int(b)
    if isinstance(b, Fraction) and b == Fraction(1, 2):
        return _sqrt(a)
    if a < 0:
        raise ValueError("fractional power of a negative number")
    return float(a) ** float(b)


def _sqrt(a: Number) -> Number:
    if a < 0:
        raise ValueError("square root of a negative number")
    if isinstance(a, Fraction):
        n, d = math.isqrt(a.numerator), math.isqrt(a.denominator)
        if n * n == a.numerator and d * d == a.denominator:
            return Fraction(n, d)
    return math.sqrt(a)


def format_number(value: Number, places: int | None = None) -> str:
    """An integer when whole; an exact decimal when it terminates within 6 places; else ``places`` (2)."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError("not a finite number")
        value = Fraction(value).limit_denominator(10**12)
    if places is not None:
        d = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal(1).scaleb(-places),
                                                                              rounding=ROUND_HALF_UP)
        return _trim(str(d)) if places else str(int(d))
    if value.denominator == 1:
        return str(value.numerator)
    den = value.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    if den == 1 and -exact.as_tuple().exponent <= 6:  # type: ignore[operator]
        return _trim(format(exact, "f"))
    return format_number(value, 2)


def _trim(s: str) -> str:
    return s.rstrip("0").rstrip(".") if "." in s else s


def _places(question: str) -> int | None:
    m = _PLACES.search(question)
    if not m:
        return None
    if m.group(2):
        return {"whole": 0, "integer": 0, "tenth": 1, "hundredth": 2, "thousandth": 3}[m.group(2).lower()]
    g = m.group(1).lower()
    return int(g) if g.isdigit() else ["one", "two", "three", "four", "five", "six"].index(g) + 1


def find_expression(question: str) -> str | None:
    """The longest arithmetic expression in ``question`` (normalised), or ``None``."""
    text = normalise(question)
    best: str | None = None
    for m in _CANDIDATE.finditer(text):
        cand = m.group(0).strip().lstrip("*/%#) ").strip()
        if not re.search(r"\d", cand):
            continue
        # an unbalanced trailing/leading parenthesis belongs to the prose, not the expression
        while cand.count("(") > cand.count(")") and cand.startswith("("):
            cand = cand[1:].strip()
        while cand.count(")") > cand.count("(") and cand.endswith(")"):
            cand = cand[:-1].strip()
        cand = cand.rstrip("-+*/%#( ").strip()
        if not _OPERATOR.search(cand) or _DATE_OR_PHONE.match(cand):
            continue
        if re.fullmatch(r"\d+\s*/\s*\d+", cand) and _PROGRESS.search(text[:m.start()]):
            continue
        if re.fullmatch(r"\d+\s*-\s*\d+", cand) and re.match(r"\s*(?:of|out\s+of|items|results)\b",
                                                             text[m.end():], re.I):
            continue  # a range: "Showing 1 - 10 of 50"
        try:
            evaluate(cand)
        except (ValueError, SyntaxError, ArithmeticError, OverflowError, RecursionError):
            continue
        if best is None or len(cand) > len(best):
            best = cand
    return best


def from_question(question: str, context: Context | None = None, deadline: float | None = None) -> Solution | None:
    """The :class:`Solution` when ``question`` asks for the value of an expression, else ``None``.

    Text of several lines (a whole page) is read line by line: the expression and the wording that asks for
    it must share a line."""
    lines = [ln for ln in question.splitlines() if ln.strip()]
    if len(lines) > 1:
        for line in lines[:200]:
            found = from_question(line, context, deadline)
            if found is not None:
                return found
        return None
    expr = find_expression(question)
    if expr is None:
        return None
    words_used = normalise(question) != question.translate(_SYMBOLS)
    if not (_CUE.search(question) or words_used or len(expr) >= 0.6 * len(question.strip())):
        return None
    value = evaluate(expr)
    answer = format_number(value, _places(question))
    shown = re.sub(r"\s+", " ", expr.replace("#", "**"))
    exact = f" (exactly {value})" if isinstance(value, Fraction) and value.denominator != 1 else ""
    return Solution("arithmetic", answer, f"{shown} = {answer}{exact}")


def _tool_call(args: dict[str, Any]) -> str:
    expr = str(args.get("expression") or "")
    found = find_expression(expr)
    if found is None:
        return f"not an arithmetic expression: {expr[:100]!r}"
    places = args.get("decimal_places")
    return format_number(evaluate(found), int(places) if isinstance(places, int) else _places(expr))


def tools() -> list[Tool]:
    return [Tool(
        "calculate", "Exact value of an arithmetic expression in symbols or words ('15% of 240', "
        "'square root of 144').",
        {"type": "object", "properties": {"expression": {"type": "string"},
                                          "decimal_places": {"type": "integer", "minimum": 0, "maximum": 10}},
         "required": ["expression"]},
        _tool_call)]
