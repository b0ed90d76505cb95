"""Shared fixtures.

* ``aws``: moto's ``mock_aws`` with the table created from ``template.yaml`` (so tests and
  infrastructure cannot drift); yields an :class:`agenthost.store.Store` on it.
* ``rollup``: the usage rollup on that table's stream: ``rollup()`` adds what turns wrote since the last call
  to the ``USAGE#`` items, as the deployed stream mapping does (``tests/support/usage.py``).
* ``stack``: the real local stack (``python -m infra.local``) on free ports, one per test session.

Before each test, the log handlers made so far write to that test's ``sys.stdout`` (``tests/support/logs.py``),
so ``capsys`` sees every log line whichever test logged first.
"""

from __future__ import annotations

import pytest

from tests.support import env, logs

env.apply()

from agenthost import aws as aws_clients  # noqa: E402
from agenthost import config, secrets  # noqa: E402
from infra.local import fastmoto  # noqa: E402

fastmoto.tune()  # the same DynamoDB emulation the local stack runs (serialized writes, faster queries)


@pytest.fixture(autouse=True)
def _clean_settings(monkeypatch):
    from agenthost import metering

    env.apply()
    config.reset()
    secrets.reset()
    aws_clients.reset()
    metering.reset()  # no usage left waiting for a write by a test before (agenthost.metering.carry)
    _settings_follow(monkeypatch)
    yield
    config.reset()
    secrets.reset()
    aws_clients.reset()
    metering.reset()


@pytest.fixture(autouse=True)
def _logs_to_this_tests_stdout():
    logs.follow_stdout()


@pytest.fixture
def every_log_level():
    """Every logger writes DEBUG and up while the test runs (tests otherwise log at WARNING): for tests
    asserting that something is never logged."""
    with logs.every_level():
        yield


def _settings_follow(monkeypatch) -> None:
    """Settings are read once per process (``config.settings()`` is cached), and so is the metering
    configuration built from them: a test that changes a variable with ``monkeypatch`` has them read again
    (the secrets' cache is kept: tests of its expiry change variables between reads)."""
    from agenthost import metering

    real_set, real_del = monkeypatch.setenv, monkeypatch.delenv

    def forget() -> None:
        config.settings.cache_clear()
        metering.config.cache_clear()

    def setenv(name, value, prepend=None):
        real_set(name, value, prepend)
        forget()

    def delenv(name, raising=True):
        real_del(name, raising=raising)
        forget()

    monkeypatch.setenv = setenv
    monkeypatch.delenv = delenv


@pytest.fixture
def aws():
    from moto import mock_aws

    from agenthost.store import Store
    from infra.local.template import create_table, parse

    with mock_aws():
        aws_clients.reset()
        create_table(aws_clients.client("dynamodb"), parse(), config.settings().table_name)
        yield Store()
    aws_clients.reset()


@pytest.fixture
def rollup(aws):
    from tests.support.usage import Rollup

    return Rollup(aws)


@pytest.fixture(scope="session")
def stack():
    from tests.support.stack import start_stack

    running = start_stack()
    yield running
    running.stop()
