"""A number found by guessing (``agent.guessing``) on pages written for these tests: the range the task gives,
narrowed by each answer the page gives ("bigger than", "too high"), the middle guessed next, and an honest
give-up when the answers leave no number."""

from __future__ import annotations

from agenthost.agent.actions import PROXY_TOOLS, Action
from tests.support.policy import decide, expect


def _play(task, tree, memory, history=()):
    return decide(task, tree, history=list(history), memory=memory)


def test_the_range_is_halved_by_each_answer_until_the_number_is_found():
    task = "Find the secret number from 1 to 100. The page says whether your guess is too high or too low."
    first = '- text: Secret number\n- spinbutton "Your guess"\n- button "Try"'
    d = _play(task, first, {})
    expect(d, typed={"Your guess": "50"}, clicked=["Try"], last="Try")
    sent = [Action("type", {"element": "Your guess", "text": "50"}), Action("click", {"element": "Try"})]
    high = '- text: Too high! Try again.\n- spinbutton "Your guess": "50"\n- button "Try"'
    d = _play(task, high, d.memory, sent)
    expect(d, typed={"Your guess": "25"}, clicked=["Try"], last="Try")
    # another page's wording: "bigger than N" states the bound itself
    task2 = "Guess a number between 10 and 20, then press Check."
    d2 = _play(task2, '- textbox "Number"\n- button "Check"', {})
    expect(d2, typed={"Number": "15"})
    said = '- paragraph: It is a bigger number than 15.\n- textbox "Number": "15"\n- button "Check"'
    d3 = _play(task2, said, d2.memory, [Action("type", {"element": "Number", "text": "15"}),
                                         Action("click", {"element": "Check"})])
    expect(d3, typed={"Number": "18"})


def test_a_guess_only_typed_is_not_judged_by_the_answer_to_the_one_before():
    task = "Find the secret number from 1 to 100. The page says whether your guess is too high or too low."
    # the Proxy API sends one action a step: the page still says "too high" about 50 while 25 is typed
    memory = {"guess": [1, 49, 25]}
    page = '- text: Too high! Try again.\n- spinbutton "Your guess": "25"\n- button "Try"'
    d = decide(task, page, history=[Action("type", {"element": "Your guess", "text": "25"})], memory=memory,
               tools=PROXY_TOOLS)
    expect(d, typed={}, clicked=["Try"])  # the typed guess is sent, not judged by the answer to 50


def test_answers_that_leave_no_number_end_the_game_honestly():
    task = "Guess the number between 1 and 3."
    page = '- paragraph: The number is higher than 3.\n- textbox "Guess"\n- button "Go"'
    d = decide(task, page, memory={"guess": [1, 3, 2]})
    assert d.done and d.success is False and "no number" in (d.result or "")
