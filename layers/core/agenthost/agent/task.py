"""Reading a task: the values it states, what it asks for, and whether it forbids something.

Only what the task says (or what the page shows) is used; nothing is invented except a password that
meets stated rules when the task asks for one without giving it.

Values are found in several general shapes, tried from the most to the least explicit:

* ``Label: value`` / ``Label = value`` pairs and phrases (``enter "X" into Y``, ``set Y to X``,
  ``Y is X``, ``choose 2025-03-03 as your check-in day and 2025-03-05 as your check-out day``); a label
  matches the key that shares most of its words, the particle of a hyphenated word counting (``check-in`` is
  not ``check-out``);
* a value right after the field's label or a common synonym (``first name Tomas``, ``promo code SPRING5``,
  ``username mbell and password Harbor#88``, ``born 1975``, ``under the name Lindqvist``, ``mention in the
  comments that ...``), or a number right before it (``3 rooms``, ``8000 miles per year``);
* a list of quoted items after the label (``add the tasks "A" and "B"``: the first one the page does not
  show yet);
* a search query (``search for books by X``, ``search for "X"``), a person's name for a name field
  (``a quote for Sam Taylor``), the request for a message field (``ask for a copy of your invoice``).

Each value is checked against the kind of field (an email field takes an email, a number field a number,
a password field something password-like, a message field a sentence).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from agenthost.agent.addresses import address_value
from agenthost.agent.fields import (
    EMAIL,
    GENRE,
    GENRE_OF,
    INSTRUCTION,
    THEN_STEP,
    field_kind,
    label_keys,
    valid_value,
    value_run,
)
from agenthost.agent.passwords import password_rules
from agenthost.agent.values import is_description, realistic
from agenthost.agent.wording import ID, NUMBER_WORDS, has_phrase, identifiers, joined, unquote, words

_PHONE = re.compile(r"(?<![\w])\+?\d[\d ().-]{6,}\d(?![\w])")
_URL = re.compile(r"https?://[^\s\"'<>)]+")
_QUOTED = re.compile(r"\"([^\"]{1,300})\"|“([^”]{1,300})”|(?<![\w])'([^']{1,300})'(?![\w])")
_PAIR = re.compile(
    r"(?P<key>[A-Za-z][A-Za-z0-9 /_-]{0,40}?)(?<!\d)\s*(?::|=)\s*"
    r"(?P<val>\"[^\"]*\"|'[^']*'|“[^”]*”|[^,;\n]+?)"
    r"(?=\s*(?:,|;|\n|$|\.\s|\.$|\s+and\s+[A-Za-z][\w ]{0,30}?\s*[:=]|\s+(?:with|then|but|using)\s))"
)
#: "X as your/the Y": a value written before the field it goes in ("choose 2025-03-03 as your check-in day"): a
#: quoted value or one that starts with a digit (a date, a time, an amount), right after the verb
_AS_FIELD = r"(?P<val>\"[^\"]+\"|'[^']+'|“[^”]+”|\d[\w./:-]*)\s+as\s+(?:your|the|my)\s+(?P<key>[A-Za-z][\w -]{0,40}?)" \
    r"(?:\s+(?:field|box|input))?(?=[,.;\n]|\s+(?:and|then)\b|$)"
_VALUE_AS = re.compile(r"\b(?:choose|pick|select|set|enter|type|input|put|write|use|fill in|give|book|make)\s+"
                       + _AS_FIELD, re.I)
#: the next one joined to it (", 2025-03-05 as your check-out day", "and 10:30 as the time")
_AND_VALUE_AS = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)" + _AS_FIELD, re.I)
_PHRASES = [
    # type "X" into the Y (field)
    re.compile(r"\b(?:enter|type|input|put|write|use|fill in|fill)\s+"
               r"(?P<val>\"[^\"]+\"|'[^']+'|“[^”]+”|\S+@\S+|\d[\d.,]*)"
               r"\s+(?:in|into|as|for|in the|into the|as the|for the)\s+(?:the\s+)?(?P<key>[A-Za-z][\w -]{0,40}?)"
               r"(?:\s+(?:field|box|input|textbox))?(?=[,.;\n]|\s+and\b|$)", re.I),
    # type X into the Y field (an unquoted value of up to four words, only before a named field)
    re.compile(r"\b(?:enter|type|input|write|fill in)\s+"
               r"(?P<val>(?!(?:your|my|the|a|an|his|her|their|our|its|it|this|that|these|those|some|any|each|"
               r"every|all|no)\b)[^\s\"'“”,;.]+(?:\s+[^\s\"'“”,;.]+){0,3}?)"
               r"\s+(?:in|into)\s+(?:the\s+)?(?P<key>[A-Za-z][\w -]{0,40}?)\s+(?:field|box|input|textbox|text box)\b",
               re.I),
    # set/fill the Y to/with "X"
    re.compile(r"\b(?:set|fill(?: in)?|enter|change|update)\s+(?:the\s+)?(?P<key>[A-Za-z][\w -]{0,40}?)"
               r"(?:\s+(?:field|box|input))?\s+(?:to|with|as)\s+"
               r"(?P<val>\"[^\"]+\"|'[^']+'|“[^”]+”|(?!(?-i:the|a|an|your|my|this|that|its|their)\b)[^\s,;]+)", re.I),
    # Y is/should be "X"  /  Y of "X"
    re.compile(r"\b(?:the\s+|your\s+|my\s+)?(?P<key>[A-Za-z][\w-]*(?: [A-Za-z][\w-]*){0,3}?)\s+"
               r"(?:is|should be|must be|of)\s+"
               r"(?P<val>\"[^\"]+\"|'[^']+'|“[^”]+”|[\w.+-]+@[\w.-]+|\d[\d.,/-]*)", re.I),
    # the message "X"  (one or two words right before a quoted value)
    _LOOSE := re.compile(r"\b(?P<key>[A-Za-z]+(?: [A-Za-z]+)?)\s+(?P<val>\"[^\"]+\"|“[^”]+”)"),
    # search for "X"
    re.compile(r"\b(?P<key>search)(?:\s+for)?\s+(?P<val>\"[^\"]+\"|'[^']+'|“[^”]+”)", re.I),
]
#: keys that are clauses, not field names ("name is Ana Silva and your phone")
_BAD_KEY = re.compile(r"\b(is|are|was|and|or|should|must|be|then|but)\b", re.I)
#: the task asks for a value (a table cell, a code, a price...)
_QUESTION = re.compile(r"(\?|\b(what|which|who|how many|how much|when|where|find out|tell me|report|extract|"
                       r"look up|read|get the|return the|answer|find)\b)", re.I)
#: the task asks a real question whose answer may be a whole line of text
_WH_QUESTION = re.compile(r"(\?|^\s*(what|which|who|how|when|where|why|is|are|does|do)\b|\b(find out|tell me|"
                          r"report|look up|return the|extract)\b)", re.I)
_NEGATION = re.compile(r"\b(do not|don't|dont|not|never|without|uncheck|untick|deselect|disable|turn off|"
                       r"switch off|opt out|unsubscribe|stop|leave .{0,20}unchecked)\b", re.I)
#: "only these" / "no other": boxes the task does not name should end up unticked
_ONLY = re.compile(r"\b(only|no other|none other|nothing else|exclusively)\b", re.I)


_CONNECTOR = re.compile(r"\s*(?:[:=]|\b(?:is|are|was|of|to|as|that says|that|saying|reading|be|should be|"
                        r"must be|will be)\b)?\s*", re.I)
_PERSON = re.compile(r"\b(?:for|named|called|is|am|by|as|to|from|of|[Rr]egister|[Ee]nrol+|[Ii]nvite|[Bb]ook)\s+"
                     r"((?:[A-Z][a-z'’-]+|[A-Z]\.)(?:\s+(?:[A-Z][a-z'’-]+|[A-Z]\.|van|de|da|von|le|la)){1,3})")
_REQUEST = re.compile(r"\b(ask(?:ing)?|request(?:ing)?|tell (?:them|us|him|her|the \w+)|say(?:ing)?|mention(?:ing)?|"
                      r"explain(?:ing)?|let them know|complain(?:ing)? about|report(?:ing)?|"
                      r"(?:write|note|inform)(?: to)?(?: the)?(?: \w+)?(?= that\b))\b\s*"
                      r"(?P<rest>[^.;!?\n]{4,300})", re.I)
#: a field for whom something goes to ("To", "Recipient", "Send to")
_RECIPIENT_FIELD = re.compile(r"^\s*(?:to|recipients?|send\s+to|forward\s+to)\s*:?\s*$", re.I)
#: the person a thing is given to, before the thing ("Forward Ana the note", "send Kofi the latest message")
_GIVE_TO = re.compile(r"\b(?:[Ff]orward|[Ss]end|[Gg]ive|[Pp]ass|[Ss]how|[Ee]mail|[Mm]ail)\s+([A-Z][\w'-]+)\s+"
                      r"(?:the|a|an|this|that|my|her|his|their)\b")
#: something received being sent on to someone ("Give Ana the message you got from Kofi", "send the mail from
#: Kofi to Ana"): what a Forward control does; a reply or an answer is another act
_PASSES_ON = re.compile(r"\b(?:send|give|pass|hand|share)\b(?![^.;!?]*\b(?:repl(?:y|ies)|respond|answer)\b)"
                        r"[^.;!?]{0,80}?\b(?:from|by|received|got)\s+(?-i:[A-Z@])", re.I)
_QUOTED_LIST = re.compile(r"(\"[^\"]+\"|“[^”]+”|'[^']+')((?:\s*(?:,|and|or)\s*(?:\"[^\"]+\"|“[^”]+”|'[^']+'))*)")
_SEARCH = re.compile(
    r"\bsearch(?:es|ing)?(?:\s+(?:the \w+\s+)?for)?\s+(?:(?:the\s+|a\s+|an\s+|some\s+)?[a-z]+(?:\s+[a-z]+)?\s+"
    r"(?:by|named|called|titled|about|from|with the title)\s+)?(?P<val>\"[^\"]+\"|“[^”]+”|'[^']+'|\S)",
    re.I)


#: "sign in as X" / "log in as X": X is the account
_SIGN_IN_AS = re.compile(r"\b(?:sign(?:ed)?[ -]?in|log(?:ged)?[ -]?in|login|log on)\s+as\s+(?:user\s+)?[\"'“]?"
                         r"([\w.@+-]{2,80})", re.I)
#: the task asks for made-up values for every field it does not give
_MADE_UP = re.compile(r"\b(?:realistic|plausible|made[- ]up|fake|dummy|sample|test|fictional)\s+(?:data|values|"
                      r"details|information|info|entries)\b|\b(?:fill|complete)\s+(?:in\s+|out\s+)?(?:all|every|each|"
                      r"the whole|the entire)(?:\s+(?:of the|the))?(?:\s+required)?\s+(?:fields|form|details)\b|"
                      r"\ball\s+(?:the\s+)?required\s+fields\b", re.I)


@dataclass
class TaskFacts:
    """What a task states."""

    text: str
    pairs: list[tuple[str, str]] = field(default_factory=list)
    #: a word or two right before a quoted value ("the tasks "Buy milk""): weaker than ``pairs``
    loose_pairs: list[tuple[str, str]] = field(default_factory=list)
    quoted: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    phones: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    #: the task asks for a value (table cell, code, price): it may be answered from the page
    question: bool = False
    #: the task asks a real question (a whole line of page text may answer it)
    wh_question: bool = False
    #: "only these" / "no other"
    only: bool = False
    password_rules: dict[str, int] = field(default_factory=dict)
    words: frozenset[str] = field(default_factory=frozenset)
    joined: frozenset[str] = field(default_factory=frozenset)
    #: numbers of two or more digits the task states (not times like 19:30, not parts of identifiers)
    numbers: frozenset[str] = field(default_factory=frozenset)
    #: identifiers the task names (``po-2023-08``, ``v2.10``), lower case: each names one thing as a whole
    ids: frozenset[str] = field(default_factory=frozenset)
    #: the text in lower case
    low: str = ""

    # ---------------------------------------------------------------- values for fields

    def value_for(self, label: str, input_type: str = "", *, role: str = "",
                  present: str = "") -> str | None:
        """The value the task gives for a field called ``label`` (None when it gives none).

        ``present`` is the page's text in lower case: of a list of values for one field (``add "A" and "B"``)
        the first one the page does not show yet is returned, and a loosely attached value the page already
        shows is not offered again."""
        kind = field_kind(label, input_type, role)
        best, best_score = self._pair_for(label, kind, self.pairs, describing=True)
        if best is not None and best_score >= 0.5:
            if kind == "password" and is_description(best):
                return None  # described, not given: the caller makes one that meets the rules
            return realistic(label, kind, best, input_type) if is_description(best) else best
        addr = address_value(self.text, label)
        if addr is not None:
            return addr
        near = self.value_near(label, kind, present=present)
        if near is not None:
            return realistic(label, kind, near, input_type) if is_description(near) else near
        if _RECIPIENT_FIELD.match(label):
            given = _GIVE_TO.search(self.text)
            if given:
                return given.group(1)  # "Forward Ana the note from Kofi": Ana is whom it goes to
        genre = (GENRE.search(self.text) or GENRE_OF.search(self.text)) if re.search(r"\bgenres?\b", label, re.I) \
            else None
        if genre:
            return genre.group(1)  # "drama movies": the genre a field asks for
        signed = _SIGN_IN_AS.search(self.text)
        if signed and re.search(r"\b(user\s*name|username|login|user(?:\s*id)?|account|e-?mail)\b", label, re.I):
            who = signed.group(1).rstrip(".,;")
            if kind != "email" or EMAIL.fullmatch(who):
                return who  # "sign in as dana.novak": the account to sign in with
        if kind == "email" and self.emails:
            return self.emails[0]
        if re.search(r"\b(phone|tel|mobile)\b", f"{label} {input_type}".lower()) and self.phones:
            return self.phones[0]
        if kind == "password":
            # a quoted value right after the word ("the password "3hI""): stated, typed exactly
            loose = [(k, v) for k, v in self.loose_pairs if "pass" in k.lower()]
            lbest, lscore = self._pair_for(label, "text", loose)
            return lbest if lbest is not None and lscore >= 0.3 else None  # else generated by the caller
        if kind == "search":
            s = self.search_value()
            if s:
                return s
        if kind == "name":
            person = self.person_name(label, present)
            if person:
                return person
        if kind == "free":
            msg = self.message_text()
            if msg:
                return msg
        shown = present or ""
        loose = [(k, v) for k, v in self.loose_pairs if not shown or v.lower() not in shown]
        lbest, lscore = self._pair_for(label, kind, loose)
        if lbest is not None and lscore >= 0.5:
            return lbest
        if best is not None and best_score >= 0.34 and not (kind == "password" and is_description(best)):
            return realistic(label, kind, best, input_type) if is_description(best) else best
        if self.wants_made_up and kind != "password":
            return realistic(label, kind, self.text, input_type)
        return None

    @property
    def passes_on(self) -> bool:
        """The task sends on something the user received ("give Ana the note you got from Kofi")."""
        return _PASSES_ON.search(self.text) is not None

    @property
    def wants_made_up(self) -> bool:
        """The task asks for plausible values for the fields it does not give ("fill in the form with
        realistic details", "complete all required fields")."""
        return bool(_MADE_UP.search(self.text))

    @staticmethod
    def _pair_for(label: str, kind: str, pairs: list[tuple[str, str]], *,
                  describing: bool = False) -> tuple[str | None, float]:
        lw = _label_words(label)
        best, best_score = None, 0.0
        for key, val in pairs:
            kw = _label_words(key)
            if not kw or not lw:
                continue
            inter = len(kw & lw)
            score = inter / len(kw | lw) + (0.3 if inter and kw <= lw else 0) + (0.3 if inter and lw <= kw else 0)
            if kind != "free" and INSTRUCTION.match(val):
                continue  # "Word game: unscramble the letters": a title and an instruction, not a field's value
            if score > best_score and (kind == "text" or valid_value(val, kind)
                                       or (describing and is_description(val))):
                best, best_score = val, score
        return best, best_score

    def value_near(self, label: str, kind: str = "text", *, present: str = "") -> str | None:
        """A value written right after the label or a synonym (``first name Tomas``), or a number right
        before it (``3 rooms``)."""
        text = self.text
        shown = present or ""
        low = self.low
        for key in label_keys(label):
            if key not in low:
                continue
            for m in _key_rx(key).finditer(text):
                after = m.end()
                if kind == "number":
                    before = re.search(r"(\d[\d,.]*)\s+(?:[a-z]+\s+)?$", text[max(0, m.start() - 30):m.start()])
                    if before:
                        return before.group(1).rstrip(",.")
                c = _CONNECTOR.match(text, after)
                pos = c.end() if c else after
                if (not c or not c.group(0).strip()) and re.search(r"(?:^|[.!?;:]\s*)$", text[:m.start()]):
                    continue  # "Answer the two questions ...": the key opens the sentence as its verb
                if c and kind != "free" and re.fullmatch(r"\s*that\s*", c.group(0), re.I) and \
                        text[pos:pos + 1] not in "\"'“":
                    continue  # "the move that checkmates": a relative clause describes, it gives no value
                quoted = _QUOTED_LIST.match(text[pos:])
                if quoted:
                    items = [unquote(q) for q in re.findall(r"\"[^\"]+\"|“[^”]+”|'[^']+'", quoted.group(0))]
                    fresh = [i for i in items if i.lower() not in shown] if shown else items
                    if fresh:
                        return fresh[0]
                    continue
                if kind == "email":
                    em = EMAIL.match(text, pos)
                    if em:
                        return em.group(0)
                    continue
                if kind == "number":
                    num = re.match(r"\d[\d,.:/-]*", text[pos:])
                    if num:
                        return num.group(0).rstrip(",.")
                    continue
                val, _ = value_run(text, pos, kind)
                if val and is_description(val if kind == "free" else value_run(text, pos, "free")[0]):
                    if kind == "password":
                        return None  # described, not given: the caller makes one that meets the rules
                    return realistic(label, kind, value_run(text, pos, "free")[0])
                if val and _TOOL_NOUN.match(val):
                    continue  # "with the color picker", "in the search box": the label names a tool, no value
                if val and valid_value(val, kind) and not _FIELD_NOUN.fullmatch(val.strip()):
                    return val  # ("the arrival date": "date" names the field, it is no value for it)
        return None

    def search_value(self) -> str | None:
        """What to search for: ``search for "X"``, ``search for books by X``, ``search for X``."""
        for key, val in self.pairs:
            if key.lower() == "search":
                return val
        m = _SEARCH.search(self.text)
        if m:
            val = m.group("val").strip()
            if val[:1] in "\"“'":
                return unquote(val)
            val, _ = value_run(self.text, m.start("val"), "text")
            if val:
                return val
        if self.quoted and re.search(r"\b(search|find|look (?:for|up)|query)\b", self.text, re.I):
            return self.quoted[0]
        return None

    def person_name(self, label: str = "", present: str = "") -> str | None:
        """A person's name the task mentions (``a quote for Sam Taylor``); first/last part for such fields.
        A capitalised name the page itself shows (``three tins of Assam Gold``: a product) is no person."""
        full = ""
        for m in _PERSON.finditer(self.text):
            cand = m.group(1).strip()
            if present and cand.lower() in present:
                continue
            full = cand
            break
        if not full:
            return None
        parts = full.split()
        low = label.lower()
        if re.search(r"\b(first|given|fore)\s*name\b", low):
            return parts[0]
        if re.search(r"\b(last|family|sur)\s*name\b", low):
            return parts[-1]
        return full

    def message_text(self) -> str | None:
        """The task's request as a message (``ask for a copy of your invoice`` -> ``Hello, I would like to ask
        for a copy of my invoice.``)."""
        m = _REQUEST.search(self.text)
        if not m:
            return None
        verb, rest = m.group(1).lower(), m.group("rest").strip()
        rest = rest[:step.start()] if (step := THEN_STEP.search(rest)) else rest
        said = re.match(r"(?:(?:that|it|is|says?|reads?|:)\s*)*(?:\"([^\"]+)\"|“([^”]+)”)",
                        self.text[m.start("rest"):])
        if said:
            return said.group(1) or said.group(2)  # the words to say, quoted: said as they are
        rest = re.sub(r"^(?:in the \w+\s+)?that\s+", "", rest)
        rest = _first_person(rest)
        if verb.startswith(("ask", "request")):
            return f"Hello, I would like to {verb.split()[0]} {rest}. Thank you."
        return rest[:1].upper() + rest[1:] + "."

    def count_for(self, item: str) -> int:
        """How many of ``item`` the task asks for (``two Earl Grey`` -> 2; default 1)."""
        m = re.search(r"\b(\d{1,2}|one|two|three|four|five|six|a|an|single)\s+(?:x\s+)?(?:\w+\s+){0,2}?"
                      + re.escape(item.lower()) + r"(?:s|es)?\b", self.text.lower())
        if not m:
            return 1
        n = m.group(1)
        return max(1, min(int(n) if n.isdigit() else NUMBER_WORDS.get(n, 1), 6))

    # ---------------------------------------------------------------- naming

    def mentions(self, phrase: str, *, min_cover: float = 0.75) -> float:
        """How well the task names ``phrase`` (1.0 = the whole phrase appears; 0 = not at all)."""
        p = re.sub(r"\s+", " ", phrase.strip().lower())
        if not p:
            return 0.0
        low = self.low
        if len(p) >= 3 and has_phrase(low, p):
            return 1.0
        pw = words(p)
        if not pw:
            return 0.0
        covered = {w for w in pw if w in self.words or w in self.joined}
        if len(covered) < len(pw):
            for j in joined(p) & self.words:  # "check out" on the page, "checkout" in the task
                covered |= {w for w in pw if j.startswith(w)}
        cover = len(covered) / len(pw)
        return cover if cover >= min_cover else 0.0

    def position(self, phrase: str) -> int:
        """Where the task first names ``phrase`` (its words), for ordering actions; large when it does not."""
        low = self.low
        i = low.find(phrase.lower().strip())
        if i >= 0:
            return i
        best = len(low) + 1
        for w in words(phrase):
            m = re.search(r"\b" + re.escape(w), low)
            if m:
                best = min(best, m.start())
        return best

    def negated(self, phrase: str) -> bool:
        """Whether the sentence naming ``phrase`` negates it ("do not subscribe to the newsletter")."""
        pw = words(phrase)
        for sentence in re.split(r"(?<=[.!?;\n])\s+|,\s*(?:and\s+)?|\s+(?:but|and|then)\s+", self.text):
            sw = words(sentence)
            if pw and len(pw & sw) / len(pw) >= 0.5 and _NEGATION.search(sentence):
                return True
        return False


#: a word that names a kind of field: after a label it says what the field is, never what goes in it
_FIELD_NOUN = re.compile(r"(?:date|time|name|number|field|box|value|text|address|code|amount|details?|info(?:rmation)?|"
                         r"entry|input|form|section|area|line|slot|option|list|menu)s?", re.I)


#: a word that names a control or a tool: right after a label it ends a phrase naming where or with what ("with
#: the color picker", "using the date selector", "in the search box"), never a value the task gives
_TOOL_NOUN = re.compile(r"(?:picker|chooser|selector|wheel|palette|swatch(?:es)?|slider|spinner|dial|drop-?down|"
                        r"menu|button|widget|tool|bar|box|field|input|control|calendar|panel|pad|editor|keypad|"
                        r"toggle|switch|tab|window|dialog|popup|pop-up|list)s?\b")


def _values_as(text: str) -> list[tuple[str, str]]:
    """(field, value) of each "X as your Y" the task writes, and of those joined to it."""
    out = []
    for first in _VALUE_AS.finditer(text):
        m: re.Match[str] | None = first
        while m is not None:
            out.append((m.group("key").strip(), unquote(m.group("val"))))
            m = _AND_VALUE_AS.match(text, m.end())
    return out


#: the particle of a hyphenated word ("check-in", "drop-off"): a stop word elsewhere, here what tells the field
#: from its pair ("check-out", "pick-up")
_PARTICLE = re.compile(r"(?<=[a-z]-)(?:in|out|on|off|up|down)\b", re.I)


def _label_words(s: str) -> frozenset[str]:
    """The content words of a label or a task's key, with the particles of its hyphenated words."""
    return words(s) | {p.lower() for p in _PARTICLE.findall(s)}


@lru_cache(maxsize=1024)
def _key_rx(key: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w@.-])" + re.escape(key) + r"(?:s|es)?(?![\w-])", re.I)


def _first_person(s: str) -> str:
    swaps = {"your": "my", "yours": "mine", "you": "I", "yourself": "myself"}
    return re.sub(r"\b(your|yours|yourself|you)\b", lambda m: swaps[m.group(1).lower()], s, flags=re.I)


@lru_cache(maxsize=256)
def read_task(text: str) -> TaskFacts:
    text = text or ""
    facts = TaskFacts(text=text)
    for m in _QUOTED.finditer(text):
        facts.quoted.append(next(g for g in m.groups() if g is not None))
    facts.emails = EMAIL.findall(text)
    facts.urls = [u.rstrip(".,;") for u in _URL.findall(text)]
    scrubbed = _URL.sub(" ", EMAIL.sub(" ", text))
    facts.phones = [p.strip() for p in _PHONE.findall(scrubbed) if sum(c.isdigit() for c in p) >= 7]
    seen: set[str] = set()
    for m in _PAIR.finditer(_URL.sub(" ", text)):
        key = m.group("key").strip()
        key = re.sub(r"^(?:.*\b(?:with|using|and|the|your|enter|fill in|set)\s+)", "", key, flags=re.I).strip()
        val = unquote(m.group("val"))
        if key and val and len(words(key)) <= 5 and key.lower() not in seen and not _BAD_KEY.search(key):
            facts.pairs.append((key, val))
            seen.add(key.lower())
    for key, val in _values_as(text):
        if words(key) and key.lower() not in seen and not _BAD_KEY.search(key):
            facts.pairs.append((key, val))
            seen.add(key.lower())
    for rx in _PHRASES:
        for m in rx.finditer(text):
            key = m.group("key").strip()
            val = unquote(m.group("val"))
            if key and val and words(key) and key.lower() not in seen and not _BAD_KEY.search(key):
                (facts.loose_pairs if rx is _LOOSE else facts.pairs).append((key, val))
                seen.add(key.lower())
    facts.question = bool(_QUESTION.search(text))
    facts.wh_question = bool(_WH_QUESTION.search(text))
    facts.only = bool(_ONLY.search(text))
    facts.password_rules = password_rules(text)
    facts.words = words(text)
    facts.joined = joined(text)
    facts.low = text.lower()
    facts.ids = identifiers(scrubbed)
    facts.numbers = frozenset(re.findall(r"(?<![\d.:])\d{2,}(?!\d|[.:]\d)", ID.sub(" ", text)))
    return facts
