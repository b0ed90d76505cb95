"""Unit conversion skill: the usual phrasings, exact factors and answers, ambiguity said, nonsense refused."""

from __future__ import annotations

from fractions import Fraction

import pytest

from agenthost.skills import solve, units


@pytest.mark.parametrize(("question", "answer"), [
    ("How many metres are in 4.5 kilometres?", "4500"),
    ("How many minutes are in 7 hours?", "420"),
    ("How many kilograms are 7250 grams?", "7.25"),
    ("How many hours are in 5 days?", "120"),
    ("How many millilitres are in 12 litres?", "12000"),
    ("What is 35 °C in °F?", "95"),
    ("What is 98.6 degrees Fahrenheit in Celsius?", "37"),
    ("What is 5 °C in °F?", "41"),  # exact: floats give 40.999999999999936
    ("What is 300 kelvin in °C?", "26.85"),
    ("Convert 3 miles to km", "4.828032"),
    ("12 ft = ? inches", "144"),
    ("How many seconds are in a day?", "86400"),
    ("How many grams are in 3 kg of flour?", "3000"),
    ("How many pounds is 1 kg?", "2.2046"),
    ("How many bytes are in 2 KiB?", "2048"),
    ("How many square metres are in 2 hectares?", "20000"),
    ("What is 90 km/h in m/s?", "25"),
    ("How many centimetres are in 1,250 metres?", "125000"),
    ("How many tonnes are 1 g?", "0.000001"),
])
def test_conversions(question, answer):
    found = solve(question)
    assert found is not None and found.skill == "units", found
    assert found.answer == answer, found


def test_rounded_answers_offer_the_shorter_rounding_and_ambiguous_names_are_explained():
    found = units.from_question("What is 1 km in miles?")
    assert (found.answer, found.alternatives) == ("0.6214", ["0.62"])
    gallon = units.from_question("How many litres are in 2 gallons?")
    assert gallon.answer == "7.5708" and "US gallon" in gallon.detail
    assert units.from_question("How many litres are in 2 imperial gallons?").answer == "9.09218"


def test_convert_is_exact_and_refuses_units_of_different_kinds_or_unknown_ones():
    assert units.convert(Fraction(1), "inch", "cm") == Fraction(254, 100)
    assert units.convert("-40", "°F", "°C") == -40
    with pytest.raises(ValueError, match="no conversion"):
        units.convert(1, "metre", "kilogram")
    with pytest.raises(ValueError, match="unknown unit"):
        units.convert(1, "furlong", "m")


@pytest.mark.parametrize("question", [
    "How many units were sold in total in the West region?",  # "units" is no unit
    "How many metres are in 5 kilograms?",  # different kinds
    "Book 2 rooms in Lisbon for 3 nights",
    "Step 2 of 5 in the wizard",
    "What is 17 × 3?",
])
def test_questions_that_convert_nothing_get_no_conversion(question):
    found = solve(question)
    assert found is None or found.skill != "units"


def test_the_tool_converts_and_says_why_it_cannot():
    tool = units.tools()[0]
    assert tool.call({"value": 2.5, "from": "km", "to": "m"}) == "2500"
    assert tool.call({"value": 1, "from": "m", "to": "s"}).startswith("cannot convert")


def test_a_conversion_quiz_page_gets_each_answer_in_its_own_field():
    """The policy routes each question of a page it was not written for to the skill (an ARIA page)."""
    from tests.support.policy import decide, wire

    tree = """- heading "Kitchen converter check" [level=1]
- paragraph: "Progress: 0 of 2 right"
- paragraph: 1. How many grams are in 2.5 kg?
- textbox "Answer 1"
- paragraph: 2. What is 20 °C in °F?
- textbox "Answer 2"
- button "Check answers\""""
    d = decide("Answer the two conversion questions and check them.", tree)
    assert wire(d) == [("type", "Answer 1", "2500"), ("type", "Answer 2", "68"), ("click", "Check answers", None)]
