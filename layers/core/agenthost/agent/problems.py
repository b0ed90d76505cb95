"""Problems and answers: a problem the page poses solved by :mod:`agenthost.skills` (typed into its answer
field or clicked among its choices), and the answer to the task's own question read from page text and
tables.
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Sequence
from typing import Any

from agenthost.agent.actions import Action, norm
from agenthost.agent.forms import NEXT_STEP, NOT_SUBMIT
from agenthost.agent.page import TEXT_ROLES, Element, Page
from agenthost.agent.progress import Seen
from agenthost.agent.task import TaskFacts
from agenthost.agent.wording import words
from agenthost.deadline import Deadline

_ANSWER_FIELD = re.compile(r"\b(answer|guess|solution|response|result|reply|your (?:move|word|number|answer)|move|"
                           r"word|number|value|essay|text|writing|code|sum|total)\b", re.I)


def skill_actions(facts: TaskFacts, page: Page, names: Sequence[str], seen: Seen,
                  deadline: Deadline, *, playing: bool = False) -> list[Action]:
    """A problem the page poses (a sum, a sequence, an anagram, a chess move, a table question...),
    solved exactly by :mod:`agenthost.skills`: the answer typed into the page's answer field and
    submitted, or the choice naming it clicked. In a game under way with no skill for the question, one
    of its answer choices is tried (the page tells whether it was right; giving up scores nothing)."""
    several = _question_fields(page, facts)
    labelled = _label_questions(page, facts) if len(several) <= 1 else []
    if labelled:
        several = labelled
    if (len(several) > 1 or labelled) and "type" in names:
        # several questions, each with its own answer field: each field gets its own question's answer
        acts: list[Action] = []
        for q_field, question in several:
            found = solve_problem(page, facts, deadline, questions=[question])
            if found is not None and str(found.answer).strip():
                acts.append(Action("type", {"element": q_field.name or q_field.placeholder,
                                            "text": str(found.answer).strip(), "clear": True},
                                   resolved=q_field, why=f"{found.skill} skill for {question[:60]!r}"))
        return acts
    field = answer_field(page, facts)
    choices = [e for e in page.elements if e.role in ("button", "radio") and e.name and not e.disabled
               and not NEXT_STEP.search(e.name) and not NOT_SUBMIT.search(e.name)
               and facts.mentions(e.name, min_cover=1.0) < 1.0]
    if field is None and len(choices) < 2:
        return []
    solution = solve_problem(page, facts, deadline)
    if solution is None:
        if playing and field is None and len(choices) >= 2 and not any(seen.clicked_here(e) for e in choices):
            pick = choices[0]
            return [Action("click", {"element": pick.name}, resolved=pick, why="no skill answers this: a guess")]
        return []
    answer = str(solution.answer).strip()
    if not answer:
        return []
    why = f"{solution.skill} skill: {answer}"
    for e in choices:
        if norm(e.name) == norm(answer) and not seen.clicked_here(e):
            return [Action("click", {"element": e.name}, resolved=e, why=why)]
    if field is None or "type" not in names or norm(field.value) == norm(answer):
        return []
    return [Action("type", {"element": field.name or field.placeholder, "text": answer, "clear": True},
                   resolved=field, why=why)]


def answer_field(page: Page, facts: TaskFacts) -> Element | None:
    """The empty field a problem's answer goes into: one labelled like an answer, else the only empty text
    field of the page (never a password or card field, never one the task gives a value for)."""
    empty = [e for e in page.elements if e.role in TEXT_ROLES and not e.disabled and not e.is_secret()
             and not (e.value or "").strip()]
    named = [e for e in empty if _ANSWER_FIELD.search(f"{e.name} {e.placeholder}")]
    pool = named or (empty if len(empty) == 1 else [])
    for e in pool:
        label = e.name or e.placeholder or e.field_name or e.hint
        if facts.value_for(label, e.input_type, role=e.role) is None:
            return e
    return None


def _question_fields(page: Page, facts: TaskFacts) -> list[tuple[Element, str]]:
    """Empty answer fields each right after its own question (a paragraph or heading asking something, up to
    three elements back): ``[(field, question)]``."""
    out: list[tuple[Element, str]] = []
    for i, e in enumerate(page.elements):
        if e.role not in TEXT_ROLES or e.disabled or e.is_secret() or (e.value or "").strip():
            continue
        if not _ANSWER_FIELD.search(f"{e.name} {e.placeholder}"):
            continue
        for prev in reversed(page.elements[max(0, i - 3):i]):
            if prev.role in TEXT_ROLES or prev.role == "button":
                break
            text = (prev.value or prev.name or "").strip()
            if prev.role in ("paragraph", "heading", "listitem", "generic", "strong", "text") and \
                    ("?" in text or re.search(r"\b(what|which|how|find|compute|calculate)\b", text, re.I)):
                out.append((e, text))
                break
    return out


#: a field label that asks for a quantity over some data ("Number of tickets with status open", "Sum of the
#: amounts of the paid invoices")
_QUANTITY_LABEL = re.compile(r"^\s*(?:the\s+|your\s+)?(?:number|count|sum|total|average|mean|maximum|minimum|"
                             r"highest|lowest|how many|how much)\b", re.I)
_QUANTITY_WORDS = frozenset(words("number count sum total average mean maximum minimum highest lowest how many much"))
_API_CUE = re.compile(r"\b(?:api|json|endpoints?)\b", re.I)
_PAGE_URL = re.compile(r"https?://[^\s\"'<>)\]]+")


def _label_questions(page: Page, facts: TaskFacts) -> list[tuple[Element, str]]:
    """Empty fields whose own label asks for a quantity over some data (two or more words besides the
    quantity word, and no value from the task): ``[(field, question)]``, the question naming the JSON API
    endpoint the page lists for it when the task or the page speaks of an API."""
    out: list[tuple[Element, str]] = []
    for e in page.elements:
        label = (e.name or e.placeholder or "").strip()
        if e.role not in TEXT_ROLES or e.disabled or e.is_secret() or (e.value or "").strip() or \
                not _QUANTITY_LABEL.search(label) or len(words(label) - _QUANTITY_WORDS) < 2 or \
                facts.value_for(label, e.input_type, role=e.role) is not None:
            continue
        url = _endpoint_for(label, page, facts)
        out.append((e, f"{label} (JSON API: {url})" if url else label))
    return out


def _endpoint_for(label: str, page: Page, facts: TaskFacts) -> str | None:
    """The API endpoint the page lists whose path shares most words with ``label`` (a whole collection, not a
    templated ``/{id}`` one), when the task or the page speaks of an API; else None."""
    if not (_API_CUE.search(facts.text) or _API_CUE.search(page.text)):
        return None
    best, best_score = None, 0
    for url in dict.fromkeys(u.rstrip(".,;:") for u in _PAGE_URL.findall(page.text)):
        if "{" in url or "%7B" in url:
            continue
        path = url.split("//", 1)[-1].partition("/")[2].split("?", 1)[0]
        score = len(words(path.replace("/", " ")) & words(label))
        if score > best_score:
            best, best_score = url, score
    return best


def solve_problem(page: Page, facts: TaskFacts, deadline: Deadline | None = None, *,
                  questions: Sequence[str] | None = None) -> Any:
    """:func:`agenthost.skills.solve` on the problem the page poses (its question lines first, then its
    whole text, then the task), or None when there is no skill for it. The one call site of the skills.

    The skills work to the turn's ``deadline`` (given to them as a ``time.monotonic()`` instant, the clock
    they read); no question is tried once it has passed."""
    try:
        skills = importlib.import_module("agenthost.skills")
    except ImportError:
        return None
    limit = None if deadline is None else time.monotonic() + deadline.remaining()
    labels = {e.name for e in page.elements if e.interactive and e.name}
    # a table's own cells and headers ask nothing: the page's text names every column of its tables, and a
    # word elsewhere ("average" in a status line) would make it a question about them
    cells = {norm(str(c)) for table in page.tables for row in table for c in row}
    lines = [ln.strip() for ln in page.text.splitlines()
             if ln.strip() and ln.strip() not in labels and norm(ln) not in cells]
    asks = [ln for ln in lines if "?" in ln or ":" in ln]
    tries = list(questions) if questions else asks[:3] + ["\n".join(lines)[:3000], facts.text]
    for q in tries:
        if limit is not None and time.monotonic() > limit:
            break
        if not q.strip():
            continue
        try:
            found = skills.solve(q, context=page, deadline=limit)
        except Exception:  # noqa: BLE001 - a skill failing is no reason to lose the turn
            found = None
        if found is not None and str(getattr(found, "answer", "") or "").strip():
            return found
    return None
