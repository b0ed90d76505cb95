"""Choices picked by what their values are (``agent.choices``), on pages written for these tests: the plan with
the lowest price, the tile with the largest value, each amount marked by its kind, and no pick where the page
gives no way to tell."""

from __future__ import annotations

from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.choices import classify_clicks
from agenthost.agent.progress import Seen
from agenthost.agent.task import read_task
from tests.support.policy import decide, expect, snapshot_of

_snap = snapshot_of


def _clicks(task, page):
    d = decide(task, page, tools=PROXY_TOOLS)
    return [a.resolved.ref for a in d.actions if a.tool == "click"]


def test_the_choice_with_the_greatest_or_lowest_number_is_clicked_then_the_form_is_sent():
    plans = _snap(["Choose a plan", {"id": "p1", "tag": "input", "type": "radio", "label": "Starter $19"},
                   {"id": "p2", "tag": "input", "type": "radio", "label": "Basic $9"},
                   {"id": "p3", "tag": "input", "type": "radio", "label": "Team $49"},
                   {"id": "go", "tag": "button", "text": "Continue"}])
    assert _clicks("Select the plan with the lowest price and continue.", plans)[0] == "p2"
    tiles = _snap(["Tiles", {"id": "a", "tag": "button", "text": "14"}, {"id": "b", "tag": "button", "text": "3"},
                   {"id": "c", "tag": "button", "text": "27"}, {"id": "done", "tag": "button", "text": "Done"}])
    assert _clicks("Pick the tile showing the largest value, then press Done.", tiles) == ["c", "done"]
    tree = '- button "0.5"\n- button "2.25"\n- button "1.75"\n- button "Next"'
    expect(decide("Click the smallest number.", tree), typed={}, clicked=["0.5"])


def test_no_pick_when_the_choices_tie_or_show_no_numbers():
    tie = _snap([{"id": "a", "tag": "button", "text": "7"}, {"id": "b", "tag": "button", "text": "7"},
                 {"id": "s", "tag": "button", "text": "Send"}])
    assert "a" not in _clicks("Pick the card with the highest number and send.", tie)
    assert "b" not in _clicks("Pick the card with the highest number and send.", tie)
    words = _snap([{"id": "a", "tag": "button", "text": "Red"}, {"id": "b", "tag": "button", "text": "Blue"}])
    assert _clicks("Pick the cheapest colour.", words) == []


def test_each_number_gets_the_button_naming_its_kind():
    rows = _snap([{"id": "p1", "tag": "button", "text": "Positive"}, "12", {"id": "n1", "tag": "button",
                  "text": "Negative"}, {"id": "p2", "tag": "button", "text": "Positive"}, "-4",
                  {"id": "n2", "tag": "button", "text": "Negative"}, {"id": "ok", "tag": "button", "text": "Check"}])
    assert _clicks("Label each amount as positive or negative, then click Check.", rows) == ["p1", "n2", "ok"]
    parity = _snap(["Your numbers", {"id": "o1", "tag": "button", "text": "odd"}, "7", {"id": "e1", "tag": "button",
                    "text": "even"}, {"id": "o2", "tag": "button", "text": "odd"}, "0",
                    {"id": "e2", "tag": "button", "text": "even"}])
    assert _clicks("Classify the numbers as either even or odd.", parity) == ["o1", "e2"]
    # a number with only one of the two buttons beside it is not classified
    lone = _snap([{"id": "o1", "tag": "button", "text": "odd"}, "5", {"id": "x", "tag": "button", "text": "Skip"}])
    assert classify_clicks(read_task("Mark the number as odd or even."), lone, Seen((), lone, {})) == []


def test_a_number_is_generated_again_until_it_is_of_the_kind_asked_then_sent():
    task = "Roll a number greater than 10, then press Keep."

    def tree(shown):
        return f'- paragraph: {task}\n- paragraph: "{shown}"\n- button "Roll"\n- button "Keep"'
    expect(decide(task, tree("4")), typed={}, clicked=["Roll"])
    expect(decide(task, tree("12")), typed={}, clicked=["Keep"])
    task2 = "Get an even number and then click Done."
    tree2 = f'- paragraph: {task2}\n- paragraph: "7"\n- button "Get number"\n- button "Done"'
    expect(decide(task2, tree2), typed={}, clicked=["Get number"])
    expect(decide(task2, tree2.replace('"7"', '"-2"')), typed={}, clicked=["Done"])


def test_the_number_of_items_the_task_gives_is_how_many_of_the_anchors_items_get_the_control():
    parts = []
    for i, who in enumerate(["Rosa", "Ivo", "Rosa", "Rosa", "Ivo"]):
        parts += [f"{who} wrote: comment {i}.", {"id": f"like{i}", "tag": "button", "text": "Like"},
                  {"id": f"reply{i}", "tag": "button", "text": "Reply"}]
    page = _snap(parts + [{"id": "save", "tag": "button", "text": "Save"}])
    clicks = _clicks('Click "Like" on 2 comments by Rosa and then press Save.', page)
    assert clicks == ["like0", "like2", "save"]
    # one item when the task gives no number
    assert _clicks('Click "Like" on the comment by Ivo.', page) == ["like1"]


def test_a_control_named_by_its_very_word_wins_over_one_named_in_other_words():
    page = _snap(["Post by @mira", {"id": "rt", "tag": "button", "text": "retweet"},
                  {"id": "sh", "tag": "button", "text": "share"}])
    assert _clicks("Press share on the post by @mira.", page) == ["sh"]
    # with no share button, retweet is what "share" asks for
    only = _snap(["Post by @mira", {"id": "rt", "tag": "button", "text": "retweet"}])
    assert _clicks("Press share on the post by @mira.", only) == ["rt"]


def test_the_item_is_the_one_from_the_sender_and_the_recipient_is_only_the_name():
    task = "Forward to Marta the message you received from Tomas."
    inbox = _snap(["Inbox", {"id": "m1", "tag": "button", "text": "Marta Team lunch on Friday"},
                   {"id": "m2", "tag": "button", "text": "Tomas Budget draft for review"}])
    assert _clicks(task, inbox)[:1] == ["m2"]
    form = _snap([{"id": "to", "tag": "input", "type": "text", "label": "to"},
                  {"id": "body", "tag": "textarea", "value": "Budget draft for review"},
                  {"id": "send", "tag": "button", "text": "Send"}])
    d = decide(task, form, tools=PROXY_TOOLS)
    assert [(a.resolved.ref, a.args.get("text")) for a in d.actions if a.tool == "type"] == [("to", "Marta")]
