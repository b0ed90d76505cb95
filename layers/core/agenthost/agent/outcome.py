"""What a page says about the task: finished, failed, still in progress, or nothing yet.

A completion claim needs evidence tied to the task; a page's wording alone is easy to misread. The rules (English
word lists and patterns; no site, task or page is named in them):

* a **score or progress line** (``0 Score 0 Correct 1/10``, ``Question 3 of 10``, ``Round 2``, ``Step 1 of
  3``, ``Points: 40``) is never a completion message, whatever words it holds ("correct", "score");
* a line that **reports failure or zero** (``0 correct``, ``Score: 0``, ``0/10``, ``incorrect``, ``wrong``,
  ``failed``, ``try again``, ``not quite``) is never a completion message either, and a page that shows one
  next to "Submitted!" has not succeeded;
* a **game in progress** (a ``3 of 10`` / ``3/10`` line whose first number is below the second, or
  ``question/round/level N`` with no "game over" wording) is played on: no completion until the page says
  the game is over;
* a **game over** (``game over``, ``final score``, ``quiz complete``, ``all questions answered``...) counts as
  success only when the page's final report is a full score (``10/10``, ``10 of 10 correct``) or a success
  message without failure/zero; otherwise the task is over and *not* achieved;
* a page that takes its own message back (``Well done!`` next to ``the key is not kept here``, ``keep
  searching``, ``wrong turn``) shows no success;
* a completion message present before the agent acted (a landing page's "Welcome!") is not evidence: the
  caller passes the lines it saw first (:func:`line_key` of each) as ``before``.

Hand-written on purpose: what counts as "done" is this project's policy, not a library's; the patterns are
plain ``re`` expressions kept in one place so both policies and the evaluation client judge alike.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections.abc import Collection
from dataclasses import dataclass

from agenthost.agent.page import Page

#: completion wording ("correct" alone is per-round feedback; "started"/"welcome" open a task, they do not end it)
SUCCESS = re.compile(r"\b(thank you|thanks|successfully|success|submitted|saved|created|placed|booked|confirmed|"
                     r"received|registered|subscribed|updated|sent|completed?|congratulations|well done|you win|"
                     r"you won|you did it|solved|all done|task complete|order (?:is )?complete|"
                     r"confirmation (?:number|code)|you found|you(?:'ve| have) (?:found|reached|arrived))\b", re.I)
#: per-round feedback that is a success only when no game is going on ("Correct!", "That's right")
ROUND_OK = re.compile(r"\b(correct|right answer|that'?s right|nice|good job|great)\b", re.I)
ERROR = re.compile(r"\b(required|invalid|not valid|incorrect|wrong|error|failed|failure|unknown|must|please (?:enter|"
                   r"fill|choose|select|confirm|rate|pick|provide|check)|is not|isn't|cannot|can't|empty|too (?:short|"
                   r"long)|missing|does not|doesn't|try again|not found|no results|not quite|not correct|"
                   r"unsuccessful|denied|rejected|expired|game over|time'?s up|out of (?:time|lives))\b", re.I)
#: a line that takes a success message back ("Well done! ... but the key is not kept here"): a page that says both
#: is no evidence of success. Four general forms, no page's nouns: what is sought is not where the page is; what
#: the page shows is not the one sought; the search goes on; something is still left to do
VETO = re.compile(
    r"\b(not\s+here|(?:is|are)(?:n'?t|\s+not)\s+(?:\w+\s+)?here|nothing\s+(?:here|to\s+see)|"
    r"(?:is|are)\s+not\s+(?:it|this\s+one|the\s+(?:right|correct|one))|not\s+the\s+(?:right|correct|real|one)|"
    r"wrong\s+\w+|"
    r"keep\s+(?:looking|searching|trying)|(?:look|search)\s+(?:elsewhere|somewhere\s+else)|try\s+again|"
    r"not\s+(?:quite|yet)|incorrect|failed|"
    r"still\s+(?:need|have|missing|to\s+do)|(?:is|are)\s+(?:still\s+)?missing)\b", re.I)
#: a score, counter or progress line: the state of a game or a wizard, not its end
PROGRESS = re.compile(
    r"(\b(?:question|round|level|step|stage|puzzle|problem|slide|card|task|part|turn|move|page|word)\s*#?\s*\d+"
    r"(?:\s*(?:of|/)\s*\d+)?\b|(?<![\w/.:,-])\d{1,3}\s*/\s*\d{1,3}(?![\w/.:,-])|\b\d+\s+of\s+\d+\b|"
    r"\bscore\b|\bpoints?\b|\bcorrect\s*[:=]\s*\d+|\b\d+\s+(?:correct|right|wrong|incorrect|solved|answered)\b|"
    r"\bprogress\b|\b(?:lives|attempts|tries|moves|time)\s+(?:left|remaining)\b|\bstreak\b|\baccuracy\b)", re.I)
#: a line that reports zero or failure ("0 correct", "Score: 0", "0/10", "0 of 10", "you scored 0")
ZERO = re.compile(
    r"((?<![\d.])0\s+(?:correct|right|points?|solved|answered correctly)\b|\b(?:correct|score|points?|solved|"
    r"right)\s*[:=]?\s*0(?![\d.,]|\s*/\s*0)|(?<![\d.])0\s*(?:/|of)\s*\d+|\bscored?\s+(?:of\s+)?0\b(?![\d.])|"
    r"\bno (?:correct|points|answers? (?:were|was) correct)\b|\bnone (?:correct|right)\b)", re.I)
FAILURE = re.compile(r"\b(incorrect|wrong|failed|failure|not quite|not correct|try again|unsuccessful|you lose|"
                     r"you lost|game over|time'?s up|out of (?:time|lives)|denied|rejected)\b", re.I)
#: the page says a game or a multi-round task is over
GAME_OVER = re.compile(r"\b(game over|final (?:score|result|results)|quiz (?:complete|completed|finished|over)|"
                       r"all (?:rounds|questions|puzzles|levels|words|problems) (?:complete|completed|done|"
                       r"answered|solved|finished)|(?:game|challenge|quiz|test) (?:complete|completed|finished)|"
                       r"you(?:'ve| have)? finished|results? summary|you (?:scored|got) \d+\s*(?:/|of|out of)\s*\d+)\b",
                       re.I)
#: "Correct!" / "That's right." opening or closing a line (not "correct" inside a sentence)
_FEEDBACK_OK = re.compile(r"^\W*(?:correct|that'?s right|right answer)\b|(?:^|[.!?:]\s+|\s)(?:correct|that'?s right|"
                          r"right answer)\s*[!.]*\s*$", re.I)
#: lines of page text read for a verdict (a verdict is near the top or in a status region; a huge page stays fast)
MAX_LINES = 600
_FRACTION = re.compile(r"(?<![\w/.:,-])(\d{1,3})\s*(?:/|of|out of)\s*(\d{1,3})(?![\w/.:,-])", re.I)
#: a length counter beside a text field ("Characters: 48 / 500", "Words 12/80")
_LENGTH_COUNTER = re.compile(r"\b(?:characters?|chars|words|letters)(?:\s+(?:used|typed|written))?\s*:?\s*"
                             r"\d+\s*/\s*\d+", re.I)
#: the last step of a form in steps ("Step 4 of 4"): a completion message beside it ends the form
_LAST_STEP = re.compile(r"\b(?:step|stage|slide|page|part)\s*#?\s*(\d{1,3})\s*(?:of|/)\s*(\d{1,3})\b", re.I)
_GAME_WORDS = re.compile(r"\b(?:question|round|level|puzzle|problem|card|word|game|quiz|score|points?)\b", re.I)


#: where a task's text is cut into sentences (each is looked for on the page on its own)
_TASK_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass
class Outcome:
    """``kind``: ``success`` | ``failure`` (over, not achieved) | ``error`` (a problem to fix, e.g. a form
    error) | ``progress`` (a game or wizard under way) | None; ``text``: the line that says so."""

    kind: str | None = None
    text: str = ""

    @property
    def success(self) -> bool:
        return self.kind == "success"


def line_key(line: str) -> str:
    """A short stable key for a page line (kept in the policy's memory instead of the text)."""
    return hashlib.sha1(re.sub(r"\s+", " ", line.strip().lower()).encode(), usedforsecurity=False).hexdigest()[:10]


def is_progress(line: str) -> bool:
    return PROGRESS.search(line) is not None


def reports_failure(line: str) -> bool:
    """The line reports zero, failure or a wrong answer."""
    return ZERO.search(line) is not None or FAILURE.search(line) is not None


def in_play(line: str) -> bool:
    """A progress line of a game or wizard that is not finished (``3 of 10``, ``Question 3``, ``1/10``)."""
    if GAME_OVER.search(line):
        return False
    line = _LENGTH_COUNTER.sub(" ", line)  # "Characters: 48 / 500" counts what was typed, no round of a game
    for a, b in _FRACTION.findall(line):
        if int(a) < int(b):
            return True
    return bool(re.search(r"\b(?:question|round|level|step|stage|puzzle|problem|slide|card|word)\s*#?\s*\d+\b",
                          line, re.I))


def last_step(line: str) -> bool:
    """A form's last step (``Step 4 of 4``, not a game's ``Question 10 of 10``): a fresh completion message
    beside it is the form's end (a game's last round is still to be played)."""
    steps = _LAST_STEP.findall(line)
    return bool(steps) and all(a == b for a, b in steps) and not _GAME_WORDS.search(line)


def full_score(text: str) -> bool:
    """The text reports a full score (``10/10``, ``5 of 5 correct``) and no smaller one."""
    fr = [(int(a), int(b)) for a, b in _FRACTION.findall(text) if int(b) > 0]
    return bool(fr) and all(a == b for a, b in fr)


def candidate_lines(page: Page, task: str = "") -> list[tuple[str, bool]]:
    """(line, from a status/alert region) for the lines a verdict may come from: status and alert regions
    first, then the page's non-interactive text, then its title. Where the page repeats the task's own
    sentences (an instruction box), they are left out: the task's words are no verdict ("... the email Neille
    sent me" is not "sent")."""
    out: list[tuple[str, bool]] = []
    for e in page.elements:
        if e.role in ("status", "alert") and (e.value or e.name):
            out.append(((e.value or e.name).strip(), True))
    labels = {e.name for e in page.elements if e.interactive and e.name}
    said = [" ".join(s.split()) for s in _TASK_SENTENCE.split(task or "") if len(s.strip()) >= 12]
    for line in page.text.splitlines()[:MAX_LINES]:
        line = line.strip()
        if said:
            flat = " ".join(line.split())
            for sentence in said:
                flat = flat.replace(sentence, " ")
            line = flat.strip()
        if line and line not in labels and len(line) <= 400:
            out.append((line, False))
    if page.title:
        out.append((page.title.strip(), False))
    return out


def _hits(text: str, starts: list[int], rx: re.Pattern[str]) -> set[int]:
    """Indices of the lines (joined by NUL into ``text``; ``starts``: their offsets) where ``rx`` matches:
    one pass over the page instead of one search per line (a 2,000-line page stays fast)."""
    return {bisect_right(starts, m.start()) - 1 for m in rx.finditer(text)}


def judge(page: Page, before: Collection[str] = (), task: str = "") -> Outcome:
    """The page's verdict on the task (see the module docstring). ``before``: :func:`line_key` s of lines
    shown before the agent acted (they are no evidence); ``task``: the task, whose own sentences on the page
    are no evidence either."""
    lines = candidate_lines(page, task)
    if not lines:
        return Outcome()
    texts = [ln for ln, _ in lines]
    starts: list[int] = []
    pos = 0
    for ln in texts:
        starts.append(pos)
        pos += len(ln) + 1
    joined_text = "\x00".join(texts)  # no pattern crosses a NUL: each match stays within its line
    succ = _hits(joined_text, starts, SUCCESS)
    over_i = _hits(joined_text, starts, GAME_OVER)
    prog = _hits(joined_text, starts, PROGRESS)
    zero_i = _hits(joined_text, starts, ZERO)
    fail_i = _hits(joined_text, starts, FAILURE)
    err_i = _hits(joined_text, starts, ERROR)
    ok_i = _hits(joined_text, starts, ROUND_OK)
    veto = bool(_hits(joined_text, starts, VETO) & {i for i in range(len(texts)) if not before
                                                     or line_key(texts[i]) not in before})
    interesting = succ | over_i | prog | zero_i | fail_i | err_i | ok_i
    fresh = {i for i in interesting if not before or line_key(texts[i]) not in before}
    failing = zero_i | fail_i
    playing = sorted(i for i in prog if in_play(texts[i]))
    over = sorted(over_i & fresh)
    if over:
        report = "\n".join(texts[i] for i in sorted(fresh & (prog | over_i | succ)))
        if reports_failure(_without_game_over(report)) or (_FRACTION.search(report) and not full_score(report)):
            return Outcome("failure", texts[over[0]][:300])
        if full_score(report) or any(i not in failing for i in fresh & succ):
            return Outcome("success", texts[over[0]][:300])
        return Outcome("failure", texts[over[0]][:300])
    for i in sorted(fresh & err_i):
        if lines[i][1] and i not in succ:
            return Outcome("error", texts[i][:300])
    if not zero_i and not veto and all(last_step(texts[i]) for i in playing):
        for i in sorted(fresh & succ):
            if i not in prog and i not in failing and i not in err_i:
                return Outcome("success", texts[i][:300])
    for i in sorted(fresh & err_i):
        if lines[i][1]:
            return Outcome("error", texts[i][:300])
    if not playing and not zero_i and not veto:
        for i in sorted(fresh & ok_i):
            ln = texts[i]
            if _FEEDBACK_OK.search(ln) and i not in failing and i not in prog:
                return Outcome("success", ln[:300])
    if playing:
        return Outcome("progress", texts[playing[0]][:300])
    if zero_i:
        line = texts[min(zero_i)]
        return Outcome("failure" if fresh & succ else "progress", line[:300])
    if fresh & fail_i:
        return Outcome("error", texts[min(fresh & fail_i)][:300])
    return Outcome()


def _without_game_over(text: str) -> str:
    return re.sub(r"\bgame over\b", " ", text, flags=re.I)


def success_keys(page: Page) -> list[str]:
    """Keys of the lines that read like completion or feedback (remembered from the first page seen)."""
    texts = [ln for ln, _ in candidate_lines(page)]
    starts: list[int] = []
    pos = 0
    for ln in texts:
        starts.append(pos)
        pos += len(ln) + 1
    joined_text = "\x00".join(texts)
    hits = set().union(*(_hits(joined_text, starts, rx) for rx in (SUCCESS, ROUND_OK, GAME_OVER)))
    return [line_key(texts[i]) for i in sorted(hits)][:20]


def taken_back(page: Page, before: Collection[str] = (), task: str = "") -> bool:
    """A fresh completion line next to a fresh line that takes it back (:data:`VETO`): the page :func:`judge`
    refuses as a success for that reason (the policy names it in the decision's trace)."""
    fresh = [ln for ln, _ in candidate_lines(page, task) if not before or line_key(ln) not in before]
    return any(SUCCESS.search(ln) for ln in fresh) and any(VETO.search(ln) for ln in fresh)
