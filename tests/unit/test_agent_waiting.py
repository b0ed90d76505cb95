"""Waiting the task asks for (``agent.waiting``), on pages written for these tests: an action once a value the
page shows passes a bound (a wait while it does not, the task's click once it does, a fresh look on the Proxy
API, no wait where the page shows no such value), and a pause of so many seconds between two steps."""

from __future__ import annotations

import pytest

from agenthost.agent import waiting
from agenthost.agent.actions import PROXY_TOOLS, Action
from agenthost.agent.waiting import pause_in
from tests.support.policy import decide, expect, wire


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


@pytest.mark.parametrize(("task", "before", "seconds", "after"), [
    ("Press Start, pause for two seconds and then press Stop.", "Press Start", 2, "press Stop"),
    ("Open the drawer then wait 1.5 s, then close it", "Open the drawer", 1.5, "close it"),
    ("Tap Record; hold on for a minute; tap Save.", "Tap Record", 60, "tap Save"),
])
def test_a_pause_between_two_steps_is_read_in_other_words(task, before, seconds, after):
    assert pause_in(task) == (before, seconds, after)


def test_no_pause_without_a_step_before_it_or_a_length():
    assert pause_in("Wait 3 seconds, then press Go.") is None
    assert pause_in("Press Go and wait for the page to load.") is None


def test_the_steps_before_a_pause_then_the_wait_then_the_rest(monkeypatch):
    """Start is pressed alone; while the pause runs the agent only waits (a fresh look on the Proxy API), each
    wait saying how long is left; once it has passed, Stop is pressed, and Start never again."""
    now = [1000.0]
    monkeypatch.setattr(waiting, "clock", lambda: now[0])
    task = "Press Start, pause for two seconds and then press Stop."
    tree = '- button "Start"\n- button "Stop"\n- paragraph: "Timer ready"'
    first = decide(task, tree, tools=PROXY_TOOLS)
    assert wire(first) == [("click", "Start", None)] and not first.done
    history = list(first.actions)
    now[0] += 0.4
    d = decide(task, tree, tools=PROXY_TOOLS, memory=first.memory, history=history)
    assert [a.to_proxy()["name"] for a in d.actions] == ["observe"] and not d.done
    assert d.actions[0].progress == "1.6" and "waiting.pause" in d.rules
    now[0] += 1.0
    d2 = decide(task, tree, tools=PROXY_TOOLS, memory=d.memory, history=history)
    assert d2.actions[0].progress == "0.6"
    now[0] += 0.7
    d3 = decide(task, tree, tools=PROXY_TOOLS, memory=d2.memory, history=history)
    assert wire(d3) == [("click", "Stop", None)]


def test_a_wait_counting_down_is_no_repeat_to_the_loop_guard():
    from agenthost.agent.aria import from_aria
    from agenthost.agent.loops import LoopGuard

    page = from_aria('- button "Stop"')
    guard = LoopGuard({})
    for left in ("1.6", "1.2", "0.8", "0.4"):
        kept, nudges, stop = guard.filter([Action("wait", {}, progress=left)], page)
        assert kept and not nudges and not stop
        guard.record(kept, page)
    guard.record([Action("wait", {}, progress="0.4")], page)
    assert guard.is_looping(Action("wait", {}, progress="0.4"), page)


def test_no_action_while_the_value_the_condition_names_shows_no_number():
    """The page shows the value's label but no reading ("Rate: --", "Level: loading", a script's broken number):
    the condition cannot be checked, so the agent looks again rather than acting; a reading that passes the bound
    lets the action go; one that never comes ends in an honest give-up, never the task's click."""
    task = "Click Book when the rate falls under 80."
    for shown in ("Rate: --", "Rate: loading", "Rate: $undefined0", "Rate:"):
        tree = f'- paragraph: "Hotel Aster {shown}"\n- button "Book"'
        d = decide(task, tree, tools=PROXY_TOOLS)
        assert [a.to_proxy()["name"] for a in d.actions] == ["observe"], shown
    expect(decide(task, '- paragraph: "Hotel Aster Rate: 76"\n- button "Book"'), typed={}, clicked=["Book"])
    # a reading that never comes, or one that stays where it is: the looks end in a give-up, never in the click
    for shown in ("Rate: n/a", "Rate: 91"):
        memory, history, clicked = {}, [], []
        for _ in range(12):
            d = decide(task, f'- paragraph: "Hotel Aster {shown}"\n- button "Book"', tools=PROXY_TOOLS,
                       memory=memory, history=history)
            clicked += [a for a in d.actions if a.tool == "click"]
            if d.done:
                break
            memory, history = d.memory, [*history, *d.actions]
        assert not clicked and d.done and d.success is False, shown


def test_amounts_with_a_currency_sign_a_sign_and_thousands_are_read_as_the_page_means_them():
    """The bound and the value are read by the agent's one number reader: "€ 1,250.00" is 1250, "-$3.40" is
    -3.4; a price written with thousands separators is compared as the whole amount."""
    task = "Click Order once the quote falls below €1,250.00."
    tree = '- paragraph: "Supplier quote: € 1,300.50"\n- button "Order"'
    assert [a.tool for a in decide(task, tree).actions] == ["wait"]
    expect(decide(task, tree.replace("1,300.50", "1,249.99")), typed={}, clicked=["Order"])
    task2 = "Press Hedge when the change goes below -2.5."
    tree2 = '- paragraph: "Index change: -$1.75"\n- button "Hedge"'
    assert [a.tool for a in decide(task2, tree2).actions] == ["wait"]
    expect(decide(task2, tree2.replace("-$1.75", "-$3.40")), typed={}, clicked=["Hedge"])


def test_the_shared_number_reader_reads_what_a_waiting_condition_shows():
    from agenthost.agent.choices import number_alone, number_in

    assert number_alone("$1,085.50") == 1085.5
    assert number_alone("€ 62.10") == 62.1
    assert number_alone("-$3.40") == -3.4
    assert number_alone("12,345,678") == 12345678
    assert number_alone("-5") == -5 and number_alone("−5") == -5 and number_alone("2,5") == 2.5
    assert number_alone("Price $5") is None and number_alone("$") is None
    assert number_in("Book for $1,085") == 1085
    assert number_in("between 1,000 and 2,000") is None
    assert number_alone("1,0005") == 1.0005  # not groups of three: a decimal comma


def test_a_step_dropped_before_the_pause_leaves_no_record_in_the_memory(monkeypatch):
    """Once the step before the pause was handed out, the policy looks at that part of the task again and drops
    what it finds there (here a scroll looking for more of the page): the scroll was never sent, so the loop
    counts the task goes on with hold only the scrolls really handed out (a scroll counted twice looks repeated
    on an unchanged page and is withheld the next time)."""
    from agenthost.agent.aria import from_aria
    from agenthost.agent.loops import LoopGuard

    now = [500.0]
    monkeypatch.setattr(waiting, "clock", lambda: now[0])
    task = "Tap Begin, hold on for 3 seconds, then tap Finish."
    tree = '- button "Begin"\n' + "\n".join(f'- paragraph: "Chapter {i} of the story goes on here."'
                                           for i in range(1, 15))
    page = from_aria(tree, url="https://site.test/")
    scroll = Action("scroll", {"direction": "down", "amount": 600})
    for tools in (None, PROXY_TOOLS):
        kw = {"tools": tools} if tools else {}
        first = decide(task, tree, **kw)
        assert wire(first) == [("click", "Begin", None)]
        now[0] += 3.5  # the pause has passed: Finish is looked for (not on this part of the page: a scroll)
        d = decide(task, tree, memory=first.memory, history=list(first.actions), **kw)
        handed_out = sum(a.tool == "scroll" for a in d.actions)
        assert handed_out == 1 and not d.done
        assert LoopGuard(d.memory).count(scroll, page) == handed_out


def test_the_steps_before_a_pause_stay_done_when_the_history_no_longer_shows_them(monkeypatch):
    """A caller that passes only its last steps (the Proxy API engine: 20) loses the step before a long pause
    among the looks that waited for it: once the pause has passed, that step is not done again (here a second
    press of Begin would restart what the page times), the one after it is."""
    now = [800.0]
    monkeypatch.setattr(waiting, "clock", lambda: now[0])
    task = "Press Begin, wait 4 seconds, then press Finish."
    tree = '- button "Begin"\n- button "Finish"\n- paragraph: "Stopwatch"'
    first = decide(task, tree, tools=PROXY_TOOLS)
    assert wire(first) == [("click", "Begin", None)]
    sent, memory = list(first.actions), first.memory
    for _ in range(24):  # a look every 0.15 s
        now[0] += 0.15
        d = decide(task, tree, tools=PROXY_TOOLS, memory=memory, history=sent[-20:])
        assert [a.to_proxy()["name"] for a in d.actions] == ["observe"]
        sent, memory = [*sent, *d.actions], d.memory
    now[0] += 0.5
    d = decide(task, tree, tools=PROXY_TOOLS, memory=memory, history=sent[-20:])
    assert wire(d) == [("click", "Finish", None)]
