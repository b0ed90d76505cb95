"""An action the task asks for once a value the page shows passes a bound (``agent.waiting``), on pages written
for these tests: a wait while it does not, the task's click once it does, a fresh look on the Proxy API, and
no wait where the page shows no such value."""

from __future__ import annotations

from agenthost.agent.actions import PROXY_TOOLS
from tests.support.policy import decide, expect


def test_the_task_waits_until_the_value_passes_the_bound_then_acts():
    task = "Press Sell when the price goes above 120."
    waiting = decide(task, '- paragraph: "Ticker ACME Price: $118.50"\n- button "Sell"')
    assert [a.tool for a in waiting.actions] == ["wait"] and not waiting.done
    expect(decide(task, '- paragraph: "Ticker ACME Price: $121.00"\n- button "Sell"'), typed={}, clicked=["Sell"])
    # another phrasing, and the Proxy API's way to wait: a fresh look at the page
    task2 = "Once the temperature drops below 5, click Cover plants."
    tree = '- paragraph: "Greenhouse temperature: 7"\n- button "Cover plants"'
    d = decide(task2, tree, tools=PROXY_TOOLS)
    assert [a.to_proxy()["name"] for a in d.actions] == ["observe"]
    expect(decide(task2, tree.replace(": 7", ": 4")), typed={}, clicked=["Cover plants"])


def test_no_wait_where_the_page_shows_no_value_of_that_name():
    d = decide("Press Sell when the price goes above 120.", '- paragraph: "Ticker ACME"\n- button "Sell"')
    assert not [a for a in d.actions if a.tool == "wait"]
