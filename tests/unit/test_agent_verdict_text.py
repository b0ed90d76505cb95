"""The page's verdict on Proxy API snapshots (``visibleText`` is one collapsed line; the page model cuts it
into lines), beside a length counter, on the last step of a form in steps, and next to a chess position's
slashes. Pages written for these tests (none of them is a task suite page)."""

from __future__ import annotations

from agenthost.agent import Action, DeterministicPolicy, deadline_in
from agenthost.agent import page as pages
from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.outcome import in_play, is_progress, judge, success_keys
from agenthost.agent.snapshot import from_snapshot


def snapshot(text: str, *elements: dict) -> pages.Page:
    return from_snapshot({"url": "https://shop.test/form", "title": "Form", "visibleText": text,
                                "elements": list(elements)})


TEXTBOX = {"id": "agent-1", "tag": "textarea", "label": "Your comment", "text": ""}
BUTTON = {"id": "agent-2", "tag": "button", "text": "Post comment"}
COMMENT = ("Leave a comment Share what you thought of the recipe in a sentence or two. Characters: 0 / 500 "
           "Your comment Post comment")


def test_a_message_after_acting_on_a_collapsed_page_is_success_and_the_agent_claims_it():
    before = snapshot(COMMENT, TEXTBOX, BUTTON)
    after = snapshot(COMMENT.replace("0 / 500", "48 / 500") + " Comment posted. Thank you for your feedback!",
                     {**TEXTBOX, "value": "Lovely recipe, the sauce was great."}, BUTTON)
    assert not judge(before).success
    verdict = judge(after, success_keys(before))
    assert verdict.success and verdict.text in ("Comment posted.", "Thank you for your feedback!")
    task = 'Post the comment "Lovely recipe, the sauce was great." under the recipe.'
    sent = [Action("type", {"id": "agent-1", "text": "Lovely recipe, the sauce was great."}),
            Action("click", {"id": "agent-2"})]
    d = DeterministicPolicy().decide(task, after, sent, {"acted": True, "before": success_keys(before)},
                                     PROXY_TOOLS, deadline_in(5))
    assert d.done and d.success is True


def test_a_library_renewal_page_in_one_line_gives_its_verdict():
    buttons = ({"id": "agent-1", "tag": "input", "type": "text", "label": "Card number"},
               {"id": "agent-2", "tag": "button", "text": "Renew loans"})
    text = "City library Renew your loans Enter the number on your library card. Card number Renew loans"
    assert judge(snapshot(text + " Thank you! Your loans were extended until 12 March.", *buttons)).success
    assert not judge(snapshot(text + " Card number is invalid. Please check it.", *buttons)).success


def test_the_last_step_of_a_form_with_a_completion_message_is_success_but_a_quiz_last_question_is_not():
    form = "Change password Step 2 of 2: Confirm New password Confirm password Save Password updated successfully."
    assert judge(snapshot(form, {"id": "agent-1", "tag": "button", "text": "Save"})).success
    assert not judge(snapshot("Change password Step 1 of 2: Current Next Saved successfully.")).success
    quiz = "Capital cities Question 10 of 10 Which city is the capital of Peru? Lima Quito Answer submitted."
    assert judge(snapshot(quiz)).kind == "progress"


def test_slashes_inside_a_chess_position_are_no_score():
    fen = "Position (FEN): 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
    assert not is_progress(fen) and not in_play(fen)
    assert in_play("Score 3/10") and in_play("Question 2 of 8") and not in_play("Characters: 48 / 500")
    board = snapshot("Endgame trainer Find the winning move. " + fen + " Your move Play Checkmate! Well done.",
                     {"id": "agent-1", "tag": "input", "type": "text", "label": "Your move"},
                     {"id": "agent-2", "tag": "button", "text": "Play"})
    assert judge(board).success
