"""The browser function's image as ``sam build`` built it, under the Lambda Runtime Interface Emulator on
Lambda's terms (read-only root filesystem, /tmp the only writable path, 2048 MB, no /dev/shm): it opens a
page, acts, observes, restores a session in a new (cold) container, and survives a killed Chromium."""

from __future__ import annotations

import pytest

from tests.support.brain_pages import PageServer
from tests.support.containers import KILL_CHROMIUM, browser_container

pytestmark = [pytest.mark.containers]


@pytest.fixture(scope="module")
def site():
    server = PageServer().start()
    yield server
    server.stop()


@pytest.fixture
def browser(built, stack):
    with browser_container(stack) as c:
        yield c


def event(sid, actions=(), **kw):
    return {"session": {"id": sid}, "actions": list(actions),
            "observe": kw.pop("observe", {"aria": True, "elements": True, "text": True}), **kw}


def test_the_container_has_lambdas_limits(browser):
    assert browser.inspect("{{.HostConfig.ReadonlyRootfs}}") == "true"
    assert browser.inspect("{{.HostConfig.Memory}}") == str(2048 * 1024 * 1024)
    assert browser.exec("test", "-e", "/dev/shm").returncode != 0  # no /dev/shm at all
    assert browser.exec("touch", "/var/task/x").returncode != 0  # read-only code
    assert browser.exec("touch", "/tmp/x").returncode == 0


def test_opens_a_page_acts_and_observes(browser, site):
    out = browser.invoke(event("form", [{"tool": "navigate", "url": f"{site.url}/form.html"},
                                        {"tool": "type", "element": "First Name", "text": "Ann"},
                                        {"tool": "check", "element": "I agree to the terms of service"},
                                        {"tool": "select", "element": "Country", "option": "Canada"}]))
    assert [r["ok"] for r in out["results"]] == [True] * 4, out
    obs = out["observation"]
    assert obs["url"] == f"{site.url}/form.html"
    assert 'textbox "First Name"' in obs["aria"] and "Ann" in obs["aria"]
    assert "Canada" in obs["aria"]
    by_label = {e.get("label"): e for e in obs["elements"]}
    assert by_label["First Name"]["value"] == "Ann"
    assert [e["value"] for e in obs["elements"] if e["tag"] == "select" and "Canada" in e["options"]] == ["Canada"]
    assert by_label["I agree to the terms of service"]["checked"] is True
    assert out["session"]["saved"] is True and "error" not in out
    # blocked like a deployment: a private address other than the allowed test pages
    out = browser.invoke(event("form", [{"tool": "navigate", "url": "http://169.254.169.254/latest/meta-data/"}]))
    assert out["results"][0]["ok"] is False and "blocked" in out["results"][0]["error"].lower()


def test_a_new_container_restores_the_session_from_the_table(built, stack, site):
    with browser_container(stack) as first:
        out = first.invoke(event("restore", [{"tool": "navigate", "url": f"{site.url}/login"}]))
        assert out["session"]["saved"] is True, out
    with browser_container(stack) as cold:
        out = cold.invoke(event("restore", [{"tool": "navigate", "url": f"{site.url}/whoami"}]))
    assert out["session"]["resumed"] is True, out
    assert "You are signed in" in out["observation"]["text"]


def test_survives_a_killed_chromium(browser, site):
    out = browser.invoke(event("killed", [{"tool": "navigate", "url": f"{site.url}/index.html"},
                                          {"tool": "click", "element": "Pricing plans"}]))
    assert out["observation"]["title"] == "Pricing", out
    killed = browser.exec("/usr/local/bin/python", "-c", KILL_CHROMIUM)
    assert killed.returncode == 0 and int(killed.stdout) > 0, killed
    out = browser.invoke(event("killed"))
    assert "error" not in out, out
    assert out["session"]["resumed"] is True and out["observation"]["title"] == "Pricing"
    out = browser.invoke(event("killed", [{"tool": "navigate", "url": f"{site.url}/form.html"}]))
    assert out["results"] == [{"ok": True}] and out["observation"]["url"] == f"{site.url}/form.html"
