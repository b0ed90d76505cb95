"""Sequence skill: each rule, missing terms, and no answer when no rule fits every term."""

from __future__ import annotations

import pytest

from agenthost.skills import sequences, solve


@pytest.mark.parametrize(("question", "answer", "rule"), [
    ("Next number: 2, 4, 8, ?", "16", "constant ratio"),
    ("What comes next: 5 10 15 20", "25", "constant difference"),
    ("7, 4, 1, -2, ?", "-5", "constant difference"),
    ("1, 4, 9, 16, ?", "25", "constant higher differences"),
    ("1, 8, 27, 64, 125, ?", "216", "constant higher differences"),
    ("1, 3, 6, 10, 15, ?", "21", "constant higher differences"),
    ("2, 3, 5, 7, 11, ?", "13", "consecutive primes"),
    ("1, 1, 2, 3, 5, __", "8", "sum of the previous two"),
    ("3, 4, 7, 11, 18, ?", "29", "sum of the previous two"),
    ("1, 1, 2, 4, 7, 13, ?", "24", "sum of the previous three"),
    ("2, 5, 11, 23, ?", "47", "a*previous + b"),
    ("2, 3, 5, 9, 17, ?", "33", "a*previous + b"),
    ("1, 2, 6, 24, ?", "120", "ratios grow arithmetically"),
    ("1, 10, 2, 20, 3, 30, ?", "4", "two interleaved progressions"),
    ("1, 4, 8, 11, 22, ?", "25", "two alternating operations"),
    ("Find the missing number: 3, 6, ?, 12, 15", "9", "constant difference"),
    ("2, 4, ?, 16, 32", "8", "constant ratio"),
    ("1, 4, ?, 16, 25, 36", "9", "constant higher differences"),
    ("81, 27, 9, 3, ?", "1", "constant ratio"),
    ("1, 0.5, 0.25, ?", "0.125", "constant ratio"),
])
def test_next_and_missing_terms(question, answer, rule):
    found = solve(question)
    assert found is not None and found.skill == "sequence", question
    assert found.answer == answer
    assert rule in found.detail


@pytest.mark.parametrize("question", [
    "3, 1, 4, 1, 5, ?",  # digits of pi: no simple rule
    "Next: 1, 2, ?",  # too short to be sure
    "Prices 10 20 30",  # numbers without a question
    "1, ?, ?, 4",  # two gaps
])
def test_unsure_or_not_a_sequence_question_gives_nothing(question):
    found = solve(question)
    assert found is None or found.skill != "sequence"


def test_next_term_api():
    assert sequences.next_term([1, 2, 4, 8]) == (16, "constant ratio")
    assert sequences.next_term([1, 7, 2, 9]) is None
    assert sequences.missing_term([10, None, 30, 40]) == (20, "constant difference")


def test_tool_call():
    tool = sequences.tools()[0]
    assert tool.call({"terms": [2, 4, 8]}).startswith("16")
    assert tool.call({"terms": [2, None, 8, 16]}).startswith("4")
    assert "no simple rule" in tool.call({"terms": [3, 1, 4, 1, 5]})
    assert "list" in tool.call({"terms": "2,4"})
