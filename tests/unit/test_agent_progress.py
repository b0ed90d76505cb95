"""What the policy counts as done from one turn to the next (``agent.progress``): only what the history shows
sent. A protocol that runs one action a step (the Proxy API), or a runner that stops a batch early, sends
fewer actions than the policy chose; the rest are still to do, even on a page that did not change."""

from __future__ import annotations

from agenthost.agent import Action, DeterministicPolicy
from agenthost.agent.actions import OLYMPICS_TOOLS
from agenthost.agent.aria import from_aria

TASK = "Press Start, give it a moment, then press Stop."
TREE = f"- text: {TASK}\n- button \"Start\"\n- button \"Stop\""


def _decide(history, memory):
    return DeterministicPolicy().decide(TASK, from_aria(TREE), history, memory, OLYMPICS_TOOLS, 5.0)


def test_a_click_chosen_but_not_sent_is_still_to_do_on_an_unchanged_page():
    first = _decide([], {})
    assert [a.target for a in first.actions] == ["Start", "Stop"]
    # only the first action ran (one action a step); the page looks the same
    second = _decide([Action("click", {"element": "Start"})], first.memory)
    assert [a.target for a in second.actions] == ["Stop"] and not second.done


def test_a_whole_batch_sent_on_a_page_it_did_not_change_is_not_sent_again():
    first = _decide([], {})
    history = [Action("click", {"element": "Start"}), Action("click", {"element": "Stop"})]
    second = _decide(history, first.memory)
    assert [a.target for a in second.actions] != ["Start", "Stop"]


def test_the_rest_of_a_batch_the_protocol_did_not_run_is_sent_once_the_form_is_filled():
    from agenthost.agent.actions import PROXY_TOOLS
    from agenthost.agent.snapshot import from_snapshot

    task = "Look up films directed by Okafor."
    def snap(value=""):
        box = {"id": "a1", "tag": "input", "type": "text", "label": "Director"}
        return from_snapshot({"url": "https://films.test/", "title": "", "visibleText": task, "elements": [
            {**box, "value": value} if value else box, {"id": "a2", "tag": "button", "text": "Go!"}]})
    policy = DeterministicPolicy()
    first = policy.decide(task, snap(), [], {}, PROXY_TOOLS, None)
    assert [(a.tool, a.resolved.ref) for a in first.actions] == [("type", "a1"), ("click", "a2")]
    # the Proxy API ran the first action only; the field holds the value now
    second = policy.decide(task, snap("Okafor"), [Action("type", {"id": "a1", "text": "Okafor"})], first.memory,
                           PROXY_TOOLS, None)
    assert [(a.tool, a.resolved.ref) for a in second.actions] == [("click", "a2")]
