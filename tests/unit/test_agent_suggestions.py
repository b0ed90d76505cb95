"""A value described by how it starts and ends, completed from the field's suggestions
(``agent.suggestions``), on pages written for these tests."""

from __future__ import annotations

from agenthost.agent import DeterministicPolicy
from agenthost.agent.actions import PROXY_TOOLS, Action
from tests.support.policy import decide, expect, snapshot_of, wire

TASK = 'Fill in a city that begins with "Ber" and ends with "lin", then send it.'


def _tree(value: str = "", listed: tuple[str, ...] = ()) -> str:
    box = f'- textbox "City": {value}' if value else '- textbox "City"'
    items = "".join(f"\n  - listitem: {x}" for x in listed)
    return f"- text: {TASK}\n{box}\n- button \"Send\"" + (f"\n- list:{items}" if listed else "")


def test_the_start_is_typed_then_the_fitting_suggestion_clicked_then_the_form_sent():
    expect(decide(TASK, _tree()), typed={"City": "Ber"}, clicked=[])  # nothing sent before the value is whole
    expect(decide(TASK, _tree("Ber", ("Bergen", "Berlin", "Bern"))), typed={}, clicked=["Berlin"])
    expect(decide(TASK, _tree("Berlin")), typed={}, clicked=["Send"])


def test_no_fitting_suggestion_sends_nothing():
    assert wire(decide(TASK, _tree("Ber", ("Bergen", "Bern")))) == [("wait", None, None)]  # a look, no submit


def test_suggestions_not_shown_yet_are_looked_for_a_few_times_then_given_up():
    from agenthost.agent.actions import OLYMPICS_TOOLS
    from agenthost.agent.aria import from_aria
    from agenthost.agent.suggestions import MAX_LOOKS

    memory: dict = {}
    for _ in range(MAX_LOOKS):
        d = DeterministicPolicy().decide(TASK, from_aria(_tree("Ber")), [], memory, OLYMPICS_TOOLS, None)
        assert [a.tool for a in d.actions] == ["wait"]  # the list may come a moment after typing
        memory = d.memory
    again = DeterministicPolicy().decide(TASK, from_aria(_tree("Ber")), [], memory, OLYMPICS_TOOLS, None)
    # still nothing that fits: an honest give-up, never the form sent with a value that does not fit
    assert again.done and not again.success and not again.actions


def _own_list(task, field, button, options):
    """A snapshot page: the task, a field listing its own suggestions (the browser's off), its button, the
    options listed so far."""
    (fid, label, value), (bid, text), (prefix, listed) = field, button, options
    return snapshot_of([task, {"id": fid, "tag": "input", "label": label, "value": value, "autocomplete": "off"},
                        {"id": bid, "tag": "button", "text": text}]
                       + [{"id": f"{prefix}{i}", "tag": "li", "role": "option", "text": x}
                          for i, x in enumerate(listed)])


def test_a_field_listing_its_own_suggestions_is_asked_for_them_by_the_down_arrow_after_the_start_is_typed():
    task = 'Choose a fruit whose name starts with "Ma" and ends with "go", then press Next.'

    def page(value, listed=()):
        return _own_list(task, ("f", "Fruit", value), ("n", "Next"), ("o", listed))

    policy = DeterministicPolicy()
    d = policy.decide(task, page(""), [], {}, PROXY_TOOLS, None)
    assert [(a.tool, a.resolved.ref, a.args.get("text")) for a in d.actions] == [("type", "f", "Ma")]
    history = list(d.actions)
    # the list has not come yet: the down arrow in the field asks for it at once, no give-up
    d = policy.decide(task, page("Ma"), history, d.memory, PROXY_TOOLS, None)
    assert [(a.tool, a.resolved.ref, a.args.get("key")) for a in d.actions] == [("press", "f", "ArrowDown")]
    assert not d.done
    history.append(d.actions[0])
    d = policy.decide(task, page("Ma", ("Mandarin", "Mango", "Marula")), history, d.memory, PROXY_TOOLS, None)
    assert [(a.tool, a.resolved.ref) for a in d.actions][:1] == [("click", "o1")]


def _typed(field: str, text: str):
    return [Action("type", {"element": field, "text": text})]


def test_a_value_just_typed_is_completed_from_the_suggestion_that_matches_the_task_best():
    task = "Send a parcel. Destination: Porto, Portugal. Then press Quote."
    tree = ('- textbox "Destination": Porto\n- textbox "Weight"\n- button "Quote"\n- list:\n'
            '  - listitem: Porto Alegre, Brazil\n  - listitem: Porto, Portugal (OPO)\n'
            '  - listitem: Portoviejo, Ecuador')
    assert wire(decide(task, tree, history=_typed("Destination", "Porto")))[0] == \
        ("click", "Porto, Portugal (OPO)", None)
    # the same list on the extension's element snapshot: its list items (and the list's own box) and buttons
    snap = snapshot_of([task, {"id": "f1", "tag": "input", "label": "Pick-up station", "value": "Lyon"},
                        {"id": "go", "tag": "button", "text": "Quote"},
                        {"id": "box", "tag": "ul", "clickable": True,
                         "text": "Lyon Part-Dieu Lyon Saint-Exupéry Airport"},
                        {"id": "s1", "tag": "li", "role": "option", "text": "Lyon Part-Dieu"},
                        {"id": "s2", "tag": "li", "role": "option", "text": "Lyon Saint-Exupéry Airport"}])
    d = decide("Book a taxi from the pick-up station: Lyon Saint-Exupéry.", snap,
               history=_typed("Pick-up station", "Lyon"), tools=PROXY_TOOLS)
    assert [(a.tool, a.resolved.ref) for a in d.actions][:1] == [("click", "s2")]


def test_the_first_listed_of_equal_suggestions_is_taken_and_none_once_the_field_took_one():
    task = "Find stores near: Springfield. Then press Search."
    listed = ('- textbox "Town": Springfield\n- button "Search"\n- list:\n'
              '  - listitem: Springfield, IL\n  - listitem: Springfield, MO')
    # the task tells them no further apart: the page's first, as Enter on its list would take
    assert wire(decide(task, listed, history=_typed("Town", "Springfield")))[0] == ("click", "Springfield, IL", None)
    # the field already holds the suggestion (the last thing typed is not what it shows): nothing more to pick
    task2 = "Find stores near: Springfield, MO. Then press Search."
    took = ('- textbox "Town": Springfield, MO\n- button "Search"\n- list:\n'
            '  - listitem: Springfield, IL\n  - listitem: Springfield, MO (SGF)')
    assert wire(decide(task2, took, history=_typed("Town", "Springfield")))[0] == ("click", "Search", None)


def test_a_field_listing_its_own_suggestions_is_asked_for_its_list_then_the_completed_value_is_kept():
    task = "Plan a ride. Start: Gdansk, then press Find rides."

    def page(value, listed=()):
        return _own_list(task, ("a1", "Start", value), ("go", "Find rides"), ("s", listed))

    policy, memory, history = DeterministicPolicy(), {}, _typed("Start", "Gdansk")
    d = policy.decide(task, page("Gdansk"), history, memory, PROXY_TOOLS, None)
    # the list comes a moment after typing: the down arrow in the field asks for it at once
    assert [(a.tool, a.resolved.ref, a.args["key"]) for a in d.actions] == [("press", "a1", "ArrowDown")]
    assert d.actions[0].to_proxy() == {"name": "press", "parameters": {"key": "ArrowDown", "id": "a1"}}
    memory, history = d.memory, [*history, d.actions[0]]
    # a protocol with no key to press looks once more instead
    from agenthost.agent.actions import OLYMPICS_TOOLS
    looked = policy.decide(task, page("Gdansk"), _typed("Start", "Gdansk"), {}, OLYMPICS_TOOLS, None)
    assert [a.tool for a in looked.actions] == ["wait"]
    # where it still does not show, nothing more is pressed: the form goes on with what was typed
    again = policy.decide(task, page("Gdansk"), history, memory, PROXY_TOOLS, None)
    assert [(a.tool, a.resolved.ref) for a in again.actions] == [("click", "go")]
    d = policy.decide(task, page("Gdansk", ("Gdansk Glowny (station)",)), history, memory, PROXY_TOOLS, None)
    # the suggestion, then the form's button: nothing else was left for the form
    assert [(a.tool, a.resolved.ref) for a in d.actions] == [("click", "s0"), ("click", "go")]
    # the field now holds the page's form of what was typed: it is not typed over, the form goes on
    d = policy.decide(task, page("Gdansk Glowny (station)"), [*history, d.actions[0]], d.memory, PROXY_TOOLS, None)
    assert [(a.tool, a.resolved.ref) for a in d.actions] == [("click", "go")]


def test_a_suggestion_the_down_arrow_put_in_the_field_is_replaced_by_the_fitting_one_or_kept_and_sent():
    task = "Find stores near: Springfield, MO. Then press Search."
    history = [*_typed("Town", "Springfield"), Action("press", {"element": "Town", "key": "ArrowDown"})]

    def tree(value):
        return (f'- textbox "Town": {value}\n- button "Search"\n- list:\n'
                '  - listitem: Springfield, IL\n  - listitem: Springfield, MO')

    assert wire(decide(task, tree("Springfield, IL"), history=history)) == \
        [("click", "Springfield, MO", None), ("click", "Search", None)]
    # the right one highlighted: chosen (which closes the list over the form), then the form sent
    assert wire(decide(task, tree("Springfield, MO"), history=history)) == \
        [("click", "Springfield, MO", None), ("click", "Search", None)]
    # the list gone and the field holding its completed value: the form is sent
    closed = '- textbox "Town": Springfield, MO\n- button "Search"'
    assert wire(decide(task, closed, history=history)) == [("click", "Search", None)]


def test_a_fitting_suggestion_the_field_holds_while_its_list_is_open_is_chosen_before_the_form_is_sent():
    task = 'Choose a fruit whose name starts with "Ma" and ends with "go", then press Next.'
    # the down arrow highlighted the item: the field shows it and the open list covers the form's button
    snap = snapshot_of([task, {"id": "f", "tag": "input", "label": "Fruit", "value": "Mango", "autocomplete": "off"},
                        {"id": "n", "tag": "button", "text": "Next"}, {"id": "o0", "tag": "li", "text": "Mango",
                                                                       "clickable": True}])
    policy = DeterministicPolicy()
    d = policy.decide(task, snap, [Action("type", {"element": "Fruit", "text": "Ma"})], {}, PROXY_TOOLS, None)
    assert [(a.tool, a.resolved.ref) for a in d.actions][:1] == [("click", "o0")]
    # the list closed: the form is sent
    shut = snapshot_of([task, {"id": "f", "tag": "input", "label": "Fruit", "value": "Mango", "autocomplete": "off"},
                        {"id": "n", "tag": "button", "text": "Next"}])
    d = policy.decide(task, shut, [Action("type", {"element": "Fruit", "text": "Ma"}), d.actions[0]], d.memory,
                      PROXY_TOOLS, None)
    assert [(a.tool, a.resolved.ref) for a in d.actions] == [("click", "n")]
