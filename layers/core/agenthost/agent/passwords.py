"""Passwords: the rules a task or a page states, and a fresh password that meets them.

Only a password the task asks for without giving it is made; :mod:`secrets` draws it.
"""

from __future__ import annotations

import re
import secrets
import string

from agenthost.agent.wording import NUMBER_WORDS

_CLASS_WORDS = {
    "digit": r"\b(digit|number|numeral)s?\b",
    "upper": r"\b(upper[- ]?case|capital)\b",
    "lower": r"\blower[- ]?case\b",
    "symbol": r"\b(symbol|special character|special|punctuation)s?\b",
}


def password_rules(text: str) -> dict[str, int]:
    """Password rules stated in ``text`` (a task or a page's hint): ``min_length``, ``max_length`` and the
    character classes it requires (``digit``, ``upper``, ``lower``, ``symbol``: minimum counts)."""
    rules: dict[str, int] = {}
    low = (text or "").lower()
    if "password" not in low and "passcode" not in low:
        return rules
    m = re.search(r"\b(?:between|from)\s+(\d{1,3})\s+(?:and|to|-)\s+(\d{1,3})\s+char", low) or \
        re.search(r"\b(\d{1,3})\s*(?:-|to|–)\s*(\d{1,3})\s+char", low)
    if m:
        rules["min_length"], rules["max_length"] = int(m.group(1)), int(m.group(2))
    m = re.search(r"(?:at least|minimum(?: of)?|min\.?|no (?:fewer|less) than)\s+(\d{1,3})\s+(?:\w+\s+)?char", low) \
        or re.search(r"(\d{1,3})\+?\s+(?:or more\s+)?char\w*\s+(?:or more|minimum|min)", low)
    if m:
        rules["min_length"] = int(m.group(1))
    m = re.search(r"(?:at most|maximum(?: of)?|max\.?|no more than|up to|not (?:more|longer) than)\s+(\d{1,3})\s+"
                  r"(?:\w+\s+)?char", low)
    if m:
        rules["max_length"] = int(m.group(1))
    for cls, rx in _CLASS_WORDS.items():
        found = re.search(r"(?:(\d|one|two|three|a|an|at least one|at least \d)\s+)?(?:\w+\s+)?" + rx, low)
        if found:
            n = found.group(1) or "1"
            n = n.replace("at least ", "")
            rules[cls] = max(1, int(n) if n.isdigit() else NUMBER_WORDS.get(n, 1))
    return rules


def make_password(rules: dict[str, int] | None = None) -> str:
    """A fresh random password (``secrets``) meeting ``rules`` (see :func:`password_rules`).

    Always includes upper and lower case letters and a digit; a symbol unless the maximum length leaves no
    room; length = the stated minimum (at least 12) capped by the stated maximum."""
    rules = dict(rules or {})
    lo = max(int(rules.get("min_length", 0) or 0), 12)
    hi = int(rules.get("max_length", 0) or 0) or max(lo, 16)
    length = max(min(lo, hi), 4)
    symbols = "!#%*+-_=?"
    need = {"upper": max(rules.get("upper", 1), 1), "lower": max(rules.get("lower", 1), 1),
            "digit": max(rules.get("digit", 1), 1), "symbol": max(rules.get("symbol", 1), 1)}
    if sum(need.values()) > length:  # a tight maximum: keep what is required, drop the optional symbol
        if "symbol" not in rules:
            need["symbol"] = 0
        while sum(need.values()) > length:
            most = max(need, key=lambda c: need[c])
            need[most] -= 1
    pools = {"upper": string.ascii_uppercase, "lower": string.ascii_lowercase, "digit": string.digits,
             "symbol": symbols}
    chars = [secrets.choice(pools[c]) for c, n in need.items() for _ in range(n)]
    every = string.ascii_letters + string.digits
    while len(chars) < length:
        chars.append(secrets.choice(every))
    # a secure shuffle; never start with a symbol (some sites reject it)
    for i in range(len(chars) - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        chars[i], chars[j] = chars[j], chars[i]
    if chars[0] in symbols:
        k = next(n for n, c in enumerate(chars) if c not in symbols)
        chars[0], chars[k] = chars[k], chars[0]
    return "".join(chars)


def meets_rules(password: str, rules: dict[str, int]) -> bool:
    if len(password) < int(rules.get("min_length", 1) or 1):
        return False
    if rules.get("max_length") and len(password) > int(rules["max_length"]):
        return False
    counts = {"digit": sum(c.isdigit() for c in password), "upper": sum(c.isupper() for c in password),
              "lower": sum(c.islower() for c in password),
              "symbol": sum(not c.isalnum() for c in password)}
    return all(counts[c] >= n for c, n in rules.items() if c in counts)
