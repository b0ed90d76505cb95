"""Boxes to tick by meaning ("tick the words similar to big, angry", "choose the synonyms of quick"): an honest
give-up where the page's words are not the task's own.

A box whose label is the task's word itself is certainly one that means the same, and the form rules tick it. A
box with another word is one only if the two words mean the same, and this agent has no lexicon to tell: no
well-kept package ships English synonym data for offline use within a function layer's size (WordNet's readers
download their data from outside the package registry at run time). Ticking the verbatim matches and sending
the form would send a partial answer the page scores as wrong; so when a word the task lists has no box of its
own, the agent says it cannot tell which box means the same, and sends nothing. (The LLM policy, where one is
configured, decides such pages itself; this is the deterministic policy's limit.)
"""

from __future__ import annotations

import re

from agenthost.agent.page import Page
from agenthost.agent.task import TaskFacts

#: "similar to X, Y", "synonyms of X", "that mean the same as X", "close in meaning to X"
_BY_MEANING = re.compile(
    r"\b(?:similar(?:\s+in\s+meaning)?\s+to|synonyms?\s+(?:of|for|to)|synonymous\s+with|"
    r"(?:that|which)\s+means?\s+the\s+same(?:\s+thing)?\s+as|close\s+in\s+meaning\s+to|"
    r"with\s+the\s+same\s+meaning\s+as)\s+(.+?)"
    r"(?=\s*(?:,\s*)?\b(?:and|then)\s+(?:then\s+)?(?:click|press|hit|submit|tap)\b|[.;!?]|$)", re.I)
_SPLIT = re.compile(r"\s*(?:,|\band\b|\bor\b|/)\s*", re.I)


def _words(text: str) -> list[str]:
    m = _BY_MEANING.search(text)
    if not m:
        return []
    return [w.strip(" \"'“”").casefold() for w in _SPLIT.split(m.group(1)) if w.strip(" \"'“”")]


def unmatched_by_meaning(facts: TaskFacts, page: Page) -> list[str]:
    """The words the task asks boxes to mean that no box of the page is labelled with itself; [] when the task
    picks nothing by meaning, the page has no boxes, or every word has its own box."""
    words = _words(facts.text)
    boxes = [e for e in page.elements if e.role in ("checkbox", "radio", "switch")]
    if not words or not boxes:
        return []
    labels = {" ".join((e.name or e.hint).split()).casefold() for e in boxes}
    return [w for w in words if w not in labels]
