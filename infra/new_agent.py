"""``make new-agent NAME=x``: a starter package for your own agent.

Writes ``functions/<name>/`` (``agent.py`` with a minimal agent for both interfaces of
:mod:`agenthost.plugins`, ``__init__.py``, ``README.md``) and ``tests/unit/test_agent_<name>.py``. The
package sits beside the functions, so ``sam build`` ships it in every function and the local stack
imports it the same way; select it with ``AGENTHOST_AGENT=<name>.agent:create`` (template parameter
``AgentSpec``) or ``AGENT=<name>`` on the make targets. Nothing is overwritten.
"""

from __future__ import annotations

import keyword
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

AGENT_PY = '''"""{name}: my own agent for agenthost (see layers/core/agenthost/PLUGINS.md).

Selected with ``AGENTHOST_AGENT={name}.agent:create``. Each method may return None: agenthost's own
policy then answers that turn. Whatever this code does (raises, runs late, names an element that is not
on the page), the turn is still answered by agenthost's policy, and the reason is logged and metered.
"""

from __future__ import annotations

from typing import Any

from agenthost.agent import Action, Decision
from agenthost.plugins import WebTurn, WerewolfState


class Agent:
    def decide_web(self, turn: WebTurn) -> Decision | None:
        """AI Olympics turns, Proxy API steps and evaluation tasks."""
        turns = int(turn.memory.get("turns", 0)) + 1
        memory = {{"turns": turns}}
        task = turn.task.lower()
        # 1. a question one of the skills answers exactly, typed into the page's first text box
        box = next((e for e in turn.page.elements if e.role in ("textbox", "searchbox")), None)
        solved = turn.solve(turn.task)
        if solved is not None and box is not None and box.value != solved.answer:
            return Decision(actions=[Action("type", {{"element": box.name or box.ref, "text": solved.answer}})],
                            thinking=f"{{solved.skill}} says {{solved.answer}}", memory=memory)
        # 2. a button or link the task names
        for e in turn.page.elements:
            if e.role in ("button", "link") and len(e.name) > 2 and e.name.lower() in task:
                if any(a.tool == "click" and a.target in (e.name, e.ref) for a in turn.history):
                    continue  # clicked already
                return Decision(actions=[Action("click", {{"element": e.name}})],
                                thinking=f"the task names {{e.name!r}}", memory=memory)
        # 3. anything else: agenthost's policy decides this turn
        return None

    def decide_werewolf(self, state: WerewolfState) -> dict[str, Any] | None:
        """Werewolf Arena turns: the answer object for ``state.action_type``."""
        state.memory["turns"] = int(state.memory.get("turns", 0)) + 1
        if state.action_type == "vote":
            wolves = [t for t in state.targets if t in state.facts.get("known_wolves", [])]
            return {{"target": wolves[0] if wolves else state.suggestion.get("target", state.targets[0])}}
        return None  # every other action: agenthost's strategy


def create() -> Agent:
    return Agent()
'''

INIT_PY = '''"""{name}: my own agent for agenthost (``AGENTHOST_AGENT={name}.agent:create``)."""
'''

README = '''# {name}

My own agent for agenthost. `agent.py` implements both interfaces of `agenthost.plugins`:
`decide_web(turn) -> Decision | None` (AI Olympics, Proxy API, evaluation tasks) and
`decide_werewolf(state) -> dict | None` (Werewolf Arena). Returning `None` lets agenthost's own policy
answer that turn. The interfaces and guarantees are described in `layers/core/agenthost/PLUGINS.md`.

```bash
make test PYTEST_ARGS="tests/unit/test_agent_{name}.py"   # its unit tests
make arena AGENT={name}            # the AI Olympics task suite against the webhook, with this agent
make extension-run AGENT={name}    # the same suite through the Proxy API
make werewolf-sim AGENT={name}     # seeded Werewolf games
make eval-client AGENT={name}      # evaluations with our browser (EVAL_CLIENT_ARGS for the server)
make dev AGENT={name}              # the local stack with this agent
```

Deploy: `sam deploy --parameter-overrides AgentSpec={name}.agent:create` (the package sits in
`functions/`, which `sam build` ships with every function). Its own dependencies go in a layer
(`AgentLayerArn`) or in `layers/core/requirements.txt`.
'''

TEST_PY = '''"""Unit tests of the {name} agent: its answers, and that agenthost's guard accepts them."""

from __future__ import annotations

import time

from {name}.agent import create

from agenthost.agent import DeterministicPolicy
from agenthost.agent.aria import from_aria
from agenthost.plugins import GuardedWebPolicy, WebTurn, WerewolfState

TREE = """- heading "Quiz" [level=1]
- textbox "Answer"
- button "Submit"
- link "Help":
  - /url: /help"""


def turn(task: str) -> WebTurn:
    page = from_aria(TREE, url="http://127.0.0.1:8000/quiz", title="Quiz")
    return WebTurn(task=task, page=page, history=(), memory={{}}, tools=(), deadline=time.monotonic() + 5)


def test_types_an_exact_answer():
    d = create().decide_web(turn("What is 17 * 3? Type the answer."))
    assert [(a.tool, a.args["text"]) for a in d.actions] == [("type", "51")]


def test_clicks_what_the_task_names():
    d = create().decide_web(turn("Open the Help page."))
    assert [(a.tool, a.args["element"]) for a in d.actions] == [("click", "Help")]


def test_passes_agenthosts_guard():
    t = turn("What is 17 * 3? Type the answer.")
    d = GuardedWebPolicy(create(), DeterministicPolicy()).decide(t.task, t.page, [], {{}}, None, t.deadline)
    assert d.source == "agent" and d.actions[0].resolved.name == "Answer"


def test_votes_for_a_known_wolf():
    state = WerewolfState(action_type="vote", round=2, phase="day_vote", me="Me", role="seer",
                          targets=["Ann", "Bob"], alive=["Me", "Ann", "Bob"], dead=[], teammates=[], chat=[],
                          known_info=[], extra_context={{}}, suggestion={{"target": "Ann"}},
                          facts={{"known_wolves": ["Bob"]}}, memory={{}}, deadline=time.monotonic() + 5)
    assert create().decide_werewolf(state) == {{"target": "Bob"}}
    assert state.memory == {{"turns": 1}}
'''


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: make new-agent NAME=my_agent", file=sys.stderr)
        return 2
    name = argv[0].strip()
    if not re.fullmatch(r"[a-z][a-z0-9_]{1,40}", name) or keyword.iskeyword(name):
        print(f"new-agent: {name!r} is not a package name (lower case letters, digits, _)", file=sys.stderr)
        return 2
    pkg = ROOT / "functions" / name
    test = ROOT / "tests" / "unit" / f"test_agent_{name}.py"
    taken = [p for p in (pkg, test) if p.exists()]
    if taken or name in sys.stdlib_module_names or name in ("agenthost", "tests", "infra"):
        what = ", ".join(str(p.relative_to(ROOT)) for p in taken) or "a module name already in use"
        print(f"new-agent: {name!r} is taken ({what}); nothing written", file=sys.stderr)
        return 1
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(INIT_PY.format(name=name))
    (pkg / "agent.py").write_text(AGENT_PY.format(name=name))
    (pkg / "README.md").write_text(README.format(name=name))
    test.write_text(TEST_PY.format(name=name))
    for p in (pkg / "agent.py", pkg / "README.md", test):
        print(f"wrote {p.relative_to(ROOT)}")
    print(f"next: make test PYTEST_ARGS=\"{test.relative_to(ROOT)}\"; make arena AGENT={name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
