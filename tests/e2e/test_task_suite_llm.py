"""The LLM policy on a page no skill can answer: trivia needs knowledge, which the deterministic policy does not
have (it gives up honestly). With a model, each question reaches the model in its prompt and the model's
answer is what gets clicked. The model is the local fake OpenAI-compatible server, answering from a small
table of facts as a model would from its knowledge; the page (the suite's trivia-game) judges by itself."""

from __future__ import annotations

import json
import re

import pytest

from agenthost.agent.actions import OLYMPICS_TOOLS
from agenthost.agent.aria import from_aria
from agenthost.agent.llm_policy import LlmPolicy
from agenthost.deadline import Deadline
from agenthost.llm.openai import OpenAIProvider
from infra.arena import runner as platform
from infra.arena import suite
from infra.arena.site import Site
from tests.support.fake_llm import FakeLLM

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

FACTS = {
    "Red Planet": "Mars", "capital city of Australia": "Canberra", "photosynthesis": "Carbon dioxide",
    "Pride and Prejudice": "Jane Austen", "largest ocean": "Pacific Ocean", "symbol for gold": "Au",
    "walk on the Moon": "1969", "hardest natural material": "Diamond", "South America": "Amazon",
    "hexagon": "Six", "smallest prime": "Two", "capital city of Canada": "Ottawa", "atomic number 1": "Hydrogen",
    "largest planet": "Jupiter", "most native speakers": "Mandarin Chinese",
}


def _model(asked: list[str]):
    """The fake model: reads the page in its prompt, clicks the answer to the question shown, says done when
    the game is over."""

    def respond(request: dict) -> dict:
        prompt = "\n".join(str(m.get("content")) for m in request["messages"])
        page = prompt[prompt.rfind("<<<PAGE"):]  # the page, fenced as untrusted data
        if "Game over" in page:
            return {"thinking": "the game is over", "actions": [], "done": True, "result": "played all rounds"}
        for cue, answer in FACTS.items():
            if cue in page:
                question = next(q for q in re.findall(r"[^\n\"]*\?", page) if cue in q)
                asked.append(question.strip())
                return {"thinking": f"{cue}: {answer}", "done": False,
                        "actions": [{"tool": "click", "args": {"element": answer}}]}
        return {"thinking": "no question shown", "actions": [], "done": False}

    return respond


def test_the_llm_policy_gets_each_trivia_question_and_its_answer_is_clicked():
    folder, tasks = suite.load(suite.DEFAULT_SUITE, ["trivia-game"], None)
    task = tasks[0]
    asked: list[str] = []
    with FakeLLM() as llm:
        llm.responder = _model(asked)
        policy = LlmPolicy(OpenAIProvider("fake-model", base_url=llm.base_url), margin_s=0.5)
        memory: dict = {}

        def webhook(headers, body, timeout):
            """The turn as the webhook plays it: the page from the ARIA tree, the LLM policy's batch."""
            nonlocal memory
            req = json.loads(body)
            page = from_aria(req["pageState"]["accessibilityTree"], url=req["pageState"]["url"],
                                   title=req["pageState"]["title"])
            d = policy.decide(req["task"]["taskPrompt"], page, [], memory, OLYMPICS_TOOLS, Deadline.after(10))
            memory = d.memory or memory
            assert d.source == "llm", d.thinking  # never the deterministic fallback
            return 200, json.dumps(d.olympics()).encode()

        with Site(folder) as site, platform.Runner(webhook, "unused", max_turns=8, pace_s=0, action_timeout_s=2,
                                                   printer=None, site=site) as r:
            res = r.play(task.id, site.url + task.start, task.prompt, task.marker, family=task.family)
    assert res.success, (res.end, res.records)  # the page recorded at least four of five right
    assert not res.false_done and res.violations == []
    assert len(asked) == 5 and len(set(asked)) == 5, asked  # each round's question reached the model
    clicked = [a["args"]["element"] for t in res.log for a in t.actions if a["tool"] == "click"]
    assert clicked == [next(v for k, v in FACTS.items() if k in q) for q in asked]
