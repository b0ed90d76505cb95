"""The extension emulator's click reaches the element the agent chose, as a content script's ``element.click()``
does, also when the element changes under the pointer (an icon whose hover style swaps its image and size)."""

from __future__ import annotations

import pytest

from infra.extension.emulator import CHROMIUM_ARGS, execute

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

PAGE = """<html><head><style>
.ico { display: inline-block; width: 14px; height: 14px; background: #c33; }
.ico:hover { width: 0; }
</style></head><body>
<div class="controls" onclick="document.body.dataset.row = 'row'">
  <span class="ico" data-agent-id="agent-1" onclick="document.body.dataset.hit = 'like'"></span>
</div>
<button data-agent-id="agent-2" onclick="document.body.dataset.plain = 'yes'">Plain</button>
</body></html>"""


def test_a_click_reaches_an_icon_that_shrinks_under_the_pointer_and_a_plain_button_is_clicked_once():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = b.new_page()
        page.set_content(PAGE)
        page.evaluate("window.__n = 0; document.addEventListener('click', () => window.__n++, true)")
        assert execute(page, {"name": "click", "parameters": {"id": "agent-1"}})["success"]
        assert page.evaluate("document.body.dataset.hit") == "like"
        n = page.evaluate("window.__n")
        assert execute(page, {"name": "click", "parameters": {"id": "agent-2"}})["success"]
        assert page.evaluate("document.body.dataset.plain") == "yes"
        assert page.evaluate("window.__n") == n + 1  # a click that landed is not sent twice
        b.close()
