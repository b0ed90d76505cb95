"""Whatever a correctly signed body holds, the webhook answers 200 with a valid turn (the platform ends the
task on anything else)."""

import json
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from olympics.app import handler

from tests.support.apigw import call
from tests.support.olympics import SECRET, signed, turn_body

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20)

FIELDS = ["task", "pageState", "previousActions", "turnNumber", "availableTools", "agentId", "timestamp"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(FIELDS), value=json_values,
       tree=st.text(alphabet=st.sampled_from(list('- "abc:\n[]/=')), max_size=200))
def test_any_signed_body_gets_a_valid_turn(aws, monkeypatch, field, value, tree):
    monkeypatch.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)
    body = turn_body(1, tree=tree)
    body[field] = value
    if field == "timestamp":
        body[field] = int(time.time() * 1000)  # the body timestamp is not what is fuzzed here
    raw, headers = signed(json.dumps(body).encode())
    resp = call(handler, "POST", "/olympics/turn", body=raw, headers=headers)
    assert resp.status == 200
    out = resp.json()
    assert isinstance(out["actions"], list) and len(out["actions"]) <= 10
    assert isinstance(out["done"], bool) and isinstance(out.get("thinking", ""), str)
    for a in out["actions"]:
        assert set(a) == {"tool", "args"} and isinstance(a["args"], dict)
