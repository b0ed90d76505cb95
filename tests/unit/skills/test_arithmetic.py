"""Arithmetic skill: symbols, words, precedence, rounding, and what is not an expression."""

from __future__ import annotations

from fractions import Fraction

import pytest

from agenthost.skills import arithmetic, solve


@pytest.mark.parametrize(("question", "answer"), [
    ("What is 17 × 3?", "51"),
    ("What is 12 x 12?", "144"),
    ("Solve: 3 + 4 * 2 =", "11"),
    ("Calculate (12 + 8) / 4", "5"),
    ("What is 7/2?", "3.5"),
    ("What is 100 − 58?", "42"),
    ("What is 84 ÷ 4?", "21"),
    ("seven times six", "42"),
    ("What is twenty-one plus four?", "25"),
    ("What is one hundred and five minus five?", "100"),
    ("What is 15% of 240?", "36"),
    ("the square root of 144", "12"),
    ("What is 2 to the power of 10?", "1024"),
    ("What is 2^8?", "256"),
    ("What is 9 squared?", "81"),
    ("subtract 9 from 20", "11"),
    ("what is the sum of 5 and 7", "12"),
    ("What is the product of 6 and 7?", "42"),
    ("What is the remainder when 17 is divided by 5?", "2"),
    ("What is 1,234 + 766?", "2000"),
    ("What is 10 divided by 3, rounded to 2 decimal places?", "3.33"),
    ("What is 10 divided by 4 to the nearest whole number?", "3"),
    ("Captcha: 8 + 5 = ?", "13"),
    ("What is -4 * -3?", "12"),
    ("What is 1/8?", "0.125"),
])
def test_questions_get_the_exact_value(question, answer):
    found = solve(question)
    assert found is not None and found.skill == "arithmetic", question
    assert found.answer == answer


@pytest.mark.parametrize("text", [
    "Question 3/10", "0 Score 0 Correct 1/10", "Round 2 of 5", "Born 2024-01-05", "Call 555-1234",
    "Please log in", "Add to cart", "Order #12345", "What is your name?", "",
])
def test_text_without_an_expression_is_not_solved(text):
    assert solve(text) is None


def test_evaluate_refuses_anything_but_arithmetic():
    for src in ["__import__('os').system('id')", "abs(-3)", "x + 1", "[1, 2]", "'a' * 3", "(lambda: 1)()"]:
        with pytest.raises((ValueError, SyntaxError)):
            arithmetic.evaluate(src)


def test_evaluate_bounds_huge_powers_and_refuses_division_by_zero():
    with pytest.raises(OverflowError):
        arithmetic.evaluate("9 ** 9 ** 9")
    with pytest.raises(ZeroDivisionError):
        arithmetic.evaluate("1 / 0")
    assert solve("What is 5 / 0?") is None


def test_evaluate_is_exact():
    assert arithmetic.evaluate("0.1 + 0.2") == Fraction(3, 10)
    assert arithmetic.format_number(arithmetic.evaluate("0.1 + 0.2")) == "0.3"
    assert arithmetic.format_number(Fraction(1, 3)) == "0.33"
    assert arithmetic.format_number(Fraction(1, 3), 4) == "0.3333"


def test_calculate_tool():
    tool = {t.name: t for t in arithmetic.tools()}["calculate"]
    assert tool.call({"expression": "17 x 3"}) == "51"
    assert tool.call({"expression": "22 / 7", "decimal_places": 3}) == "3.143"
    assert "not an arithmetic expression" in tool.call({"expression": "hello"})
