"""The dispatcher: each kind of problem goes to its skill from general wording; other text gives None; the
tool list is complete and callable."""

from __future__ import annotations

import time

import pytest

from agenthost import skills
from agenthost.skills import Solution, solve


@pytest.mark.parametrize(("question", "context", "skill", "answer"), [
    ("What is 17 × 3?", None, "arithmetic", "51"),
    ("Next number: 2, 4, 8, ?", None, "sequence", "16"),
    ("Unscramble TCA", None, "words", None),
    ("c_t", None, "words", "cut"),
    ("White to move, FEN r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", None, "chess",
     "Qxf7#"),
    ("What is the total of column Price?", {"tables": [[["Item", "Price"], ["a", "2"], ["b", "3.5"]]]}, "table",
     "5.5"),
    ("Write at least 50 words about the sea", None, "writing", None),
])
def test_routing(question, context, skill, answer):
    found = solve(question, context=context)
    assert isinstance(found, Solution) and found.skill == skill
    if answer is not None:
        assert found.answer == answer
    assert found.detail


@pytest.mark.parametrize("text", [
    "", "   ", "Please log in", "Welcome to the store", "Score: 0 Correct 1/10", "Question 3 of 10",
    "Submitted!", "Add to cart", "Total: $42.00",
])
def test_ordinary_page_text_is_not_a_problem(text):
    assert solve(text) is None


def test_odd_input_never_raises():
    for q in [None, 42, "(" * 500 + "1", "1/0 = ?", "9**9**9**9", "What is 1e999 * 2?", "unscramble " + "a" * 5000]:
        assert solve(q) is None or isinstance(solve(q), Solution)  # type: ignore[arg-type]


def test_a_past_deadline_answers_none():
    assert solve("What is 2 + 2?", deadline=time.monotonic() - 1) is None


def test_tools_are_complete_and_callable():
    by_name = {t.name: t for t in skills.tools()}
    assert set(by_name) == {"calculate", "next_in_sequence", "unscramble", "fill_missing_letters",
                            "chess_best_move", "table_query", "json_api_query", "write_text"}
    for t in by_name.values():
        spec = t.spec()
        assert spec["parameters"]["type"] == "object" and spec["parameters"]["required"]
        assert len(spec["description"]) > 20
    assert by_name["calculate"].call({"expression": "6 * 7"}) == "42"


def test_a_whole_page_of_text_is_read_line_by_line():
    page = "Shop\nShowing 1 - 10 of 50 results\n1 2 3 4 5\nNext\nQuestions? Call us\nWhat is 6 × 7?\nAnswer:"
    found = solve(page)
    assert found is not None and (found.skill, found.answer) == ("arithmetic", "42")
    assert solve("Shop\nShowing 1 - 10 of 50 results\n1 2 3 4 5\nNext page\nQuestions? Call us") is None
