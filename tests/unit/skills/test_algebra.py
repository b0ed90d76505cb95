"""Algebra skill: the unknown of a linear equation, as a page shows it, and what is no such equation."""

from __future__ import annotations

import pytest

from agenthost.skills import solve


@pytest.mark.parametrize(("question", "answer"), [
    ("Solve for x. Press Submit when done. x + 2 = 43 x =", "41"),  # the answer field's own label after it
    ("Find the value of y: 17 - y = 5", "12"),
    ("Solve for n:\n(n + 4) / 2 = 9", "14"),
    ("Solve for x: 3x = 12", "4"),
    ("Solve for t when 2t + 1 = 6", "2.5"),
    ("What is k?  40 = 8 * k", "5"),
])
def test_the_unknown_of_a_linear_equation(question, answer):
    found = solve(question)
    assert found is not None and found.skill == "algebra" and found.answer == answer


@pytest.mark.parametrize("question", [
    "Solve for x: x * x = 4",  # not linear: two answers
    "Solve for x: 2 + 2 = 4",  # no unknown
    "Solve for x: y + 1 = 3",  # another unknown
    "Please log in to continue.",
])
def test_no_single_answer_is_no_solution(question):
    found = solve(question)
    assert found is None or found.skill != "algebra"


def test_arithmetic_is_still_arithmetic():
    found = solve("What is 17 × 3?")
    assert found is not None and (found.skill, found.answer) == ("arithmetic", "51")
