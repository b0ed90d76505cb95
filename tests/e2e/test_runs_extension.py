"""The Proxy API end to end: the extension emulator drives real Chromium against the local stack, with the
real brain (deterministic policy) deciding every step."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from infra.arena.site import Site
from infra.extension.emulator import Emulator
from tests.support.timing import waited

pytestmark = [pytest.mark.e2e, pytest.mark.browser]
PAGES = Path(__file__).parent / "runs_pages"


@pytest.fixture(scope="module")
def site():
    with Site(PAGES) as s:
        yield s


def test_extension_follows_the_brain_in_a_real_browser(stack, site):
    with Emulator(stack.http_url, printer=None) as emu:
        out = emu.run("contact", "Open the Contact us page", site.url + "index.html", marker="CONTACT_VISITED")
    assert out.success, out  # the page itself logged that it was reached
    state = httpx.get(f"{stack.http_url}/agent/run/{out.run_id}", timeout=waited(5)).json()["state"]
    actions = [h["action"] for h in state["history"]]
    assert actions[:2] == ["observe", "click"] and state["currentStep"] == len(actions)
    assert state["history"][0]["observation"] == "Observed the page"
    if len(actions) > 2:  # the emulator sent one more snapshot before the page's marker arrived
        assert state["history"][1]["observation"] == "Clicked successfully"
        assert state["currentSnapshot"]["url"].endswith("contact.html")
    else:
        assert any(e.get("text") == "Contact us" for e in state["currentSnapshot"]["elements"])


def test_a_form_filled_one_tool_per_step_with_a_value_read_from_a_table(stack, site):
    """Real Chromium snapshots (whitespace-collapsed text, one tool per step): the value comes from a table
    in the page text, three fields are filled over three steps and the form's own button (which the task
    never names) submits it."""
    task = ("Send a reading for the town Corfe; the observer is Noor Haddad. Find the rain of Corfe in the table "
            "and enter it in mm.")
    with Emulator(stack.http_url, printer=None, max_steps=12) as emu:
        out = emu.run("rain", task, site.url + "rainfall.html", marker="READING_COMPLETE")
    assert out.success, out  # the page checked town, observer and 1,020 mm itself
    state = httpx.get(f"{stack.http_url}/agent/run/{out.run_id}", timeout=waited(5)).json()["state"]
    actions = [h["action"] for h in state["history"]]
    assert actions[:5] == ["observe", "type", "type", "type", "click"], actions


def test_careful_mode_asks_before_paying_and_approval_lets_it_through(stack, site):
    with Emulator(stack.http_url, approve=True, printer=None) as emu:
        out = emu.run("pay", "Click Pay now to buy the tea", site.url + "checkout.html", mode="careful",
                      marker="PAYMENT_COMPLETE")
    assert out.success, out
    assert len(out.questions) == 1 and "Pay now" in out.questions[0] and "$18.50" in out.questions[0]
    state = httpx.get(f"{stack.http_url}/agent/run/{out.run_id}", timeout=waited(5)).json()["state"]
    assert "ask_user" in [h["action"] for h in state["history"]]


def test_careful_mode_declined_never_pays(stack, site):
    with Emulator(stack.http_url, approve=False, printer=None) as emu:
        out = emu.run("pay", "Click Pay now to buy the tea", site.url + "checkout.html", mode="careful",
                      marker="PAYMENT_COMPLETE")
    assert not out.success and out.end.startswith("declined")
    state = httpx.get(f"{stack.http_url}/agent/run/{out.run_id}", timeout=waited(5)).json()["state"]
    assert state["status"] == "cancelled"


def test_cors_preflight_through_gateway(stack):
    r = httpx.options(f"{stack.http_url}/agent/run/start",
                      headers={"origin": "chrome-extension://abc", "access-control-request-method": "POST"})
    assert r.status_code == 204 and r.headers["access-control-allow-origin"] == "chrome-extension://abc"
