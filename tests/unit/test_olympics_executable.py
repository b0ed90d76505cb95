"""Only actions the AI Olympics runner can execute leave the webhook (olympics.executable)."""

import pytest
from olympics import executable
from olympics.models import SPEC_TOOLS

from tests.support.olympics import FORM_TREE


def kept(actions, tree=FORM_TREE, tools=SPEC_TOOLS):
    v = executable.sanitize(actions, tree, tools)
    return [(a.tool, a.args) for a in v.actions], v.dropped


def test_a_whole_form_in_one_turn_is_kept_in_order():
    form = [
        {"tool": "type", "args": {"element": "First Name", "text": "Maria"}},
        {"tool": "type", "args": {"element": "last name", "text": "Lopez", "clear": True}},
        {"tool": "select", "args": {"element": "Country", "option": "Germany"}},
        {"tool": "click", "args": {"element": "I accept the terms"}},
        {"tool": "click", "args": {"element": "Submit Registration"}},
    ]
    actions, dropped = kept(form)
    assert [a[0] for a in actions] == ["type", "type", "select", "click", "click"] and dropped == []


def test_at_most_ten_actions():
    many = [{"tool": "type", "args": {"element": "Email", "text": f"a{i}@x.org"}} for i in range(14)]
    actions, dropped = kept(many)
    assert len(actions) == 10 and len(dropped) == 4


def test_only_offered_tools():
    actions, dropped = kept([{"tool": "scroll", "args": {"direction": "down"}},
                             {"tool": "type", "args": {"element": "Email", "text": "x@y.z"}}], tools=("type",))
    assert actions == [("type", {"element": "Email", "text": "x@y.z"})] and "not offered" in dropped[0]


@pytest.mark.parametrize("action", [
    {"tool": "click", "args": {"element": "Delete account"}},
    {"tool": "type", "args": {"element": "Phone", "text": "123"}},
    {"tool": "select", "args": {"element": "Language", "option": "French"}},
    {"tool": "select", "args": {"element": "Country", "option": "Atlantis"}},
    {"tool": "type", "args": {"element": "Submit Registration", "text": "x"}},  # a button is not a field
])
def test_every_element_must_be_on_the_page(action):
    actions, dropped = kept([action])
    assert actions == [] and dropped


def test_submit_needs_form_and_scroll_only_up_down():
    actions, dropped = kept([{"tool": "submit", "args": {}}, {"tool": "scroll", "args": {"direction": "left"}},
                             {"tool": "scroll", "args": {"direction": "down", "amount": 99999}}])
    assert actions == [("scroll", {"direction": "down", "amount": 5000})] and len(dropped) == 2
    assert kept([{"tool": "submit", "args": {"form": "registration"}}])[0] == [("submit", {"form": "registration"})]


@pytest.mark.parametrize("text", [
    "<script>alert(1)</script>", "x onerror=alert(1)", "eval(atob('x'))", "process.env.SECRET",
    "javascript:alert(1)", "QUJD" * 40,
])
def test_script_like_text_is_dropped(text):
    actions, dropped = kept([{"tool": "type", "args": {"element": "Email", "text": text}}])
    assert actions == [] and "script" in dropped[0]


def test_batch_ends_after_a_page_changing_click_or_navigation():
    actions, dropped = kept([{"tool": "click", "args": {"element": "Home"}},
                             {"tool": "type", "args": {"element": "Email", "text": "x@y.z"}}])
    assert actions == [("click", {"element": "Home"})] and "after a page-changing" in dropped[0]
    actions, _ = kept([{"tool": "navigate", "args": {"url": "https://example.com/"}},
                       {"tool": "click", "args": {"element": "Home"}}])
    assert actions == [("navigate", {"url": "https://example.com/"})]


def test_checkbox_click_does_not_end_the_batch():
    actions, _ = kept([{"tool": "click", "args": {"element": "I accept the terms of service"}},
                       {"tool": "click", "args": {"element": "Submit Registration"}}])
    assert len(actions) == 2


def test_navigate_only_http_and_done_becomes_the_response_flag():
    actions, dropped = kept([{"tool": "navigate", "args": {"url": "file:///etc/passwd"}},
                             {"tool": "done", "args": {"success": True}}])
    assert actions == [] and len(dropped) == 2


def test_garbage_is_dropped_not_raised():
    actions, dropped = kept([None, 3, "click", {"tool": "click"}, {"args": {"element": "Home"}}])
    assert actions == [] and len(dropped) == 5


def test_result_is_a_json_object_when_the_task_asks_for_one():
    assert executable.clean_result("42", "Return the answer as a JSON object") == {"answer": "42"}
    assert executable.clean_result('{"price": "$5"}', "Report the price as JSON") == {"price": "$5"}
    assert executable.clean_result("Graz has 298,479 people", "How many people live in Graz?") == \
        "Graz has 298,479 people"
    assert executable.clean_result(None, "anything") == {"success": True}
    assert "withheld" in executable.clean_result("<script>x</script>", "x")["note"]


def test_a_name_the_runner_would_resolve_to_another_element_first_is_dropped():
    tree = '- textbox "First Name"\n- textbox "Name"\n- button "Save draft"\n- button "Save"'
    actions, dropped = kept([{"tool": "type", "args": {"element": "Name", "text": "x"}},
                             {"tool": "type", "args": {"element": "First Name", "text": "Ann"}},
                             {"tool": "click", "args": {"element": "Save"}}], tree=tree)
    assert actions == [("type", {"element": "First Name", "text": "Ann"})]
    assert "another field" in dropped[0] and "another element" in dropped[1]
    # the same names in an order the runner resolves correctly are kept
    tree = '- textbox "Name"\n- textbox "First Name"\n- button "Save"\n- button "Save draft"'
    actions, _ = kept([{"tool": "type", "args": {"element": "Name", "text": "x"}},
                       {"tool": "click", "args": {"element": "Save"}}], tree=tree)
    assert len(actions) == 2


def test_a_target_the_brain_resolved_on_this_page_is_not_resolved_again(monkeypatch):
    """The brain's guards resolved each target once (``resolved``, with the name that reaches it); only names
    nobody resolved, or resolved on another page, are looked up again the way the runner does."""
    from agenthost.agent import Action
    from agenthost.agent.aria import from_aria
    from agenthost.agent.guards import check_actions

    page = from_aria(FORM_TREE)
    brain = check_actions([Action("type", {"element": "First Name", "text": "Maria"}),
                           Action("select", {"element": "Country", "option": "Germany"}),
                           Action("click", {"element": "Submit Registration"})], page).actions
    looked_up = []
    real = executable.runner_hit
    monkeypatch.setattr(executable, "runner_hit", lambda *a: looked_up.append(a[1:]) or real(*a))

    v = executable.sanitize(brain, FORM_TREE, SPEC_TOOLS, page)
    assert [(a.tool, a.args["element"]) for a in v.actions] == \
        [("type", "First Name"), ("select", "Country"), ("click", "Submit Registration")]
    assert looked_up == []

    v = executable.sanitize(brain, FORM_TREE, SPEC_TOOLS, from_aria(FORM_TREE))  # another page: looked up
    assert len(v.actions) == 3 and ("type", "First Name") in looked_up


def test_a_resolved_target_whose_name_is_another_elements_exact_name_is_still_refused():
    """Not looking a resolved target up again keeps the exact-name rule: a name that is another element's
    whole name, sent for a different element, would read as that other element, and is not sent."""
    from agenthost.agent import Action
    from agenthost.agent.aria import from_aria

    tree = '- button "Save settings"\n- button "Save"'
    page = from_aria(tree)
    settings_button = page.elements[0]
    v = executable.sanitize([Action("click", {"element": "Save"}, resolved=settings_button)], tree, SPEC_TOOLS, page)
    assert v.actions == [] and "would hit another element first" in v.dropped[0]
    v = executable.sanitize([Action("click", {"element": "Save settings"}, resolved=settings_button)], tree,
                            SPEC_TOOLS, page)
    assert [a.args["element"] for a in v.actions] == ["Save settings"]
