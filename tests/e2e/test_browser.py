"""The browser function's handler with real Chromium against local pages, and the deterministic policy
playing those pages through it (forms, selects, checkboxes, links, re-rendering, slow pages, injection,
blocked private addresses, recovery after Chromium is killed)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from agenthost.agent import DeterministicPolicy, deadline_in
from agenthost.agent import page as pages
from tests.support.brain_pages import PageServer

pytestmark = [pytest.mark.browser]

app = pytest.importorskip("browser.app")  # functions/browser (needs playwright, installed in requirements-dev)


@pytest.fixture(scope="module")
def site():
    server = PageServer().start()
    canary = PageServer("127.0.0.2").start()
    yield server, canary
    server.stop()
    canary.stop()


@pytest.fixture(autouse=True)
def _guarded(monkeypatch, aws):
    # sessions are saved to the (moto) table; like a deployment, private and loopback addresses are
    # blocked except the test page server's own address
    monkeypatch.setenv("AGENTHOST_NETGUARD_ALLOW_PRIVATE", "false")
    monkeypatch.setenv("AGENTHOST_NETGUARD_ALLOW", "127.0.0.1")
    from agenthost import config

    config.reset()
    app._guard_cache.clear()
    yield
    app._guard_cache.clear()


def call(sid, actions=(), **kw):
    event = {"session": {"id": sid, **kw.pop("session", {})}, "actions": list(actions),
             "observe": kw.pop("observe", {"aria": True, "elements": True, "text": True}), **kw}
    return app.handler(event)


def play(task, url, sid, max_turns=8):
    policy = DeterministicPolicy()
    out = call(sid, [{"tool": "navigate", "url": url}])
    assert out["results"] == [{"ok": True}]
    memory, history = {}, []
    for _ in range(max_turns):
        page = pages.from_observation(out["observation"])
        d = policy.decide(task, page, history, memory, None, deadline_in(5))
        memory = d.memory
        if d.done:
            return d, out
        history += d.actions
        out = call(sid, [a.to_browser() for a in d.actions])
        assert all(r["ok"] for r in out["results"]), out["results"]
    raise AssertionError("did not finish")


def test_parses_real_aria_snapshot_of_a_form(site):
    server, _ = site
    out = call("parse", [{"tool": "navigate", "url": f"{server.url}/form.html"},
                         {"tool": "type", "element": "First Name", "text": "Ann"},
                         {"tool": "check", "element": "I agree to the terms of service"},
                         {"tool": "select", "element": "Country", "option": "Canada"}])
    assert [r["ok"] for r in out["results"]] == [True] * 4
    aria = out["observation"]["aria"]
    tree = pages.from_aria(aria, url=out["observation"]["url"])
    by = {e.name: e for e in tree.elements if e.name}
    assert by["First Name"].role == "textbox" and by["First Name"].value == "Ann"
    assert by["Email"].placeholder == "you@example.com"
    assert by["Country"].options == ["Select a country", "United States", "Canada", "Germany"]
    assert by["Country"].selected_option == "Canada"
    assert by["I agree to the terms of service"].checked is True
    assert by["Subscribe to the newsletter"].checked is False
    assert by["Create account"].role == "button"
    live = pages.from_observation(out["observation"])
    ids = [e.ref for e in live.elements]
    assert ids and all(i.startswith("agent-") for i in ids)
    email = next(e for e in live.elements if e.name == "Email")
    assert email.input_type == "email" and email.placeholder == "you@example.com"


def test_policy_fills_selects_ticks_and_submits_a_real_form(site):
    server, _ = site
    d, out = play("Sign up with First Name: Ada, Last Name: Lovelace, Email: ada@example.com, Country: Germany. "
                  "Agree to the terms of service, but do not subscribe to the newsletter.",
                  f"{server.url}/form.html", "form")
    text = out["observation"]["text"]
    assert "Thank you, Ada!" in text
    assert "Ada|Lovelace|ada@example.com|de|no-news" in text  # the page's own check of what was submitted
    assert d.done


def test_policy_follows_links_and_reads_a_table(site):
    server, _ = site
    d, _ = play("What is the price of the Pro plan?", f"{server.url}/index.html", "links")
    assert d.done and d.result == "$29/month"


def test_policy_does_not_obey_page_injection(site):
    server, _ = site
    before = list(server.paths)
    d, out = play('Search for "blue shoes"', f"{server.url}/injection.html", "inject")
    assert "Results for blue shoes" in out["observation"]["text"]
    new_paths = server.paths[len(before):]
    assert "/evil.html" not in new_paths
    assert d.done


def test_element_ids_are_stable_while_the_page_lives_and_rerenders_still_work(site):
    server, _ = site
    out = call("rerender", [{"tool": "navigate", "url": f"{server.url}/rerender.html"}])
    first = {e["text"] if "text" in e else e.get("ariaLabel"): e["id"] for e in out["observation"]["elements"]}
    out = call("rerender", [{"tool": "type", "element": first["New item"], "text": "Walk dog"},
                            {"tool": "click", "element": first["Add item"]}])
    assert [r["ok"] for r in out["results"]] == [True, True]
    second = {e["text"] if "text" in e else e.get("ariaLabel"): e["id"] for e in out["observation"]["elements"]}
    assert second["Add item"] == first["Add item"] and second["New item"] == first["New item"]
    assert "Remove Walk dog" in second and "2 items" in out["observation"]["text"]
    # the list re-rendered: the old "Remove Buy milk" node is gone; its id is reported stale, not clicked blindly
    out = call("rerender", [{"tool": "click", "element": first["Remove Buy milk"]}])
    assert out["results"][0]["ok"] is False and "gone" in out["results"][0]["error"]
    out = call("rerender", [{"tool": "click", "element": "Remove Buy milk"}])  # by name, like the runner
    assert out["results"] == [{"ok": True}] and "1 items" in out["observation"]["text"]


def test_short_timeouts_report_errors_per_action(site):
    server, _ = site
    call("slow", [])  # a warm browser and session: time only the actions
    t = time.monotonic()
    out = call("slow", [{"tool": "navigate", "url": f"{server.url}/slow.html?s=20"},
                        {"tool": "click", "element": "No such button"},
                        {"tool": "navigate", "url": f"{server.url}/index.html"}], timeout_ms=1000)
    elapsed = time.monotonic() - t
    r = out["results"]
    assert r[0]["ok"] is False and "Timeout" in r[0]["error"]
    assert r[1] == {"ok": False, "error": "no element 'No such button' on the page"}
    assert r[2] == {"ok": True} and out["observation"]["title"] == "Acme Cloud"
    assert elapsed < 12, (elapsed, out["elapsed_ms"], r)  # the page would take 20 s: no long hang


def test_private_and_metadata_addresses_are_blocked(site):
    server, canary = site
    out = call("guard", [{"tool": "navigate", "url": "http://169.254.169.254/latest/meta-data/"},
                         {"tool": "navigate", "url": f"{canary.url}/ping"},
                         {"tool": "navigate", "url": f"{server.url}/redirect?to={canary.url}/ping"},
                         {"tool": "navigate", "url": "file:///etc/passwd"}])
    errors = [r.get("error", "") for r in out["results"]]
    assert all(not r["ok"] for r in out["results"])
    assert "metadata" in errors[0] and "loopback" in errors[1] and "redirects" in errors[2]
    out = call("guard", [{"tool": "navigate", "url": f"{server.url}/private.html?canary={canary.url}/ping"},
                         {"tool": "wait", "condition": "#out:not(:has-text('pending'))", "timeout": 2000}])
    assert out["observation"]["text"].endswith("blocked")
    assert canary.hits == 0


def _chromium_pids():
    me, found = os.getpid(), []
    parents = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
                parents[int(d.name)] = (int(stat.rsplit(")", 1)[1].split()[1]), stat.split("(", 1)[1].split(")")[0])
            except (OSError, ValueError, IndexError):
                continue
    for pid, (_, comm) in parents.items():
        p, seen = pid, 0
        while p in parents and p != me and seen < 20:
            p, seen = parents[p][0], seen + 1
        if p == me and "chrom" in comm:
            found.append(pid)
    return found


def test_recovers_after_chromium_is_killed_and_resumes_the_session(site):
    server, _ = site
    out = call("killed", [{"tool": "navigate", "url": f"{server.url}/index.html"},
                          {"tool": "click", "element": "Pricing plans"}])
    assert out["observation"]["title"] == "Pricing"
    saved = out["session"]
    pids = _chromium_pids()
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.3)
    launches = app._state["launches"]
    out = call("killed", [], session={"url": saved["url"], "storage_state": saved["storage_state"]})
    assert app._state["launches"] == launches + 1
    assert out["session"]["resumed"] is True and out["observation"]["title"] == "Pricing"


def test_other_tools_screenshot_and_live_page_model(site):
    server, _ = site
    out = call("tools", [{"tool": "navigate", "url": f"{server.url}/injection.html"},
                         {"tool": "scroll", "direction": "down", "amount": 300},
                         {"tool": "type", "element": "Search", "text": "red boots"},
                         {"tool": "submit"},  # requestSubmit: the page's own handler runs
                         {"tool": "wait", "condition": "h1:has-text('Results')", "timeout": 2000},
                         {"tool": "extract", "selector": "h1"},
                         {"tool": "press", "key": "End"}],
                observe={"aria": False, "elements": False, "text": True, "screenshot": True})
    assert [r["ok"] for r in out["results"]] == [True] * 7, out["results"]
    assert out["results"][5]["data"] == "Results for red boots"
    assert out["observation"]["screenshot"].startswith("/9j/")  # base64 JPEG
    live = app._worker.submit(lambda: pages.from_playwright(app._sessions["tools"][1])).result()
    assert live.source == "live" and live.title == "Shoe search"
    assert "Search submitted" in live.text



def test_element_snapshot_caps_and_puts_the_viewport_first(site):
    server, _ = site
    out = call("big", [{"tool": "navigate", "url": f"{server.url}/big.html"},
                       {"tool": "scroll", "direction": "down", "amount": 4000}])
    obs = out["observation"]
    els = obs["elements"]
    assert len(els) == 100 and len(obs["text"]) <= 6000
    assert all(e["inViewport"] for e in els[:5])
    visible = [int(e["text"].split()[-1]) for e in els if e["inViewport"]]
    assert visible and min(visible) > 1  # after scrolling, the first item is not what is shown first
    assert len({e["id"] for e in els}) == 100
