"""Exact solvers ("skills") for structured problems a web task can pose, shared by both agent policies.

One small module per skill, each with its own documented input and output:

* :mod:`~agenthost.skills.arithmetic`: a safe arithmetic evaluator (no ``eval``) that reads symbols and words;
* :mod:`~agenthost.skills.algebra`: the unknown of a linear equation in one variable ("solve for x");
* :mod:`~agenthost.skills.sequences`: the next (or a missing) term of a number sequence, or nothing when unsure;
* :mod:`~agenthost.skills.units`: unit conversion (length, mass, time, volume, area, speed, data, temperature);
* :mod:`~agenthost.skills.words`: anagrams and missing-letter words from a real English word list;
* :mod:`~agenthost.skills.chess`: the best move of a position, through python-chess and a UCI engine;
* :mod:`~agenthost.skills.tables`: lookups and aggregates over page tables given as rows;
* :mod:`~agenthost.skills.json_api`: fetch a JSON API through the guarded client, then compute with the tables;
* :mod:`~agenthost.skills.writing`: deterministic text of a requested length about a topic.

The policies call one entry point::

    >>> from agenthost.skills import solve
    >>> solve("What is 17 × 3?").answer
    '51'
    >>> solve("Next number: 2, 4, 8, ?").answer
    '16'
    >>> solve("Please log in") is None
    True

``solve(question, context=None, deadline=None)`` recognises the problem from its general wording and returns a
:class:`Solution` (``skill``, ``answer``, ``detail``) or ``None`` when it is not a problem a skill can solve
exactly. ``context`` may give what the page shows: ``tables`` (each a list of rows, the first the header),
``rows`` (dicts), ``text``, ``fen``, ``url``, ``json`` (already fetched data); a page object with
``tables``/``text``/``url`` attributes works too. ``deadline`` is a ``time.monotonic()`` instant; only the
chess skill needs time, and it keeps within it.

The LLM policy gets the same skills as tools: :func:`tools` lists :class:`Tool` (name, description, JSON-schema
parameters, ``call(args) -> str``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agenthost.errors import Declined

__all__ = ["Context", "Solution", "Tool", "Unsolvable", "questions", "solve", "solve_all", "tools"]


class Unsolvable(Declined):
    """A skill recognised the problem as its own but cannot answer it (no engine, no time, illegal input):
    :func:`solve` then answers ``None`` without letting another skill misread the question."""


@dataclass
class Solution:
    """What a skill found: ``answer`` is the value to enter, ``detail`` how it was found (for the logs),
    ``alternatives`` other values that fit equally (to try when the page says the first was wrong)."""

    skill: str
    answer: str
    detail: str = ""
    #: other answers that fit as well (e.g. the other words these letters make), best first
    alternatives: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"skill": self.skill, "answer": self.answer, "detail": self.detail,
                "alternatives": list(self.alternatives)}


@dataclass
class Context:
    """What the page shows, normalised from a mapping or a page object."""

    tables: list[list[list[str]]] = field(default_factory=list)
    text: str = ""
    fen: str = ""
    url: str = ""
    data: Any = None

    @classmethod
    def of(cls, context: Any) -> Context:
        if context is None:
            return cls()
        if isinstance(context, Context):
            return context
        get: Callable[[str], Any]
        if isinstance(context, Mapping):
            get = context.get
        else:
            def get(key: str) -> Any:
                return getattr(context, key, None)
        tables = [list(t) for t in (get("tables") or []) if t]
        rows = get("rows")
        if rows:
            from agenthost.skills.tables import rows_to_table

            tables.insert(0, rows_to_table(rows))
        return cls(tables=tables, text=str(get("text") or ""), fen=str(get("fen") or ""),
                   url=str(get("url") or ""), data=get("json"))


@dataclass
class Tool:
    """A skill offered to an LLM: ``parameters`` is a JSON schema of ``call``'s argument object."""

    name: str
    description: str
    parameters: dict[str, Any]
    call: Callable[[dict[str, Any]], str]

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


Recogniser = Callable[[str, Context, float | None], Solution | None]


def _recognisers() -> list[Recogniser]:
    from agenthost.skills import algebra, arithmetic, chess, json_api, sequences, tables, units, words, writing

    # most specific first: a chess position, a conversion or a table question may also contain numbers
    return [chess.from_question, units.from_question, json_api.from_question, tables.from_question,
            writing.from_question, sequences.from_question, words.from_question, algebra.from_question,
            arithmetic.from_question]


_SENTENCE_END = re.compile(r"(?<=[?!.])\s+(?=[A-Z0-9\"'“(¿])")
_NUMBERED = re.compile(r"(?:^|\s)\d{1,2}[.)]\s+(?=[A-Z])")


def questions(text: str) -> list[str]:
    """The questions in a page's text (sentences ending with ``?``), in order; a page often shows its whole
    text as one line, so sentences are cut at their ends and at numbered items (``1. ...``)."""
    out: list[str] = []
    for line in text.splitlines():
        for part in _SENTENCE_END.split(line):
            for piece in _NUMBERED.split(part):
                piece = piece.strip()
                if piece.endswith("?") and len(piece) > 3:
                    out.append(piece)
    return out


def _solve_one(question: str, ctx: Context, deadline: float | None) -> Solution | None:
    for recognise in _recognisers():
        if deadline is not None and time.monotonic() > deadline:
            return None
        try:
            found = recognise(question, ctx, deadline)
        except Unsolvable:
            raise
        except (ValueError, ArithmeticError, TypeError, KeyError, IndexError, OverflowError, RecursionError):
            found = None
        if found is not None:
            return found
    return None


def solve(question: str, *, context: Any = None, deadline: float | None = None) -> Solution | None:
    """The exact answer to ``question`` (with what the page shows in ``context``), or ``None``.

    Text holding several sentences (a whole page) is read question by question first (:func:`questions`),
    then as a whole. Never raises for odd input: a skill that fails answers ``None`` and the next one is
    tried."""
    if not isinstance(question, str) or not question.strip():
        return None
    question = question.strip()[:4000]
    ctx = Context.of(context)
    if not ctx.text:  # a question cut from the text still sees the rest (a side to move, a URL)
        ctx = replace(ctx, text=question)
    asked = questions(question)
    tries = [q for q in asked if q != question] + [question]
    for q in tries:
        try:
            found = _solve_one(q, ctx, deadline)
        except Unsolvable:
            return None
        if found is not None:
            return found
    return None


def solve_all(text: str, *, context: Any = None, deadline: float | None = None) -> list[tuple[str, Solution]]:
    """Each question of ``text`` (:func:`questions`) with its :class:`Solution`, for pages that ask several
    (one answer field each); questions no skill solves are left out."""
    if not isinstance(text, str):
        return []
    ctx = Context.of(context)
    out: list[tuple[str, Solution]] = []
    for q in questions(text[:8000]):
        try:
            found = _solve_one(q, ctx, deadline)
        except Unsolvable:
            found = None
        if found is not None:
            out.append((q, found))
    return out


def tools() -> list[Tool]:
    """The skills as LLM tools (name, description, JSON-schema parameters, ``call``)."""
    from agenthost.skills import arithmetic, chess, json_api, sequences, tables, units, words, writing

    return [*arithmetic.tools(), *sequences.tools(), *words.tools(), *chess.tools(), *tables.tools(),
            *json_api.tools(), *writing.tools(), *units.tools()]
