"""The browser function's handler with real Chromium against local pages, and the deterministic policy
playing those pages through it (forms, selects, checkboxes, links, re-rendering, slow pages, injection,
blocked private addresses, recovery after Chromium is killed)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from agenthost.agent import DeterministicPolicy, deadline_in, dom
from agenthost.agent.aria import from_aria
from agenthost.agent.snapshot import from_observation
from tests.support.brain_pages import PageServer
from tests.support.timing import stretch, waited, within

pytestmark = [pytest.mark.browser]

app = pytest.importorskip("browser.app")  # functions/browser (needs playwright, installed in requirements-dev)
from browser import invocation, lifecycle  # noqa: E402 - after the skip: they need playwright too


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
    lifecycle.clear_guard_cache()
    yield
    lifecycle.clear_guard_cache()


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
        page = from_observation(out["observation"])
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
    tree = from_aria(aria, url=out["observation"]["url"])
    by = {e.name: e for e in tree.elements if e.name}
    assert by["First Name"].role == "textbox" and by["First Name"].value == "Ann"
    assert by["Email"].placeholder == "you@example.com"
    assert by["Country"].options == ["Select a country", "United States", "Canada", "Germany"]
    assert by["Country"].selected_option == "Canada"
    assert by["I agree to the terms of service"].checked is True
    assert by["Subscribe to the newsletter"].checked is False
    assert by["Create account"].role == "button"
    live = from_observation(out["observation"])
    # controls carry the page's data-agent-id; the text between them becomes paragraphs (agent.layout)
    ids = [e.ref for e in live.elements if e.role != "paragraph"]
    assert ids and all(i.startswith("agent-") for i in ids)
    assert all(e.ref.startswith("text-") for e in live.elements if e.role == "paragraph")
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
    # three actions of at most 1 s each; the page would take 20 s: no long hang
    assert elapsed < within(3 * 1.0, before=20.0), (elapsed, out["elapsed_ms"], r)


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
    launches = lifecycle.state["launches"]
    out = call("killed", [], session={"url": saved["url"], "storage_state": saved["storage_state"]})
    assert lifecycle.state["launches"] == launches + 1
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
    live = lifecycle.worker.submit(lambda: dom.from_playwright(lifecycle.sessions["tools"][1])).result()
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


@pytest.fixture(scope="module")
def ws_echo():
    """A WebSocket echo server on the allowed address."""
    from websockets.sync.server import serve

    def echo(ws):
        for message in ws:
            ws.send(f"echo {message}")

    server = serve(echo, "127.0.0.1", 0)
    import threading

    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"ws://127.0.0.1:{server.socket.getsockname()[1]}/"
    server.shutdown()


def _settled(sid, ids=("fetch", "img", "ws", "meta")):
    selector = ",".join(f"#{i}:has-text('pending')" for i in ids)
    return call(sid, [{"tool": "wait", "condition": f"body:not(:has({selector}))", "timeout": 5000}])


def test_redirect_hops_subrequests_posts_and_websockets_are_all_checked(site, ws_echo):
    server, canary = site
    # control: the same page aimed at allowed addresses reaches them, so the refusals below mean something
    before = len(server.paths)
    out = call("leaks-ok", [{"tool": "navigate",
                             "url": f"{server.url}/leaks.html?target={server.url}/ping&ws={ws_echo}"}])
    out = _settled("leaks-ok")
    text = out["observation"]["text"]
    assert "fetch: fetched pong" in text and "ws: message echo hello" in text, text
    assert server.paths[before:].count("/ping") >= 2  # the fetch and the <img> followed their redirect
    out = call("leaks-ok", [{"tool": "click", "element": "Send the form"}])
    assert out["observation"]["title"] == "Posted" and "Posted to /ping" in out["observation"]["text"]

    # the same requests aimed at a blocked address (loopback 127.0.0.2 is not on the allow-list)
    t0 = time.monotonic()
    ws_blocked = canary.url.replace("http://", "ws://") + "/ping"
    page = f"{server.url}/leaks.html?target={canary.url}/ping&ws={ws_blocked}"
    out = call("leaks", [{"tool": "navigate", "url": page}])
    assert out["results"] == [{"ok": True}]
    out = _settled("leaks")
    text = out["observation"]["text"]
    assert "fetch: failed" in text and "ws: failed" in text and "img: done" in text, text
    out = call("leaks", [{"tool": "click", "element": "Send the form"}])  # POST, 307 to the canary
    assert "blocked by netguard" in out["observation"]["text"]
    assert canary.hits == 0 and canary.paths == []
    refused = lifecycle.egress().blocked_since(t0)
    assert any(target.startswith("127.0.0.2:") and "loopback" in reason for target, reason in refused)
    assert any(target == "169.254.169.254:80" and "metadata" in reason for target, reason in refused)


def test_chromium_never_resolves_names_itself(site, monkeypatch):
    """The proxy resolves (and checks) each host once and connects to that address: a name only the guard's
    resolver knows works, and a name answering a blocked address is refused."""
    server, canary = site
    from agenthost import netguard

    names = {"pages.rebind.test": ["127.0.0.1"], "evil.rebind.test": ["127.0.0.2"]}
    monkeypatch.setattr(lifecycle.egress(), "_check", lambda host, port: netguard.check_host(
        host, port, resolver=lambda h, p: names[h]))
    lifecycle.clear_guard_cache()
    port = server.url.rsplit(":", 1)[1]
    out = call("names", [{"tool": "navigate", "url": f"http://pages.rebind.test:{port}/index.html"},
                         {"tool": "navigate", "url": f"http://pages.rebind.test:{port}/redirect?to="
                                                     f"http://evil.rebind.test:{canary.url.rsplit(':', 1)[1]}/ping"}])
    assert out["results"][0] == {"ok": True}
    assert out["results"][1]["ok"] is False and "127.0.0.2 is loopback" in out["results"][1]["error"]
    assert canary.hits == 0


def test_evaluate_returns_json_values_and_errors_per_action(site):
    server, _ = site
    out = call("eval", [{"tool": "navigate", "url": f"{server.url}/pricing.html"},
                        {"tool": "evaluate", "script": "document.title"},
                        {"tool": "evaluate", "script": "() => [...document.querySelectorAll('td')].length"},
                        {"tool": "evaluate", "script": "const rows = document.querySelectorAll('tr');\n"
                                                       "return {rows: rows.length, first: rows[1].cells[0].innerText}"},
                        {"tool": "evaluate", "script": "undefined"},
                        {"tool": "evaluate", "script": "nosuch.value"},
                        {"tool": "evaluate", "script": "async () => { await new Promise(r => setTimeout(r, 20)); "
                                                       "return [1, 'two', null, true]; }"},
                        {"tool": "evaluate", "script": "while (true) {}", "timeout_ms": 1000},
                        {"tool": "evaluate", "script": "new Promise(() => {})", "timeout_ms": 500},
                        {"tool": "evaluate", "script": "document.querySelector('h1').innerText"}],
               observe={"aria": False, "elements": False, "text": False})
    r = out["results"]
    assert r[0] == {"ok": True} and r[1] == {"ok": True, "data": "Pricing"}
    assert r[2] == {"ok": True, "data": 9}
    assert r[3] == {"ok": True, "data": {"rows": 4, "first": "Starter"}}
    assert r[4] == {"ok": True, "data": None}
    assert r[5] == {"ok": False, "error": "script error: ReferenceError: nosuch is not defined"}
    assert r[6] == {"ok": True, "data": [1, "two", None, True]}
    assert r[7] == {"ok": False, "error": "evaluate timed out after 1000 ms"}
    assert r[8] == {"ok": False, "error": "evaluate timed out after 500 ms"}
    assert r[9]["ok"] is True and r[9]["data"]  # the loop was stopped: the page still answers


def busy_started(server, before: int) -> None:
    """Wait until busy.html's loop has started (its beacon arrived after the first ``before`` paths)."""
    deadline = time.monotonic() + waited(5.0)
    while "/busy-started" not in server.paths[before:]:
        assert time.monotonic() < deadline, "busy.html's script never started"
        time.sleep(0.05)


def test_a_busy_page_is_replaced_and_the_call_still_answers(site):
    server, _ = site
    k = stretch()  # the page's 300 ms before its loop, and the call's budget, are later on a loaded machine
    out = call("busy", [{"tool": "navigate", "url": f"{server.url}/login"},
                        {"tool": "navigate", "url": f"{server.url}/busy.html"},
                        {"tool": "wait", "condition": str(600 * k)},
                        {"tool": "click", "element": "Too late", "timeout_ms": 1000},
                        {"tool": "extract"}], budget_ms=15000 * k)
    r = out["results"]
    assert r[0] == {"ok": True} and r[1] == {"ok": True}
    assert r[3]["ok"] is False and "timed out" in r[3]["error"]
    assert r[4] == {"ok": False, "error": "not run: the page stopped responding (a busy script)"}
    assert "busy.html stopped responding" in out["observation"]["error"]
    assert out["session"]["saved"] is True  # the state was read after the stuck page was closed
    # the session goes on in a fresh page, cookies kept
    out = call("busy", [{"tool": "navigate", "url": f"{server.url}/whoami"}])
    assert out["results"] == [{"ok": True}] and "You are signed in" in out["observation"]["text"]

    # a page that turns busy between calls is noticed when the next call starts (on a slow machine its loop
    # may start before the first call has saved its state: then that call notices it, and says so)
    before = len(server.paths)
    first = call("busy", [{"tool": "navigate", "url": f"{server.url}/busy.html"}], observe={"aria": False})
    busy_started(server, before)
    out = call("busy", [{"tool": "navigate", "url": f"{server.url}/index.html"}])
    assert out["results"] == [{"ok": True}] and out["observation"]["title"] == "Acme Cloud"
    noted = [o["observation"].get("error", "") for o in (first, out)]
    assert sum("busy.html stopped responding" in n for n in noted) == 1, noted


def test_a_page_that_turns_busy_after_it_was_observed_is_replaced_and_that_is_said(site, monkeypatch):
    """The page's script starts its endless loop after the call observed the page and before its state is saved
    (here started by the observation itself, as a timer would on a slow machine): the page is replaced before
    the cookies are read, the call says so, and the next call goes on in the fresh page without a second note."""
    server, _ = site
    real = invocation._observe

    def observe_then_turn_busy(inv):
        out = real(inv)
        inv.page.evaluate("setTimeout(() => { while (true) {} }, 0)")
        return out

    monkeypatch.setattr(invocation, "_observe", observe_then_turn_busy)
    out = call("late-busy", [{"tool": "navigate", "url": f"{server.url}/index.html"}])
    monkeypatch.setattr(invocation, "_observe", real)
    assert out["results"] == [{"ok": True}] and out["observation"]["title"] == "Acme Cloud"
    assert "index.html stopped responding" in out["observation"]["error"]
    assert out["session"]["url"] in ("", "about:blank")  # not the stuck page: a cold resume would load it again
    out = call("late-busy", [{"tool": "navigate", "url": f"{server.url}/whoami"}])
    assert out["results"] == [{"ok": True}] and "error" not in out["observation"]


def test_actions_past_the_budget_are_reported_not_run(site):
    server, _ = site
    # warm the browser and the session first: on a busy machine a cold launch alone can eat a 3 s budget
    assert call("budget", [{"tool": "navigate", "url": f"{server.url}/index.html"}])["results"] == [{"ok": True}]
    out = call("budget", [{"tool": "navigate", "url": f"{server.url}/index.html"},
                          {"tool": "navigate", "url": f"{server.url}/slow.html?s=10", "timeout_ms": 10000},
                          {"tool": "click", "element": "Pricing plans"}], budget_ms=4000)
    r = out["results"]
    assert r[0] == {"ok": True}
    assert r[1]["ok"] is False and "Timeout" in r[1]["error"]
    assert r[2] == {"ok": False, "error": "not run: the invocation's time budget is spent"}
    assert out["observation"]["url"].endswith("/index.html")


def test_the_watchdog_kills_a_stuck_chromium_and_the_next_call_resumes(site, monkeypatch, aws):
    """A browser call without a timeout of its own that never returns (here: Page.evaluate on a looping
    script, injected through the observer) is ended by killing Chromium at the budget."""
    server, _ = site
    out = call("watchdog", [{"tool": "navigate", "url": f"{server.url}/login"}])
    assert out["session"]["saved"] is True
    real_observe = invocation.observe_page

    def hanging_observe(page, **kw):
        page._page.evaluate("() => { while (true) {} }")  # no timeout: only the watchdog ends this
        return real_observe(page, **kw)

    monkeypatch.setattr(invocation, "observe_page", hanging_observe)
    kills, launches = lifecycle.state["kills"], lifecycle.state["launches"]
    out = call("watchdog", [{"tool": "navigate", "url": f"{server.url}/index.html"}], budget_ms=3000)
    assert "did not answer within the time budget" in out["error"]
    assert out["results"] == [{"ok": True}] and out["session"]["saved"] is False
    assert lifecycle.state["kills"] > kills
    monkeypatch.setattr(invocation, "observe_page", real_observe)
    out = call("watchdog", [{"tool": "navigate", "url": f"{server.url}/whoami"}])
    assert lifecycle.state["launches"] == launches + 1
    assert out["session"]["resumed"] is True and "You are signed in" in out["observation"]["text"]


def test_a_session_is_not_overwritten_when_chromium_dies_mid_call(site, monkeypatch, aws):
    server, _ = site
    out = call("keep", [{"tool": "navigate", "url": f"{server.url}/login"}])
    assert out["session"]["saved"] is True
    saved = aws.get("BROWSER#keep", "META")
    assert any(c["name"] == "sid" for c in saved["storage_state"]["cookies"])

    def die(page, **kw):
        lifecycle.kill_browsers()  # Chromium dies after the actions, before the state is read
        time.sleep(0.3)
        raise RuntimeError("Target closed")

    real_observe = invocation.observe_page
    monkeypatch.setattr(invocation, "observe_page", die)
    out = call("keep", [{"tool": "navigate", "url": f"{server.url}/index.html"}])
    assert out["session"]["saved"] is False and out["session"]["storage_state"] is None
    after = aws.get("BROWSER#keep", "META")
    assert after["storage_state"] == saved["storage_state"] and after["url"] == saved["url"]
    monkeypatch.setattr(invocation, "observe_page", real_observe)
    out = call("keep", [{"tool": "navigate", "url": f"{server.url}/whoami"}])
    assert "You are signed in" in out["observation"]["text"]
