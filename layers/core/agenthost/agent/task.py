"""Reading a task: the values it states, what it asks for, and whether it forbids something.

Only what the task says is used; nothing is invented except a password that meets stated rules
when the task asks for one without giving it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

STOP = frozenset("""a an the to of in on at for and or with from by into onto is are be this that it its as
then than please your you my me i we our field box input button link page form click type enter fill select
choose pick set go navigate open find value text named called which what who where when how should must
all any each every some also just only now here there after before""".split())

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"(?<![\w])\+?\d[\d ().-]{6,}\d(?![\w])")
_URL = re.compile(r"https?://[^\s\"'<>)]+")
_QUOTED = re.compile(r"\"([^\"]{1,300})\"|“([^”]{1,300})”|(?<![\w])'([^']{1,300})'(?![\w])")
_PAIR = re.compile(
    r"(?P<key>[A-Za-z][A-Za-z0-9 /_-]{0,40}?)\s*(?::|=)\s*"
    r"(?P<val>\"[^\"]*\"|'[^']*'|“[^”]*”|[^,;\n]+?)"
    r"(?=\s*(?:,|;|\n|$|\.\s|\.$|\s+and\s+[A-Za-z][\w ]{0,30}?\s*[:=]|\s+(?:with|then|but|using)\s))"
)
_PHRASES = [
    # type "X" into the Y (field)
    re.compile(r"\b(?:enter|type|input|put|write|use|fill in|fill)\s+"
               r"(?P<val>\"[^\"]+\"|'[^']+'|“[^”]+”|\S+@\S+|\d[\d.,]*)"
               r"\s+(?:in|into|as|for|in the|into the|as the|for the)\s+(?:the\s+)?(?P<key>[A-Za-z][\w -]{0,40}?)"
               r"(?:\s+(?:field|box|input|textbox))?(?=[,.;\n]|\s+and\b|$)", re.I),
    # set/fill the Y to/with "X"
    re.compile(r"\b(?:set|fill(?: in)?|enter|change|update)\s+(?:the\s+)?(?P<key>[A-Za-z][\w -]{0,40}?)"
               r"(?:\s+(?:field|box|input))?\s+(?:to|with|as)\s+(?P<val>\"[^\"]+\"|'[^']+'|“[^”]+”|[^\s,;]+)", re.I),
    # Y is/should be "X"  /  Y of "X"
    re.compile(r"\b(?:the\s+|your\s+|my\s+)?(?P<key>[A-Za-z][\w -]{0,30}?)\s+(?:is|should be|must be|of)\s+"
               r"(?P<val>\"[^\"]+\"|'[^']+'|“[^”]+”|[\w.+-]+@[\w.-]+|\d[\d.,/-]*)", re.I),
    # the message "X"  (one or two words right before a quoted value)
    re.compile(r"\b(?P<key>[A-Za-z]+(?: [A-Za-z]+)?)\s+(?P<val>\"[^\"]+\"|“[^”]+”)"),
    # search for "X"
    re.compile(r"\b(?P<key>search)(?:\s+for)?\s+(?P<val>\"[^\"]+\"|'[^']+'|“[^”]+”)", re.I),
]
_QUESTION = re.compile(r"(\?|\b(what|which|who|how many|how much|when|where|find out|tell me|report|extract|"
                       r"look up|read|get the|return the|answer)\b)", re.I)
_NEGATION = re.compile(r"\b(do not|don't|dont|not|never|without|uncheck|untick|deselect|leave .{0,20}unchecked)\b",
                       re.I)


def tokens(s: str) -> list[str]:
    return [t for t in re.findall(r"[a-z0-9@.+-]+|[a-z0-9]+", (s or "").lower()) if t not in STOP]


def stem(w: str) -> str:
    """A crude stem so that price/prices/pricing and plan/plans meet."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.isdigit():
            return w[: -len(suffix)]
    return w


def words(s: str) -> set[str]:
    """Content words of ``s``, stemmed (stop words and single letters dropped)."""
    return {stem(t) for t in re.findall(r"[a-z0-9]+", (s or "").lower()) if t not in STOP and len(t) > 1}


def _unq(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] in "\"'“" and v[-1] in "\"'”":
        return v[1:-1]
    return v.rstrip(".")


@dataclass
class TaskFacts:
    """What a task states."""

    text: str
    pairs: list[tuple[str, str]] = field(default_factory=list)
    quoted: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    phones: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    question: bool = False
    password_rules: dict[str, int] = field(default_factory=dict)
    words: set[str] = field(default_factory=set)

    def value_for(self, label: str, input_type: str = "") -> str | None:
        """The value the task gives for a field called ``label`` (None when it gives none)."""
        lw = words(label)
        best, best_score = None, 0.0
        for key, val in self.pairs:
            kw = words(key)
            if not kw or not lw:
                continue
            inter = len(kw & lw)
            score = inter / len(kw | lw) + (0.3 if inter and kw <= lw else 0) + (0.3 if inter and lw <= kw else 0)
            if score > best_score:
                best, best_score = val, score
        if best is not None and best_score >= 0.5:
            return best
        low = f"{label} {input_type}".lower()
        if ("email" in low or "e-mail" in low) and self.emails:
            return self.emails[0]
        if re.search(r"\b(phone|tel|mobile)\b", low) and self.phones:
            return self.phones[0]
        if "password" in low or input_type == "password":
            stated = [v for k, v in self.pairs if "password" in k.lower()]
            if stated:
                return stated[0]
            if self.password_rules or re.search(r"\bpassword\b", self.text, re.I):
                return make_password(self.password_rules)
        if re.search(r"\b(search|query|find)\b", low):
            for key, val in self.pairs:
                if key.lower() == "search":
                    return val
            if self.quoted:
                return self.quoted[0]
        if best is not None and best_score >= 0.34:
            return best
        return None

    def mentions(self, phrase: str, *, min_cover: float = 0.75) -> float:
        """How well the task names ``phrase`` (1.0 = the whole phrase appears; 0 = not at all)."""
        p = re.sub(r"\s+", " ", phrase.strip().lower())
        if not p:
            return 0.0
        low = self.text.lower()
        if len(p) >= 3 and re.search(r"(?<![a-z0-9])" + re.escape(p) + r"(?![a-z0-9])", low):
            return 1.0
        pw = words(p)
        if not pw:
            return 0.0
        cover = len(pw & self.words) / len(pw)
        return cover if cover >= min_cover else 0.0

    def negated(self, phrase: str) -> bool:
        """Whether the sentence naming ``phrase`` negates it ("do not subscribe to the newsletter")."""
        pw = words(phrase)
        for sentence in re.split(r"(?<=[.!?;\n])\s+|,\s*(?:and\s+)?|\s+but\s+", self.text):
            sw = words(sentence)
            if pw and len(pw & sw) / len(pw) >= 0.5 and _NEGATION.search(sentence):
                return True
        return False


def make_password(rules: dict[str, int]) -> str:
    """A password meeting the stated rules (length, digits, upper case, symbols)."""
    length = max(rules.get("min_length", 12), 12)
    base = "Agent" + "Host" + "Secure" + "Pass"
    pw = base[: max(4, length - 4)] + "7!x9"
    while len(pw) < length:
        pw += "k"
    return pw


@lru_cache(maxsize=256)
def read_task(text: str) -> TaskFacts:
    text = text or ""
    facts = TaskFacts(text=text)
    for m in _QUOTED.finditer(text):
        facts.quoted.append(next(g for g in m.groups() if g is not None))
    facts.emails = _EMAIL.findall(text)
    facts.urls = [u.rstrip(".,;") for u in _URL.findall(text)]
    scrubbed = _URL.sub(" ", _EMAIL.sub(" ", text))
    facts.phones = [p.strip() for p in _PHONE.findall(scrubbed) if sum(c.isdigit() for c in p) >= 7]
    seen: set[str] = set()
    for m in _PAIR.finditer(_URL.sub(" ", text)):
        key = m.group("key").strip()
        key = re.sub(r"^(?:.*\b(?:with|using|and|the|your|enter|fill in|set)\s+)", "", key, flags=re.I).strip()
        val = _unq(m.group("val"))
        if key and val and len(words(key)) <= 5 and key.lower() not in seen:
            facts.pairs.append((key, val))
            seen.add(key.lower())
    for rx in _PHRASES:
        for m in rx.finditer(text):
            key = m.group("key").strip()
            val = _unq(m.group("val"))
            if key and val and words(key) and key.lower() not in seen:
                facts.pairs.append((key, val))
                seen.add(key.lower())
    facts.question = bool(_QUESTION.search(text))
    rules: dict[str, int] = {}
    rm = re.search(r"(?:at least|minimum(?: of)?|min\.?)\s+(\d{1,2})\s+char", text, re.I)
    if rm and "password" in text.lower():
        rules["min_length"] = int(rm.group(1))
    facts.password_rules = rules
    facts.words = words(text)
    return facts
