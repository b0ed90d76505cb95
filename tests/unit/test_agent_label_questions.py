"""A form whose fields' own labels ask for a quantity over some data ("Total stock of the fruit products")
is answered by the skills: from the JSON API endpoint the page lists (fetched from a loopback server) or
from the page's own table. Pages written for these tests (not the task suite's order desk)."""

from __future__ import annotations

import pytest

from agenthost.agent.task import read_task
from tests.support.json_api import serve_json
from tests.support.policy import decide, expect

STOCK = {"products": [
    {"sku": "A1", "name": "Apple", "category": "fruit", "stock": 40, "price": 1.5},
    {"sku": "B2", "name": "Banana", "category": "fruit", "stock": 25, "price": 0.9},
    {"sku": "C3", "name": "Cable", "category": "electronics", "stock": 7, "price": 12.0},
]}
SUPPLIERS = {"suppliers": [{"id": 1, "name": "Orchard Ltd", "country": "Spain"}]}


@pytest.fixture
def api(monkeypatch):
    with serve_json({"/v1/products": STOCK, "/v1/suppliers": SUPPLIERS}, monkeypatch) as base:
        yield base


def test_each_quantity_field_is_answered_from_the_endpoint_the_page_lists_for_it(api):
    tree = f"""- heading "Warehouse check" [level=1]
- paragraph: "Data endpoints: {api}/v1/suppliers (suppliers) and {api}/v1/products (the product list)."
- textbox "Total stock of the fruit products"
- textbox "Number of products in the electronics category"
- button "Send stock check\""""
    d = decide("Use the warehouse JSON API to complete the stock check with their figures, then send it.", tree)
    expect(d, typed={"Total stock of the fruit products": "65", "Number of products in the electronics category": "1"},
           clicked=["Send stock check"], last="Send stock check")


def test_a_quantity_label_is_answered_from_the_pages_table_when_there_is_no_api():
    tree = """- heading "League night" [level=1]
- table:
  - row "Team Points Games":
    - cell "Team"
    - cell "Points"
    - cell "Games"
  - row "Red 12 4":
    - cell "Red"
    - cell "12"
    - cell "4"
  - row "Blue 9 4":
    - cell "Blue"
    - cell "9"
    - cell "4"
  - row "Green 15 5":
    - cell "Green"
    - cell "15"
    - cell "5"
- textbox "Sum of the points of all teams"
- button "Check\""""
    d = decide("Fill in the league summary from the table and check it.", tree)
    expect(d, typed={"Sum of the points of all teams": "36"}, clicked=["Check"], last="Check")


def test_a_possessive_phrase_is_no_value_for_a_field():
    facts = read_task("Fill in the daily report: how many parcels left and the sum of their weights.")
    assert facts.value_for("Sum of the weights of the parcels") is None
    assert read_task("Set the sum to 42.").value_for("Sum") == "42"


def test_a_tables_own_headers_and_a_status_line_that_says_average_pose_no_question():
    """The page's text names every column of its tables; "average" in a status line is no question about them:
    nothing is computed and typed where the task asks for no quantity."""
    tree = """- heading "Shift planner"
- table:
  - row "Week Mon Tue":
    - columnheader "Week"
    - columnheader "Mon"
    - columnheader "Tue"
  - row "1 6 8":
    - cell "1"
    - cell "6"
    - cell "8"
  - row "2 7 9":
    - cell "2"
    - cell "7"
    - cell "9"
- text: "Note:"
- textbox
- button "Done"
- text: "Hours logged: 0 - weekly average: n/a\""""
    expect(decide("Press Done.", tree), typed={}, clicked=["Done"])
    # a question the page asks about its table is still answered
    asked = tree.replace('- text: "Note:"', '- text: "What is the total of the Tue column?"')
    expect(decide("Answer the question and press Done.", asked), typed={"": "17"})
