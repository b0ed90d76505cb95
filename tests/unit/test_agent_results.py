"""The n-th entry of a result list that runs over pages (``agent.results``), on catalogue pages written for
these tests: the pager's link to the page holding it, then the entry; a "next" link where the pager shows no
number for it; the site's own links above the search box are no results; no such rule without an n-th entry."""

from __future__ import annotations

from agenthost.agent.actions import PROXY_TOOLS
from tests.support.policy import decide, snapshot_of

SITE = [{"id": "agent-1", "tag": "a", "role": "link", "text": "Home", "href": "/"},
        {"id": "agent-2", "tag": "a", "role": "link", "text": "Help", "href": "/help"},
        {"id": "agent-3", "tag": "input", "type": "search", "value": "lamps"},
        {"id": "agent-4", "tag": "button", "text": "Find"}]


def catalogue(first: int, per: int = 4, pages: int = 3, pager=("numbers",)):
    """Results ``first``..``first + per - 1`` ("Lamp 5" ...), then the pager."""
    parts = ["Catalogue"] + SITE
    n = 10
    for k in range(first, first + per):
        parts += [{"id": f"agent-{n}", "tag": "a", "role": "link", "text": f"Lamp {k}", "href": f"/p/{k}"},
                  f"Lamp {k} shade, warm light"]
        n += 1
    if "numbers" in pager:
        for p in range(1, pages + 1):
            parts.append({"id": f"agent-{n}", "tag": "a", "role": "link", "text": str(p), "href": "#"})
            n += 1
    parts.append({"id": f"agent-{n}", "tag": "a", "role": "link", "text": "Next ›", "href": "#"})
    return snapshot_of(parts, url="https://lamps.test/search")


def clicked(d):
    return [a.resolved.name for a in d.actions if a.tool == "click"]


TASK = "Search for lamps, then open the 7th search result."


def test_the_page_holding_the_entry_first_then_the_entry():
    d = decide(TASK, catalogue(1), tools=PROXY_TOOLS)
    assert clicked(d) == ["2"]  # four a page: the 7th is on page 2
    d2 = decide(TASK, catalogue(5), tools=PROXY_TOOLS, memory=d.memory, history=d.actions)
    assert clicked(d2) == ["Lamp 7"]


def test_a_next_link_where_the_pager_shows_no_number():
    task = "Pick the 10th hit in the list."
    d = decide(task, catalogue(1, pager=()), tools=PROXY_TOOLS)
    assert clicked(d) == ["Next ›"]
    d = decide(task, catalogue(5, pager=()), tools=PROXY_TOOLS, memory=d.memory, history=d.actions)
    assert clicked(d) == ["Next ›"]
    d = decide(task, catalogue(9, pager=()), tools=PROXY_TOOLS, memory=d.memory, history=d.actions)
    assert clicked(d) == ["Lamp 10"]


def test_an_entry_on_the_first_page_is_clicked_where_it_is_not_the_sites_own_links():
    d = decide("Click the first result.", catalogue(1), tools=PROXY_TOOLS)
    assert clicked(d) == ["Lamp 1"]


def test_no_result_rule_without_an_nth_entry():
    d = decide("Open the help page.", catalogue(1), tools=PROXY_TOOLS)
    assert "results.nth-result" not in d.rules
