"""Word puzzles: unscramble letters (anagrams) and fill missing letters, from a real English word list.

Input: a question such as ``"Unscramble TCA"``, ``"Unscramble the letters: L P E P A"``,
``"Find an anagram of LISTEN"``, ``"Complete the word: c_t"``, ``"Fill in the missing letters: e _ e p h _ n t"``,
or a bare pattern ``"c_t"`` (``_``, ``?`` or ``*`` for one unknown letter each).
Output: :class:`~agenthost.skills.Solution` with ``skill="words"``, ``answer`` the most common English word
that fits (lower case, or upper case when the puzzle is written in capitals) and ``detail`` naming up to five
other fitting words; ``None`` when no word fits.

The word list is pyspellchecker's English dictionary (about 130,000 plain words with how often each
occurs), shipped in the core layer; words are ranked by that frequency, so ``c_t`` gives "cut" before "cat"
and "cot". It loads once per container (its JSON read and grouped by length: 0.7-1.7 s on this loaded machine)
and anagrams are indexed by sorted letters per word length on first use, so a puzzle then takes about a
millisecond or less.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from agenthost.skills import Context, Solution, Tool

#: a word must occur at least this often in the list's corpus to be an answer (drops spelling oddities)
MIN_COUNT = 50
_BLANK = "_?*"
_UNSCRAMBLE_CUE = re.compile(r"\b(?:unscramble|anagrams?|scrambled|jumbled|rearrange|re-arrange|descramble|"
                             r"shuffled|mixed[- ]up)\b", re.I)
_FILL_CUE = re.compile(r"\b(?:missing\s+letters?|fill\s+in|complete\s+the\s+word|blanks?|which\s+word)\b", re.I)
_PATTERN = re.compile(r"(?<![\w?*])(?:[A-Za-z]*[_?*]+[A-Za-z_?*]*|(?:[A-Za-z_?*] ){2,}[A-Za-z_?*])(?![\w?*])")
_QUOTED = re.compile(r"[\"“'‘]([A-Za-z][A-Za-z ]*[A-Za-z])[\"”'’]")
_SPACED = re.compile(r"(?<![A-Za-z])(?:[A-Za-z][ ,-]){2,}[A-Za-z](?![A-Za-z])")
_STOP = {"unscramble", "anagram", "anagrams", "scrambled", "jumbled", "rearrange", "descramble", "the", "word",
         "words", "letters", "letter", "these", "this", "following", "find", "make", "an", "a", "of", "to", "form",
         "what", "is", "into", "from", "solve", "shuffled", "mixed", "up", "please", "answer", "type", "enter",
         "english", "real", "valid", "using", "all", "and", "for", "in", "it", "that", "which", "can", "you",
         "your", "below", "above", "here", "puzzle", "clue", "hint"}


@dataclass
class _Index:
    count: dict[str, int]
    by_length: dict[int, list[str]]
    #: sorted letters -> words, built per word length on first use (an anagram only needs its length)
    by_letters: dict[int, dict[str, list[str]]]
    #: (position, letter) -> words, built per word length on first use (a pattern only needs its length)
    by_position: dict[int, dict[tuple[int, str], list[str]]] = field(default_factory=dict)


_index: _Index | None = None
_lock = threading.Lock()


def _load() -> _Index:
    global _index
    if _index is None:
        with _lock:
            if _index is None:
                counts = _word_counts()
                kept = {w: n for w, n in counts.items() if n >= MIN_COUNT and w.isascii() and w.isalpha()}
                by_length: dict[int, list[str]] = defaultdict(list)
                for w in kept:
                    by_length[len(w)].append(w)
                _index = _Index(kept, dict(by_length), {})
    return _index


def _word_counts() -> dict[str, int]:
    """pyspellchecker's English word list with its frequencies (the JSON file the package ships, read
    directly: its spell-checker object would add a second pass over it that these puzzles do not need)."""
    import gzip
    import json
    from importlib import resources

    try:
        with resources.files("spellchecker").joinpath("resources", "en.json.gz").open("rb") as raw:
            data = json.loads(gzip.decompress(raw.read()))
        if isinstance(data, dict) and data:
            return {str(k).lower(): int(v) for k, v in data.items()}
    except (OSError, ValueError, TypeError):
        pass
    from spellchecker import SpellChecker  # the layout changed: through its public API

    return dict(SpellChecker(language="en", distance=1).word_frequency.dictionary)


def _ranked(words: list[str], index: _Index) -> list[str]:
    return sorted(words, key=lambda w: (-index.count[w], w))


def is_word(word: str) -> bool:
    """Whether ``word`` is in the list (any case)."""
    return word.lower() in _load().count


def unscramble(letters: str) -> list[str]:
    """Every word made of exactly ``letters`` (spaces and case ignored), most common first."""
    key = "".join(sorted(ch for ch in letters.lower() if ch.isalpha()))
    if not key:
        return []
    index = _load()
    table = index.by_letters.get(len(key))
    if table is None:
        built: dict[str, list[str]] = defaultdict(list)
        for w in index.by_length.get(len(key), []):
            built["".join(sorted(w))].append(w)
        table = index.by_letters[len(key)] = {k: _ranked(v, index) for k, v in built.items()}
    return list(table.get(key, []))


def fill(pattern: str) -> list[str]:
    """Every word matching ``pattern`` (``_``, ``?`` or ``*`` for one unknown letter; spaces ignored), most
    common first."""
    p = "".join(ch for ch in pattern.lower() if not ch.isspace())
    if not p or any(not (ch.isalpha() or ch in _BLANK) for ch in p):
        return []
    index = _load()
    known = [(i, ch) for i, ch in enumerate(p) if ch.isalpha()]
    if not known:
        return _ranked(list(index.by_length.get(len(p), [])), index)
    table = index.by_position.get(len(p))
    if table is None:
        built: dict[tuple[int, str], list[str]] = defaultdict(list)
        for w in index.by_length.get(len(p), []):
            for i, ch in enumerate(w):
                built[(i, ch)].append(w)
        table = index.by_position[len(p)] = dict(built)
    smallest = min((table.get(k, []) for k in known), key=len)
    return _ranked([w for w in smallest if all(w[i] == ch for i, ch in known)], index)


def _case(word: str, like: str) -> str:
    letters = [ch for ch in like if ch.isalpha()]
    return word.upper() if letters and all(ch.isupper() for ch in letters) and len(letters) > 1 else word


def _detail(kind: str, source: str, found: list[str]) -> str:
    others = ", ".join(found[1:6])
    return f"{kind} {source!r}: {found[0]}" + (f" (also: {others})" if others else "")


def _letter_groups(question: str) -> list[str]:
    """Candidate scrambled letters, the likeliest first: quoted, spaced single letters, capitals, the rest."""
    out: list[str] = []
    out += [m.group(1) for m in _QUOTED.finditer(question)]
    out += [re.sub(r"[ ,-]", "", m.group(0)) for m in _SPACED.finditer(question)]
    tokens = re.findall(r"[A-Za-z]+", question)
    out += [t for t in tokens if t.isupper() and len(t) >= 3 and t.lower() not in _STOP]
    after_colon = question.rsplit(":", 1)[1] if ":" in question else ""
    out += re.findall(r"[A-Za-z]{3,}", after_colon)
    out += [t for t in reversed(tokens) if len(t) >= 3 and t.lower() not in _STOP]
    seen: list[str] = []
    for t in out:
        if t not in seen:
            seen.append(t)
    return seen


def _as_pattern(raw: str, fill_cue: bool) -> str | None:
    """A pattern with at least one letter and one blank; a question mark ending a sentence is no blank."""
    p = raw.strip()
    if p.endswith("?") and (not fill_cue or any(ch in "_*" for ch in p[:-1]) or "?" in p[:-1]):
        p = p[:-1].rstrip()
    letters = sum(ch.isalpha() for ch in p)
    blanks = sum(ch in _BLANK for ch in p)
    return p if letters and blanks and letters + blanks >= 3 else None


def from_question(question: str, context: Context | None = None, deadline: float | None = None) -> Solution | None:
    """The :class:`Solution` when ``question`` is a word puzzle a word from the list solves, else ``None``."""
    fill_cue = _FILL_CUE.search(question) is not None
    patterns = [p for p in (_as_pattern(m.group(0), fill_cue) for m in _PATTERN.finditer(question)) if p]
    bare = bool(patterns) and len(re.sub(r"[\s.!?:]", "", question)) <= len(patterns[0].replace(" ", "")) + 2
    if patterns and (fill_cue or bare):
        for p in patterns:
            found = fill(p)
            if found:
                return Solution("words", _case(found[0], p), _detail("fill", p, found),
                                [_case(w, p) for w in found[1:6]])
        return None
    if not _UNSCRAMBLE_CUE.search(question):
        return None
    anagram = re.search(r"\banagrams?\b", question, re.I) is not None
    for group in _letter_groups(question):
        found = unscramble(group)
        if anagram or len(found) > 1:
            found = [w for w in found if w != group.lower()] or found
        if found:
            return Solution("words", _case(found[0], group), _detail("unscramble", group, found),
                            [_case(w, group) for w in found[1:6]])
    return None


def _tool_unscramble(args: dict[str, Any]) -> str:
    found = unscramble(str(args.get("letters") or ""))
    return ", ".join(found[:10]) if found else "no English word uses exactly these letters"


def _tool_fill(args: dict[str, Any]) -> str:
    found = fill(str(args.get("pattern") or ""))
    return ", ".join(found[:10]) if found else "no English word matches this pattern"


def tools() -> list[Tool]:
    return [
        Tool("unscramble", "English words using exactly these letters, most common first.",
             {"type": "object", "properties": {"letters": {"type": "string"}}, "required": ["letters"]},
             _tool_unscramble),
        Tool("fill_missing_letters", "English words matching a pattern, _ per missing letter ('c_t'), "
             "most common first.",
             {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]},
             _tool_fill),
    ]
