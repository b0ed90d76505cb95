"""The element snapshot our extension emulator and browser function take (``agent.dom.SNAPSHOT_JS``), on a live
page in real Chromium: what a page makes clickable by script, an unlabelled field's visual label, an icon's name
from its class, and page order kept through ``at`` offsets into the visible text."""

from __future__ import annotations

import pytest

from agenthost.agent.dom import SNAPSHOT_JS
from agenthost.agent.snapshot import from_snapshot
from infra.extension.emulator import CHROMIUM_ARGS

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

PAGE = """<html><body>
<h1>Orders</h1>
<p>Write to <b>Kwame</b>, our support lead.</p>
<div class="row" style="cursor:pointer" onclick="">Order 1001 <span>shipped</span>
  <span class="icon trash" style="ICON"></span></div>
<div class="row" style="cursor:pointer">Order 1002 <span>pending</span>
  <span class="icon trash" style="ICON"></span></div>
<p><label>Reference</label><input id="ref"></p>
<table><tr><th>Postcode</th><td><input id="zip"></td></tr></table>
<div class="entry"><input id="colour"><div class="caption">Colour</div></div>
<div class="entry"><input id="size"><div class="caption">Size</div></div>
<div class="entry"><input id="guess"><button>Send</button></div>
<span style="display:none">hidden words</span>
<a title="Next">Next</a>
</body></html>""".replace("ICON", "display:inline-block;width:12px;height:12px;cursor:pointer;"
                          "background-image:url(data:image/gif;base64,R0lGODlhAQABAAAAACw=)")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield b
        b.close()


def test_the_snapshot_shows_script_clickables_labels_and_page_order(browser):
    page = browser.new_page()
    page.set_content(PAGE)
    raw = page.evaluate(SNAPSHOT_JS, [100, 6000])
    assert "hidden words" not in raw["text"]
    assert "Write to Kwame, our support lead." in raw["text"]  # inline text runs together as written
    model = from_snapshot({"url": "https://shop.test/", "title": "", "elements": raw["elements"],
                           "visibleText": raw["text"]})
    rows = [e for e in model.elements if e.role == "button" and e.name.startswith("Order")]
    icons = [e for e in model.elements if e.role == "button" and e.name == "trash"]
    assert [r.name for r in rows] == ["Order 1001 shipped", "Order 1002 pending"]
    assert len(icons) == 2  # a text-less icon inside a clickable row is its own target
    order = [e.ref for e in model.elements]
    assert order.index(rows[0].ref) < order.index(icons[0].ref) < order.index(rows[1].ref) < order.index(icons[1].ref)
    boxes = [e for e in model.elements if e.role == "textbox"]
    # a field whose label comes after it in its own box takes that label, not the box before's; a button after
    # a field is no label, and neither is another field's box
    assert [b.hint for b in boxes] == ["Reference", "Postcode", "Colour", "Size", ""]
    # an anchor without an address that shows text is a script's control (a calendar's "Next")
    assert [e.name for e in model.elements if e.name == "Next" and e.interactive] == ["Next"]
    page.close()


def test_a_transparent_field_that_takes_keys_is_listed_and_a_hidden_one_is_not(browser):
    """A field drawn with opacity 0 still takes clicks, focus and keys (a console's key catcher, a native control
    laid over a drawn one) and the accessibility tree lists it: so does the snapshot. A field that is not
    displayed, invisible, of no size or disabled is not listed, nor is a transparent element that is no field."""
    page = browser.new_page()
    page.set_content("""<html><body>
<div id="console" style="background:#111;color:#eee;width:300px">admin&gt; <span id="line"></span></div>
<input id="keys" style="opacity:0;width:2px;height:2px">
<input id="gone" style="display:none"><input id="unseen" style="visibility:hidden">
<input id="flat" style="opacity:0;width:0;height:0;border:0;padding:0">
<input id="off" disabled style="opacity:0">
<button id="ghost" style="opacity:0">Ghost</button>
<script>document.getElementById('keys').addEventListener('keydown',
  e => { document.getElementById('line').textContent += e.key; });</script>
</body></html>""")
    raw = page.evaluate(SNAPSHOT_JS, [100, 6000])
    listed = {page.locator(f'[data-agent-id="{e["id"]}"]').evaluate("e => e.id") for e in raw["elements"]}
    assert listed == {"keys"}
    key_catcher = next(e["id"] for e in raw["elements"])
    page.locator(f'[data-agent-id="{key_catcher}"]').press("x")  # the extension's press on the listed id
    assert page.locator("#line").text_content() == "x"
    page.close()


def test_a_quantity_stepper_drawn_as_characters_is_listed_as_controls_of_its_item(browser):
    page = browser.new_page()
    page.set_content("""<html><head><style>.step span { user-select: none; font-weight: bold; }</style></head><body>
<p>Prices are shown - + at the till.</p>
<div class="item">Lentil soup <span class="step"><span class="less">-</span> <span class="n"></span>
  <span class="more">+</span></span></div>
<div class="item">Plum tart <span class="step"><span class="less">-</span> <span class="n">2</span>
  <span class="more">+</span></span></div>
<button>Checkout</button></body></html>""")
    raw = page.evaluate(SNAPSHOT_JS, [100, 6000])
    model = from_snapshot({"url": "https://shop.test/", "title": "", "elements": raw["elements"],
                           "visibleText": raw["text"]})
    # each item's "-" and "+" (text that cannot be selected) are controls; the same glyphs in a sentence are not
    assert [e.name for e in model.elements if e.role == "button"] == ["-", "+", "-", "+", "Checkout"]
    page.close()
