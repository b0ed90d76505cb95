"""Items a task orders by quantity on a page that gives each item its own "+" and "-" and shows the amount
chosen (``agent.orders``), on shop pages written for these tests: each item brought to its amount one click at
a time, an item chosen too often taken down, items picked by a mark they show, the order's button only once
the amounts are right, and an honest give-up (never an order sent with nothing chosen) where the page offers
no control to choose an item."""

from __future__ import annotations

from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.snapshot import from_snapshot
from tests.support.policy import decide, expect


def _shop(amounts=(0, 0, 0), task=""):
    """A bakery page as an extension's snapshot shows it: each item's name, its mark (an image), "-", the amount
    (shown only when above 0), "+"; then the Buy button."""
    items = [("Rye loaf", "organic"), ("Seed roll", "sweet"), ("Plum and fig tart", "organic")]
    text, elements = task + " Bakery", []
    for i, ((name, mark), n) in enumerate(zip(items, amounts, strict=True)):
        text += f" {name}"
        elements.append({"id": f"m{i}", "tag": "img", "text": mark, "clickable": True, "at": len(text)})
        text += " "
        elements.append({"id": f"minus{i}", "tag": "span", "text": "-", "clickable": True, "at": len(text)})
        text += "-" + (f" {n}" if n else "") + " "
        elements.append({"id": f"plus{i}", "tag": "span", "text": "+", "clickable": True, "at": len(text)})
        text += "+"
    text += " "
    elements.append({"id": "buy", "tag": "button", "text": "Buy", "at": len(text)})
    text += "Buy"
    return from_snapshot({"url": "https://bakery.test/", "title": "", "visibleText": text, "elements": elements})


EACH = "Buy two of each: Rye loaf, Plum and fig tart"


def test_each_item_is_brought_to_its_amount_before_the_order_is_sent():
    expect(decide(EACH, _shop(task=EACH), tools=PROXY_TOOLS), clicked=["plus0"], by_ref=True)
    expect(decide(EACH, _shop((2, 0, 1), task=EACH), tools=PROXY_TOOLS), clicked=["plus2"], by_ref=True)
    # every item shows its amount: the order's own button
    expect(decide(EACH, _shop((2, 0, 2), task=EACH), tools=PROXY_TOOLS), clicked=["buy"], by_ref=True)


def test_an_item_chosen_that_the_task_does_not_ask_for_is_taken_down():
    expect(decide(EACH, _shop((2, 1, 2), task=EACH), tools=PROXY_TOOLS), clicked=["minus1"], by_ref=True)


def test_items_picked_by_the_mark_they_show_make_up_the_amount():
    task = "Buy 3 products tagged organic"
    expect(decide(task, _shop(task=task), tools=PROXY_TOOLS), clicked=["plus0"], by_ref=True)
    # one already chosen of another item of the kind counts toward the amount
    expect(decide(task, _shop((0, 0, 2), task=task), tools=PROXY_TOOLS), clicked=["plus2"], by_ref=True)
    expect(decide(task, _shop((0, 0, 3), task=task), tools=PROXY_TOOLS), clicked=["buy"], by_ref=True)


def test_an_order_the_page_gives_no_way_to_place_is_an_honest_give_up_not_an_empty_order():
    missing = "Buy one of each item: Rye loaf, Fig cake"
    expect(decide(missing, _shop(task=missing), tools=PROXY_TOOLS), done=True, success=False, result="Fig cake",
           nothing=True)
    # an accessibility tree that shows the steppers as text only: nothing to press them with
    tree = ('- text: "Buy one of each item: Rye loaf, Plum and fig tart"\n- heading "Bakery" [level=2]\n'
            '- text: Rye loaf - +\n- text: Plum and fig tart - +\n- button "Buy"')
    expect(decide("Buy one of each item: Rye loaf, Plum and fig tart", tree), done=True, success=False,
           nothing=True)
