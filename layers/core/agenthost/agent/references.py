"""The actions a task asks of the controls it points to by kind and place, and the values it wants in them.

Reads each clause's references (:mod:`agenthost.agent.pointing`) and values
(:mod:`agenthost.agent.reference_values`) and proposes the actions (:func:`reference_actions`): values typed
into the fields they point to (in the form a date or time input takes, :func:`_for_input`), options chosen,
boxes ticked, controls clicked or focused; a form whose fields take a table's values by label.
:func:`unverified` says when a typed date or time can only be checked afterwards.

Hand-written: the phrases are general English ways of pointing at a control; no library reads them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agenthost.agent.actions import Action, norm
from agenthost.agent.calendar import date_in
from agenthost.agent.page import TEXT_ROLES, Element, Page
from agenthost.agent.pointing import (
    TICK_VERB,
    TYPE_VERB,
    Ref,
    clauses,
    destinations,
    kind_of,
    referenced,
    refs_in,
    verbs_text,
)
from agenthost.agent.progress import Seen
from agenthost.agent.reference_values import (
    DATE,
    NTH_WORD,
    SHOWN,
    TIME,
    cased,
    derived_value,
    stated_value,
    table_value,
)
from agenthost.agent.task import TaskFacts

_CLICK_VERB = re.compile(r"\b(click|press|push|tap|hit)\b", re.I)
_FOCUS_VERB = re.compile(r"\bfocus\b", re.I)
#: a text to put in a message ("reply with the text "Thanks"", "a note saying "On my way"", "tell him that
#: it "works now"")
_WITH_TEXT = re.compile(r"\b(?:(?:with|saying|reading|that says)\s+|(?:tell|telling)\s+(?:him|her|them|us|me|the\s+\w+)"
                        r"(?:\s+that)?(?:\s+it)?\s*:?\s*|say\s+(?:that\s+)?)(?:the\s+)?(?:text|message|words?|note|"
                        r"comment|reply)?\s*[\"“]", re.I)
#: a value right after a typing verb ("Enter 09/10/2012 as ...", "type "Ana" ...", "enter the number 16")
_DIRECT = re.compile(r"\b(?:enter|type|input|write|key\s+in)\s+(?:the\s+(?:number|value|text|date|time|word)\s+)?"
                     r"(?:\"[^\"]+\"|“[^”]+”|\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}|\d{1,2}:\d{2}|[-+]?\d+(?:[.,]\d+)?)", re.I)
#: a clause's value comes from an earlier clause ("type that", "paste it", "your answer")
_PRONOUN = re.compile(r"\b(?:that|it|this|them|the (?:answer|result|word|text|value)|your (?:answer|result))\b",
                      re.I)
#: a form whose fields take the values a table gives for their labels
_BY_LABEL = re.compile(r"\b(?:correspond\w*|each\s+label|matching\s+(?:label|value)s?)\b", re.I)


def reference_actions(facts: TaskFacts, page: Page, seen: Seen, names: Sequence[str], *,
                      taken: set[int] = frozenset(),  # type: ignore[assignment]
                      answer: str | None = None) -> list[Action]:
    """The actions the task's references by kind ask for on this page: values typed into the fields they
    point to, options chosen, boxes ticked, controls clicked or focused. ``taken``: ids of elements other
    rules already act on; ``answer``: a problem's answer the page poses (for "type your answer")."""
    out: list[Action] = []
    done: set[int] = set(taken)
    parts = clauses(facts.text)
    for i, clause in enumerate(parts):
        refs = refs_in(clause)
        verbs = verbs_text(clause, refs)
        typing = TYPE_VERB.search(verbs)
        if (typing and not destinations(clause, refs) and (_DIRECT.search(clause) or SHOWN.search(clause))) or \
                (not refs and _WITH_TEXT.search(clause)):
            # "Enter 09/10/2012 as the date", "reply with the text "Thanks"", "enter the code shown below": a value
            # for a field the clause does not point to by kind: the page's only empty text field (a text area too),
            # when no rule fills one
            refs = [*refs, Ref("field", start=len(clause), end=len(clause))]
            typing = typing or _WITH_TEXT.search(clause)
        if typing and _BY_LABEL.search(clause) and "type" in names:
            out.extend(a for a in _by_label(page, done) if id(a.resolved) not in done)
            done.update(id(a.resolved) for a in out if a.resolved is not None)
        for ref in refs:
            if typing and ref.kind in ("text", "textarea", "spinbutton", "field") and \
                    ref not in destinations(clause, refs) and ref.start < len(clause):
                continue  # a field the clause reads from, not one it types into
            act = _act_on(ref, clause, verbs, [*parts[:i], clause], page, facts, seen, names, answer)
            for a in act:
                if a.resolved is not None and id(a.resolved) not in done:
                    done.add(id(a.resolved))
                    out.append(a)
    return out


#: a click on something the clause names in quotes ("click on the link "quisque."", "the file named "Livia"",
#: "the item labeled "Prev"")


def _by_label(page: Page, done: set[int]) -> list[Action]:
    """Each empty field whose label a table of the page lists, given the table's value for it."""
    out = []
    for e in page.elements:
        if e.role not in TEXT_ROLES or e.disabled or id(e) in done or (e.value or "").strip():
            continue
        value = table_value(page, e.label)
        if value is not None:
            out.append(Action("type", {"element": e.name or e.placeholder, "text": value, "clear": True},
                              resolved=e, why=f"the table's value for {e.label!r}"))
    return out


def _act_on(ref: Ref, clause: str, verbs: str, earlier: Sequence[str], page: Page, facts: TaskFacts, seen: Seen,
            names: Sequence[str], answer: str | None) -> list[Action]:
    typing = TYPE_VERB.search(verbs) is not None
    if ref.kind == "field" or (ref.kind in ("text", "textarea", "spinbutton") and (typing or ref.kind == "spinbutton")):
        if "type" not in names:
            return []
        value = stated_value(clause)
        if value is None and (_PRONOUN.search(verbs) or SHOWN.search(clause) or NTH_WORD.search(clause)):
            value = derived_value(page, earlier, facts.text) or answer
        if value is None:
            return []
        value = cased(value, clause)
        targets = referenced(page, ref, empty_first=True)
        out = []
        for e in targets:
            v = _for_input(value, e.input_type)
            if not e.input_type and not (e.value or "").strip() and norm(v) in seen.typed:
                # typed before and the field is still empty: a date or time field of a kind the page does not
                # say refused that form of it; its standard form instead
                v = next((alt for alt in (_for_input(value, "date"), _for_input(value, "time"))
                          if alt != value and norm(alt) not in seen.typed), v)
            if not e.input_type and (e.value or "").strip() and \
                    norm(e.value) in (norm(_for_input(value, "date")), norm(_for_input(value, "time"))):
                continue  # the field shows the value in the standard form it took: it is in
            if norm(e.value) != norm(v):
                out.append(Action("type", {"element": e.name or e.placeholder, "text": v, "clear": True}, resolved=e,
                                  why=f"the task's value for the {ref.kind} it points to"))
        return out
    if ref.kind == "combobox":
        value = stated_value(clause)
        acts = []
        for e in referenced(page, ref):
            opt = _option(e, value, clause)
            if opt and opt != e.selected_option:
                acts.append(Action("select", {"element": e.name, "option": opt}, resolved=e,
                                   why=f"the option the task names in the {ref.kind}"))
        return acts
    if ref.kind in ("checkbox", "radio"):
        if not (TICK_VERB.search(verbs) or _CLICK_VERB.search(verbs)):
            return []
        return [Action("click", {"element": e.name}, resolved=e, why=f"the {ref.kind} the task points to")
                for e in referenced(page, ref) if not e.checked]
    if _FOCUS_VERB.search(verbs) and ref.kind in ("text", "textarea"):
        return [Action("click", {"element": e.name}, resolved=e, why="focus the field the task points to")
                for e in referenced(page, ref)]
    if _CLICK_VERB.search(verbs) and ref.kind in ("button", "link", "tab", "text", "textarea"):
        targets = referenced(page, ref)
        named = [q for pair in re.findall(r"\"([^\"]+)\"|“([^”]+)”", clause) for q in pair
                 if q and not kind_of(q)]  # a quoted kind ('a "button" widget') names no button
        if named and ref.kind in ("button", "link", "tab"):
            # "the "Mute" button": a button of that name, not whichever button the page has
            targets = [e for e in targets if any(norm(q) in norm(e.name) for q in named)]
        return [Action("click", {"element": e.name}, resolved=e, why=f"the {ref.kind} the task points to")
                for e in targets if not (seen.clicked(e) or seen.clicked_here(e))]  # once, as the task says
    return []


def unverified(acts: Sequence[Action], page: Page) -> bool:
    """Whether one of ``acts`` types a date or a time into a field whose kind the page does not say (an ARIA
    tree shows a date input as a plain text box): whether the field took that form shows only afterwards."""
    def dated(a: Action) -> bool:
        text = str(a.args.get("text", "")).strip()
        return bool(DATE.fullmatch(text) or TIME.fullmatch(text))

    return page.source == "aria" and any(a.tool == "type" and a.resolved is not None and not a.resolved.input_type
                                         and dated(a) for a in acts)


def _for_input(value: str, input_type: str) -> str:
    """``value`` as a date or time input takes it (``09/10/2012`` -> ``2012-09-10``, read by
    :func:`~agenthost.agent.calendar.date_in`; ``8:22 AM`` -> ``08:22``); other fields take it as written."""
    t = (input_type or "").lower()
    if t == "date":
        day = date_in(value, whole=True)
        if day is not None:
            return day.isoformat()
    if t == "time":
        m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::\d{2})?\s*([ap])?\.?m?\.?", value.strip(), re.I)
        if m:
            h = int(m.group(1)) % 12 if m.group(3) else int(m.group(1))
            if (m.group(3) or "").lower() == "p":
                h += 12
            return f"{h:02d}:{m.group(2)}"
    return value


def _option(e: Element, value: str | None, clause: str) -> str | None:
    """The option of ``e`` the clause names (its stated value, else an option the clause mentions whole)."""
    opts = [o for o in e.options if o.strip()]
    if value:
        for o in opts:
            if norm(o) == norm(value):
                return o
    low = norm(clause)
    named = [o for o in opts if len(norm(o)) >= 2 and re.search(r"(?<![\w])" + re.escape(norm(o)) + r"(?![\w])", low)]
    return max(named, key=len) if named else None
