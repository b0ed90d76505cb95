"""Choices picked by what their values are (``agent.choices``), on pages written for these tests: the plan with
the lowest price, the tile with the largest value, each amount marked by its kind, and no pick where the page
gives no way to tell."""

from __future__ import annotations

import pytest

from agenthost.agent.choices import classify_clicks
from agenthost.agent.progress import Seen
from agenthost.agent.task import read_task
from tests.support.policy import ARIA, PROXY, check, snapshot_of

_snap = snapshot_of


def _comments():
    parts: list = []
    for i, who in enumerate(["Rosa", "Ivo", "Rosa", "Rosa", "Ivo"]):
        parts += [f"{who} wrote: comment {i}.", {"id": f"like{i}", "tag": "button", "text": "Like"},
                  {"id": f"reply{i}", "tag": "button", "text": "Reply"}]
    return _snap(parts + [{"id": "save", "tag": "button", "text": "Save"}])


ROLL = "Roll a number greater than 10, then press Keep."
EVEN = "Get an even number and then click Done."
PAGES = {
    "plans": _snap(["Choose a plan", {"id": "p1", "tag": "input", "type": "radio", "label": "Starter $19"},
                    {"id": "p2", "tag": "input", "type": "radio", "label": "Basic $9"},
                    {"id": "p3", "tag": "input", "type": "radio", "label": "Team $49"},
                    {"id": "go", "tag": "button", "text": "Continue"}]),
    "tiles": _snap(["Tiles", {"id": "a", "tag": "button", "text": "14"}, {"id": "b", "tag": "button", "text": "3"},
                    {"id": "c", "tag": "button", "text": "27"}, {"id": "done", "tag": "button", "text": "Done"}]),
    "numbers": '- button "0.5"\n- button "2.25"\n- button "1.75"\n- button "Next"',
    "tie": _snap([{"id": "a", "tag": "button", "text": "7"}, {"id": "b", "tag": "button", "text": "7"},
                  {"id": "s", "tag": "button", "text": "Send"}]),
    "colours": _snap([{"id": "a", "tag": "button", "text": "Red"}, {"id": "b", "tag": "button", "text": "Blue"}]),
    "amounts": _snap([{"id": "p1", "tag": "button", "text": "Positive"}, "12",
                      {"id": "n1", "tag": "button", "text": "Negative"},
                      {"id": "p2", "tag": "button", "text": "Positive"}, "-4",
                      {"id": "n2", "tag": "button", "text": "Negative"},
                      {"id": "ok", "tag": "button", "text": "Check"}]),
    "parity": _snap(["Your numbers", {"id": "o1", "tag": "button", "text": "odd"}, "7",
                     {"id": "e1", "tag": "button", "text": "even"}, {"id": "o2", "tag": "button", "text": "odd"}, "0",
                     {"id": "e2", "tag": "button", "text": "even"}]),
    "rolled 4": f'- paragraph: {ROLL}\n- paragraph: "4"\n- button "Roll"\n- button "Keep"',
    "rolled 12": f'- paragraph: {ROLL}\n- paragraph: "12"\n- button "Roll"\n- button "Keep"',
    "got 7": f'- paragraph: {EVEN}\n- paragraph: "7"\n- button "Get number"\n- button "Done"',
    "got -2": f'- paragraph: {EVEN}\n- paragraph: "-2"\n- button "Get number"\n- button "Done"',
    "comments": _comments(),
    "post": _snap(["Post by @mira", {"id": "rt", "tag": "button", "text": "retweet"},
                   {"id": "sh", "tag": "button", "text": "share"}]),
    "post, no share": _snap(["Post by @mira", {"id": "rt", "tag": "button", "text": "retweet"}]),
    "inbox": _snap(["Inbox", {"id": "m1", "tag": "button", "text": "Marta Team lunch on Friday"},
                    {"id": "m2", "tag": "button", "text": "Tomas Budget draft for review"}]),
    "forward form": _snap([{"id": "to", "tag": "input", "type": "text", "label": "to"},
                           {"id": "body", "tag": "textarea", "value": "Budget draft for review"},
                           {"id": "send", "tag": "button", "text": "Send"}]),
    # result cards: each train's details before its own button, whose name carries only the fare
    "trains": _snap(["Trains to Lyon",
                     "Leaves 07:10 Travel time: 2 hr 15 min", {"id": "t1", "tag": "button", "text": "Reserve - €84"},
                     "Leaves 09:40 Travel time: 1 hr 50 min", {"id": "t2", "tag": "button", "text": "Reserve - €120"},
                     "Leaves 12:05 Travel time: 3 hr 5 min", {"id": "t3", "tag": "button", "text": "Reserve - €61"},
                     "Prices include booking fees"]),
    # the details after each card's button, in days, hours and minutes
    "courses": _snap(["Courses", {"id": "c1", "tag": "button", "text": "Enrol"}, "Pottery. Length: 2d 3h",
                      {"id": "c2", "tag": "button", "text": "Enrol"}, "Sketching. Length: 45 min",
                      {"id": "c3", "tag": "button", "text": "Enrol"}, "Weaving. Length: 1d"]),
    "hotels": _snap(["Hotels near the station", "Harbour Inn, nightly rate $142",
                     {"id": "h1", "tag": "button", "text": "Reserve"}, "Old Mill, nightly rate $98",
                     {"id": "h2", "tag": "button", "text": "Reserve"}, "Grand Plaza, nightly rate $310",
                     {"id": "h3", "tag": "button", "text": "Reserve"}]),
    "bus fares": _snap(["Buses", {"id": "b1", "tag": "button", "text": "Book for $12"},
                        {"id": "b2", "tag": "button", "text": "Book for $9"}]),
    "same durations": _snap(["Duration: 1h 5m", {"id": "a", "tag": "button", "text": "Go"}, "Duration: 1h 5m",
                             {"id": "b", "tag": "button", "text": "Go"}, "Duration: 2h",
                             {"id": "c", "tag": "button", "text": "Go"}]),
}
FORWARD = "Forward to Marta the message you received from Tomas."

#: task + page -> the elements clicked (and the value typed where there is one)
CASES = [
    pytest.param("Select the plan with the lowest price and continue.", "plans", PROXY,
                 {"clicked_has": ["p2"], "not_clicked": ["p1", "p3"]}, id="the choice with the lowest number"),
    pytest.param("Pick the tile showing the largest value, then press Done.", "tiles", PROXY,
                 {"clicked": ["c", "done"], "last": "done"}, id="the tile with the largest value, then the form sent"),
    pytest.param("Click the smallest number.", "numbers", ARIA, {"typed": {}, "clicked": ["0.5"]},
                 id="the smallest number"),
    pytest.param("Pick the card with the highest number and send.", "tie", PROXY, {"not_clicked": ["a", "b"]},
                 id="no pick when the choices tie"),
    pytest.param("Pick the cheapest colour.", "colours", PROXY, {"clicked": []},
                 id="no pick when the choices show no numbers"),
    pytest.param("Reserve the quickest train.", "trains", PROXY, {"clicked": ["t2"]},
                 id="the card whose details show the shortest duration"),
    pytest.param("Take the train with the longest journey time.", "trains", PROXY, {"clicked": ["t3"]},
                 id="the card whose details show the longest duration"),
    pytest.param("Enrol in the shortest course.", "courses", PROXY, {"clicked": ["c2"]},
                 id="the details after each button, in days, hours and minutes"),
    pytest.param("Reserve the cheapest hotel.", "hotels", PROXY, {"clicked": ["h2"]},
                 id="the cheapest card read from its details when the buttons show no price"),
    pytest.param("Pick the most expensive hotel and reserve it.", "hotels", PROXY, {"clicked": ["h3"]},
                 id="the most expensive card"),
    pytest.param("Book the fastest bus.", "bus fares", PROXY, {"clicked": []},
                 id="no pick when no card shows a duration (fares are no durations)"),
    pytest.param("Go with the shortest trip.", "same durations", PROXY, {"clicked": []},
                 id="no pick when the shortest durations tie"),
    pytest.param("Label each amount as positive or negative, then click Check.", "amounts", PROXY,
                 {"clicked": ["p1", "n2", "ok"], "last": "ok"}, id="each number gets the button naming its kind"),
    pytest.param("Classify the numbers as either even or odd.", "parity", PROXY, {"clicked": ["o1", "e2"]},
                 id="each number gets its parity's button"),
    pytest.param(ROLL, "rolled 4", ARIA, {"typed": {}, "clicked": ["Roll"]},
                 id="a number not of the kind asked is generated again"),
    pytest.param(ROLL, "rolled 12", ARIA, {"typed": {}, "clicked": ["Keep"]},
                 id="a number of the kind asked is kept"),
    pytest.param(EVEN, "got 7", ARIA, {"typed": {}, "clicked": ["Get number"]}, id="an odd number is not even"),
    pytest.param(EVEN, "got -2", ARIA, {"typed": {}, "clicked": ["Done"]}, id="a negative even number is even"),
    pytest.param('Click "Like" on 2 comments by Rosa and then press Save.', "comments", PROXY,
                 {"clicked": ["like0", "like2", "save"], "last": "save"},
                 id="as many of the anchor's items as the task gives get the control"),
    pytest.param('Click "Like" on the comment by Ivo.', "comments", PROXY, {"clicked": ["like1"]},
                 id="one item when the task gives no number"),
    pytest.param("Press share on the post by @mira.", "post", PROXY, {"clicked": ["sh"]},
                 id="a control named by its very word wins over one named in other words"),
    pytest.param("Press share on the post by @mira.", "post, no share", PROXY, {"clicked": ["rt"]},
                 id="with no share button, retweet is what share asks for"),
    pytest.param(FORWARD, "inbox", PROXY, {"clicked_has": ["m2"], "not_clicked": ["m1"]},
                 id="the item is the one from the sender"),
    pytest.param(FORWARD, "forward form", PROXY, {"typed": {"to": "Marta"}},
                 id="the recipient is only the name"),
]


@pytest.mark.parametrize(("task", "page", "how", "outcome"), CASES)
def test_a_page_and_a_task_give_what_the_user_sees(task, page, how, outcome):
    check(task, PAGES[page], how, outcome)


def test_a_number_with_only_one_of_the_two_buttons_beside_it_is_not_classified():
    lone = _snap([{"id": "o1", "tag": "button", "text": "odd"}, "5", {"id": "x", "tag": "button", "text": "Skip"}])
    assert classify_clicks(read_task("Mark the number as odd or even."), lone, Seen((), lone, {})) == []
