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
    ("How many metres are in 2.5 kilometres?", None, "units", "2500"),
    ("What is 20 °C in °F?", {"tables": [[["City", "Temp"], ["Oslo", "3"], ["Rome", "18"]]]}, "units", "68"),
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
                            "chess_best_move", "table_query", "json_api_query", "write_text", "convert_units"}
    for t in by_name.values():
        spec = t.spec()
        assert spec["parameters"]["type"] == "object" and spec["parameters"]["required"]
        assert len(spec["description"]) > 20
    assert by_name["calculate"].call({"expression": "6 * 7"}) == "42"
    assert by_name["convert_units"].call({"value": 3, "from": "hours", "to": "minutes"}) == "180"


def test_a_whole_page_of_text_is_read_line_by_line():
    page = "Shop\nShowing 1 - 10 of 50 results\n1 2 3 4 5\nNext\nQuestions? Call us\nWhat is 6 × 7?\nAnswer:"
    found = solve(page)
    assert found is not None and (found.skill, found.answer) == ("arithmetic", "42")
    assert solve("Shop\nShowing 1 - 10 of 50 results\n1 2 3 4 5\nNext page\nQuestions? Call us") is None


# A page's text often arrives as one line (its observation collapses it): the questions are cut out of it.
SALES = [["Region", "Product", "Units", "Revenue ($)"],
         ["North", "Kettle", "211", "14,981"], ["North", "Toaster", "150", "10,650"],
         ["South", "Kettle", "154", "9,086"], ["South", "Toaster", "221", "18,564"],
         ["West", "Kettle", "89", "4,628"], ["West", "Toaster", "114", "3,990"], ["West", "Blender", "159", "13,992"]]
SALES_TEXT = ("Quarterly sales report Region Product Units Revenue ($) North Kettle 211 14,981 "
              "North Toaster 150 10,650 Questions 1. How many units were sold in total in the West region? "
              "Answer to question 1 "
              "2. Which product had the highest total revenue across all regions? Answer to question 2 Check answers")


def test_questions_are_cut_out_of_one_line_of_page_text():
    assert skills.questions(SALES_TEXT) == ["How many units were sold in total in the West region?",
                                            "Which product had the highest total revenue across all regions?"]
    assert skills.questions("Pay 3.50 now. Is that fine? Yes") == ["Is that fine?"]


def test_solve_all_answers_each_question_of_a_page():
    found = skills.solve_all(SALES_TEXT, context={"tables": [SALES], "text": SALES_TEXT})
    assert [(q[:8], s.answer) for q, s in found] == [("How many", "362"),
                                                      ("Which pr", "Toaster")]
    assert "per Product" in found[1][1].detail  # the products' totals over the regions, not one row


@pytest.mark.parametrize(("page_text", "skill", "answer"), [
    ("Mental arithmetic Work out each expression. 0 Score 0 Correct 1/5 Round 1 of 5 What is 9² + 6 × 4? Answer "
     "Submit answer", "arithmetic", "105"),
    ("What comes next? Five rounds, one try each; you need at least four right. 0 Score 0 Correct 1/5 Round 1 of 5 "
     "27, 64, 125, 216, 343, ? Next number Check", "sequence", "512"),
    ("Word scramble Unscramble the letters into an English word. 0 Score 0 Correct 1/5 Round 1 of 5 E T C R U P I "
     "Hint: 7 letters. Your word Submit word", "words", "PICTURE"),
    ("Puzzle of the day Black to move: find the move that gives checkmate. Position (FEN): "
     "3r2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1 Your move Play move", "chess", "Rd1#"),
])
def test_whole_page_lines(page_text, skill, answer):
    found = solve(page_text)
    assert found is not None and (found.skill, found.answer) == (skill, answer)
