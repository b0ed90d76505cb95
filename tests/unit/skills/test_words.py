"""Word skill: anagrams and missing letters from the packaged English word list, ranked by frequency."""

from __future__ import annotations

import pytest

from agenthost.skills import solve, words


@pytest.mark.parametrize(("question", "answer"), [
    ("Unscramble the letters: L P E P A", "APPLE"),
    ("Unscramble the word below to continue. RETAW", "WATER"),
    ("unscramble: nohtyp", "python"),
    ("Find an anagram of LISTEN", "SILENT"),
    ('Rearrange the letters of "tinsel" to form a word', "listen"),
    ("Scrambled word: NAANAB", "BANANA"),
    ("Complete the word: c_t", "cut"),
    ("c_t", "cut"),
    ("C _ T", "CUT"),
    ("Fill in the missing letters: e _ e p h _ n t", "elephant"),
    ("Which word fits: b_n_n_?", "banana"),
    ("Missing letter: comp?ter", "computer"),
])
def test_puzzles_get_a_real_word(question, answer):
    found = solve(question)
    assert found is not None and found.skill == "words", question
    assert found.answer == answer


def test_other_fitting_words_are_offered_as_alternatives():
    found = solve("Unscramble TCA")
    assert found is not None
    assert {found.answer, *found.alternatives} == {"ACT", "CAT"}
    assert solve("c_t").alternatives[:2] == ["cat", "cot"]


@pytest.mark.parametrize("text", [
    "What is your name?", "Enter your user_name", "Unscramble XQZJ", "Complete the word: q_x_z", "Welcome back",
])
def test_no_word_or_no_puzzle_gives_nothing(text):
    found = solve(text)
    assert found is None or found.skill != "words"


def test_word_list_api():
    assert words.is_word("Elephant") and not words.is_word("xqzj")
    assert "silent" in words.unscramble("listen")
    assert words.fill("d_g")[:1] == ["dog"]
    assert words.fill("d1g") == []


def test_tools():
    by_name = {t.name: t for t in words.tools()}
    assert set(by_name["unscramble"].call({"letters": "odg"}).split(", ")) == {"dog", "god"}
    assert "no English word" in by_name["unscramble"].call({"letters": "qqq"})
    assert by_name["fill_missing_letters"].call({"pattern": "h_use"}).startswith("house")
