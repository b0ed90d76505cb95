"""Realistic values for fields a task only describes ("Surname: use a believable surname", "a valid phone
number format", "any country", "at least 40 words about your holiday").

:func:`is_description` tells a description from a value; :func:`realistic` gives a plain, plausible value of
the field's kind (names, emails, phones, addresses, dates, numbers in a stated range, free text of a stated
length). The values are fixed and ordinary on purpose: a page that validates a format accepts them, and the
same task always gets the same answers. Guidance text itself is never a value.

Hand-written: a fake-data library (Faker and the like) would add a large dependency for the dozen kinds a
web form asks for, and its random output would make runs unrepeatable.
"""

from __future__ import annotations

import re
from datetime import date

#: wording that describes what to enter instead of giving it
_DESCRIBES = re.compile(
    r"\b(realistic|plausible|valid|any|some|random|fake|made[- ]up|fictional|dummy|sample|example of|e\.g\.|"
    r"of your choice|your choice|whatever|appropriate|suitable|proper|correct format|format|a real|an? actual|"
    r"at least \d+|at most \d+|between \d+ and \d+|\d+\s*(?:-|to)\s*\d+ (?:words|characters)|"
    r"(?:words|characters|sentences) (?:long|about|on))\b", re.I)
_LEADS = re.compile(r"^\s*(?:use|enter|provide|give|type|put|choose|pick|select|write|fill in|add|make up|"
                    r"invent|create)\b", re.I)
_ARTICLE_LEAD = re.compile(r"^\s*(?:a|an|any|some)\s+\w+", re.I)


def is_description(value: str) -> bool:
    """Whether ``value`` describes what to enter ("use a believable surname", "any valid email", "a phone
    number in a realistic format") rather than being the value."""
    v = (value or "").strip()
    if not v or len(v) > 300:
        return False
    if _LEADS.match(v) and len(v.split()) >= 2:
        return True
    return bool(_DESCRIBES.search(v)) and (bool(_ARTICLE_LEAD.match(v)) or len(v.split()) >= 3)


FIRST, LAST = "Emma", "Johnson"

#: (label pattern, value): the first match wins; checked against the label and the description together
_BY_LABEL: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(first|given|fore)\s*name\b", re.I), FIRST),
    (re.compile(r"\b(last|family|sur)\s*name\b|\bsurname\b", re.I), LAST),
    (re.compile(r"\b(middle)\s*name\b", re.I), "Grace"),
    (re.compile(r"\buser\s*name\b|\busername\b|\blogin\b|\bhandle\b", re.I), "emma.johnson88"),
    (re.compile(r"\b(company|organi[sz]ation|employer|business)\b", re.I), "Northwind Traders"),
    (re.compile(r"\b(job|position|role|occupation|title)\b", re.I), "Project Manager"),
    (re.compile(r"\b(street|address line|address)\b", re.I), "42 Oak Street"),
    (re.compile(r"\b(city|town)\b", re.I), "Springfield"),
    (re.compile(r"\b(state|province|region|county)\b", re.I), "Illinois"),
    (re.compile(r"\b(zip|postal|post)\s*code\b|\bzip\b|\bpostcode\b", re.I), "62704"),
    (re.compile(r"\bcountry\b", re.I), "United States"),
    (re.compile(r"\b(website|url|homepage|web site)\b", re.I), "https://www.example.com"),
    (re.compile(r"\b(full\s*name|your name|name)\b", re.I), f"{FIRST} {LAST}"),
]
_EMAIL = re.compile(r"\be-?mail\b", re.I)
_PHONE = re.compile(r"\b(phone|tel|telephone|mobile|cell)\b", re.I)
_DATE = re.compile(r"\b(date|day|dob|birthday|born)\b", re.I)
_BIRTH = re.compile(r"\b(birth|dob|born|birthday)\b", re.I)
_AGE = re.compile(r"\bage\b", re.I)
_YEAR = re.compile(r"\byear\b", re.I)
_RANGE = re.compile(r"\bbetween\s+(-?\d+(?:\.\d+)?)\s+and\s+(-?\d+(?:\.\d+)?)|(-?\d+(?:\.\d+)?)\s*(?:-|to|–)\s*"
                    r"(-?\d+(?:\.\d+)?)(?!\s*(?:words|characters|chars|sentences))", re.I)
_MIN = re.compile(r"\b(?:at least|minimum(?: of)?|min\.?|no (?:fewer|less) than|more than)\s+(\d+)\s+"
                  r"(words|characters|chars|sentences)", re.I)
_TOPIC = re.compile(r"\b(?:about|on|describing|regarding|explaining)\s+((?:(?!\s+(?:and|then|but|so|with|before|"
                    r"after)\b)[^.;,\n]){3,80})", re.I)
_FREE = re.compile(r"\b(message|comments?|feedback|notes?|description|details|question|body|review|reason|"
                   r"remarks?|explanation|content|bio|about|essay|story|summary|text|paragraph|answer)\b", re.I)


def realistic(label: str, kind: str = "text", description: str = "", input_type: str = "") -> str:
    """A plausible value for a field called ``label`` of ``kind`` (see :func:`agenthost.agent.fields.field_kind`),
    following what ``description`` says (a range, a length, a topic)."""
    both = f"{label} {description}"
    itype = (input_type or "").lower()
    if kind == "email" or itype == "email" or _EMAIL.search(label):
        return f"{FIRST.lower()}.{LAST.lower()}@example.com"
    if itype == "tel" or _PHONE.search(label):
        return "415-555-0142"
    if itype == "date" or (_DATE.search(label) and not _YEAR.search(label)):
        return "1990-04-12" if _BIRTH.search(both) else date.today().replace(day=15).isoformat()
    if itype in ("number", "range") or kind == "number" or _AGE.search(label) or _YEAR.search(label):
        return _number(label, description)
    if kind == "free" or _FREE.search(label) or _MIN.search(description):
        return writing(description or label)
    for rx, value in _BY_LABEL:
        if rx.search(label):
            return value
    for rx, value in _BY_LABEL:
        if rx.search(description):
            return value
    return "Sample entry"


def _number(label: str, description: str) -> str:
    m = _RANGE.search(description) or _RANGE.search(label)
    if m:
        lo, hi = (float(x) for x in (m.group(1) or m.group(3), m.group(2) or m.group(4)))
        mid = (lo + hi) / 2
        return str(int(mid)) if mid == int(mid) else f"{mid:.2f}"
    if _AGE.search(label):
        return "34"
    if _YEAR.search(label):
        return "1990" if _BIRTH.search(f"{label} {description}") else str(date.today().year)
    return "2"


def writing(description: str) -> str:
    """Sentences on the described topic, as long as the description asks (at least, at most, between, exactly
    so many words, characters or sentences), else two sentences: the writing skill's text
    (:func:`agenthost.skills.writing.write`: whole sentences, none repeated until its pool is used up)."""
    from agenthost.skills import writing as skill

    topic = "this request"
    m = _TOPIC.search(description or "")
    if m:
        topic = re.sub(r"^(?:the|a|an|your|my)\s+", "", m.group(1).strip(), flags=re.I).rstrip(". ") or topic
        topic = re.sub(r"\b(your|yours)\b", "my", topic, flags=re.I)
    asked = skill.bounds(description or "")
    try:
        if asked is not None:
            return skill.write(topic, asked.low, asked.high, asked.unit)
    except ValueError:
        pass  # no whole sentences fit (e.g. "at most 3 words"): two sentences, as for no length
    return skill.write(topic, 2, 2, "sentences")
