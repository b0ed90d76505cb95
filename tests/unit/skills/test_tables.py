"""Table skill: aggregates, which-row, lookups and filters over page tables and row dicts."""

from __future__ import annotations

import pytest

from agenthost.skills import solve, tables

PRODUCTS = [["Product", "Category", "Price", "Stock"],
            ["Apple", "Fruit", "$1.20", "50"],
            ["Banana", "Fruit", "$0.50", "120"],
            ["Laptop", "Electronics", "$999.00", "5"],
            ["Phone", "Electronics", "$1,599.99", "12"],
            ["Carrot", "Vegetable", "$0.30", "200"]]
STAFF = [{"name": "Ann", "dept": "Sales", "salary": 52000, "age": 31},
         {"name": "Bob", "dept": "IT", "salary": 61000, "age": 45},
         {"name": "Cleo", "dept": "Sales", "salary": 48000, "age": 27},
         {"name": "Dev", "dept": "IT", "salary": 75500, "age": 38}]


@pytest.mark.parametrize(("question", "answer"), [
    ("What is the total of column Price?", "2600.99"),
    ("What is the average price?", "520.198"),
    ("What is the highest stock?", "200"),
    ("What is the lowest price?", "0.3"),
    ("Which product has the highest price?", "Phone"),
    ("Which product has the lowest stock?", "Laptop"),
    ("How many rows are there?", "5"),
    ("How many products are in the Fruit category?", "2"),
    ("What is the price of Banana?", "$0.50"),
    ("What is the total stock of Electronics?", "17"),
    ("How many products have a price over 1?", "3"),
    ("What is the highest price in the Fruit category?", "1.2"),
    ("What is the sum of stock where price is less than 1?", "320"),
    ("Total stock for products with a price of at least 1", "67"),
    ("What is the stock of the product with price over 1000?", "12"),
])
def test_page_table_questions(question, answer):
    found = solve(question, context={"tables": [PRODUCTS]})
    assert found is not None and found.skill == "table", question
    assert found.answer == answer


@pytest.mark.parametrize(("question", "answer"), [
    ("What is the average salary in Sales?", "50000"),
    ("Who has the highest salary?", "Dev"),
    ("How many employees in IT are older than 40?", "1"),
    ("What is the total salary of people with age under 35?", "100000"),
    ("What is Cleo's age?", "27"),
])
def test_row_dicts(question, answer):
    found = solve(question, context={"rows": STAFF})
    assert found is not None and found.skill == "table", question
    assert found.answer == answer


def test_questions_not_about_the_table_give_nothing():
    assert solve("Please log in", context={"tables": [PRODUCTS]}) is None
    assert solve("What is the total of column Weight?", context={"tables": [PRODUCTS]}) is None
    assert solve("What is the total price?") is None  # no table at all


def test_aggregate_and_lookup_api():
    assert tables.aggregate(PRODUCTS, "sum", "Stock", [("Category", "=", "fruit")]) == "170"
    assert tables.aggregate(PRODUCTS, "argmax", "Stock", label="Category") == "Vegetable"
    assert tables.lookup(PRODUCTS, "Stock", "laptop") == "5"
    with pytest.raises(KeyError):
        tables.aggregate(PRODUCTS, "sum", "Weight")
    assert tables.parse_number("$1,234.50") == tables.parse_number("1234.5")
    assert tables.parse_number("12 kg") == 12 and tables.parse_number("n/a") is None


def test_tool():
    tool = tables.tools()[0]
    assert tool.call({"rows": STAFF, "question": "average age"}).startswith("35.25")
    assert tool.call({"rows": STAFF, "operation": "count", "where": [{"column": "dept", "op": "=", "value": "IT"}]}) \
        == "2"
    assert tool.call({"rows": STAFF, "operation": "lookup", "column": "dept", "key": "Bob"}) == "IT"
    assert tool.call({"rows": STAFF, "operation": "sum", "column": "height"}).startswith("cannot compute")
