"""Free text the task only describes ("a review of at least 100 words about ...") is the writing skill's text:
as long as asked, on the topic, no sentence said twice (the old built-in writer cycled through six)."""

from __future__ import annotations

import re

from agenthost.agent.values import realistic
from tests.support.policy import decide, expect


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def test_a_long_described_text_has_the_asked_length_and_no_repeated_sentence():
    text = realistic("Message", "free", "write at least 120 words about the harbour festival")
    sentences = _sentences(text)
    assert len(text.split()) >= 120
    assert len(sentences) == len(set(sentences)) >= 8
    assert all("harbour festival" in s for s in sentences[:3])


def test_other_lengths_the_task_may_ask_for():
    assert len(_sentences(realistic("Notes", "free", "exactly 3 sentences about bicycle repair"))) == 3
    short = realistic("Comment", "free", "no more than 25 words on the new timetable")
    assert 0 < len(short.split()) <= 25
    assert len(_sentences(realistic("Feedback", "free", "anything"))) == 2  # no length asked: two sentences


def test_a_review_field_the_task_describes_gets_a_long_text_through_the_policy():
    tree = """- heading "Rate your stay" [level=1]
- textbox "Your review"
- button "Publish review\""""
    d = decide("Leave a review of at least 100 words about your stay at the lake hotel, then publish it.", tree)
    typed = [a.args["text"] for a in d.actions if a.tool == "type"]
    assert typed and len(typed[0].split()) >= 100
    assert len(_sentences(typed[0])) == len(set(_sentences(typed[0])))
    expect(d, clicked=["Publish review"], last="Publish review")  # the review written, then published
