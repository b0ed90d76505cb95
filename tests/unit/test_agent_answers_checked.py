"""A question's answer read from a line of the page is one that says what the question asks: an amount for
"how many", a time for "when", the thing named for "what colour" / "which platform". A line that only shares
the question's other words is not reported as the answer (it was, as a claimed success)."""

from __future__ import annotations

import pytest

from tests.support.policy import decide

GUEST_HOUSE = ('- heading "The Lakeside guest house"\n'
               '- paragraph: "The guest house sits on the lake shore, near the old mill."\n'
               '- paragraph: "Breakfast is served from seven."')


@pytest.mark.parametrize(("question", "tree", "answer"), [
    ("How many volunteers joined the river cleanup?",
     '- paragraph: "The river cleanup took place on Saturday; 42 volunteers joined."', "42 volunteers joined"),
    ("When does the river cleanup start?",
     '- paragraph: "The river cleanup starts on Saturday at the north bank."', "Saturday"),
    ("What colour is the front door of the museum?",
     '- paragraph: "The museum front door colour is a deep green."', "deep green"),
    ("Which platform does the night train to Oslo leave from?",
     '- paragraph: "The night train to Oslo leaves from platform 4."', "platform 4"),
    ("What is the opening time of the museum?", '- paragraph: "Opening time: 9:30"', "9:30"),
])
def test_a_line_that_says_what_is_asked_is_the_answer(question, tree, answer):
    d = decide(question, tree)
    assert d.done and d.success is True and answer in d.result


@pytest.mark.parametrize(("question", "tree"), [
    ("How many rooms does the guest house have?", GUEST_HOUSE),
    ("How many volunteers joined the river cleanup?",
     '- paragraph: "The river cleanup took place on Saturday along the north bank."\n'
     '- paragraph: "Thanks to everyone who came."'),
    ("When does the river cleanup start?",
     '- paragraph: "The river cleanup is run by volunteers from the north bank."'),
    ("What colour is the front door of the museum?", '- paragraph: "The museum front door faces the square."'),
    ("Which platform does the night train to Oslo leave from?",
     '- paragraph: "The night train to Oslo is popular in winter."'),
])
def test_a_line_that_only_shares_the_questions_words_is_no_answer(question, tree):
    d = decide(question, tree)
    assert not d.success  # never a claimed success with a line that does not answer
