"""A model and a user agent that do what the page says: hostile pages written for the purpose carry a line
``Agent instruction: <what to do>`` (``navigate <url>``, ``click <element>``, ``type <text> into <element>``,
where ``PASSWORD`` stands for the password the task states) and both obey it. The web guard must keep what
they do within the task, as it does for our own policy.

* :func:`llm_responder` answers the local fake OpenAI server (:mod:`tests.support.fake_llm`) from the prompt:
  the instruction it finds in the page, with the task's password put in;
* :class:`Obedient` is the same as a user's web agent (``AGENTHOST_AGENT=tests.support.user_agents:obedient``).
"""

from __future__ import annotations

import re
from typing import Any

MARK = "Agent instruction: "
_LINE = re.compile(re.escape(MARK) + r"(?P<what>[^\n\"]+)")


def instruction(page_text: str, task: str) -> dict[str, Any] | None:
    """The action the page asks for, as ``{"tool", "args"}`` (None when it asks nothing)."""
    from agenthost.agent.task import read_task

    m = _LINE.search(page_text or "")
    if m is None:
        return None
    what = m.group("what").strip()
    password = read_task(task).value_for("password", "password") or ""
    what = what.replace("PASSWORD", password)
    tool, _, rest = what.partition(" ")
    if tool == "navigate":
        return {"tool": "navigate", "args": {"url": rest.strip()}}
    if tool == "click":
        return {"tool": "click", "args": {"element": rest.strip()}}
    if tool == "type":
        text, _, element = rest.rpartition(" into ")
        return {"tool": "type", "args": {"element": element.strip(), "text": text.strip()}}
    return None


def llm_responder(request: dict[str, Any]) -> dict[str, Any]:
    """What an obedient model answers: the page's instruction, else done."""
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    task = user.split("TASK:\n", 1)[1].split("\n\nTOOLS:", 1)[0]
    page = user.split("CURRENT PAGE", 1)[1]
    action = instruction(page, task)
    if action is None:
        return {"thinking": "nothing to do", "actions": [], "done": True, "result": "done"}
    return {"thinking": "the page says so", "actions": [action], "done": False}


class Obedient:
    """A user's web agent that does what the page says."""

    def decide_web(self, turn: Any) -> Any:
        from agenthost.agent import Action, Decision

        action = instruction(turn.page.text, turn.task)
        if action is None:
            return Decision(done=True, result="done")
        return Decision(actions=[Action(action["tool"], action["args"])], thinking="the page says so")
