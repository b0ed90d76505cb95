"""A target the task names by an identifier (an order or invoice number, a version, a date) is the element with
that whole identifier: ORD-7781 is not ORD-7782 though both share "March 2025", v2.1 is not v2.10 though both
share "2024"; and once one element carries the named identifier, elements matching only a number of the task
are not clicked with it. Pages written for these tests (not the task suite's)."""

from __future__ import annotations

import pytest

from agenthost.agent.task import read_task
from agenthost.agent.wording import identifiers
from tests.support.policy import decide, expect

ORDERS = """- heading "Your orders" [level=1]
- list:
  - listitem:
    - text: ORD-7781, placed 12 March 2025
    - button "Track ORD-7781 (March 2025)"
  - listitem:
    - text: ORD-7782, placed 14 March 2025
    - button "Track ORD-7782 (March 2025)"
  - listitem:
    - text: ORD-7790, placed 2 April 2025
    - button "Track ORD-7790 (April 2025)"
- button "Track every order of 2025\""""

MANUALS = """- heading "Manuals" [level=1]
- button "Download v2.1 manual (2024 edition)"
- button "Download v2.10 manual (2024 edition)"
- button "Download v3.0 manual (2025 edition)"
- link "Changelog":
  - /url: /changelog"""

STATEMENTS = """- heading "Statements" [level=1]
- button "Statement 2024-03-15"
- button "Statement 2024-02-15"
- button "Statement 2024-01-15\""""


#: task + page -> the one element clicked
CASES = [
    pytest.param("Track order ORD-7782 from March 2025.", ORDERS, "https://shop.test/orders",
                 {"typed": {}, "clicked": ["Track ORD-7782 (March 2025)"]},
                 id="the order named by its number is the only one tracked"),
    pytest.param("Download the v2.10 manual, 2024 edition.", MANUALS, "https://docs.test/manuals",
                 {"typed": {}, "clicked": ["Download v2.10 manual (2024 edition)"]},
                 id="a version is matched whole (v2.10 is not v2.1)"),
    pytest.param("Download the v2.1 manual, 2024 edition.", MANUALS, "https://docs.test/manuals",
                 {"typed": {}, "clicked": ["Download v2.1 manual (2024 edition)"]},
                 id="a version is matched whole (v2.1 is not v2.10)"),
    pytest.param("Download the statement of 2024-02-15.", STATEMENTS, "https://bank.test/statements",
                 {"typed": {}, "clicked": ["Statement 2024-02-15"]},
                 id="a date is matched whole"),
    # no identifier in the task: "2025" alone still names the button that carries it (score by number)
    pytest.param("Track every order you placed in 2025.", ORDERS, "https://shop.test/orders",
                 {"clicked_has": ["Track every order of 2025"]},
                 id="a number the task gives alone still picks its element"),
]


@pytest.mark.parametrize(("task", "tree", "url", "outcome"), CASES)
def test_the_element_named_by_an_identifier_is_the_one_clicked(task, tree, url, outcome):
    expect(decide(task, tree, url=url), **outcome)


def test_identifiers_and_numbers_of_a_task():
    facts = read_task("Log in, then download invoice INV-2024-10 (see https://x.test/v2.1) by 19:30 for 2 people.")
    assert facts.ids == {"inv-2024-10"}
    assert "2024" not in facts.numbers and "10" not in facts.numbers  # parts of the identifier, not numbers
    assert identifiers("v2.1 and v2.10, 2024-03-15.") == {"v2.1", "v2.10", "2024-03-15"}
