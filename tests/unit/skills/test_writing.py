"""Writing skill: the asked length in words, characters or sentences, on the topic, well-formed, repeatable."""

from __future__ import annotations

import re

import pytest

from agenthost.skills import solve, writing


def _sentences(text):
    return re.findall(r"[^.!?]+[.!?]", text)


@pytest.mark.parametrize(("question", "unit", "low", "high", "topic"), [
    ("Write at least 50 words about the ocean", "words", 50, None, "the ocean"),
    ("Write between 80 and 100 words on remote work.", "words", 80, 100, "remote work"),
    ("Describe your favourite city in no more than 40 words", "words", 1, 40, "your favourite city"),
    ("Write exactly 30 words about tea", "words", 30, 30, "tea"),
    ("Write 3 sentences about trains", "sentences", 3, 3, "trains"),
    ("Write at least 200 characters about recycling", "characters", 200, None, "recycling"),
    ("Write at least 500 words about dogs", "words", 500, None, "dogs"),
    ("Write a review of the product (minimum 20 words)", "words", 20, None, "the product"),
    ("Write an essay about climate change.", "words", 50, None, "climate change"),
])
def test_length_topic_and_form(question, unit, low, high, topic):
    found = solve(question)
    assert found is not None and found.skill == "writing", question
    text = found.answer
    size = {"words": len(text.split()), "characters": len(text), "sentences": len(_sentences(text))}[unit]
    assert size >= low and (high is None or size <= high), (size, text)
    assert topic in text
    assert "lorem" not in text.lower()
    for s in _sentences(text):
        s = s.strip()
        assert s[0].isupper() and s.endswith("."), s
    assert "  " not in text
    assert solve(question).answer == text  # deterministic


def test_write_api_and_impossible_lengths():
    text = writing.write("gardening", 120, 130)
    assert 120 <= len(text.split()) <= 130
    assert writing.write("gardening", 120, 130) == text
    assert writing.write("chess", 120, 130) != text  # another topic, other sentences
    with pytest.raises(ValueError):
        writing.write("gardening", 2, 2)


def test_bounds_and_topic_reading():
    assert writing.bounds("Write fewer than 30 words") == writing.Bounds("words", 21, 29)
    assert writing.bounds("Write 100-150 characters") == writing.Bounds("characters", 100, 150)
    assert writing.bounds("Please log in") is None
    assert writing.topic_of("Write a short paragraph about renewable energy in at least 50 words") == \
        "renewable energy"


def test_not_a_writing_request():
    for q in ["Please log in", "What is 3 + 4?", "Write your email address"]:
        found = solve(q)
        assert found is None or found.skill != "writing"


def test_tool():
    tool = writing.tools()[0]
    out = tool.call({"topic": "bicycles", "min": 40, "max": 50})
    assert 40 <= len(out.split()) <= 50 and "bicycles" in out
    assert "unit must be" in tool.call({"topic": "x", "min": 4, "unit": "pages"})
