"""A command line on a page: a terminal that runs what is typed at its prompt ("user$", "guest@box:~$") when
Enter is pressed, and prints the output above the next prompt.

The task asks to delete a file it describes by its extension ("ending with .log"), by having none, or by name.
The agent lists the directory with ``ls`` when the terminal shows no listing yet, then removes the first listed
file that fits with ``rm NAME``: the standard commands of a Unix shell, no others. A terminal reads keys, not a
field's value: where the protocol has a key tool (the Proxy API's ``press``), the command goes one key a step
(the prompt line shows how much is typed; a space pressed last does not show there, the page's text collapses
it, so the agent's own last key counts); where it has none (the AI Olympics runner), a ``type`` that does not
clear the box (typed key by key) ending in a newline (Enter). No listing after ``ls``, or no listed file that
fits: nothing is proposed (the other rules give up honestly).

Written by hand: a terminal on a page is read from its text (the prompt, the command after it, the output up to
the next prompt); no library reads one out of a page snapshot.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agenthost.agent.actions import Action
from agenthost.agent.page import TEXT_NODE_ROLES, TEXT_ROLES, Element, Page
from agenthost.agent.task import TaskFacts

#: the task speaks of a command line
_TERMINAL = re.compile(r"\b(?:terminal|command[- ]line|console|shell)\b", re.I)
#: it asks to delete a file
_DELETE = re.compile(r"\b(?:delete|remove|erase)\b[^.;]*?\bfiles?\b", re.I)
#: which file: by extension ("ending with the extension .png", "whose extension is .log", "a .txt file")
_EXT = re.compile(r"\bextension\s+(?:is\s+)?\.?([A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)\b|"
                  r"(?:^|\s)\.([A-Za-z0-9]{1,8})\s+files?\b", re.I)
_NO_EXT = re.compile(r"\b(?:no|without\s+(?:an?\s+)?)\s*(?:file\s+)?extension\b", re.I)
_NAMED = re.compile(r"\bfile\s+(?:named|called)\s+[\"“']?([\w.-]+?)[\"”']?(?=[\s,;]|\.?$)", re.I)
#: a shell prompt: a word ending in $, # or % ("user$", "guest@box:~$", "root#")
_PROMPT = re.compile(r"(?:^|(?<=\s))((?:[\w.-]+(?:@[\w.-]+)?(?::[~\w/.-]*)?)[$#%])(?=\s|$)")
#: the blinking cursor a terminal draws after the typed text
_CURSOR = re.compile(r"[█▋▌▍▎▏▮▯_]\s*$")
#: key names for characters a key tool cannot take as themselves
_KEY_NAMES = {" ": "Space", ".": "Period", "-": "Minus", "_": "Shift+Minus", "/": "Slash", "\n": "Enter"}


def _session(page: Page) -> tuple[str, list[str], str] | None:
    """(prompt, the commands with their output as shown after each earlier prompt, what is typed at the last
    prompt) of the terminal the page shows, or None."""
    for e in page.elements:
        text = (e.value or "") if e.role in TEXT_NODE_ROLES else ""
        marks = list(_PROMPT.finditer(text))
        if not marks:
            continue
        prompt = marks[-1].group(1)
        at = [m for m in marks if m.group(1) == prompt]
        runs = [text[a.end():b.start()].strip() for a, b in zip(at, at[1:], strict=False)]
        typed = _CURSOR.sub("", text[at[-1].end():]).strip()
        return prompt, runs, typed
    return None


def _listing(runs: Sequence[str]) -> list[str] | None:
    """The file names the last ``ls`` printed (None when none was run or it printed an error)."""
    for run in reversed(runs):
        words = run.split()
        if words and words[0] == "ls":
            out = words[1:]
            return None if any(":" in w for w in out) else out
    return None


def _fits(name: str, facts: TaskFacts) -> bool:
    named = _NAMED.search(facts.text)
    if named:
        return name == named.group(1)
    if _NO_EXT.search(facts.text):
        return "." not in name
    ext = _EXT.search(facts.text)
    if ext:
        return name.lower().endswith("." + (ext.group(1) or ext.group(2)).lower())
    return False


def _key(ch: str) -> str:
    return _KEY_NAMES.get(ch, ch)


def command_actions(facts: TaskFacts, page: Page, names: Sequence[str],
                    history: Sequence[Action] = ()) -> list[Action] | None:
    """The keys that run the next command the task needs on the page's terminal; None when the task asks no
    file deleted on a terminal or the page shows none; an empty list when no command is left to run (the file
    removed, no listing, nothing listed fits). ``history``: the agent's earlier actions (a space just pressed
    does not show at the end of the prompt line: the page's text collapses it)."""
    if not (_TERMINAL.search(facts.text) and _DELETE.search(facts.text)):
        return None
    session = _session(page)
    box = next((e for e in page.elements if e.role in TEXT_ROLES and not e.disabled), None)
    if session is None or box is None or not ("press" in names or "type" in names):
        return None
    _prompt, runs, typed = session
    if any(r.split()[:1] == ["rm"] for r in runs if r):
        return []  # a file was removed: the page judges it
    files = _listing(runs)
    if files is None:
        if any(r.split()[:1] == ["ls"] for r in runs if r):
            return []  # listed, and the terminal printed no file names
        command, why = "ls", "list the files the terminal holds"
    else:
        name = next((f for f in files if _fits(f, facts)), None)
        if name is None:
            return []
        command, why = f"rm {name}", f"remove {name}, the listed file the task describes"
    last = next((a for a in reversed(history) if a.tool not in ("observe", "wait")), None)
    if last is not None and last.tool == "press" and last.args.get("key") == _key(" ") \
            and command.startswith(typed + " "):
        typed += " "  # the space pressed last: what the prompt shows next to the cursor is the word before it
    if typed and not command.startswith(typed):
        return []  # something else is typed at the prompt
    rest = command[len(typed):] + "\n"
    return _keys(box, rest, names, why, typed)


def _keys(box: Element, rest: str, names: Sequence[str], why: str, typed: str) -> list[Action]:
    if "press" in names:  # one key a step: the prompt line shows how far the command is typed
        # the loop guards tell one key's press from the next by its key; the prompt line shows the command grow
        return [Action("press", {"key": _key(rest[0]), "element": box.name or box.placeholder}, resolved=box,
                       why=f"{why} (key {_key(rest[0])})")]
    return [Action("type", {"element": box.name or box.placeholder, "text": rest, "clear": False}, resolved=box,
                   why=f"{why}: typed key by key, then Enter")]
