"""Forms: the values, options and ticks the task gives for a page's fields, and the buttons that submit them.

General rules only: fields get the values the task states (:mod:`agenthost.agent.task`) or a value the page
shows when the task asks to use it (a code printed next to the label, a table cell); a select gets the option
the task names, or a real one where the task only describes it; boxes the task names are ticked (unticked
where it turns them off, the others of a group when it says "only"), agreement boxes of a form being
submitted too, opt-ins never unless asked; "Buy X" is the "Add X to cart" button; a form is submitted with
its own submit button, held back while a field the task refers to is still empty.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agenthost.agent import rules
from agenthost.agent.actions import Action, is_avoided, norm
from agenthost.agent.answers import answer_from
from agenthost.agent.codes import code_for
from agenthost.agent.colours import colour_value, is_colour_field
from agenthost.agent.fields import field_kind, label_keys
from agenthost.agent.page import MASK, TEXT_ROLES, Element, Page
from agenthost.agent.passwords import make_password, password_rules
from agenthost.agent.progress import Seen
from agenthost.agent.task import TaskFacts
from agenthost.agent.values import is_description
from agenthost.agent.wording import has_phrase, words

SUBMIT = re.compile(r"\b(submit|send|save|continue|next|confirm|register|sign ?up|sign ?in|log ?in|apply|search|"
                     r"go|ok|finish|complete|create|add|update|place order|checkout|book|pay|post|subscribe|get|"
                     r"start|check|reserve|done|proceed)\b", re.I)
NOT_SUBMIT = re.compile(r"\b(back|previous|prev|cancel|reset|clear|show|hide|remove|delete|close|toggle|edit)\b",
                         re.I)
_PLACEHOLDER_OPT = re.compile(r"^\s*(--.*--|select.*|choose.*|please select.*|pick.*|-+|none)?\s*$", re.I)
_CONSENT = re.compile(r"\b(agree|accept|consent|confirm|correct|acknowledge|i have read|terms|privacy)\b", re.I)
#: opt-ins that only look like agreements: never ticked unless the task asks
_OPT_IN = re.compile(r"\b(marketing|newsletter|offers?|promotions?|promotional|e-?mails?|sms|texts?|partners?|"
                     r"third[- ]part(?:y|ies)|updates|news|remember me|stay signed in|keep me)\b", re.I)
_ITEM_VERB = re.compile(r"\b(buy|add|order|purchase|get|put|pick up)\b", re.I)
_ITEM_WORDS = re.compile(r"\b(add|adds|to|the|a|an|my|your|cart|basket|bag|trolley|buy|order|purchase|now|item|"
                         r"one|in|into)\b", re.I)


_USE_PAGE_VALUE = re.compile(r"\b(enter|type|put|use|submit|fill|write|input|paste|copy|apply|check)\b", re.I)


NEXT_STEP = re.compile(r"\b(next|continue|proceed|checkout|check out|place order|complete (?:order|purchase)|"
                        r"finish|submit|done|start|play|begin|download|next (?:question|round|level|word|puzzle))\b",
                        re.I)


_CODE = re.compile(r"^(?=[A-Z0-9._/#-]*\d|[A-Z]{3,})[A-Z0-9][A-Z0-9._/#-]{2,39}$")


def fill_fields(facts: TaskFacts, page: Page, names: Sequence[str], seen: Seen, *,
                rejected: bool = False, problem: str = "") -> list[Action]:
    """The fields' values, options and ticks the task gives (page order); ``rejected``: the page refused the
    last submit (values typed before are typed again); ``problem``: the page's error line."""
    acts: list[Action] = []
    present = without_task(_shown_text(page), facts.text).lower()
    typed_values: set[str] = set(seen.typed)
    pending_pw: list[Element] = []
    for e in page.elements:
        if e.disabled:
            continue
        act = None
        if e.role in TEXT_ROLES and "type" in names:
            act = _text_action(facts, page, e, seen, present, rejected, pending_pw)
            if act is not None:
                act.rule = act.rule or rules.FILL.name
                typed_values.add(norm(act.args["text"]))
        elif e.role in ("combobox", "listbox"):
            act = _list_action(facts, page, e, names, present, problem)
            if act is not None:
                act.rule = act.rule or rules.LIST_CHOICE.name
        if act is not None:
            acts.append(act)
    acts.extend(rules.tag(rules.PASSWORD, _passwords(facts, page, pending_pw)))
    acts.extend(rules.tag(rules.TICK, ticks(facts, page, names, typed_values)))
    order = {id(e): i for i, e in enumerate(page.elements)}
    acts.sort(key=lambda a: order.get(id(a.resolved), 10**6))
    return acts


def _text_action(facts: TaskFacts, page: Page, e: Element, seen: Seen, present: str, rejected: bool,
                 pending_pw: list[Element]) -> Action | None:
    """The value to type into a text field, if any; a password field the task gives no value for goes to
    ``pending_pw`` (one fresh password for all of them)."""
    label = e.name or e.placeholder or e.field_name or e.hint
    kind = field_kind(label, e.input_type, e.role)
    val = facts.value_for(label, e.input_type, role=e.role, present=present)
    if is_colour_field(e):
        # a colour field takes a colour (its hex), nothing else the task's words put after its label
        colour = colour_value(val, facts.text, e)
        if colour is None or colour.lower() == (e.value or "").strip().lower():
            return None
        return Action("type", {"element": e.name or e.placeholder, "text": colour, "clear": True},
                      resolved=e, why=f"the colour the task names, as {label!r} takes it", rule=rules.COLOUR.name)
    if val is None and kind == "password":
        pending_pw.append(e)
        return None
    if val is None and not (e.value or "").strip():
        val = page_value(facts, page, e, label)
        if val is None and facts.mentions(label, min_cover=0.5) > 0:
            val = code_for(seen.memory, label)  # a code another page showed for this field
    if val is None:
        return None
    if e.is_secret() and (e.value or "").strip() and (e.value == MASK or val.strip() == e.value.strip()):
        return None  # a masked password/card field that holds something: it was typed before
    if not (e.value or "").strip() and not rejected and \
            ((norm(e.name or e.placeholder), norm(val)) in seen.consumed or (norm(e.ref), norm(val)) in seen.consumed):
        return None  # typed and submitted before, and the form took it: that step took effect
    if val.strip() == (e.value or "").strip():
        return None
    if norm(val) in seen.typed and norm(val) in norm(e.value) and not e.is_secret():
        return None  # typed, then completed by the page (a suggestion picked): the field holds its form of it
    return Action("type", {"element": e.name or e.placeholder, "text": val, "clear": True},
                  resolved=e, why=f"the task gives {label!r}")


def _list_action(facts: TaskFacts, page: Page, e: Element, names: Sequence[str], present: str,
                 problem: str) -> Action | None:
    """A list's choice: the option of an editable combobox's open list (clicked), a select's option, or the
    task's value typed into an editable combobox to open its list."""
    if e.role == "listbox" and e.options and _popup_list(page, e):
        # the open list of an editable combobox: its option is clicked (a select would not reach it)
        opt = option_for(facts, e, problem=problem)
        item = next((o for o in page.elements if o.role == "option" and o.parent == e.ref and o.name == opt), None)
        if opt and item is not None and not item.selected:
            return Action("click", {"element": opt}, resolved=item, why=f"choose {opt!r} from the list")
    elif e.options and ("select" in names or "type" in names):
        opt = option_for(facts, e, problem=problem)
        if opt and opt != e.selected_option and opt != e.value:
            return Action("select", {"element": e.name, "option": opt}, resolved=e,
                          why=f"the task names option {opt!r}")
    elif e.role == "combobox" and not e.options and "type" in names:
        # an editable combobox (type, then choose from the list it opens): type the task's value
        val = facts.value_for(e.name or e.placeholder or e.field_name or e.hint, e.input_type, role="textbox",
                              present=present)
        if val and norm(val) != norm(e.value):
            return Action("type", {"element": e.name or e.placeholder, "text": val, "clear": True},
                          resolved=e, why=f"type {val!r} to open the list")
    return None


def _passwords(facts: TaskFacts, page: Page, pending_pw: list[Element]) -> list[Action]:
    """Passwords the task does not state: one fresh password meeting the rules stated by the task or the
    page, typed into every empty password field (a confirmation field gets the same one)."""
    if not pending_pw or not facts.text or not re.search(r"\b(password|passcode|register|sign ?up|account)\b",
                                                         facts.text, re.I):
        return []
    if not any(not (e.value or "").strip() for e in pending_pw):
        return []
    password = make_password({**password_rules(page.text), **facts.password_rules})
    return [Action("type", {"element": e.name or e.placeholder, "text": password, "clear": True},
                   resolved=e, why="a password meeting the stated rules") for e in pending_pw]


def ticks(facts: TaskFacts, page: Page, names: Sequence[str], typed: set[str]) -> list[Action]:
    acts: list[Action] = []
    tool = "check" if "check" in names else "click"
    boxes = [e for e in page.elements if e.role in ("checkbox", "switch") and e.name and not e.disabled]
    named: dict[str, set[int]] = {}
    for e in boxes:
        if norm(e.name) in typed:  # an item we just added (its own checkbox), not an instruction
            continue
        score = facts.mentions(e.name, min_cover=0.6)
        want: bool | None = None
        if score > 0:
            want = not facts.negated(e.name)
            named.setdefault(e.parent, set()).add(id(e))
        elif _CONSENT.search(e.name) and not _OPT_IN.search(e.name) and not facts.negated(e.name) \
                and _has_button_after(page, e):
            want = True
        if want is not None and bool(e.checked) != want:
            acts.append(_tick(e, want, tool, "as the task says" if score > 0 else "required to submit"))
    if facts.only:
        for e in boxes:
            if e.parent in named and id(e) not in named[e.parent] and e.checked \
                    and not _CONSENT.search(e.name) and norm(e.name) not in typed:
                acts.append(_tick(e, False, tool, "the task wants only the ones it names"))
    for e in page.elements:
        if e.role == "radio" and e.name and not e.checked and not e.disabled \
                and facts.mentions(e.name, min_cover=1.0) >= 1.0 and not facts.negated(e.name):
            acts.append(Action("click", {"element": e.name}, resolved=e, why=f"the task names {e.name!r}"))
    return acts


def _tick(e: Element, want: bool, tool: str, why: str) -> Action:
    return Action(tool, {"element": e.name, "checked": want} if tool == "check" else {"element": e.name},
                  resolved=e, why=("tick" if want else "untick") + f" {e.name!r} ({why})")


def page_value(facts: TaskFacts, page: Page, e: Element, label: str) -> str | None:
    """A value the page shows for a field the task refers to (``use the code shown``, ``enter the
    population from the table``): a code printed next to the field's label, or the task's answer."""
    if not label or facts.mentions(label, min_cover=0.5) <= 0 or not _USE_PAGE_VALUE.search(facts.text):
        return None
    code = code_from_text(label, page.text)
    if code:
        return code
    if facts.question:
        answer, kind = answer_from(facts, page)
        if answer and kind in ("table", "email", "phone", "price", "code"):
            return answer
    return None


def option_for(facts: TaskFacts, e: Element, *, problem: str = "") -> str | None:
    """The option the task names; where it only describes one ("any country"), asks for made-up
    details, or the page says this list needs a choice, a real option (never the placeholder)."""
    val = facts.value_for(e.name)
    real = [o for o in e.options if o and not _PLACEHOLDER_OPT.match(o)]
    chosen = e.selected_option or (e.value if e.value in real else "")
    described = any(is_description(v) for k, v in facts.pairs if words(k) & words(e.name))
    pick = _named_option(facts, real, val)
    if pick is None and real and not (chosen and chosen in real) and (
            described or facts.wants_made_up or (problem and facts_mentions_label(problem, e.name))):
        return real[0]
    return pick


def _named_option(facts: TaskFacts, real: list[str], val: str | None) -> str | None:
    if val:
        v = val.lower()
        for o in real:
            if o.lower() == v:
                return o
        for o in real:
            if v in o.lower() or o.lower() in v:
                return o
    best, best_len = None, 0
    for o in real:
        if facts.mentions(o, min_cover=1.0) >= 1.0 and len(o) > best_len:
            best, best_len = o, len(o)
    return best


def submit_button(facts: TaskFacts, page: Page, plan: list[Action],
                  avoid: set[tuple[str, str]]) -> Element | None:
    buttons = [e for e in page.elements if e.role == "button" and e.name and not e.disabled
               and not is_avoided(Action("click", {"element": e.name}, resolved=e), avoid)]
    if not buttons:
        return None
    index = {id(e): i for i, e in enumerate(page.elements)}
    last = max((index.get(id(a.resolved), -1) for a in plan), default=-1)
    after = [b for b in buttons if index[id(b)] > last and not NOT_SUBMIT.search(b.name)]
    for pool in (after, [b for b in buttons if not NOT_SUBMIT.search(b.name)]):
        named = [b for b in pool if facts.mentions(b.name, min_cover=1.0) >= 1.0]
        subs = [b for b in pool if SUBMIT.search(b.name) or b.input_type == "submit"]
        for group in (named, subs):
            if group:
                return group[0]
    return buttons[0] if len(buttons) == 1 else None


def item_clicks(facts: TaskFacts, page: Page, seen: Seen) -> list[Action]:
    """"Buy X" / "add X": the buttons that put a named item somewhere ("Add X to cart"), as many times as
    the task says, minus the times earlier turns clicked them."""
    if not _ITEM_VERB.search(facts.text):
        return []
    acts: list[Action] = []
    for e in page.elements:
        if e.role != "button" or not e.name or e.disabled or not _ITEM_VERB.search(e.name):
            continue
        item = re.sub(r"\s+", " ", _ITEM_WORDS.sub(" ", e.name)).strip()
        low_item = item.lower()
        if not item or low_item not in facts.low or not any(
                has_phrase(facts.low, low_item + plural) for plural in ("", "s", "es")):
            continue
        if _field_before(page, e):  # the submit button of a text field ("Add note"), not an item
            continue
        for _ in range(facts.count_for(item) - seen.clicked(e)):
            acts.append(Action("click", {"element": e.name}, resolved=e, why=f"the task wants {item!r}"))
    return acts


def _popup_list(page: Page, listbox: Element) -> bool:
    """Whether ``listbox`` is the list an editable combobox opened (a combobox with no options of its own comes
    right before it)."""
    idx = page.elements.index(listbox)
    for e in reversed(page.elements[max(0, idx - 3):idx]):
        if e.role == "combobox" and not e.options:
            return True
    return False


def facts_mentions_label(text: str, label: str) -> bool:
    """Whether ``text`` (a page's error line) names the field ``label``."""
    lw = words(label)
    return bool(lw) and lw <= words(text)


def blocked(facts: TaskFacts, page: Page, button: Element, filling: set[int]) -> bool:
    """Whether ``button`` submits a form group with an empty field the task refers to (and no value yet)."""
    return empty_referred(facts, page, button, filling) is not None


def empty_referred(facts: TaskFacts, page: Page, button: Element, filling: set[int]) -> Element | None:
    """The empty field the task refers to (and no value is on its way to) in the form group ``button`` sends,
    if any."""
    idx = page.elements.index(button)
    for e in reversed(page.elements[:idx]):
        if e.role == "button":
            break
        if e.role in TEXT_ROLES and not (e.value or "").strip() and id(e) not in filling:
            label = e.name or e.placeholder or e.hint
            if label and facts.mentions(label, min_cover=1.0) > 0:
                return e
    return None


def _field_before(page: Page, button: Element) -> bool:
    idx = page.elements.index(button)
    for e in reversed(page.elements[:idx]):
        if e.role in TEXT_ROLES:
            return True
        if e.role in ("button", "listitem", "list", "row", "cell") or e.depth < button.depth - 1:
            return False
    return False


def _has_button_after(page: Page, el: Element) -> bool:
    idx = page.elements.index(el)
    return any(e.role == "button" and not e.disabled for e in page.elements[idx + 1:])


def without_task(text: str, task: str) -> str:
    """``text`` without the task's own sentence where the page repeats it (a page showing its instruction
    shows none of the values it quotes)."""
    t = " ".join((task or "").split())
    if len(t) < 12:
        return text
    return "\n".join(" ".join(line.split()).replace(t, " ") for line in text.splitlines())


def _shown_text(page: Page) -> str:
    """What the page shows besides field values: its text and the names of its elements."""
    return page.text + "\n" + "\n".join(e.name for e in page.elements if e.name and e.role not in TEXT_ROLES)


def code_from_text(label: str, text: str) -> str | None:
    """A code the text prints right after a field's label or its head noun (``quote claim code CL-5521``)."""
    low = text.lower()
    for key in label_keys(label):
        if key not in low:
            continue
        for m in re.finditer(r"(?<![\w-])" + re.escape(key) + r"s?\b[ \t]*(?:[:=#]|is|was|reads)?[ \t]*[\"'“]?"
                             r"([A-Za-z0-9][A-Za-z0-9._/#-]{2,39})", text, re.I):
            token = m.group(1).rstrip(".")
            if _CODE.match(token):
                return token
    return None
