"""What one turn of the deterministic policy plans to do on this page, in the cascade's order.

The turn is read once (:class:`Turn`, :func:`read_turn`: the task's facts, the page, what earlier turns did,
the loop guard); the page's verdict is taken (:func:`page_verdict`: lines shown before acting and pages on
another site are no evidence); then :func:`task_plan` asks the rules for what the task wants of this page
(a suggestion to pick, a calendar date, a guess, a terminal command, fields, pointed controls, quoted
clicks, items, choices, a problem's answer, the form's submit button, named clicks), :func:`task_answer`
reads the answer to the task's question the page shows, and :func:`other_routes` finds something else to do
when nothing the task names is left (a repeat, back to the task's site, a code's field, the value found
clicked, the item opened, the next step, the best link, an escalation). Each action carries its rule's name
(:mod:`~agenthost.agent.rules`). :class:`~agenthost.agent.policy.DeterministicPolicy` sends the plan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agenthost import urls
from agenthost.agent import codes, rules, scope
from agenthost.agent.actions import Action, avoid_set, is_avoided, tool_names
from agenthost.agent.answers import answer_from
from agenthost.agent.calendar import calendar_actions
from agenthost.agent.choices import classify_clicks, extreme_choice, generate_actions
from agenthost.agent.forms import empty_referred, fill_fields, item_clicks, submit_button
from agenthost.agent.guessing import guess_actions
from agenthost.agent.listbox import listbox_actions
from agenthost.agent.loops import LoopGuard
from agenthost.agent.menus import menu_actions
from agenthost.agent.navigation import (
    best_link,
    escalate,
    named_clicks,
    next_step,
    repeat_named,
)
from agenthost.agent.orders import order_actions
from agenthost.agent.outcome import Outcome, judge, success_keys, taken_back
from agenthost.agent.page import Element, Page
from agenthost.agent.paging import seek_actions
from agenthost.agent.problems import skill_actions
from agenthost.agent.progress import Seen, action_key
from agenthost.agent.references import reference_actions, unverified
from agenthost.agent.results import nth_result
from agenthost.agent.reveals import expand_clicks, quoted_clicks
from agenthost.agent.scrolling import scroll_actions, scrolled
from agenthost.agent.sliders import slider_actions
from agenthost.agent.suggestions import suggestion_actions, typed_suggestion
from agenthost.agent.synonyms import unmatched_by_meaning
from agenthost.agent.task import TaskFacts, read_task
from agenthost.agent.terminal import command_actions
from agenthost.agent.waiting import wait_actions
from agenthost.agent.web_guard import off_site
from agenthost.config import settings
from agenthost.deadline import Deadline

#: the task wants a value put into the page (so finding the value on the page does not finish it)
_ENTER_ANSWER = re.compile(r"\b(enter|type|fill(?: in| out)?|submit|put|write|input|paste|record|send|save|"
                           r"complete the (?:form|report))\b", re.I)

@dataclass
class Turn:
    """One decision's inputs, read once: the task's facts, the page, what earlier turns did."""

    facts: TaskFacts
    page: Page
    history: Sequence[Action]
    memory: dict[str, Any]
    names: tuple[str, ...]
    loops: LoopGuard
    avoid: set[tuple[str, str]]
    seen: Seen
    visited: list[str]
    #: the turn's deadline (what the caller gave, or ``decide_budget_s`` from now)
    deadline: Deadline
    careful: bool
    #: keys of the actions already sent on exactly this page state without changing it
    futile: set[str] = field(default_factory=set)
    #: why the task cannot go on from here (set by a rule that knows no other route may be taken): a give-up
    blocked: str = ""
    #: the rule that set ``blocked``
    blocked_by: rules.Rule = rules.NOTHING_LEFT
    #: the rules of the page's verdict that shaped this decision (first in its trace)
    noted: list[str] = field(default_factory=list)


def submit_action(submit: Element) -> Action:
    """A click on the form's submit button (:func:`~agenthost.agent.forms.submit_button`), tagged with its rule."""
    return Action("click", {"element": submit.name}, resolved=submit, why="submit the form", rule=rules.SUBMIT.name)


def read_turn(task: str, page: Page, history: Sequence[Action], memory: dict[str, Any] | None,
               tools: Iterable[Any] | None, deadline: Deadline | float | None, careful: bool,
               avoid: Iterable[Any]) -> Turn:
    memory = dict(memory or {})
    if history:
        memory["acted"] = True
    answers = [str(a) for a in memory.get("user_answers") or [] if str(a).strip()]
    facts = read_task(task + ("\n" + "\n".join(answers) if answers else ""))
    loops = LoopGuard(memory)
    seen = Seen(history, page, memory)
    visited = [u for u in memory.get("visited", []) if isinstance(u, str)]
    here = page.url.split("#", 1)[0]
    if here and here not in visited:
        visited.append(here)
        memory["visited"] = visited[-50:]
    codes.remember(page, memory)
    codes.note_waiting(page, facts, memory)
    return Turn(facts, page, history, memory, tool_names(tools), loops, avoid_set(avoid), seen, visited,
                 Deadline.of(deadline, settings().decide_budget_s), careful)


def page_verdict(t: Turn) -> Outcome:
    """The page's verdict (:func:`~agenthost.agent.outcome.judge`): lines shown before the agent acted
    are no evidence, and neither is a page on another site than the task's unless the task names it."""
    memory, page, facts = t.memory, t.page, t.facts
    if ("before" not in memory and not t.history and not memory.get("acted")) or memory.get("nav_only"):
        # the first page, and a page the agent only navigated to: what they show was there before acting
        memory["before"] = (list(memory.get("before") or []) + success_keys(page))[-40:]
    if not memory.get("home"):
        home = urls.host(facts.urls[0]) if facts.urls else urls.host(page.url)
        if home:
            memory["home"] = home
    verdict = judge(page, memory.get("before") or (), facts.text)
    if verdict.kind in ("success", "failure") and off_site(page.url, memory.get("home", ""), facts):
        t.noted.append(rules.OFF_SITE.name)
        return Outcome(None, "")
    shaped = {"progress": rules.UNDER_WAY, "error": rules.PAGE_ERROR, "failure": rules.FAILURE}.get(verdict.kind or "")
    if shaped is not None:
        t.noted.append(shaped.name)
    if verdict.kind != "success" and taken_back(page, memory.get("before") or (), facts.text):
        t.noted.append(rules.TAKEN_BACK.name)
    return verdict


def task_plan(t: Turn, verdict: Outcome) -> list[Action]:
    """What the task asks of this page: named items, fields, a problem's answer, the form's submit button,
    the buttons, tabs and links it names; nothing ``avoid`` names, and never a batch that changed nothing."""
    picked, completed = typed_suggestion(t.facts, t.page, t.history, t.seen, t.names)
    completing = [a for a in rules.tag(rules.TYPED_SUGGESTION, picked) if not is_avoided(a, t.avoid)]
    if not completing and not completed:
        return form_plan(t, verdict)
    if completing and completing[0].tool in ("wait", "press"):
        return completing  # the field's suggestions may still come: asked for before anything moves on
    # the list a value just typed opened closes as soon as anything else is done: its suggestion first, then
    # the rest of the form, or its submit when the suggestion was the last thing the form waited for
    rest = [a for a in form_plan(t, verdict) if a.resolved is None or a.resolved not in
            [c.resolved for c in completing]]
    if not rest:
        submit = submit_button(t.facts, t.page, [], t.avoid)
        if submit is not None and all(submit is not c.resolved for c in completing):
            rest = [submit_action(submit)]
    return completing + rest


def form_plan(t: Turn, verdict: Outcome) -> list[Action]:
    """:func:`task_plan` past a suggestion to pick first."""
    facts, page, seen, names = t.facts, t.page, t.seen, t.names
    picking = [a for a in rules.tag(rules.CALENDAR, calendar_actions(facts, page, seen)) if not is_avoided(a, t.avoid)]
    if picking:
        return picking  # each click on a calendar changes what the next one must be
    suggested = suggestion_actions(facts, page, seen, names)
    if suggested is not None:
        # a value the task describes by its start and end: typed, completed from the page's suggestions, and
        # sent only once the field holds one that fits
        acts, ready = rules.tag(rules.SUGGESTION, suggested[0]), suggested[1]
        if not acts and not ready:
            t.blocked_by = rules.NO_SUGGESTION
            t.blocked = "No suggestion the page lists starts and ends as the task asks, so no value fits the field."
        if acts or not ready:
            return [a for a in acts if not is_avoided(a, t.avoid)]
        submit = submit_button(facts, page, [], t.avoid)
        return [submit_action(submit)] if submit else []
    ordering = order_actions(facts, page) if verdict.kind != "success" else None
    if ordering is not None:
        # items ordered by quantity: each "+" (or "-") clicked until the page shows the asked amounts; the
        # task's button only then (never an order sent with nothing chosen)
        acts, complete, why = ordering
        acts = [a for a in rules.tag(rules.ORDER, acts) if not is_avoided(a, t.avoid)]
        if acts:
            return acts
        if not complete:
            t.blocked_by = rules.ORDER_UNPLACED
            t.blocked = why or "The order the task asks for cannot be placed on this page."
            return []
    if verdict.kind != "success":
        unknown = unmatched_by_meaning(facts, page)
        if unknown:  # boxes picked by meaning: a word with no box of its own cannot be told here
            t.blocked_by = rules.BY_MEANING
            t.blocked = (f"The task asks for the boxes that mean the same as {', '.join(repr(w) for w in unknown)}; "
                         "no box carries that word, and this agent cannot tell which other word means the same.")
            return []
        guessing = guess_actions(facts, page, t.memory, t.names, t.avoid,
                                 submitted=bool(t.history) and t.history[-1].tool == "click")
        if guessing is not None:  # a number to find: the page's answers to the guesses narrow it down
            if not guessing:
                t.blocked_by = rules.GUESS
                t.blocked = "The page's answers leave no number in the range the task gives."
            return rules.tag(rules.GUESS, guessing)
        commands = command_actions(facts, page, t.names, t.history)
        if commands is not None:  # a terminal: the next command the task needs, typed key by key
            return [a for a in rules.tag(rules.TERMINAL, commands) if not is_avoided(a, t.avoid)]
        seeking = [a for a in rules.tag(rules.SEEK, seek_actions(facts, page) or []) if not is_avoided(a, t.avoid)]
        if seeking:  # an entry sought by name, not on this page of the list: the next page
            return seeking
        waiting = wait_actions(facts, page, t.names)
        if waiting and {action_key(a) for a in waiting} <= t.futile:
            # looked again and the page did not move: the task's action never goes on a bound not met
            t.blocked_by = rules.WAIT_BOUND
            t.blocked = f"Waited, and the page did not change: {waiting[0].why}."
            return []
        if waiting:  # the task's action waits until the value the page shows meets the task's bound
            return rules.tag(rules.WAIT_BOUND, waiting)
        generating = generate_actions(facts, page, t.avoid)
        if generating is not None:  # a number generated until it fits, then sent
            return [a for a in rules.tag(rules.GENERATE, generating) if not is_avoided(a, t.avoid)]
        menu = menu_actions(facts, page, t.memory, t.names)
        if menu is not None:  # an item in a submenu: the keys that open its parents, then a click on it
            if not menu:
                t.blocked_by = rules.MENU_MISSING
                t.blocked = "The item the task names is in none of the submenus this menu opens."
            keys = [a for a in rules.tag(rules.MENU_KEYS, menu) if not is_avoided(a, t.avoid)]
            if menu and not keys:
                t.blocked_by = rules.MENU_MISSING
                t.blocked = "The keys that reach the item the task names in this menu changed nothing."
            return keys
        listing = listbox_actions(facts, page, t.memory, t.names)
        if listing is not None:  # several options of one list: the first by its label, the others by keys
            submit = None if listing else submit_button(facts, page, [], t.avoid)
            if listing or submit is None:
                keys = [a for a in rules.tag(rules.LISTBOX, listing) if not is_avoided(a, t.avoid)]
                if listing and not keys:
                    t.blocked_by = rules.LISTBOX
                    t.blocked = "The keys that add options to the list changed nothing; the list is not as asked."
                return keys
            return [submit_action(submit)]
        sliding = slider_actions(facts, page, t.memory, t.names)
        if sliding:  # a key at a time: each moves the readout
            return [a for a in rules.tag(rules.SLIDER, sliding) if not is_avoided(a, t.avoid)]
        scrolling = scroll_actions(facts, page, t.memory, t.names)
        if scrolling:  # a box with its own scroll bar, taken to the end the task names by a key
            return [a for a in rules.tag(rules.SCROLL_BOX, scrolling) if not is_avoided(a, t.avoid)]
    fills = fill_fields(facts, page, names, seen, rejected=verdict.kind in ("error", "failure"),
                        problem=verdict.text if verdict.kind == "error" else "")
    fills = [a for a in rules.tag(rules.FILL, fills) if not is_avoided(a, t.avoid)]
    boxes = scrolled(t.memory)  # a box the task points to for scrolling is not clicked afterwards
    pointed = [a for a in rules.tag(rules.POINTED, reference_actions(facts, page, seen, names))
               if not is_avoided(a, t.avoid) and not (a.resolved is not None and a.resolved.ref in boxes)]
    # values typed, options chosen and boxes ticked in controls the task points to by kind and place are fills
    # (what a clause states for the control it points to wins over a value read off a label); the buttons,
    # links and fields it points to for a click come after the form's own steps
    pointed_fills = [a for a in pointed if fills_form(a)]
    mine = {id(a.resolved) for a in pointed_fills}
    fills = _in_page_order(page, [a for a in fills if id(a.resolved) not in mine] + pointed_fills)
    pointed_clicks = [a for a in pointed if not fills_form(a)]
    if not fills:
        # a quoted name shown on the page is clicked; else the sections the task asks to expand are opened,
        # else the next control that may reveal the quoted name
        shown = [a for a in rules.tag(rules.QUOTED_SHOWN, quoted_clicks(facts, page, seen, reveals=False))
                 if not is_avoided(a, t.avoid) and not held(t, a)]
        pointed_clicks += shown or [a for a in rules.tag(rules.EXPAND, expand_clicks(facts, page, seen))
                                    if not is_avoided(a, t.avoid)] \
            or [a for a in rules.tag(rules.QUOTED_REVEAL, quoted_clicks(facts, page, seen))
                if not is_avoided(a, t.avoid) and not held(t, a)]
    plan: list[Action] = rules.tag(rules.ITEM, item_clicks(facts, page, seen)) + fills
    if not fills and verdict.kind != "success":
        # choices picked by their values (each number's kind, the greatest), else a problem a skill solves
        picked = [a for a in rules.tag(rules.CLASSIFY, classify_clicks(facts, page, seen))
                  + rules.tag(rules.EXTREME, extreme_choice(facts, page, seen))
                  + rules.tag(rules.NTH_RESULT, nth_result(facts, page, t.memory, names) or [])
                  if not is_avoided(a, t.avoid)]
        plan.extend(picked or rules.tag(rules.SKILL, skill_actions(facts, page, names, seen, t.deadline,
                                                                   playing=verdict.kind == "progress")))
    opening = any(a.tool == "type" and a.resolved is not None and a.resolved.role == "combobox" for a in fills)
    if (fills or (plan and plan[-1].tool == "type")) and not opening:  # a typed combobox's list comes first
        submit = submit_button(facts, page, plan, t.avoid)
        if submit is not None:
            plan.append(submit_action(submit))
    taken = {id(a.resolved) for a in plan if a.resolved is not None}
    for a in pointed_clicks:
        if id(a.resolved) not in taken:
            plan.append(a)
            taken.add(id(a.resolved))
    plan.extend(a for a in rules.tag(rules.NAMED, named_clicks(facts, page, seen, fills, t.avoid))
                if id(a.resolved) not in taken and not (opening and a.resolved is not None
                                                        and a.resolved.role == "button"))
    plan = [a for a in plan if not is_avoided(a, t.avoid)]
    if unverified(fills, page):
        # whether the field took the date shows on the next page state: nothing that moves on before that
        plan = [a for a in plan if not (a.tool == "click" and a.resolved is not None
                                        and a.resolved.role in ("button", "link", "menuitem", "tab"))]
    if t.futile and plan and {action_key(a) for a in plan} <= t.futile:
        plan = []  # the same batch changed nothing on this page: never sent again unchanged
    if not plan and verdict.kind != "success":
        # the rest of the last batch the protocol did not run (a step at a time): the clicks it planned
        plan = [Action("click", {"element": e.name}, resolved=e, why="the rest of the last batch", rule=rules.REST.name)
                for e in seen.rest_of_batch(page) if not is_avoided(Action("click", {"element": e.name}, resolved=e),
                                                                       t.avoid)]
    return plan


def held(t: Turn, a: Action) -> bool:
    """Whether a click on a button the task names is held back: the button is disabled, or the form it sends
    has a field the task refers to that is still empty (a field the page keeps disabled can take no value: the
    task cannot be done as asked, which the give-up says when nothing else is left)."""
    button = a.resolved
    if button is None or button.role != "button":
        return False
    if button.disabled:
        if not t.blocked:
            t.blocked_by = rules.HELD_SEND
            t.blocked = f"{button.name!r} is disabled on this page, so it cannot be pressed."
        return True
    field = empty_referred(t.facts, t.page, button, set())
    if field is None:
        return False
    if field.disabled and not t.blocked:
        label = field.name or field.placeholder or field.hint
        t.blocked_by = rules.HELD_SEND
        t.blocked = (f"The field {label!r} the task gives a value for is disabled and takes none, so "
                     f"{button.name!r} is not pressed with it empty.")
    return True


def fills_form(a: Action) -> bool:
    """An action that fills a form (a value, an option, a box) rather than moving on."""
    return a.tool in ("type", "select", "check") or (a.resolved is not None and a.resolved.role in
                                                      ("checkbox", "radio", "switch"))


def _in_page_order(page: Page, acts: list[Action]) -> list[Action]:
    order = {id(e): i for i, e in enumerate(page.elements)}
    return sorted(acts, key=lambda a: order.get(id(a.resolved), 10**6))


def task_answer(t: Turn, verdict: Outcome) -> tuple[str | None, str]:
    """The answer to the task's question the page shows, with its kind; None where the task wants the
    value entered or acted on (finding it is not finishing) or a game or wizard is under way (its lines are
    no answer)."""
    facts = t.facts
    answer, kind = answer_from(facts, t.page) if facts.question else (None, "")
    if kind == "line" and not facts.wh_question:
        answer = None
    if answer and (_ENTER_ANSWER.search(facts.text) or _ACT_ON_IT.search(facts.text) or _REQUEST.search(facts.text)):
        answer = None
    if verdict.kind == "progress":
        answer = None
    return answer, kind


#: the task asks to do something with what it finds ("find X and click on their phone number"): finding it
#: is a step, not the end
_ACT_ON_IT = re.compile(r"(?:^|[.;:,!?]\s*|\b(?:and|then|to|please)\s+)(?:click|press|tap|select|choose|pick|check|"
                        r"tick|delete|remove|buy|order|add|book|send|reply|respond|forward|star|mark|like|share|drag|open|"
                        r"close|expand|follow)\b", re.I)  # an imperative, not a noun ("the booking service")
#: the same asked in the passive ("the note by Ana should be archived", "this file needs to be deleted")
_ACT_PASSIVE = re.compile(r"\b(?:should|must|needs? to|has to|have to|is to|are to|ought to)\s+be\s+"
                          r"(?:\w+ed|sent|done|shown|taken)\b", re.I)


#: a request put as a question ("Will you respond to her email ...?"): something to do, not to answer
_REQUEST = re.compile(r"\b(?:will|would|can|could)\s+you\s+(?:please\s+)?(?:respond|reply|write|send|forward|"
                      r"delete|remove|click|press|buy|order|book|add|mark|star|like|share|open|close|fill|enter|"
                      r"type|submit|sign|log)\b", re.I)


def click_found(t: Turn) -> list[Action]:
    """"Find X and click on their phone number": the value the page shows for what the task asks (an e-mail
    address, a phone number, a table cell), clicked where the page shows it, once."""
    facts, page = t.facts, t.page
    if not (facts.question and re.search(r"\b(?:click|press|tap)\b", facts.text, re.I)):
        return []
    value, kind = answer_from(facts, page)
    if not value or kind == "line":
        return []
    v = value.strip().lower()
    for e in page.elements:
        shown = (e.name if e.interactive else e.value).strip().lower()
        if e.role in ("textbox", "searchbox", "combobox", "option") or v not in shown:
            continue
        if t.seen.clicked(e) or t.seen.clicked_here(e) or any(k.endswith("|" + value) for k in t.seen.on_page):
            return []
        return [Action("click", {"element": value}, resolved=e, why=f"the {kind} the task asks for, where it shows")]
    return []


def other_routes(t: Turn, plan: list[Action], success: bool, answer: str | None) -> list[Action]:
    """With nothing the task names left: a named button again (when the task says to repeat it), back to
    the task's site, the next step of a flow, the link toward the goal; after a batch that changed nothing,
    an escalation instead of the same actions."""
    facts, page, seen = t.facts, t.page, t.seen
    if not plan:
        plan.extend(rules.tag(rules.REPEAT, repeat_named(facts, page, seen, t.avoid)))
    if not plan and not success and off_site(page.url, seen.home, facts):
        back = next((u for u in reversed(t.visited) if not off_site(u, seen.home, facts)), None)
        if back and "navigate" in t.names:
            plan.append(Action("navigate", {"url": back}, why="back to the task's site", rule=rules.BACK_HOME.name))
    waiting = codes.waiting_page(t.memory, page.url) if not plan and not success else None
    if waiting and "navigate" in t.names:
        plan.append(Action("navigate", {"url": waiting}, why="back to the field the code found elsewhere is for",
                           rule=rules.CODE_BACK.name))
    if not plan and not success and not answer:
        plan.extend(a for a in rules.tag(rules.CLICK_FOUND, click_found(t)) if not is_avoided(a, t.avoid))
    if not plan and not success and not answer and (_ACT_ON_IT.search(facts.text) or _REQUEST.search(facts.text)
                                                     or _ACT_PASSIVE.search(facts.text) or facts.passes_on):
        item = scope.opener(page, facts)
        if item is not None and not (t.seen.clicked(item) or t.seen.clicked_here(item)):
            # what the task wants done is not on this page: open the item it is about first
            opening = Action("click", {"element": item.name or item.value}, resolved=item,
                             why="open the item the task is about", rule=rules.OPEN_ITEM.name)
            if not is_avoided(opening, t.avoid):
                plan.append(opening)
    if not plan and not success and not answer:
        plan.extend(rules.tag(rules.NEXT_STEP, next_step(facts, page, seen, t.avoid, t.futile)))
    if not plan and not success:
        link = best_link(facts, page, seen, t.visited, t.avoid, t.loops, explore=not seen.filled)
        if link is not None:
            plan.append(Action("click", {"element": link.name}, resolved=link, why="best match for the goal",
                               rule=rules.BEST_LINK.name))
    if t.futile:
        plan = [a for a in plan if action_key(a) not in t.futile]
        if not plan:
            plan = rules.tag(rules.ESCALATE,
                             escalate(facts, page, seen, t.visited, t.avoid, t.loops, t.futile, t.names))
    return plan
