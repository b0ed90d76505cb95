"""JSON API skill: fetch through the guarded client from a loopback server, then compute; refusals."""

from __future__ import annotations

import json

import pytest

from agenthost import config
from agenthost.skills import json_api, solve
from tests.support.json_api import serve_json

PRODUCTS = {"data": {"items": [
    {"id": 1, "name": "Apple", "category": "Fruit", "price": 1.2, "stock": 50, "supplier": {"city": "Lyon"}},
    {"id": 2, "name": "Banana", "category": "Fruit", "price": 0.5, "stock": 120, "supplier": {"city": "Oslo"}},
    {"id": 3, "name": "Laptop", "category": "Electronics", "price": 999, "stock": 5, "supplier": {"city": "Oslo"}},
]}, "version": "2.3.1"}


@pytest.fixture
def api(monkeypatch):
    with serve_json({"/api/products": PRODUCTS, "/api/broken": b"<html>oops</html>"}, monkeypatch) as base:
        yield base


@pytest.mark.parametrize(("question", "answer"), [
    ("Using the API at {base}/api/products, what is the total stock of the Fruit category?", "170"),
    ("Call the JSON endpoint {base}/api/products: which name has the highest price?", "Laptop"),
    ("According to the API {base}/api/products, how many items have a price under 2?", "2"),
    ("API {base}/api/products: how many products have supplier city Oslo?", "2"),
    ("What version does the API at {base}/api/products report?", "2.3.1"),
])
def test_fetch_then_compute(api, question, answer):
    found = solve(question.format(base=api))
    assert found is not None and found.skill == "json_api", question
    assert found.answer == answer
    assert "/api/products" in found.detail


def test_path_relative_to_the_page(api):
    found = solve("Query the API at /api/products: what is the average stock?", context={"url": f"{api}/shop"})
    assert found is not None and found.answer == "58.33"


def test_data_already_fetched():
    found = solve("What is the lowest price?", context={"json": PRODUCTS})
    assert found is not None and (found.skill, found.answer) == ("json_api", "0.5")


def test_failures_give_nothing(api):
    assert solve(f"API {api}/api/missing: what is the total stock?") is None
    assert solve(f"API {api}/api/broken: what is the total stock?") is None
    with pytest.raises(json_api.FetchError, match="HTTP 404"):
        json_api.fetch_json(f"{api}/api/missing")
    assert "cannot fetch" in json_api.tools()[0].call({"url": f"{api}/api/broken"})


def test_the_network_guard_refuses_private_addresses(api, monkeypatch):
    monkeypatch.setenv("AGENTHOST_NETGUARD_ALLOW_PRIVATE", "false")
    config.reset()
    with pytest.raises(json_api.FetchError, match="refused: address 127.0.0.1 is"):
        json_api.fetch_json(f"{api}/api/products")
    assert solve(f"Using the API at {api}/api/products, what is the total stock?") is None
    assert "refused" in json_api.tools()[0].call({"url": "http://169.254.169.254/latest/meta-data/"})


def test_tool_returns_the_json_without_a_question(api):
    out = json_api.tools()[0].call({"url": f"{api}/api/products"})
    assert json.loads(out) == PRODUCTS


def test_a_field_label_finds_the_api_the_page_lists(api):
    text = (f"Order desk The shop's order service answers in JSON. Its endpoints (GET): {api}/api/customers: the "
            f"customers; {api}/api/products: the products (name, category, price, stock) Daily report")
    found = solve("Total stock of the Fruit category", context={"text": text, "url": f"{api}/desk"})
    assert found is not None and found.answer == "170" and "/api/products" in found.detail
    assert solve("Total stock of the Fruit category", context={"text": "Daily report", "url": api}) is None
