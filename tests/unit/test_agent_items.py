"""Pages that repeat one control for every item (inboxes, feeds): the task's item decides which control
(``agent.scope``), an item is opened when its control is not shown yet, a control's usual name in the task's
other words, text for a message field, pointer gestures no tool performs, and the task's own sentence on the
page never read as a verdict. Pages written for these tests, worded unlike any benchmark's."""

from __future__ import annotations

from agenthost.agent import Action
from agenthost.agent.actions import PROXY_TOOLS
from agenthost.agent.aria import from_aria
from agenthost.agent.outcome import judge
from agenthost.agent.pointing import clauses
from agenthost.agent.snapshot import from_snapshot
from tests.support.policy import PROXY, check, decide, expect


def _snap(elements, text):
    """A snapshot page whose elements say where they start in ``text`` (``at``: the offset of ``anchor``)."""
    out = []
    for el in elements:
        el = dict(el)
        anchor = el.pop("anchor", None)
        if anchor is not None:
            el["at"] = text.index(anchor)
        out.append(el)
    return from_snapshot({"url": "https://mail.test/", "title": "", "visibleText": text, "elements": out})


INBOX_TEXT = "Inbox Ama Owusu Lunch on Friday? Kofi Mensah Quarterly numbers Efua Boateng Invoice 2231 END"
INBOX = [
    {"id": "r1", "tag": "div", "text": "Ama Owusu Lunch on Friday?", "anchor": "Ama Owusu"},
    {"id": "x1", "tag": "span", "hint": "archive", "anchor": "Kofi Mensah"},
    {"id": "r2", "tag": "div", "text": "Kofi Mensah Quarterly numbers", "anchor": "Kofi Mensah"},
    {"id": "x2", "tag": "span", "hint": "archive", "anchor": "Efua Boateng"},
    {"id": "r3", "tag": "div", "text": "Efua Boateng Invoice 2231", "anchor": "Efua Boateng"},
    {"id": "x3", "tag": "span", "hint": "archive", "anchor": "END"},
]


def _proxy(task, page, **kw):
    d = decide(task, page, tools=PROXY_TOOLS, **kw)
    return [(a.tool, a.resolved.ref if a.resolved else a.target) for a in d.actions], d


def test_the_control_of_the_item_the_task_names_not_the_first_one():
    page = _snap(INBOX, INBOX_TEXT)
    check("Archive the message from Kofi.", page, PROXY, {"typed": {}, "clicked": ["x2"]})
    check("Please archive the mail Efua Boateng sent.", page, PROXY, {"typed": {}, "clicked": ["x3"]})


def test_without_an_item_to_single_out_no_repeated_control_is_guessed():
    acts, d = _proxy("Archive a message.", _snap(INBOX, INBOX_TEXT))
    assert ("click", "x1") not in acts and ("click", "x2") not in acts and ("click", "x3") not in acts


def test_every_item_of_a_person_when_the_task_says_all():
    text = "Feed Ama @ama Good morning Kofi @kofi Market day Ama @ama Rain again END"
    feed = _snap([{"id": "p1", "tag": "p", "text": "Ama @ama Good morning", "anchor": "Ama @ama Good"},
                  {"id": "l1", "tag": "span", "hint": "like", "anchor": "Kofi @kofi"},
                  {"id": "p2", "tag": "p", "text": "Kofi @kofi Market day", "anchor": "Kofi @kofi"},
                  {"id": "l2", "tag": "span", "hint": "like", "anchor": "Ama @ama Rain"},
                  {"id": "p3", "tag": "p", "text": "Ama @ama Rain again", "anchor": "Ama @ama Rain"},
                  {"id": "l3", "tag": "span", "hint": "like", "anchor": "END"}], text)
    check("Like all posts by @ama.", feed, PROXY, {"typed": {}, "clicked": ["l1", "l3"]})


def test_an_item_is_opened_when_the_control_the_task_wants_is_not_shown_yet():
    page = _snap(INBOX, INBOX_TEXT)
    # opened first: its Forward control shows inside it
    check("Forward the invoice from Efua Boateng to the accountant.", page, PROXY, {"typed": {}, "clicked": ["r3"]})


def test_the_item_is_its_owners_even_after_to_and_in_the_passive_or_a_question():
    page = _snap(INBOX, INBOX_TEXT)
    # "Efua's invoice ... to Kofi": the owner's item is opened, the name after "to" is where it goes
    check("Forward Efua's invoice to Kofi.", page, PROXY, {"typed": {}, "clicked": ["r3"]})
    check("Send Kofi Mensah's numbers on to Efua, please.", page, PROXY, {"clicked_has": ["r2"]})
    # asked in the passive, or as a question: still something to do to that item
    check("The invoice from Efua Boateng needs to be forwarded to Kofi.", page, PROXY,
          {"typed": {}, "clicked": ["r3"]})
    check("Could you respond to Ama's mail and tell her that \"Friday works\"?", page, PROXY,
          {"typed": {}, "clicked": ["r1"]})


def test_the_quoted_words_to_tell_someone_go_into_the_message_box():
    reply = _snap([{"id": "body", "tag": "textarea", "anchor": "END"},
                   {"id": "go", "tag": "span", "hint": "send", "anchor": "END"}], "to: Ama subject: Re: Lunch END")
    acts, d = _proxy('Could you respond to Ama\'s mail and tell her that "Friday works, see you."?', reply)
    assert ("type", "body") in acts
    assert next(a for a in d.actions if a.tool == "type").args["text"] == "Friday works, see you."
    acts, d = _proxy('Reply to Ama and say "On my way".', reply)
    assert next(a for a in d.actions if a.tool == "type").args["text"] == "On my way"


def test_a_control_is_found_under_its_usual_name_in_the_tasks_other_words():
    text = "Message from Kofi Mensah: the numbers are attached."
    opened = _snap([{"id": "t", "tag": "span", "hint": "trash", "anchor": "Message"},
                    {"id": "f", "tag": "span", "hint": "forward", "anchor": "Message"}], text)
    check("Delete the message Kofi sent me.", opened, PROXY, {"typed": {}, "clicked": ["t"]})
    check("Send it on to Ama.", opened, PROXY, {"clicked_has": ["f"]})


def test_something_received_sent_on_to_someone_is_a_forward():
    page = _snap(INBOX, INBOX_TEXT)
    # the item is the sender's (after "from"), the other name is whom it goes to
    check("Give Ama the note you got from Efua Boateng.", page, PROXY, {"typed": {}, "clicked": ["r3"]})
    check("Send mail in the inbox from Kofi Mensah to Ama.", page, PROXY, {"typed": {}, "clicked": ["r2"]})
    opened = _snap([{"id": "r", "tag": "span", "hint": "reply", "anchor": "Message"},
                    {"id": "f", "tag": "span", "hint": "forward", "anchor": "Message"}],
                   "Message from Kofi Mensah: the numbers are attached.")
    check("Pass Ama the mail you received from Kofi.", opened, PROXY, {"clicked_has": ["f"]})
    # sending an answer to what came is a reply, not a forward
    acts, _ = _proxy("Send an answer to the mail from Kofi.", opened)
    assert ("click", "f") not in acts
    # nothing received, nothing passed on: "give" alone opens no item
    acts, _ = _proxy("Give the total of the invoices.", page)
    assert not any(t == "click" for t, _ in acts)


def test_text_for_a_message_field_from_with_the_text():
    reply = _snap([{"id": "to", "tag": "input", "type": "text", "value": "kofi@mail.test", "hint": "To",
                    "anchor": "To"},
                   {"id": "body", "tag": "textarea", "anchor": "END"},
                   {"id": "go", "tag": "span", "hint": "send", "anchor": "END"}], "Reply To END")
    acts, d = _proxy('Answer Kofi with the text "Noted. See you Friday."', reply)
    assert ("type", "body") in acts
    assert next(a for a in d.actions if a.tool == "type").args["text"] == "Noted. See you Friday."
    assert clauses('Reply with the text "Noted. See you." Then close it.') == \
        ['Reply with the text "Noted. See you."', "close it."]


def test_a_pointer_gesture_the_tools_cannot_perform_is_an_honest_give_up_not_a_submit():
    tree = '- text: Set the volume\n- slider "Volume"\n- button "Save"'
    d = decide("Drag the volume slider to 70 and save.", tree)
    expect(d, nothing=True)
    assert d.done and d.success is False and "gesture" in d.result
    d = decide("Hover over the map legend, then press Save.", tree)
    assert d.done and d.success is False


def test_the_tasks_own_sentence_on_the_page_is_no_verdict():
    task = "Tell the shop the parcel was sent back."
    page = from_aria(f"- text: {task}\n- textbox \"Message\"\n- button \"Send\"")
    assert judge(page, task=task).kind is None
    assert judge(from_aria("- status: Your message was sent.")).kind == "success"
    done = from_aria(f"- text: {task}\n- status: Thanks, your message was sent.")
    d = decide(task, done, memory={"acted": True, "before": []}, history=[Action("click", {"element": "Send"})])
    assert d.done and d.success


def test_a_request_put_as_a_question_is_no_question_the_page_answers():
    """Seen on MiniWoB++'s inbox (names changed): the inbox's lines were taken as the question's answer and
    the run claimed success with nothing replied."""
    from agenthost.agent import DeterministicPolicy
    from agenthost.agent.actions import OLYMPICS_TOOLS
    from agenthost.agent.aria import from_aria

    task = 'Will you respond to Odile\'s email and tell her that it "Integer mattis sem."?'
    inbox = ('- text: "Frankie Tortor. Morbi dictum id.. Bonny Cursus nunc. Faucibus lorem .. Frankie Fa'
             'ucibus. Fermentum enim .. Minna Sit. Gravida dictum .. Blanca Nec. Vel sem tincidu.. Odile'
             ' Sed sed. Iaculis. Nunc. .. Jeanna Quisque. Enim tortor. Eu.. Ginny Tristique. Facilisi. U'
             't et.. Damara Lectus. Nisl. Volutpat. Nunc,.. Last reward: - Last 10 average: - Time left:'
             ' 3600 / 3600sec Episodes done: 0"')
    d = DeterministicPolicy().decide(task, from_aria(f'- text: {task}\n- heading "Primary" [level=2]\n{inbox}'), [],
                                     {}, OLYMPICS_TOOLS, None)
    assert not (d.done and d.success)  # nothing was replied: no success claimed


def test_a_message_stops_where_the_task_goes_on_to_its_next_step():
    from tests.support.policy import wire

    box = '- textbox "Note"\n- button "Done"'
    assert ("type", "Note", "running late") in wire(decide("Leave a note saying running late, then click Done", box))
    typed = [w for w in wire(decide("Leave a note saying ok and press Done", box)) if w[0] == "type"]
    assert typed and "press" not in typed[0][2].lower()
    typed = [w for w in wire(decide("Tell them that the parcel is late and click Done.", box)) if w[0] == "type"]
    assert typed == [("type", "Note", "The parcel is late.")]


def test_whom_a_thing_is_given_to_before_the_thing_fills_the_to_field():
    fwd = _snap([{"id": "to", "tag": "input", "type": "text", "hint": "to", "anchor": "to:"},
                 {"id": "body", "tag": "textarea", "value": "Numbers attached.", "anchor": "END"},
                 {"id": "go", "tag": "span", "hint": "send", "anchor": "END"}], "to: subject: Q3 END")
    acts, d = _proxy("Forward Efua the latest message from Kofi.", fwd)
    assert ("type", "to", "Efua") in [(a.tool, a.resolved.ref, a.args.get("text")) for a in d.actions]


def test_trash_as_a_verb_asks_for_the_delete_icon():
    from agenthost.agent.web_guard import WebRules

    page = _snap([{"id": "r1", "tag": "div", "text": "Kofi Mensah Quarterly numbers", "anchor": "Kofi"},
                  {"id": "b1", "tag": "span", "text": "trash delete", "anchor": "END"}],
                 "Kofi Mensah Quarterly numbers END")
    bin_icon = Action("click", {"id": "b1"}, resolved=page.by_ref("b1"))
    assert WebRules.of("Trash that message from Kofi.", page).refusal(bin_icon) is None
    assert WebRules.of("Star that message from Kofi.", page).refusal(bin_icon) is not None
