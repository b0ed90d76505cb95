"""``make new-agent NAME=x``: the starter package and its tests are written, pass, and are never
overwritten."""

from __future__ import annotations

import importlib
import sys

import pytest

from infra import new_agent


@pytest.fixture
def root(tmp_path, monkeypatch):
    (tmp_path / "functions").mkdir()
    (tmp_path / "tests" / "unit").mkdir(parents=True)
    monkeypatch.setattr(new_agent, "ROOT", tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path / "functions"))
    yield tmp_path
    for mod in [m for m in sys.modules if m == "starter_bot" or m.startswith("starter_bot.")]:
        del sys.modules[mod]


def test_the_starter_is_written_and_its_own_tests_pass(root, capsys):
    assert new_agent.main(["starter_bot"]) == 0
    assert {p.name for p in (root / "functions" / "starter_bot").iterdir()} >= {"__init__.py", "agent.py", "README.md"}
    assert "AGENTHOST_AGENT=starter_bot.agent:create" in (root / "functions" / "starter_bot" / "agent.py").read_text()
    test_file = root / "tests" / "unit" / "test_agent_starter_bot.py"
    spec = importlib.util.spec_from_file_location("generated_test", test_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [getattr(module, n) for n in dir(module) if n.startswith("test_")]
    assert len(tests) == 4
    for t in tests:
        t()  # the generated tests pass against the generated agent
    from agenthost import plugins

    plugins.reset()
    got = plugins.load("starter_bot.agent:create")
    assert got is not None and not got.error and got.web() and got.werewolf()
    plugins.reset()


def test_nothing_is_overwritten_and_bad_names_are_refused(root, capsys):
    assert new_agent.main(["starter_bot"]) == 0
    (root / "functions" / "starter_bot" / "agent.py").write_text("# mine\n")
    assert new_agent.main(["starter_bot"]) == 1
    assert (root / "functions" / "starter_bot" / "agent.py").read_text() == "# mine\n"
    for bad in ("Bad-Name", "class", "json", "x"):
        assert new_agent.main([bad]) != 0
    assert new_agent.main([]) == 2
