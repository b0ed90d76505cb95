"""The deterministic policy's rule table (``agenthost.agent.rules``): each decision names the rules that acted,
every action it sends carries a registered rule, the protocols log the names with each turn or step, and the
arena and MiniWoB++ reports print the hits per rule (the rules that never fired too)."""

from __future__ import annotations

import importlib
import json

import pytest

from agenthost.agent import Action, rules
from agenthost.agent.actions import PROXY_TOOLS
from infra.arena.report import print_rule_hits, rule_hits
from tests.support.policy import decide


def test_rule_names_are_unique_and_each_names_where_its_body_lives():
    assert len({r.name for r in rules.RULES}) == len(rules.RULES) >= 25
    for r in rules.RULES:
        module, _, attr = r.where.partition(".")
        obj = importlib.import_module(f"agenthost.agent.{module}")
        for part in attr.split("(")[0].split("."):
            obj = getattr(obj, part)  # the function (or pattern) the table points to exists
        assert r.recognises and r.proposes


@pytest.mark.parametrize(("task", "tree", "kw", "expected"), [
    # a form the task gives a value for: the value typed, then the form's own button
    ("Join the mailing list as pat@example.org.",
     '- textbox "E-mail address"\n- button "Join"', {}, ["forms.fill-fields", "forms.submit"]),
    # a button the task names, nothing to fill
    ("Press the Archive button.", '- button "Archive"\n- button "Keep"', {}, ["navigation.named-click"]),
    # the page says it is done after the agent acted
    ("Send the feedback form.", '- status: Your feedback has been received, thank you.',
     {"memory": {"acted": True, "before": []}, "history": [Action("click", {"element": "Send"})]},
     ["outcome.completion"]),
    # the value a question asks for, shown on the page
    ("What is the opening time of the museum?", '- paragraph: "Opening time: 9:30"', {},
     ["answers.value-found"]),
    # an empty page and a URL in the task
    ("Go to https://library.example/ and find the hours.", "", {"url": "about:blank"}, ["open.task-url"]),
    # a pointer gesture no tool performs
    ("Drag the red square onto the circle.", '- button "Reset"', {}, ["gesture.give-up"]),
])
def test_a_decision_names_the_rule_that_acted(task, tree, kw, expected):
    d = decide(task, tree, **kw)
    assert d.rules == expected
    assert all(a.rule in rules.BY_NAME for a in d.actions)


def test_a_give_up_names_the_rule_that_ended_the_task():
    d = decide("Find the archive of the old library.", '- paragraph: "Opening hours: 9-5"',
               memory={"acted": True, "before": []}, history=[Action("click", {"element": "Hours"})])
    assert d.done and d.success is False and d.rules == ["outcome.nothing-left"]


def test_every_action_sent_on_a_multi_step_form_carries_its_rule():
    tree = ('- textbox "Name"\n- textbox "City"\n- textbox "Password"\n- combobox "Plan":\n'
            '  - option "Choose..." [selected]\n  - option "Basic"\n  - option "Team"\n'
            '- checkbox "I agree to the terms"\n- button "Register"\n- link "Help":\n  - /url: /help')
    d = decide("Register an account with name Ada Byron, city Leeds and the Team plan.", tree, tools=PROXY_TOOLS)
    assert d.actions and all(a.rule in rules.BY_NAME for a in d.actions)
    assert d.rules == rules.trace(d.actions)
    by_target = {a.resolved.name: a.rule for a in d.actions}
    assert by_target == {"Name": "forms.fill-fields", "City": "forms.fill-fields", "Password": "forms.password",
                         "Plan": "forms.list-choice", "I agree to the terms": "forms.tick",
                         "Register": "forms.submit"}


def _olympics_turn_log(monkeypatch) -> list[dict]:
    from olympics import app

    from tests.support.apigw import call
    from tests.support.olympics import SECRET, signed, turn_body

    monkeypatch.setenv("AGENTHOST_OLYMPICS_SECRET", SECRET)
    logged: list[dict] = []
    real = app.logger.info

    def capture(msg, *args, extra=None, **kw):
        logged.append({"message": msg, **(extra or {})})
        return real(msg, *args, extra=extra, **kw)

    monkeypatch.setattr(app.logger, "info", capture)
    body = turn_body(1, prompt="Register with first name Maria, last name Lopez, email maria@example.com, "
                               "country Germany.")
    raw, headers = signed(body)
    assert call(app.handler, "POST", "/olympics/turn", body=raw, headers=headers).status == 200
    return [line for line in logged if line["message"] == "olympics turn"]


def test_the_olympics_turn_log_names_the_rules_and_the_arena_report_counts_them(aws, monkeypatch):
    turns = _olympics_turn_log(monkeypatch)
    assert turns and "forms.fill-fields" in turns[0]["rules"]
    # the report reads the stack's log lines (Powertools writes the extra keys at the top level)
    lines = ["starting ...", *(json.dumps(t) for t in turns * 3), "not json {"]
    hits = rule_hits(lines)
    assert hits["olympics"]["forms.fill-fields"] == 3
    printed: list[str] = []
    print_rule_hits(hits, out=printed.append)
    text = "\n".join(printed)
    row = next(ln for ln in printed if ln.split() and ln.split()[0] == "forms.fill-fields")
    assert row.split()[1] == "3"
    assert "never fired" in text and "gesture.give-up" in text.split("never fired", 1)[1]
    assert "3 decisions" in text


def test_proxy_steps_log_the_rules_and_the_report_splits_the_paths(monkeypatch):
    from runs import agent_adapter
    from runs.brain import StepContext
    from runs.models import PageSnapshot

    logged: list[dict] = []
    monkeypatch.setattr(agent_adapter.logger, "info",
                        lambda msg, *a, extra=None, **kw: logged.append({"message": msg, **(extra or {})}))
    snap = {"url": "https://news.test/", "title": "Newsletter", "visibleText": "Newsletter",
            "elements": [{"id": "agent-1", "tag": "input", "type": "email", "ariaLabel": "E-mail address"},
                         {"id": "agent-2", "tag": "button", "text": "Join"}]}
    ctx = StepContext(task="Join the mailing list as pat@example.org.", mode="autonomous",
                      snapshot=PageSnapshot.model_validate(snap), history=[], step=1, max_steps=10)
    agent_adapter.AgentBrain().decide(ctx)
    steps = [line for line in logged if "rules" in line]
    assert steps and steps[0]["rules"] == ["forms.fill-fields", "forms.submit"]
    hits = rule_hits(json.dumps(s) for s in steps)
    assert hits["proxy"]["forms.submit"] == 1 and not hits.get("olympics")
    printed: list[str] = []
    print_rule_hits(hits, out=printed.append)
    assert any(ln.split()[:2] == ["forms.submit", "1"] for ln in printed if ln.split())


def test_no_log_lines_say_so_instead_of_a_table_of_zeros():
    printed: list[str] = []
    print_rule_hits(rule_hits(["ready", "plain text"]), out=printed.append)
    assert printed and "no rule hits" in printed[0]


def test_the_agent_readme_lists_every_rule_of_the_table():
    import re
    from pathlib import Path

    readme = (Path(rules.__file__).parent / "README.md").read_text()
    section = readme.split("## The rule table", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z.-]+)` \|", section, re.M)
    assert listed == [r.name for r in rules.RULES]


@pytest.mark.parametrize(("tree", "task", "url", "rule"), [
    # a completion line the page takes back: no success, and the trace says which rule refused it
    ('- heading "Welcome to the east gallery" [level=1]\n'
     '- paragraph: "Congratulations, visitor. The manuscript is not kept here."\n'
     '- link "Back to the entrance hall":\n  - /url: entrance.html',
     "Find the manuscript in the old museum.", "https://museum.test/east.html", "outcome.taken-back"),
    # a game under way: played on
    ('- paragraph: "Round 3 of 8"\n- paragraph: "What is 6 + 7?"\n- textbox "Answer"\n- button "Check"',
     "Play the addition game to the end.", "https://games.test/add.html", "outcome.under-way"),
    # the page reports a problem with what was sent
    ('- textbox "Postcode": 12\n- button "Save address"\n- alert: The postcode is too short.',
     "Save the address with postcode 12345.", "https://shop.test/address", "outcome.page-error"),
    # a completion message on another site is no evidence
    ('- heading "Thank you, your order is confirmed" [level=1]\n- link "Home":\n  - /url: /',
     "Order the blue kettle on shop.test.", "https://elsewhere.example/thanks", "outcome.off-site"),
])
def test_the_pages_verdict_that_shaped_a_decision_is_in_its_trace(tree, task, url, rule):
    d = decide(task, tree, url=url, memory={"acted": True, "before": [], "home": "shop.test"
                                           if "shop" in task else urls_host(url)},
               history=[Action("click", {"element": "Go"})])
    assert rule in d.rules and not (d.done and d.success)
    assert rules.BY_NAME[rule].recognises


def urls_host(url: str) -> str:
    from agenthost import urls

    return urls.host(url)
