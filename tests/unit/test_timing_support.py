"""Waits in tests stretch with the machine's load (tests.support.timing); limits on how soon something ends
stretch too, but always stay below the hang they tell apart."""

import pytest

from tests.support import timing


@pytest.mark.parametrize(("load", "cores", "factor"), [(0.5, 2, 1.0), (2.0, 2, 1.0), (5.0, 2, 2.5), (30.0, 2, 10.0)])
def test_waits_stretch_with_the_load_per_core_up_to_a_cap(monkeypatch, load, cores, factor):
    monkeypatch.setattr(timing.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(timing.os, "cpu_count", lambda: cores)
    assert timing.load_factor() == factor
    assert timing.waited(10.0) == 10.0 * factor + 5 * timing.SLACK_S
    assert timing.stretch() == int(-(-factor // 1))
    limit = timing.within(1.0, before=10.0)
    assert limit == max(1.0 + timing.SLACK_S, min(1.0 * factor + timing.SLACK_S, 9.0))
    assert limit < 10.0  # however loaded the machine, a hang of 10 s still fails the test


def test_no_load_average_means_no_stretch(monkeypatch):
    def unavailable():
        raise OSError("no load average")

    monkeypatch.setattr(timing.os, "getloadavg", unavailable)
    assert timing.load_factor() == 1.0 and timing.stretch() == 1
