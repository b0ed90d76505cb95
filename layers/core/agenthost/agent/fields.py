"""Fields: the kind of a form field, the phrases a task may use for its label, and whether a value fits it.

:func:`field_kind` classes a field by its label and input type; :func:`label_keys` lists the label's
phrases (head noun, common synonyms); :func:`valid_value` checks a candidate value against the kind (an
instruction or a description is no value); :func:`value_run` reads an unquoted value up to its delimiter.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agenthost.agent.values import is_description
from agenthost.agent.wording import STOP

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


#: general form vocabulary: a word in a field's label -> other ways a task may say it
SYNONYMS: dict[str, tuple[str, ...]] = {
    "birth": ("born", "birthday", "date of birth"),
    "released": ("release year", "released in", "year"), "release": ("released in", "year"),
    "surname": ("last name", "family name"),
    "last name": ("surname", "family name"),
    "first name": ("given name", "forename"),
    "phone": ("telephone", "mobile", "phone number"),
    "zip": ("postal code", "postcode"),
    "postal code": ("zip", "zip code", "postcode"),
    "guests": ("people", "persons", "party of"),
    "quantity": ("qty", "amount"),
    "username": ("user name", "login", "user id"),
    "email": ("e-mail",),
    "comments": ("comment",),
}
#: nouns a field's label ends with that a task may use on their own ("name on the parcel" -> "name")
_FIELD_NOUNS = frozenset("""name code number year date email address title city country phone zip amount quantity
guests username password answer query message comments comment topic subject size color colour company""".split())
_FREE_TEXT = re.compile(r"\b(message|comments?|feedback|notes?|description|details|question|body|review|reason|"
                        r"remarks?|explanation|content|bio|about)\b", re.I)
_NUMERIC = re.compile(r"\b(year|number of|guests|people|persons|age|count|quantity|qty|amount|kilomet\w*|km|"
                      r"miles|price|weight|height|nights|adults|children|rooms|seats|tickets)\b", re.I)
_NAME_FIELD = re.compile(r"\bname\b", re.I)
_STOP_RUN = re.compile(
    r"\s*(?:[,;()\[\]]|\.(?=\s|$)|\b(?:and|then|but|who|which|with|before|after|on|at|in|for|to|from|using|under|"
    r"so|if|when|while|or|into|via|because|by|as|so that)\b)", re.I)


#: a value that is an instruction (an imperative verb and more words)
INSTRUCTION = re.compile(r"(?:give|unscramble|answer|enter|type|find|solve|complete|play|win|click|select|choose|pick|"
                          r"write|fill|follow|guess|match|sort|identify|spell|pass|submit|read|work out|figure out|"
                          r"calculate|compute|check)\s+\w+", re.I)

#: a value opening with one of these refers to something else ("their amounts", "his address")
_POSSESSIVE = frozenset("their his her its our whose".split())
#: words that describe where a value is rather than being one
_NOT_VALUE = frozenset("""shown given displayed listed below above provided printed written mentioned found there
here field box yourself itself them it""".split())


def field_kind(label: str, input_type: str = "", role: str = "") -> str:
    """``email`` | ``password`` | ``number`` | ``free`` | ``name`` | ``search`` | ``text``."""
    low = f"{label} {input_type}".lower()
    if input_type == "email" or re.search(r"\be-?mail\b", low):
        return "email"
    if input_type == "password" or re.search(r"\b(password|passcode|passphrase)\b", low):
        return "password"
    if input_type in ("number", "range") or role == "spinbutton" or _NUMERIC.search(label):
        return "number"
    if input_type == "search" or role == "searchbox" or re.search(r"\b(search|query)\b", low):
        return "search"
    if _FREE_TEXT.search(label):
        return "free"
    if _NAME_FIELD.search(label):
        return "name"
    return "text"


#: a doer's noun (director, publisher, designer) and the stem its "-ed by" phrase is made from
_AGENT_NOUN = re.compile(r"([a-z]{3,}?)(?:or|er)")
_IRREGULAR_DONE = {"writer": "written", "author": "written", "singer": "sung", "maker": "made", "builder": "built",
                   "seller": "sold", "teacher": "taught", "speaker": "spoken", "driver": "driven", "user": "used",
                   "owner": "owned", "sender": "sent", "buyer": "bought", "reader": "read", "player": "played"}
#: genres of films, music and books: the value of a field that asks for a genre
GENRE = re.compile(r"\b(action|adventure|animat(?:ed|ion)|biograph(?:y|ical)|blues|classical|comedy|crime|country|"
                   r"documentary|drama|fantasy|folk|hip[- ]hop|historical|history|horror|jazz|musical|mystery|"
                   r"pop|punk|reggae|rock|romance|romantic|sci-?fi|science fiction|soul|sports?|thriller|war|"
                   r"western)\b", re.I)
#: else the word that qualifies what is looked for ("saga movies", "indie songs")
GENRE_OF = re.compile(r"\b(?!(?:the|a|an|all|any|some|new|old|good|best|top|my|your|\d+)\b)([a-z][a-z-]{2,})\s+"
                      r"(?:movies?|films?|books?|novels?|songs?|music|shows?|series|games?|albums?|podcasts?)\b", re.I)


@lru_cache(maxsize=2048)
def label_keys(label: str) -> tuple[str, ...]:
    """The phrases a task may use for a field called ``label``, most specific first."""
    low = re.sub(r"[*:()]|\boptional\b|\brequired\b", " ", (label or "").lower())
    low = re.sub(r"\s+", " ", low).strip()
    low = re.sub(r"^(?:(?:your|my|the|a|an|new|enter|please|type)\s+)+", "", low).strip()
    if not low:
        return ()
    keys = [low]
    head = re.split(r"\s+(?:for|of|per|to|in|on|at|from|with)\s+", low)[0].strip()
    if head and head != low:
        keys.append(head)
    for k in list(keys):
        for word, alts in SYNONYMS.items():
            if re.search(r"\b" + re.escape(word) + r"\b", k):
                keys.extend(alts)
    last = head.split()[-1] if head else ""
    if last in _FIELD_NOUNS and last not in keys:
        keys.append(last)
    for w in head.split():
        # who did it, for a field named after the doer: "Director" takes what follows "directed by"
        agent = _AGENT_NOUN.fullmatch(w)
        if agent:
            keys.append(_IRREGULAR_DONE.get(w, agent.group(1) + "ed") + " by")
    out: list[str] = []
    for k in keys:
        if k and k not in out:
            out.append(k)
    return tuple(out)


def valid_value(value: str, kind: str) -> bool:
    v = value.strip()
    if not v:
        return False
    if kind == "email":
        return bool(EMAIL.fullmatch(v))
    if kind == "number":
        return bool(re.fullmatch(r"[\d][\d,. ]*", v))
    if kind == "password":
        return " " not in v and len(v) >= 4 and bool(re.search(r"[\d\W_]|[A-Z].*[A-Z]|[a-z][A-Z]", v))
    if kind == "free":
        return len(v.split()) >= 2
    if kind != "free" and INSTRUCTION.match(v):
        return False  # "unscramble the letters in every round": what to do, not what to type
    if re.search(r"\w:\s", v) and not re.match(r"^\d{1,2}:\d{2}\b", v):
        return False  # "sequence game: give": a stretch of the task's own sentence, not a value
    if kind == "name" and (re.search(r"[@\d]", v) or is_description(v)):
        return False  # "@example.com" or "use a realistic name" is no name
    first = v.split()[0].lower()
    if len(v.split()) == 1 and (first in _NOT_VALUE or re.fullmatch(r"[a-z]+(?:ed|ing|ly)", v)):
        return False  # "use the voucher shown", "the code displayed": a description, not the value
    if first in _POSSESSIVE:
        return False  # "the sum of their amounts": what the value is about, not the value
    return first not in STOP and len(v.split()) <= 6


#: words that open a noun phrase: after a run of capitalised words (a name) they start the sentence's object
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "my", "your", "his", "her", "their",
                          "its", "our"})


#: where a free text stops because the task goes on to its next step ("saying running late, then click Done")
THEN_STEP = re.compile(r"(?:,\s*|\s+)(?:and\s+then|and|then)\s+(?:press|click|tap|hit|submit|send|select|choose|"
                       r"save)\b", re.I)


def value_run(text: str, start: int, kind: str) -> tuple[str, int]:
    """The unquoted value starting at ``start``: up to a delimiter (free text: up to the sentence end)."""
    rest = text[start:]
    if kind == "free":
        # up to the sentence's end, or to the next step it asks for ("... and press Done")
        m = re.search(r"[.;!?\n](?=\s|$)|" + THEN_STEP.pattern + "|$", rest, re.I)
        return rest[: m.start() if m else len(rest)].strip(), start
    if kind == "password":
        m = re.match(r"\S+", rest)
        return (m.group(0).rstrip(",;.") if m else ""), start
    # walk words; stop at a delimiter that is not inside an initial ("Toni N. Morrison")
    out: list[str] = []
    pos = 0
    while pos < len(rest):
        m = _STOP_RUN.match(rest, pos)
        if m and m.end() > pos and (out or not rest[pos:].lstrip().startswith(("(", "["))):
            prev = out[-1] if out else ""
            if not (m.group(0).strip() == "." and re.fullmatch(r"[A-Z]", prev)):
                break
        w = re.match(r"\s*([^\s,;()]+)", rest[pos:])
        if not w:
            break
        word = w.group(1)
        if out and word.lower() in _DETERMINERS and all(x[:1].isupper() for x in out):
            break  # "send to Neille the email ...": a name, then the sentence's object
        if word.endswith(".") and not re.fullmatch(r"[A-Z]\.", word):
            out.append(word.rstrip("."))
            break
        out.append(word)
        pos += w.end()
        if len(out) >= 8:
            break
    return " ".join(out).strip(), start
