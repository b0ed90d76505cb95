"""Log output a test can read.

Powertools binds a service's log handler to ``sys.stdout`` as it was when that service's first ``Logger``
was made; pytest's ``capsys`` swaps ``sys.stdout`` for each test. A test reading its logs would see them only
if it happened to be the first to log for that service, and a "never logged" assertion would pass on text that
went elsewhere. :func:`follow_stdout` points every handler made so far at whatever ``sys.stdout`` is when a
record is written (the ``tests/conftest.py`` fixture calls it before each test).
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

_NO_LOCK = contextlib.nullcontext()


class _CurrentStdout:
    """A stream that writes to the ``sys.stdout`` of the moment (capsys's while a test captures)."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


CURRENT_STDOUT = _CurrentStdout()


def follow_stdout() -> None:
    for logger in list(logging.Logger.manager.loggerDict.values()):
        handler = getattr(logger, "powertools_handler", None)
        if isinstance(handler, logging.StreamHandler) and handler.stream is not CURRENT_STDOUT:
            with handler.lock or _NO_LOCK:  # not setStream(): it flushes the old stream, maybe a closed one
                handler.stream = CURRENT_STDOUT


@contextlib.contextmanager
def every_level() -> Iterator[None]:
    """Every Powertools logger made so far logs at DEBUG inside the block (tests run at WARNING): a test that
    says a secret is never logged then reads every line the code can write."""
    loggers = [lg for lg in list(logging.Logger.manager.loggerDict.values())
               if isinstance(lg, logging.Logger) and getattr(lg, "powertools_handler", None)]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)
