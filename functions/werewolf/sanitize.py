"""What the platform does to our text, and how we make text survive it.

``platform_sanitize`` reproduces the platform's own processing of a ``message`` (cut to 500 characters,
then strip system markers, fenced code blocks and ``http(s)://`` URLs). ``clean_message`` prepares our
text so that the platform's processing leaves it intact and non-empty. ``platform_target`` is what the
platform compares against player names (trim, then a 50-character cut).
"""

from __future__ import annotations

import re
import unicodedata

from werewolf.models import MESSAGE_MAX, TARGET_MAX

MARKERS = ("【系统】", "[SYSTEM]", "[系统]", "【管理员】", "[ADMIN]", "【法官】", "[JUDGE]")
_MARKER_RE = re.compile("|".join(re.escape(m) for m in MARKERS), re.IGNORECASE)
_FENCE_RE = re.compile(r"```.*?```", re.DOTALL)
_URL_RE = re.compile(r"https?://\S*", re.IGNORECASE)
# Our own, stricter cleaning: anything URL-like, any backtick, any bracketed authority marker.
_OUR_URL_RE = re.compile(r"(?:https?|ftp|wss?)\s*[:：]\s*//\S*|www\.\S+", re.IGNORECASE)
_OUR_MARKER_RE = re.compile(r"[【\[]\s*(?:系统|system|管理员|admin|法官|judge|主持人|host)\s*[】\]]", re.IGNORECASE)
_SPACES_RE = re.compile(r"[ \t\u3000]+")
OUR_MAX = 480  # leave room: the platform cuts at 500 before stripping


def platform_sanitize(message: str) -> str:
    """The platform's processing of ``message``: cut to 500, strip markers, code fences and URLs."""
    text = message[:MESSAGE_MAX]
    text = _MARKER_RE.sub("", text)
    text = _FENCE_RE.sub("", text)
    text = _URL_RE.sub("", text)
    return text.strip()


def _strip_controls(text: str) -> str:
    return "".join(ch for ch in text if ch in "\n" or unicodedata.category(ch)[0] != "C")


def clean_message(message: str, fallback: str) -> str:
    """Text the platform will keep as we wrote it: no markers, URLs, backticks or control characters,
    at most ``OUR_MAX`` characters (cut at a sentence end where possible), never empty."""
    text = _strip_controls(message or "")
    for _ in range(3):  # removing one marker can join the pieces of another
        before = text
        text = _OUR_MARKER_RE.sub("", text)
        text = _MARKER_RE.sub("", text)
        text = _OUR_URL_RE.sub("", text)
        text = _URL_RE.sub("", text)
        text = text.replace("`", "")
        if text == before:
            break
    text = _SPACES_RE.sub(" ", text).strip()
    if len(text) > OUR_MAX:
        cut = text[:OUR_MAX]
        ends = [cut.rfind(p) for p in "。！？.!?；;"]
        end = max(ends)
        text = cut[: end + 1] if end >= OUR_MAX // 2 else cut
        text = text.strip()
    if not platform_sanitize(text):
        return fallback if fallback is not message else "我先听听大家的发言。"
    return text


def platform_target(target: str) -> str:
    """What the platform compares with player names: the target trimmed, then cut to 50 characters."""
    return target.strip()[:TARGET_MAX]


def addressable(name: str) -> bool:
    """Whether a player name can be targeted at all (the platform's cut must give the name back)."""
    return bool(name) and platform_target(name) == name
