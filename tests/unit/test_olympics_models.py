"""Lenient parsing of real-shaped AI Olympics requests; strict responses."""

import pytest
from olympics.models import SPEC_TOOLS, TurnRequest, TurnResponse
from pydantic import ValidationError

from tests.support.olympics import turn_body


def test_real_runner_shape_parses():
    body = turn_body(3, previous=[{"name": "type", "arguments": {"element": "First Name", "text": "Maria"}},
                                  {"name": "click", "arguments": {"element": "Submit"}}])
    assert "competitionId" not in body and "error" not in body["pageState"]
    req = TurnRequest.model_validate(body)
    assert req.turnNumber == 3 and req.competitionId is None and req.pageState.error is None
    assert [(a.tool, a.args) for a in req.previousActions] == [
        ("type", {"element": "First Name", "text": "Maria"}), ("click", {"element": "Submit"})]
    assert req.tools() == SPEC_TOOLS


def test_spec_shape_previous_actions_and_extra_fields():
    body = turn_body(previous=[{"tool": "navigate", "args": {"url": "https://x.test"}}],
                     competitionId="comp-456", somethingNew={"x": 1})
    body["pageState"]["error"] = "element not found"
    req = TurnRequest.model_validate(body)
    assert req.previousActions[0].tool == "navigate" and req.previousActions[0].args == {"url": "https://x.test"}
    assert req.competitionId == "comp-456" and req.pageState.error == "element not found"


def test_empty_available_tools_means_the_nine_spec_tools():
    assert TurnRequest.model_validate(turn_body(tools=[])).tools() == SPEC_TOOLS
    assert len(SPEC_TOOLS) == 9


def test_offered_tools_from_json_schema_openai_style_or_names():
    tools = [{"name": "click", "parameters": {}}, {"type": "function", "function": {"name": "type"}}, "scroll"]
    assert TurnRequest.model_validate(turn_body(tools=tools)).tools() == ("click", "type", "scroll")


@pytest.mark.parametrize("patch", [
    {"previousActions": None}, {"previousActions": "oops"}, {"availableTools": None}, {"turnNumber": "7"},
    {"turnNumber": None}, {"task": None}, {"pageState": None}, {"timestamp": "1704067200000"},
])
def test_odd_values_do_not_fail(patch):
    req = TurnRequest.model_validate({**turn_body(), **patch})
    assert req.turnNumber >= 1


def test_arguments_given_as_json_text_are_decoded():
    req = TurnRequest.model_validate(turn_body(previous=[{"name": "click", "arguments": '{"element": "Go"}'}]))
    assert req.previousActions[0].args == {"element": "Go"}


def test_response_is_strict_and_done_carries_a_result():
    r = TurnResponse(thinking="t", actions=[{"tool": "click", "args": {"element": "Go"}}], done=False)
    assert r.wire() == {"thinking": "t", "actions": [{"tool": "click", "args": {"element": "Go"}}], "done": False}
    assert TurnResponse(done=True).wire()["result"] == {"success": True}
    with pytest.raises(ValidationError):
        TurnResponse(actions=[{"tool": "click", "args": {}}] * 11)
    with pytest.raises(ValidationError):
        TurnResponse(actions=[{"tool": "click", "args": {}, "extra": 1}])
