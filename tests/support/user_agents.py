"""User agents for the plugin tests (``AGENTHOST_AGENT=tests.support.user_agents:<factory>``): one that
answers well, one that raises, one that sleeps past the deadline, one that answers an invalid target.
Each implements both interfaces (web and Werewolf)."""

from __future__ import annotations

import time
from typing import Any

from agenthost.agent import Action, Decision
from agenthost.plugins import WebTurn, WerewolfState

#: a secret the raising agent puts in its exception message: it must never reach a log or an answer
SECRET_IN_ERROR = "sk-user-agent-secret-0123456789"


class Good:
    """Types ``hello from the user agent`` into the first text box and counts its turns in its memory;
    in Werewolf, names the last target and says its turn count."""

    def decide_web(self, turn: WebTurn) -> Decision:
        n = int(turn.memory.get("turns", 0)) + 1
        box = next((e for e in turn.page.elements if e.role in ("textbox", "searchbox")), None)
        actions = [Action("type", {"element": box.name or box.ref, "text": "hello from the user agent"})] if box else []
        return Decision(actions=actions, done=box is None, result="no text box" if box is None else None,
                        thinking=f"user agent turn {n}", memory={"turns": n})

    def decide_werewolf(self, state: WerewolfState) -> dict[str, Any] | None:
        n = int(state.memory.get("turns", 0)) + 1
        state.memory["turns"] = n
        if state.action_type in ("speak", "speak_rebuttal", "last_words"):
            return {"message": f"user agent speaking, turn {n}."}
        if state.action_type == "vote":
            return {"target": state.targets[-1]}
        return None  # everything else: our strategy


class Raising:
    def decide_web(self, turn: WebTurn) -> Decision:
        raise RuntimeError(f"boom with {SECRET_IN_ERROR}")

    def decide_werewolf(self, state: WerewolfState) -> dict[str, Any] | None:
        raise RuntimeError(f"boom with {SECRET_IN_ERROR}")


#: how far past its deadline the sleeping agent sleeps: what a turn that waited for it would take longer
OVERSLEEP_S = 8.0


class Sleeping:
    def decide_web(self, turn: WebTurn) -> Decision:
        time.sleep(turn.remaining() + OVERSLEEP_S)
        return Decision(actions=[Action("click", {"element": "Submit Registration"})])

    def decide_werewolf(self, state: WerewolfState) -> dict[str, Any] | None:
        time.sleep(state.remaining() + OVERSLEEP_S)
        return {"target": state.targets[0], "message": "late"}


class InvalidTarget:
    def decide_web(self, turn: WebTurn) -> Decision:
        return Decision(actions=[Action("click", {"element": "A button that is not on this page"})])

    def decide_werewolf(self, state: WerewolfState) -> dict[str, Any] | None:
        return {"target": "Nobody-at-this-table", "message": "voting for a ghost"}


class Payer:
    """Clicks the page's pay button at once (careful mode must still ask the user first)."""

    def decide_web(self, turn: WebTurn) -> Decision:
        pay = next(e for e in turn.page.elements if "pay" in e.name.lower())
        return Decision(actions=[Action("click", {"element": pay.ref})], thinking="paying")


def payer() -> Payer:
    return Payer()


def good() -> Good:
    return Good()


def raising() -> Raising:
    return Raising()


def sleeping() -> Sleeping:
    return Sleeping()


def invalid() -> InvalidTarget:
    return InvalidTarget()


class Switch:
    """For one local stack serving every case: the web behaviour is named in the task (``[agent:raising]``),
    the Werewolf one by the game id's prefix (``raising-...``); ``good`` otherwise."""

    cases = {"good": Good(), "raising": Raising(), "sleeping": Sleeping(), "invalid": InvalidTarget()}

    def _pick(self, text: str) -> Any:
        return next((agent for name, agent in self.cases.items() if text.startswith(name) or f"[agent:{name}]" in text),
                    self.cases["good"])

    def decide_web(self, turn: WebTurn) -> Decision:
        return self._pick(turn.task).decide_web(turn)

    def decide_werewolf(self, state: WerewolfState) -> dict[str, Any] | None:
        return self._pick(state.game_id).decide_werewolf(state)


def switch() -> Switch:
    return Switch()


def obedient() -> Any:
    """A web agent that does what the page tells it (:mod:`tests.support.obedient`)."""
    from tests.support.obedient import Obedient

    return Obedient()
