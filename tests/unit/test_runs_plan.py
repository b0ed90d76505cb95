"""The Proxy API executes one tool per step while the brain plans a batch: the adapter hands out the first
action and continues the plan on later steps while it fits the page; the policy sees its own earlier
actions (names, typed text) in the history; tables in the extension's whitespace-collapsed visibleText are
read. The real engine, adapter and deterministic policy decide; a small extension double applies the tools
to a page held as data and snapshots it again, like the extension does."""

from __future__ import annotations

import copy
import json

import pytest
from runs.agent_adapter import AgentBrain, make_plan
from runs.brain import StepContext
from runs.engine import RunEngine
from runs.models import AnswerRequest, PageSnapshot, StartRequest, StepRequest
from runs.repo import RunRepo
from runs.text_tables import tables_from_text

from agenthost.agent import Action
from agenthost.agent.snapshot import from_snapshot
from agenthost.store import Store


class Extension:
    """Applies Proxy API tools to a page held as data: typing sets a value (a select takes the option),
    clicking ticks a box, picks a radio or runs the button's ``on_click``; then snapshots it again."""

    def __init__(self, url, text, elements, on_click=None, fail=()):
        self.url, self.text, self.elements = url, text, copy.deepcopy(elements)
        self.on_click = on_click or {}
        self.fail = set(fail)  # element ids whose first action fails (a stale element, say)
        self.clicked: list[str] = []
        self.ts = 0

    def el(self, eid):
        return next((e for e in self.elements if e["id"] == eid), None)

    def snapshot(self):
        self.ts += 1
        return {"url": self.url, "title": "Page", "visibleText": self.text, "elements": copy.deepcopy(self.elements),
                "timestamp": self.ts}

    def execute(self, tool):
        name, p = tool["name"], tool.get("parameters") or {}
        if name in ("observe", "scroll", "press"):
            return {"success": True, "message": "ok"}
        e = self.el(p.get("id"))
        if e is None:
            return {"success": False, "error": f"element {p.get('id')} not found"}
        if p.get("id") in self.fail:
            self.fail.discard(p["id"])
            return {"success": False, "error": "element is not visible"}
        if name == "type":
            e["value"] = p.get("text", "")
            return {"success": True, "message": "Typed"}
        if name == "click":
            self.clicked.append(e.get("text") or e.get("label") or e["id"])
            if e.get("type") == "checkbox":
                e["checked"] = not e.get("checked")
            elif e.get("type") == "radio":
                for other in self.elements:
                    if other.get("name") == e.get("name") and other.get("type") == "radio":
                        other["checked"] = other is e
            elif e["id"] in self.on_click:
                self.on_click[e["id"]](self)
            return {"success": True, "message": "Clicked"}
        return {"success": False, "error": f"unknown tool {name}"}


@pytest.fixture
def engine(aws):
    return RunEngine(RunRepo(Store()), AgentBrain())


def play(engine, task, ext, mode="autonomous", max_steps=20, approve=True):
    """The extension's loop; returns (tools handed out, the final answer, the run id)."""
    rid = engine.start(StartRequest(task=task, mode=mode))["runId"]
    tools, result, first = [], None, True
    for _ in range(max_steps):
        snap = None if first else ext.snapshot()
        first = False
        reply = engine.step(rid, StepRequest.model_validate({"snapshot": snap, "lastActionResult": result}))
        if reply["action"] == "execute_tool":
            tools.append(reply["tool"])
            result = ext.execute(reply["tool"])
        elif reply["action"] == "ask_user":
            tools.append({"name": "ask_user", "question": reply["question"]})
            engine.answer(rid, AnswerRequest(approved=approve))
            result = None
        else:
            return tools, reply, rid
    raise AssertionError(f"no end after {max_steps} steps: {tools}")


BOOKING = [
    {"id": "agent-1", "tag": "select", "label": "Day", "options": ["Choose...", "Monday", "Tuesday"],
     "value": "Choose...", "form": "f"},
    {"id": "agent-2", "tag": "input", "type": "text", "label": "Player name", "form": "f"},
    {"id": "agent-3", "tag": "input", "type": "number", "label": "Players", "form": "f"},
    {"id": "agent-4", "tag": "button", "type": "submit", "text": "Confirm", "form": "f"},
]


def _confirm(ext):
    ext.text = "Squash court Day Player name Players Confirm Your court is booked."


def test_form_is_filled_one_tool_per_step_and_submitted_with_its_own_button(engine):
    ext = Extension("https://club.test/courts", "Squash court Day Player name Players Confirm", BOOKING,
                    on_click={"agent-4": _confirm})
    tools, end, _ = play(engine, "Reserve a squash court on Tuesday for 2 players under the name Ines Duarte.", ext)
    # the task never names the submit button: the plan made on the first snapshot carries it to the end
    assert [(t["name"], t["parameters"].get("id"), t["parameters"].get("text")) for t in tools] == [
        ("observe", None, None), ("type", "agent-1", "Tuesday"), ("type", "agent-2", "Ines Duarte"),
        ("type", "agent-3", "2"), ("click", "agent-4", None)]
    assert ext.clicked == ["Confirm"] and end["action"] == "finish"


def ctx_for(snapshot, step, history=(), memory=None, task="Reserve a squash court on Tuesday for 2 players under "
            "the name Ines Duarte.", avoid=()):
    return StepContext(task=task, mode="autonomous", snapshot=PageSnapshot.model_validate(snapshot),
                       history=list(history), step=step, max_steps=50, memory=copy.deepcopy(memory or {}),
                       avoid=list(avoid))


def first_step(brain):
    ext = Extension("https://club.test/courts", "Squash court", BOOKING)
    d = brain.decide(ctx_for(ext.snapshot(), 2))
    assert (d.tool, d.parameters["id"]) == ("type", "agent-1")
    ext.execute({"name": d.tool, "parameters": d.parameters})
    return ext, d


def test_plan_continues_while_it_fits_the_page():
    brain = AgentBrain()
    ext, d = first_step(brain)
    done = [{"step": 2, "tool": "type", "target": "agent-1", "url": ext.url, "ok": True}]
    nxt = brain.decide(ctx_for(ext.snapshot(), 3, done, d.memory))
    assert (nxt.tool, nxt.parameters) == ("type", {"text": "Ines Duarte", "clear": True, "id": "agent-2"})
    assert nxt.thinking.startswith("continuing the plan")


def test_plan_is_dropped_after_a_failed_action_and_the_policy_decides_afresh():
    brain = AgentBrain()
    ext, d = first_step(brain)
    failed = [{"step": 2, "tool": "type", "target": "agent-1", "url": ext.url, "ok": False}]
    snap = ext.snapshot()
    snap["elements"][0]["value"] = "Choose..."  # the selection did not happen
    nxt = brain.decide(ctx_for(snap, 3, failed, d.memory))
    assert not nxt.thinking.startswith("continuing the plan")
    assert (nxt.tool, nxt.parameters["id"]) == ("type", "agent-1")  # the day again, decided afresh


def test_plan_is_dropped_on_another_page_or_when_its_element_is_gone():
    brain = AgentBrain()
    ext, d = first_step(brain)
    done = [{"step": 2, "tool": "type", "target": "agent-1", "url": ext.url, "ok": True}]
    moved = {**ext.snapshot(), "url": "https://club.test/other"}
    assert not brain.decide(ctx_for(moved, 3, done, d.memory)).thinking.startswith("continuing the plan")
    renamed = ext.snapshot()
    renamed["elements"][1]["label"] = "Coach"
    assert not brain.decide(ctx_for(renamed, 3, done, d.memory)).thinking.startswith("continuing the plan")


def test_plan_is_dropped_when_typing_opened_new_controls_so_the_policy_sees_them():
    brain = AgentBrain()
    ext, d = first_step(brain)
    done = [{"step": 2, "tool": "type", "target": "agent-1", "url": ext.url, "ok": True}]
    snap = ext.snapshot()
    # what was typed opened a list of suggestions: the rest of the plan would close it unseen
    snap["elements"].append({"id": "agent-7", "tag": "li", "role": "option", "text": "Tuesday (indoor courts)"})
    assert not brain.decide(ctx_for(snap, 3, done, d.memory)).thinking.startswith("continuing the plan")
    # a click that shows new controls is what the plan expected: it goes on after a click as before
    clicked = [{"step": 2, "tool": "click", "target": "agent-1", "url": ext.url, "ok": True}]
    assert brain.decide(ctx_for(snap, 3, clicked, d.memory)).thinking.startswith("continuing the plan")
    # a field that lists its own suggestions (the browser's turned off): looked at before the plan goes on
    task = "Quote a parcel. Sender town: Leeds. Recipient town: Cork."
    fields = [{"id": "agent-1", "tag": "input", "label": "Sender town", "autocomplete": "off", "form": "q"},
              {"id": "agent-2", "tag": "input", "label": "Recipient town", "form": "q"},
              {"id": "agent-3", "tag": "button", "type": "submit", "text": "Get a quote", "form": "q"}]
    for suggests in (True, False):
        parcel = Extension("https://post.test/quote", "Parcels", fields)
        if not suggests:
            parcel.elements[0].pop("autocomplete")
        first = brain.decide(ctx_for(parcel.snapshot(), 2, task=task))
        assert (first.tool, first.parameters["id"]) == ("type", "agent-1")
        parcel.execute({"name": first.tool, "parameters": first.parameters})
        typed = [{"step": 2, "tool": "type", "target": "agent-1", "url": parcel.url, "ok": True}]
        nxt = brain.decide(ctx_for(parcel.snapshot(), 3, typed, first.memory, task=task))
        assert nxt.thinking.startswith("continuing the plan") is not suggests


def test_plan_follows_a_re_rendered_element_and_skips_what_is_done():
    brain = AgentBrain()
    ext, d = first_step(brain)
    done = [{"step": 2, "tool": "type", "target": "agent-1", "url": ext.url, "ok": True}]
    snap = ext.snapshot()
    snap["elements"][1]["id"] = "agent-9"  # the page rebuilt the name field: same field, new id
    snap["elements"][2]["value"] = "2"  # ...and the players already hold what the plan would type
    a = brain.decide(ctx_for(snap, 3, done, d.memory))
    assert (a.tool, a.parameters["id"], a.thinking.startswith("continuing")) == ("type", "agent-9", True)
    ext.elements[1]["id"], ext.elements[1]["value"], ext.elements[2]["value"] = "agent-9", "Ines Duarte", "2"
    done.append({"step": 3, "tool": "type", "target": "agent-9", "url": ext.url, "ok": True})
    b = brain.decide(ctx_for(ext.snapshot(), 4, done, a.memory))
    assert (b.tool, b.parameters, b.thinking.startswith("continuing")) == ("click", {"id": "agent-4"}, True)


def test_plan_yields_to_what_the_engine_asks_to_avoid():
    brain = AgentBrain()
    ext, d = first_step(brain)
    done = [{"step": 2, "tool": "type", "target": "agent-1", "url": ext.url, "ok": True}]
    nxt = brain.decide(ctx_for(ext.snapshot(), 3, done, d.memory, avoid=[("type", "agent-2")]))
    assert not nxt.thinking.startswith("continuing the plan")
    assert nxt.parameters.get("id") != "agent-2"


def test_a_planned_risky_action_still_asks_and_runs_once_approved(engine):
    elements = [{"id": "agent-1", "tag": "input", "type": "text", "label": "Your name", "form": "m"},
                {"id": "agent-2", "tag": "textarea", "label": "Message", "form": "m"},
                {"id": "agent-3", "tag": "button", "type": "submit", "text": "Send", "form": "m"}]

    def sent(ext):
        ext.text = "Write to the club Your name Message Send Thank you, your message was sent."

    ext = Extension("https://club.test/write", "Write to the club Your name Message Send", elements,
                    on_click={"agent-3": sent})
    tools, end, _ = play(engine, "Write to the club: your name is Ana Lima and the message is that the court 3 "
                                 "light is broken.", ext, mode="careful")
    names = [t["name"] for t in tools]
    assert names.count("ask_user") == 1 and "Send" in tools[names.index("ask_user")]["question"]
    assert names[names.index("ask_user") + 1:] == ["click"]  # approved: the planned send goes out
    assert ext.clicked == ["Send"] and end["action"] == "finish"


def test_the_policy_sees_what_it_typed_so_an_item_it_added_is_not_ticked(engine):
    """A list that gives every item a checkbox named after it: the item just added (typed by the agent)
    is not an instruction to tick it; the history says what was typed, not only an element id."""
    elements = [{"id": "agent-1", "tag": "input", "type": "text", "label": "New item", "form": "f"},
                {"id": "agent-2", "tag": "button", "type": "submit", "text": "Add", "form": "f"},
                {"id": "agent-3", "tag": "input", "type": "checkbox", "label": "Pay rent", "checked": False}]
    seq = iter(range(10, 100))

    def add(ext):
        field = ext.el("agent-1")
        value, field["value"] = field.get("value", ""), ""
        # the list is rendered again: every checkbox gets a new id
        boxes = [e for e in ext.elements if e.get("type") == "checkbox"]
        ext.elements = ext.elements[:2] + [{**b, "id": f"agent-{next(seq)}"} for b in boxes] + \
            [{"id": f"agent-{next(seq)}", "tag": "input", "type": "checkbox", "label": value, "checked": False}]

    ext = Extension("https://todo.test/", "My list New item Add Pay rent", elements, on_click={"agent-2": add})
    tools, end, _ = play(engine, 'Add the item "Renew passport" to the list and mark "Pay rent" as done.', ext)
    boxes = {e["label"]: e["checked"] for e in ext.elements if e.get("type") == "checkbox"}
    assert boxes == {"Pay rent": True, "Renew passport": False}, tools
    assert end["action"] == "finish"


def test_no_secret_is_kept_in_the_plan_or_the_history(engine, aws):
    elements = [{"id": "agent-1", "tag": "input", "type": "text", "label": "Username", "form": "s"},
                {"id": "agent-2", "tag": "input", "type": "password", "label": "Password", "form": "s"},
                {"id": "agent-3", "tag": "button", "type": "submit", "text": "Create account", "form": "s"}]

    def created(ext):
        ext.text = "Sign up Username Password Create account Welcome, your account was created."

    ext = Extension("https://club.test/signup", "Sign up Username Password Create account", elements,
                    on_click={"agent-3": created})
    tools, end, rid = play(engine, "Create an account with username ana_l and a strong password.", ext)
    typed = [t["parameters"]["text"] for t in tools if t["name"] == "type" and t["parameters"]["id"] == "agent-2"]
    assert len(typed) == 1 and len(typed[0]) >= 8 and ext.clicked == ["Create account"]
    meta = aws.get(f"RUN#{rid}", "META")
    meta.pop("last", None)  # the stored last answer, kept only to replay a retried /step exactly
    meta.pop("snap_z", None)  # the snapshot (compressed): password values are masked in it (test_runs_secrets)
    stored = json.dumps(meta, default=str) + json.dumps(list(aws.query(f"RUN#{rid}", "STEP#")), default=str)
    assert typed[0] not in stored


def test_a_password_the_task_states_is_planned_by_its_place_in_the_task():
    page = from_snapshot({"url": "https://club.test/in", "elements": [
        {"id": "agent-1", "tag": "input", "type": "password", "label": "Password"},
        {"id": "agent-2", "tag": "button", "text": "Sign in"}]})
    task = "Sign in with the password Quartz-River-42"
    pw, button = page.elements
    plan = make_plan([Action("type", {"element": "agent-1", "text": "Quartz-River-42"}, resolved=pw),
                      Action("click", {"element": "agent-2"}, resolved=button)], page, 3, task)
    assert "Quartz-River-42" not in json.dumps(plan)
    assert plan["actions"][0]["args"]["text_at"] == [26, 41] and len(plan["actions"]) == 2


FLAT = ("Rainfall by town 2023 Town Region Rain (mm) Days Ashby North 812 141 Brill South 604 120 "
        "Corfe West 1,020 162 Dunmore East 655 118 Your answer Submit")


def test_tables_are_read_from_whitespace_collapsed_text():
    assert tables_from_text(FLAT) == [[["Town", "Region", "Rain (mm)", "Days"], ["Ashby", "North", "812", "141"],
                                       ["Brill", "South", "604", "120"], ["Corfe", "West", "1,020", "162"],
                                       ["Dunmore", "East", "655", "118"]]]


def test_tables_from_tab_separated_lines():
    text = "Rainfall\nTown\tRain (mm)\nAshby\t812\nBrill\t604\nSubmit"
    assert tables_from_text(text) == [[["Town", "Rain (mm)"], ["Ashby", "812"], ["Brill", "604"]]]


@pytest.mark.parametrize("text,labels", [
    ("The guide says the statue is in the hall with the lowest number. Hall 4 Hall 9 Hall 2 Back", ["Hall 4", "Hall 9",
                                                                                                  "Hall 2"]),
    ("We opened in 1998 and moved in 2004. Since then 3 shops and 12 cafes joined us on 5 streets.", []),
    ("Step 1 of 3: About you Full name Birth year Next", ["Next"]),
])
def test_lists_of_controls_and_prose_are_not_tables(text, labels):
    assert tables_from_text(text, labels=labels) == []


def test_an_answer_from_a_flat_table_is_typed_and_checked(engine):
    elements = [{"id": "agent-1", "tag": "input", "type": "text", "label": "Your answer", "form": "q"},
                {"id": "agent-2", "tag": "button", "type": "submit", "text": "Submit", "form": "q"}]
    ext = Extension("https://weather.test/quiz", FLAT, elements,
                    on_click={"agent-2": lambda e: setattr(e, "text", FLAT + " Correct!")})
    tools, end, _ = play(engine, "Find the rain of Corfe in the table and enter it in the answer field, then "
                                 "submit.", ext)
    assert ext.el("agent-1")["value"] == "1,020" and ext.clicked == ["Submit"], tools
    assert end["action"] == "finish"
