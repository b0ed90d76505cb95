"""Text writing: well-formed sentences about a topic, of the length a task asks for, always the same text.

Input: a request such as ``"Write at least 50 words about the ocean"``, ``"Write between 80 and 100 words on
remote work"``, ``"Describe your favourite city in no more than 40 words"``, ``"Write exactly 30 words about
tea"``, ``"Write 3 sentences about trains"``, ``"Write at least 200 characters about recycling"``.
Output: :class:`~agenthost.skills.Solution` with ``skill="writing"``, ``answer`` the text and ``detail`` its
word and character counts; ``None`` when the question does not ask for writing. :func:`write` is the
reusable core (topic and bounds given directly).

The text is built from plain sentences written for this skill, each naming the topic, in an order chosen by
the topic (a checksum, so the same request always gives the same text). Sentences are whole: lengths are
met by choosing which sentences to use, never by cutting one. Why by hand: no LLM is assumed, and a filler
generator (lorem ipsum) would not be on the topic nor real English.
"""

from __future__ import annotations

import itertools
import re
import zlib
from dataclasses import dataclass
from typing import Any

from agenthost.skills import Context, Solution, Tool

# The topic is never the subject of a verb, so a plural or singular topic reads right in every sentence.
SENTENCES = [
    "The subject of {t} touches many parts of everyday life.",
    "People often think about {t} when they plan for the future.",
    "Learning more about {t} helps us make better decisions.",
    "There are many different views on {t}, and each one adds something useful.",
    "Experts who study {t} keep finding new and interesting details.",
    "A good first step is to understand the basic ideas behind {t}.",
    "Over time, ideas about {t} have changed in ways that few people expected.",
    "Many communities share stories and experiences related to {t}.",
    "Clear information about {t} makes it easier to talk with others.",
    "Some of the most important questions about {t} are still open.",
    "Teachers and students alike can benefit from exploring {t} together.",
    "When we look closely at {t}, we often notice patterns that were hidden at first.",
    "Practical examples show the effect of {t} on work, health and free time.",
    "It is worth asking what {t} might look like in ten or twenty years.",
    "Careful research into {t} relies on patience, curiosity and honest measurement.",
    "Small choices made every day can shape how we experience {t}.",
    "Conversations about {t} are most useful when they stay respectful and open.",
    "Books, articles and friends all offer fresh angles on {t}.",
    "Knowing the history of {t} gives useful context for the present.",
    "Each generation brings its own hopes and worries to {t}.",
    "Good habits make {t} easier to enjoy.",
    "Questions about {t} matter.",
    "Thinking about {t} can be fun.",
    "Many people care deeply about {t}.",
]
CLOSING = "In short, the topic of {t} deserves thoughtful attention from all of us."

_ASK = re.compile(r"\b(?:write|compose|draft|describe|type|enter|explain|tell\s+us|share)\b|\b(?:essay|paragraph|"
                  r"story|review|summary|description|composition)\b", re.I)
_UNIT = r"(?P<unit>words?|characters?|chars?|letters?|sentences?)"
_RANGE = re.compile(r"(?:between\s+)?(?P<lo>\d+)\s*(?:-|–|to|and)\s*(?P<hi>\d+)\s*" + _UNIT, re.I)
_MIN = re.compile(r"(?<!no\s)(?<!not\s)(?:at\s+least|minimum(?:\s+of)?|min\.?|no\s+(?:fewer|less)\s+than|"
                  r"more\s+than|over|a\s+minimum\s+of)\s+(?P<n>\d+)\s*" + _UNIT, re.I)
_MAX = re.compile(r"(?:at\s+most|maximum(?:\s+of)?|max\.?|no\s+more\s+than|fewer\s+than|less\s+than|under|"
                  r"up\s+to|not\s+(?:exceed|more\s+than))\s+(?P<n>\d+)\s*" + _UNIT, re.I)
_EXACT = re.compile(r"(?:exactly\s+)?(?P<n>\d+)[\s-]*" + _UNIT, re.I)
_TOPIC = re.compile(r"\b(?:about|on|regarding|describing|describe|titled|topic:?|subject:?|explaining|explain|"
                    r"why|how)\s+(?P<topic>[^.!?\n;:]+)", re.I)
_TOPIC_OF = re.compile(r"\b(?:review|summary|description|essay|paragraph|story|post|note|message)\s+(?:of|for)\s+"
                       r"(?P<topic>[^.!?\n;:]+)", re.I)
_TOPIC_END = re.compile(r"\s+(?:in|using|with|of|for|that|which|and\s+(?:at|no|between)|at\s+least|at\s+most|"
                        r"no\s+more|between|minimum|maximum|\(|,)\b.*$|\s*\(.*$|\s*,.*$", re.I)


@dataclass
class Bounds:
    unit: str  # "words", "characters" or "sentences"
    low: int
    high: int


def _unit(raw: str) -> str:
    raw = raw.lower()
    return "words" if raw.startswith("word") else "sentences" if raw.startswith("sent") else "characters"


def bounds(question: str) -> Bounds | None:
    """The length asked for (``None`` when the question names none)."""
    m = _RANGE.search(question)
    if m:
        lo, hi = sorted((int(m.group("lo")), int(m.group("hi"))))
        return Bounds(_unit(m.group("unit")), lo, hi)
    lo_m, hi_m = _MIN.search(question), _MAX.search(question)
    if lo_m or hi_m:
        unit = _unit((lo_m or hi_m).group("unit"))  # type: ignore[union-attr]
        lo = int(lo_m.group("n")) + (1 if lo_m and re.match(r"(more|over)", lo_m.group(0), re.I) else 0) \
            if lo_m else 1
        hi = int(hi_m.group("n")) - (1 if hi_m and re.match(r"(fewer|less|under)", hi_m.group(0), re.I) else 0) \
            if hi_m else max(lo + lo // 5 + 5, lo + 10)
        if not lo_m:
            lo = max(1, min(hi, hi * 3 // 4))
        return Bounds(unit, lo, max(lo, hi))
    m = _EXACT.search(question)
    if m:
        n = int(m.group("n"))
        exact = bool(re.match(r"exactly", m.group(0), re.I))
        unit = _unit(m.group("unit"))
        extra = {"words": max(5, n // 10), "characters": max(20, n // 10), "sentences": 0}[unit]
        return Bounds(unit, n, n if exact else n + extra)
    return None


def topic_of(question: str) -> str:
    """The topic a writing request names (``"this topic"`` when none)."""
    m = _TOPIC.search(question) or _TOPIC_OF.search(question)
    topic = m.group("topic") if m else ""
    topic = _TOPIC_END.sub("", topic).strip(" \"'“”‘’")
    topic = re.sub(r"^(?:the\s+topic\s+(?:of\s+)?|a\s+short\s+|an?\s+)", "", topic, flags=re.I).strip()
    if not topic or len(topic) > 80 or re.search(r"\d+\s*(?:words?|characters?)", topic, re.I):
        return "this topic"
    return topic


def _measure(text: str, unit: str) -> int:
    if unit == "words":
        return len(text.split())
    if unit == "sentences":
        return len(re.findall(r"[.!?](?:\s|$)", text))
    return len(text)


def write(topic: str, low: int, high: int | None = None, unit: str = "words") -> str:
    """Sentences about ``topic`` whose length in ``unit`` (words, characters, sentences) is within
    ``[low, high]`` (``high`` defaults to a little over ``low``). Raises ``ValueError`` when no whole
    sentences can fit (e.g. 3 words)."""
    topic = re.sub(r"\s+", " ", topic).strip() or "this topic"
    high = high if high is not None else low + max(5, low // 10)
    if low > high or high > 20000:
        raise ValueError("impossible length")
    cap = topic[0].upper() + topic[1:]
    start = zlib.crc32(topic.lower().encode()) % len(SENTENCES)
    order = SENTENCES[start:] + SENTENCES[:start]
    pool = [s.format(t=topic, T=cap) for s in order]
    closing = CLOSING.format(t=topic, T=cap)

    # every unit adds up sentence by sentence (characters: plus one space between sentences)
    def m(sentence: str) -> int:
        return _measure(sentence, unit) + (1 if unit == "characters" else 0)

    def size(total: int) -> int:
        return total - 1 if unit == "characters" and total else total

    chosen: list[str] = []
    total = 0
    end = m(closing)
    n_pass = 0
    # whole passes over the pool while far from the goal (a long text repeats sentences in a new order)
    while size(total + end) + _slack(unit) < low:
        cycle = pool if n_pass % 2 == 0 else pool[::-1]
        before = len(chosen)
        for s in cycle:
            if size(total + m(s) + end) + _slack(unit) > low:
                break
            chosen.append(s)
            total += m(s)
        if len(chosen) == before:
            break
        n_pass += 1
    rest = [s for s in pool if s not in chosen[-len(pool):]] or pool
    for k in range(0, 5):
        for combo in itertools.combinations(rest, k):
            extra = sum(m(s) for s in combo)
            for tail in ((closing,), ()):
                got = size(total + extra + (end if tail else 0))
                if low <= got <= high and (chosen or combo or tail):
                    return " ".join([*chosen, *combo, *tail])
    raise ValueError(f"no whole sentences about {topic!r} fit {low}-{high} {unit}")


def _slack(unit: str) -> int:
    return {"words": 30, "characters": 160, "sentences": 2}[unit]


def from_question(question: str, context: Context | None = None, deadline: float | None = None) -> Solution | None:
    """The :class:`Solution` when ``question`` asks for text of some length (or an essay/paragraph)."""
    if not _ASK.search(question):
        return None
    b = bounds(question)
    if b is None:
        if not re.search(r"\b(?:essay|paragraph|story|composition)\b", question, re.I):
            return None
        b = Bounds("words", 60, 80)
    topic = topic_of(question)
    text = write(topic, b.low, b.high, b.unit)
    return Solution("writing", text, f"{len(text.split())} words, {len(text)} characters about {topic!r} "
                                     f"(asked {b.low}-{b.high} {b.unit})")


def _tool_call(args: dict[str, Any]) -> str:
    unit = str(args.get("unit") or "words")
    if unit not in ("words", "characters", "sentences"):
        return "unit must be words, characters or sentences"
    try:
        low = int(args.get("min") or 50)
        high = int(args["max"]) if args.get("max") is not None else None
        return write(str(args.get("topic") or "this topic"), low, high, unit)
    except (ValueError, TypeError) as exc:
        return f"cannot write that: {exc}"


def tools() -> list[Tool]:
    return [Tool(
        "write_text", "Well-formed sentences about a topic, min to max words, characters or "
        "sentences.",
        {"type": "object", "properties": {
            "topic": {"type": "string"}, "min": {"type": "integer", "minimum": 1},
            "max": {"type": "integer", "minimum": 1},
            "unit": {"type": "string", "enum": ["words", "characters", "sentences"]}},
         "required": ["topic", "min"]},
        _tool_call)]
