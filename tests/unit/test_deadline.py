"""The turn's one time budget: remaining time, expiry and named reserves, on a clock the test moves."""

import pytest

from agenthost.deadline import Deadline, remaining
from tests.support.timing import within


class Clock:
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_remaining_counts_down_on_the_injected_clock_and_never_goes_negative():
    clock = Clock()
    d = Deadline.after(20.0, clock=clock)
    assert d.remaining() == 20.0 and not d.expired
    clock.now += 19.5
    assert d.remaining() == pytest.approx(0.5) and not d.expired
    clock.now += 0.5
    assert d.remaining() == 0.0 and d.expired
    clock.now += 7
    assert d.remaining() == 0.0 and d.expired


def test_a_reserve_ends_the_work_earlier_and_leaves_the_turn_deadline_as_it_was():
    clock = Clock()
    turn = Deadline.after(20.0, clock=clock)
    llm = turn.reserve(3.0, "fallback")
    assert llm.remaining() == 17.0 and turn.remaining() == 20.0
    clock.now += 17.0
    assert llm.expired and not turn.expired


def test_the_split_names_every_reserve_and_adds_up_to_the_budget():
    clock = Clock()
    call = Deadline.after(20.0, clock=clock).reserve(3.0, "fallback, guard and memory write") \
        .reserve(1.0, "validation and fallback").reserve(0.5, "the LLM call")
    split = call.split("budget check")
    assert split == [("budget check", 15.5), ("the LLM call", 0.5), ("validation and fallback", 1.0),
                     ("fallback, guard and memory write", 3.0)]
    assert sum(s for _, s in split) == 20.0
    assert call.describe("budget check") == ("budget 20.0s: budget check 15.5s + the LLM call 0.5s + "
                                             "validation and fallback 1.0s + fallback, guard and memory write 3.0s")


def test_a_budget_counted_from_an_earlier_start_includes_the_time_already_spent():
    clock = Clock()
    started = clock.now
    clock.now += 1.5  # the cold start
    d = Deadline.since(started, 20.0, clock=clock)
    assert d.remaining() == pytest.approx(18.5) and d.budget == 20.0


def test_reserves_are_named_and_never_negative():
    d = Deadline.after(5.0, clock=Clock())
    with pytest.raises(ValueError, match="named"):
        d.reserve(1.0, " ")
    with pytest.raises(ValueError, match="negative"):
        d.reserve(-1.0, "time travel")


def test_a_reserve_larger_than_what_is_left_gives_an_expired_deadline():
    clock = Clock()
    d = Deadline.after(2.0, clock=clock).reserve(3.0, "memory write")
    assert d.expired and d.remaining() == 0.0
    assert d.split()[0] == ("work", -1.0)  # the log shows the overdraft rather than hiding it


def test_older_callers_instants_and_missing_deadlines_become_deadlines():
    clock = Clock()
    assert Deadline.of(clock.now + 4.0, 20.0, clock=clock).remaining() == 4.0
    assert Deadline.of(None, 20.0, clock=clock).remaining() == 20.0
    d = Deadline.after(3.0, clock=clock)
    assert Deadline.of(d, 20.0) is d
    assert remaining(d) == 3.0


def test_the_llm_providers_wait_no_longer_than_the_deadline_allows():
    import threading
    import time

    from agenthost.llm.base import LlmTimeout, run_before

    with pytest.raises(LlmTimeout, match="left before the deadline"):
        run_before(Deadline.after(0.2), lambda: 1)  # below the minimum a call needs
    assert run_before(Deadline.after(5.0), lambda: 42) == 42
    hang_s, release = 30.0, threading.Event()
    t0 = time.monotonic()
    try:
        with pytest.raises(LlmTimeout):
            run_before(Deadline.after(5.0).reserve(4.0, "fallback"), lambda: release.wait(hang_s))
        assert time.monotonic() - t0 < within(1.0, before=hang_s)
    finally:
        release.set()
