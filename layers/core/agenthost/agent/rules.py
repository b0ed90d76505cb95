"""The deterministic policy's rules, each a named entry: what it recognises and what it proposes.

:class:`~agenthost.agent.policy.DeterministicPolicy` applies them in a fixed cascade (the order of
:data:`RULES`); the rule bodies live in the modules named in ``where``. The policy tags each action with the
rule that proposed it (``Action.rule``) and a decision records the names of the rules that acted
(``Decision.rules``: the page's verdict when it shaped the decision, then the rules whose actions were sent, in
order, or the rule that ended the task). The
protocols log that trace with each turn or step, and the arena and MiniWoB++ reports count the hits per rule
(a rule that fires in one suite only, or never, shows there).

A plain table kept by hand: the rules are this project's policy, and naming them costs one attribute per
action, no framework.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agenthost.agent.actions import Action


@dataclass(frozen=True)
class Rule:
    #: ``module.what``, as the decision's trace and the reports print it
    name: str
    #: the function that holds the rule's body
    where: str
    #: what on the page or in the task makes it act
    recognises: str
    #: what it proposes then
    proposes: str


RULES: list[Rule] = []


def _rule(name: str, where: str, recognises: str, proposes: str) -> Rule:
    r = Rule(name, where, recognises, proposes)
    RULES.append(r)
    return r


# ----------------------------------------------------------------- opening the task
OPEN_URL = _rule("open.task-url", "policy.DeterministicPolicy._open",
                 "the task names a URL that has not been opened yet", "navigate to it, once")
WAIT_LOAD = _rule("open.wait-for-load", "policy.DeterministicPolicy._open",
                  "an empty page and no URL left to open", "wait for the page to load")
GESTURE = _rule("gesture.give-up", "policy._GESTURE",
                "an imperative needing a pointer gesture no tool performs (drag, draw, hover, resize...)",
                "give up honestly before any later step goes without it")

# ----------------------------------------------------------------- the page's verdict (shapes what follows)
UNDER_WAY = _rule("outcome.under-way", "outcome.in_play",
                  "a score or progress line of a game or wizard not finished (\"Round 3 of 8\")",
                  "no completion yet: the round is played on")
PAGE_ERROR = _rule("outcome.page-error", "outcome.ERROR",
                   "an error line in a status or alert region (required, invalid, too short...)",
                   "the form filled again with the error in mind (values typed before typed again)")
FAILURE = _rule("outcome.reports-failure", "outcome.reports_failure",
                "a game over without a full score, or zero or failure next to a completion message",
                "no success: a give-up says what the page reports")
TAKEN_BACK = _rule("outcome.taken-back", "outcome.VETO",
                   "a completion line next to one that takes it back (not here, not the one sought, the search "
                   "goes on, something still left)", "no success: the task goes on")
OFF_SITE = _rule("outcome.off-site", "web_guard.off_site",
                 "a completion or failure message on another site than the task's (one the task does not name)",
                 "no evidence either way: the task goes on")

# ----------------------------------------------------------------- what the task asks of this page
TYPED_SUGGESTION = _rule("suggestions.pick-typed", "suggestions.typed_suggestion",
                         "a value just typed into a field that now lists suggestions holding it",
                         "click the suggestion that shares the most of the task's words (the page's own form of the "
                         "value); a field listing its own suggestions that shows none yet: the down arrow, once")
CALENDAR = _rule("calendar.pick-date", "calendar.calendar_actions",
                 "a date the task states and a calendar widget on the page",
                 "the clicks that move the calendar to that month and pick the day")
SUGGESTION = _rule("suggestions.complete", "suggestions.suggestion_actions",
                   "a value the task describes by its start and end, and a field that lists suggestions",
                   "type the start, then pick the suggestion that fits (the one the field holds while its list is "
                   "open: chosen, which closes it); while none shows yet, the down arrow once where the field lists "
                   "its own, else a look again, a few times")
NO_SUGGESTION = _rule("suggestions.none-fits", "suggestions.suggestion_actions",
                      "the field's suggestions are listed and none starts and ends as the task asks",
                      "give up honestly instead of sending a value that does not fit")
ORDER = _rule("orders.quantity", "orders.order_actions",
              "the task orders items by quantity ('two of each: A, B', '3 items that are K') and each item shows "
              "its own '+' and the amount chosen",
              "click the '+' (or '-') of an item off its amount, one a step, until each shows what is asked; the "
              "task's button only then")
ORDER_UNPLACED = _rule("orders.unplaced", "orders.order_actions",
                       "an order by quantity the page gives no control to place (an item without a '+', steppers "
                       "drawn as text only)",
                       "give up honestly instead of pressing the order button with nothing chosen")
HELD_SEND = _rule("forms.held-send", "planning.held",
                  "a button the task names that is disabled, or sends a form whose field the task refers to is "
                  "still empty",
                  "hold it back; where the button or that field is disabled (it takes no value), give up honestly "
                  "when nothing else is left")
FILL = _rule("forms.fill-fields", "forms._text_action",
             "text fields the task gives a value for (stated, described, shown on the page, a code found earlier)",
             "type the value")
COLOUR = _rule("forms.colour-value", "forms._text_action",
               "a colour field (input type=color, or one showing a hex value) and a colour the task names",
               "type the colour's hex value as the field writes it; nothing when the task names no colour")
PASSWORD = _rule("forms.password", "forms._passwords",
                 "empty password fields the task gives no value for, on a task to register or sign up",
                 "one fresh password meeting the stated rules, typed into each")
LIST_CHOICE = _rule("forms.list-choice", "forms._list_action",
                    "a select, an editable combobox or its open list, and the option the task or the page asks for",
                    "select the option (or type the value to open the list, or click the listed option)")
TICK = _rule("forms.tick", "forms.ticks",
             "boxes the task names (or turns off), agreement boxes of a form being sent, \"only\" groups, "
             "radios it names", "tick or untick them, click the radio")
POINTED = _rule("references.pointed-control", "references.reference_actions",
                "controls the task points to by kind and place (\"the second checkbox\", \"the last field\")",
                "the value, option, tick or click the clause asks of each")
QUOTED_SHOWN = _rule("references.quoted-shown", "reveals.quoted_clicks(reveals=False)",
                     "a quoted name the page shows on a control", "click it")
EXPAND = _rule("references.expand-section", "reveals.expand_clicks",
               "closed sections the task asks to open", "click their headers")
QUOTED_REVEAL = _rule("references.reveal-quoted", "reveals.quoted_clicks",
                      "a quoted name not shown yet", "click the next control that may reveal it")
ITEM = _rule("forms.item-buttons", "forms.item_clicks",
             "items the task puts somewhere (\"buy X\", \"add X\")", "click the item's own button (\"Add X to cart\")")
GUESS = _rule("guessing.next-guess", "guessing.guess_actions",
              "the task asks to find a number in a range by guessing, and the page answers each guess with "
              "higher/lower", "type the middle of the range left and send it; give up when no number is left")
TERMINAL = _rule("terminal.command", "terminal.command_actions",
                 "the task asks to delete a file on a terminal and the page shows a shell prompt",
                 "type `ls` key by key and Enter, then `rm` the listed file that fits (extension, none, name)")
SEEK = _rule("paging.seek-entry", "paging.seek_actions",
             "the task seeks an entry by name in a list shown a page at a time, and this page does not name it",
             "click the next-page link (each page a step the loop guard tells apart)")
WAIT_BOUND = _rule("waiting.until-bound", "waiting.wait_actions",
                   "the task asks for an action once a value the page shows passes a bound ('when the price is "
                   "less than $61.20')",
                   "wait and look again until it does (also while the page shows no reading); then the task's action "
                   "goes on; a page that did not move after a look: give up, never act")
PAUSE = _rule("waiting.pause", "waiting.pause_in",
              "the task asks for a pause between two steps ('wait 3 seconds, then click B')",
              "do the steps before it (decided on a copy of memory: a look there that is dropped, never sent, "
              "leaves no loop count), wait (a fresh look each turn) until that long after the last of them, then "
              "the rest (the steps before it kept as done where the history passed no longer shows them)")
GENERATE = _rule("choices.generate-until-fits", "choices.generate_actions",
                 "the task asks to generate a number of a kind (odd, greater than 3...) and the page has a generate "
                 "button", "generate again while the number shown does not fit; send the form once it does")
SLIDER = _rule("sliders.key-toward-value", "sliders.slider_actions",
               "the task sets a slider (or several, to a list) to a number and the page shows each one's value",
               "press an arrow (or, once a page's size is known, a page key) on the handle toward the value")
SCROLL_BOX = _rule("scrolling.box-to-end", "scrolling.scroll_actions",
                   "the task scrolls a control with its own scroll bar (a text area, a list) to its top or bottom",
                   "press Control+Home or Control+End on it, once; then the rest of the task")
BY_MEANING = _rule("synonyms.unknown-meaning", "synonyms.unmatched_by_meaning",
                   "the task asks to tick the boxes whose words mean the same as its own, and one of its words has "
                   "no box of its own", "give up honestly: no lexicon here tells which other word means the same")
MENU_KEYS = _rule("menus.keys-to-item", "menus.menu_actions",
                  "the task names an item (or a path of items) of a menu whose parents open submenus "
                  "(aria-haspopup) and the item is not shown",
                  "focus the menu, walk to the parent with the arrows, open it with the right arrow; click the item "
                  "once shown")
MENU_MISSING = _rule("menus.item-in-no-submenu", "menus.menu_actions",
                     "every submenu that could hold the item the task names was opened and it is in none",
                     "give up honestly instead of clicking a parent item")
LISTBOX = _rule("listbox.keys-to-options", "listbox.listbox_actions",
                "the task names two or more options of one multi-select list",
                "choose the first by its label, then walk down with Control+arrow and add each with Control+Space; "
                "submit once the list holds exactly those")
CLASSIFY = _rule("choices.classify-numbers", "choices.classify_clicks",
                 "the task asks to mark numbers as one of two kinds (odd or even, positive or negative) and each "
                 "number the page shows sits between buttons named for them", "click each number's kind")
EXTREME = _rule("choices.extreme", "choices.extreme_choice",
                "the task picks the choice with the greatest or smallest number among alike choices showing one, "
                "or the alike buttons whose cards show the shortest or longest duration or the lowest or highest price",
                "click that choice")
NTH_RESULT = _rule("results.nth-result", "results.nth_result",
                   "the task wants the n-th entry of a result list that may run over pages ('open the 9th search "
                   "result')", "the pager's link to the page that holds it (the first page's count is the page size), "
                   "then the entry")
SKILL = _rule("problems.skill-answer", "problems.skill_actions",
              "a problem the page poses (a sum, a sequence, a chess position, a table question...)",
              "the skill's answer typed into its field or its choice clicked")
SUBMIT = _rule("forms.submit", "forms.submit_button",
               "a form just filled (or a value that now fits)", "click the form's own submit button")
NAMED = _rule("navigation.named-click", "navigation.named_clicks",
              "buttons, tabs and links the task names that were not clicked yet",
              "click them in the task's order (a submit held back while a field it refers to is empty)")
REST = _rule("progress.rest-of-batch", "progress.Seen.rest_of_batch",
             "a planned batch the protocol ran only partly (one action a step)", "the clicks still to send")

# ----------------------------------------------------------------- endings the page or the task show
COMPLETION = _rule("outcome.completion", "outcome.judge",
                   "a completion message shown after acting, not taken back, no score below full",
                   "done, success")
ANSWER = _rule("answers.value-found", "answers.answer_from",
               "the value the task asks for, shown on the page (and not to be entered)",
               "done, with the value as the result")

# ----------------------------------------------------------------- other routes when the task names nothing left
REPEAT = _rule("navigation.repeat-named", "navigation.repeat_named",
               "a task that says to repeat a named button (\"until\", \"each\", \"again\")", "click it again")
BACK_HOME = _rule("navigation.back-to-site", "planning.other_routes",
                  "a page on another site than the task's", "navigate back to the last page of the task's site")
CODE_BACK = _rule("codes.back-to-field", "codes.waiting_page",
                  "a code found on another page for a field that waits for it", "navigate back to that field")
CLICK_FOUND = _rule("answers.click-found", "planning.click_found",
                    "\"find X and click on it\": the value the page shows for X", "click it where it shows, once")
OPEN_ITEM = _rule("scope.open-item", "scope.opener",
                  "an action the task wants done to an item whose controls are not on this page",
                  "click the item to open it")
NEXT_STEP = _rule("navigation.next-step", "navigation.next_step",
                  "a step that took effect and an enabled next-step button (checkout, next, continue)",
                  "click it")
BEST_LINK = _rule("navigation.best-link", "navigation.best_link",
                  "links sharing words with the goal or the page's clues", "click the best unvisited one")
ESCALATE = _rule("navigation.escalate", "navigation.escalate",
                 "a batch that changed nothing on this page", "another submit button, Enter, scrolling, another route")
ALTERNATIVE = _rule("navigation.alternative", "navigation.alternatives",
                    "planned actions the loop guard withholds as repeats", "another route instead")
SCROLL = _rule("page.scroll-for-more", "policy._scroll",
               "nothing left to do on a long page not scrolled yet", "scroll down once")

# ----------------------------------------------------------------- honest give-ups
NOTHING_LEFT = _rule("outcome.nothing-left", "policy.DeterministicPolicy._nothing_left",
                     "nothing the task names is left to do and the page shows no completion",
                     "done, not achieved (what the page shows instead)")
WORK_UNDONE = _rule("forms.work-undone", "sending.unsent_work",
                    "a send button (Submit, Send, Done...) as the first thing pressed, nothing done before it, where "
                    "the task asks for work before it (\"..., then press Submit\") or never names it",
                    "give up honestly: the page would judge the task's work undone")
UNREACHABLE = _rule("guards.unreachable", "policy.DeterministicPolicy._finish",
                    "every action needs an element this protocol cannot reach by name",
                    "done, not achieved: the task cannot be done through this protocol")
LOOP_STOP = _rule("loops.stop", "loops.LoopGuard.filter",
                  "the same actions keep repeating on an unchanged page", "stop (done, not achieved)")
NOTHING_NEW = _rule("loops.nothing-new", "policy.DeterministicPolicy._send",
                    "every action withheld as a repeat, nothing new to try", "stop (done, not achieved)")
NO_PROGRESS_DONE = _rule("loops.done-on-outcome", "policy.DeterministicPolicy._send",
                         "every action withheld as a repeat while the page shows the outcome or the answer",
                         "done, success")

BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}


def tag(rule: Rule, actions: Iterable[Action]) -> list[Action]:
    """``actions`` marked as proposed by ``rule`` (an action a rule already marked keeps its mark)."""
    out = list(actions)
    for a in out:
        if not a.rule:
            a.rule = rule.name
    return out


def trace(actions: Iterable[Action]) -> list[str]:
    """The names of the rules behind ``actions``, each once, in order."""
    out: list[str] = []
    for a in actions:
        if a.rule and a.rule not in out:
            out.append(a.rule)
    return out
