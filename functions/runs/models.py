"""Wire shapes of the Proxy Server API (``specs/agent-proxy-server-api.md``), named after the spec.

Inputs are lenient (unknown fields ignored, oversized snapshots trimmed to the extension's own limits);
outputs are strict models serialized without ``None`` fields.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from runs.masking import MASK, looks_like_card_number, mask_text

RunStatus = Literal["created", "running", "waiting_user", "completed", "error", "cancelled"]
RunMode = Literal["autonomous", "careful"]
ToolName = Literal["observe", "navigate", "click", "type", "scroll", "press", "ask_user", "finish"]
END_STATES = frozenset({"completed", "error", "cancelled"})

#: the extension's own limits (FIELD_NOTES): at most 100 elements, ~6000 chars of visible text
MAX_ELEMENTS = 100
MAX_VISIBLE_TEXT = 6000
MAX_ELEMENT_TEXT = 200
#: how much of a page's tables a snapshot keeps
MAX_TABLES, MAX_TABLE_ROWS, MAX_TABLE_CELLS = 10, 50, 12
MAX_FIELD = 500
#: a field's value: a text area's whole text as the snapshot sends it (up to 1,000 characters), to copy it exactly
MAX_VALUE = 1000
#: names, labels and autocomplete tokens of fields whose value is a secret (password, card data, codes)
_SECRET_FIELD = re.compile(
    r"pass(?:word|wd|code|phrase)|\bpin\b|\bcvv2?\b|\bcvc2?\b|\bcsc\b|security[ _-]?code|card[ _-]?(?:number|no\b|num)|"
    r"cardnumber|credit[ _-]?card|\bcc[ _-]?(?:num|number|csc|cvc|cvv|exp)|one[ _-]?time[ _-]?(?:code|password)|"
    r"\botp\b|\b2fa\b|\biban\b|\bssn\b|api[ _-]?key|secret", re.I)
#: the element fields a page can put text in (all masked like the page's text); ``id`` is the extension's own
_ELEMENT_TEXT = ("text", "ariaLabel", "placeholder", "value", "href", "name", "label", "form", "hint")


class Health(BaseModel):
    status: str
    model: str
    baseUrl: str  # noqa: N815 - the spec's field name
    timestamp: str


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore")


def _cut(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[:limit]
    return value


class BBox(_In):
    x: float = 0
    y: float = 0
    width: float = 0
    height: float = 0


class ElementInfo(_In):
    id: str
    tag: str = ""
    role: str | None = None
    text: str | None = None
    ariaLabel: str | None = None  # noqa: N815
    placeholder: str | None = None
    type: str | None = None
    value: str | None = None
    href: str | None = None
    disabled: bool | None = None
    name: str | None = None
    bbox: BBox | None = None
    # beyond the spec, sent by extensions that know them (the emulator does): kept for the page model
    label: str | None = None
    checked: bool | None = None
    options: list[str] | None = None
    inViewport: bool | None = None  # noqa: N815
    #: the form the element belongs to (id, name or index) and its autocomplete token, when sent
    form: str | None = None
    autocomplete: str | None = None
    #: an unlabelled field's visual label or an icon's class/image name; where the element starts in
    #: ``visibleText``; made clickable by script (our emulator and browser function send these)
    hint: str | None = None
    at: int | None = None
    clickable: bool | None = None
    #: ``aria-expanded`` / ``aria-selected`` (a tab, a section header, a menu button)
    expanded: bool | None = None
    selected: bool | None = None
    #: where the keyboard is (the focused element or its active descendant), an item opening a submenu
    #: (``aria-haspopup``), a multi-select list and the options chosen in it
    focused: bool | None = None
    haspopup: bool | None = None
    multiple: bool | None = None
    chosen: list[str] | None = None

    @field_validator("at", mode="before")
    @classmethod
    def _offset(cls, v: Any) -> Any:
        return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 10_000_000 else None

    _masked: str = PrivateAttr(default="")

    @field_validator("id", "form", mode="before")
    @classmethod
    def _id_str(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @property
    def secret(self) -> bool:
        """A password, card or one-time-code field: its value is never stored, shown or logged."""
        if (self.type or "").lower() == "password":
            return True
        words = " ".join(x for x in (self.name, self.placeholder, self.ariaLabel, self.label, self.hint,
                                     self.autocomplete) if x)
        return bool(_SECRET_FIELD.search(words))

    @model_validator(mode="after")
    def _redact(self) -> ElementInfo:
        # the server-side defence: snapshots from an extension may carry what the user typed into
        # password or card fields; nothing downstream (the policy, DynamoDB, GET, logs) needs it
        if self.value and (self.secret or looks_like_card_number(self.value)):
            self._masked = self.value  # only for masking the same value in the page's text, never stored
            self.value = MASK
        return self

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return _cut(v, MAX_ELEMENT_TEXT)

    @field_validator("options", "chosen", mode="before")
    @classmethod
    def _options(cls, v: Any) -> Any:
        if isinstance(v, list):
            return [str(o.get("text") or o.get("label") or o.get("value") or "") if isinstance(o, dict)
                    else _cut(str(o), 200) for o in v[:100]]
        return v

    @field_validator("tag", "role", "ariaLabel", "placeholder", "type", "href", "name", "label",
                     "form", "autocomplete", "hint", mode="before")
    @classmethod
    def _fields(cls, v: Any) -> Any:
        return _cut(v, MAX_FIELD)

    @field_validator("value", mode="before")
    @classmethod
    def _value(cls, v: Any) -> Any:
        return _cut(v, MAX_VALUE)


class PageSnapshot(_In):
    url: str = ""
    title: str = ""
    visibleText: str = ""  # noqa: N815
    elements: list[ElementInfo] = Field(default_factory=list)
    timestamp: int | float | None = None
    #: the page's tables as rows of cell texts (beyond the spec: our emulator and browser function send them)
    tables: list[list[list[str]]] | None = None

    @field_validator("tables", mode="before")
    @classmethod
    def _tables(cls, v: Any) -> Any:
        if not isinstance(v, list):
            return None
        return [[[_cut(str(c), MAX_ELEMENT_TEXT) for c in row[:MAX_TABLE_CELLS] if c is not None]
                 for row in t[:MAX_TABLE_ROWS] if isinstance(row, list)]
                for t in v[:MAX_TABLES] if isinstance(t, list)]

    @field_validator("visibleText", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return _cut(v, MAX_VISIBLE_TEXT) if v is not None else ""

    @field_validator("title", "url", mode="before")
    @classmethod
    def _short(cls, v: Any) -> Any:
        return _cut(v, 2048) if v is not None else ""

    @field_validator("elements", mode="before")
    @classmethod
    def _elements(cls, v: Any) -> Any:
        return v[:MAX_ELEMENTS] if isinstance(v, list) else ([] if v is None else v)

    @model_validator(mode="after")
    def _redact_text(self) -> PageSnapshot:
        # what was masked in the elements is masked everywhere else the page shows text (a page may echo a
        # typed password in its title, URL, links, labels or other fields; a card number shows on a
        # confirmation page), before anything stores or returns it; the run's own secrets (what it typed on
        # earlier pages) are masked by the engine (runs.masking.RunSecrets)
        secrets = [e._masked for e in self.elements if e._masked]
        self.visibleText = mask_text(self.visibleText, secrets)
        self.title = mask_text(self.title, secrets)
        self.url = mask_text(self.url, secrets)
        for e in self.elements:
            for name in _ELEMENT_TEXT:
                value = getattr(e, name)
                if value and value != MASK:
                    setattr(e, name, mask_text(value, secrets))
            if e.options:
                e.options = [mask_text(o, secrets) for o in e.options]
            if e.chosen:
                e.chosen = [mask_text(o, secrets) for o in e.chosen]
        if self.tables:
            self.tables = [[[mask_text(c, secrets) for c in row] for row in t] for t in self.tables]
        return self


def page_fingerprint(snap: PageSnapshot) -> str:
    """A short hash of what the page shows: URL, title, text and the elements with their values."""
    h = hashlib.sha256()
    h.update(f"{snap.url}\n{snap.title}\n{snap.visibleText[:3000]}\n".encode())
    for el in snap.elements:
        h.update(f"{el.id}|{el.tag}|{el.text or ''}|{el.value or ''}|{el.disabled}\n".encode())
    return h.hexdigest()[:16]


def pack_snapshot(snap: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(snap, separators=(",", ":")).encode(), 6)


def unpack_snapshot(raw: Any) -> dict[str, Any] | None:
    if not raw:
        return None
    data = getattr(raw, "value", raw)
    try:
        out = json.loads(zlib.decompress(bytes(data)))
    except (zlib.error, ValueError, TypeError):
        return None
    return out if isinstance(out, dict) else None


class ToolResult(_In):
    success: bool = True
    data: Any = None
    error: str | None = None
    message: str | None = None

    def describe(self) -> str:
        text = self.message or self.error or ("Success" if self.success else "Failed")
        return text[:300]


class StartRequest(_In):
    task: str = Field(min_length=1, max_length=4000)
    mode: RunMode = "autonomous"
    maxSteps: int | None = Field(default=None, ge=1, le=1000)  # noqa: N815
    #: beyond the spec: "extension" (the spec's flow) or "hosted" (the server drives its own browser)
    browser: Literal["extension", "hosted"] = "extension"
    startUrl: str | None = Field(default=None, max_length=2048)  # noqa: N815

    @field_validator("task")
    @classmethod
    def _task(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("task must not be empty")
        return v.strip()


class StepRequest(_In):
    snapshot: PageSnapshot | None = None
    lastActionResult: ToolResult | None = None  # noqa: N815


class AnswerRequest(_In):
    approved: bool
    answer: str | None = Field(default=None, max_length=4000)


# --- outputs ----------------------------------------------------------------------------------

class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StepState(_Out):
    status: RunStatus
    currentStep: int  # noqa: N815
    maxSteps: int  # noqa: N815


class Tool(_Out):
    name: ToolName
    parameters: dict[str, Any] = Field(default_factory=dict)


class StartResponse(_Out):
    success: bool = True
    runId: str  # noqa: N815
    state: StepState
    #: beyond the spec: why a hosted run ended at once (its ``startUrl`` was refused)
    error: str | None = None


class StepResponse(_Out):
    action: Literal["execute_tool", "ask_user", "finish", "error"]
    tool: Tool | None = None
    question: str | None = None
    result: str | None = None
    error: str | None = None
    state: StepState


class HistoryEntry(_Out):
    stepNumber: int  # noqa: N815
    action: str
    observation: str
    timestamp: int


class Reflection(_Out):
    stepNumber: int  # noqa: N815
    stepsAnalyzed: int  # noqa: N815
    efficiency: Literal["high", "medium", "low"]
    issues: list[str]
    suggestions: list[str]
    shouldAdjust: bool  # noqa: N815
    timestamp: int


class RunState(_Out):
    runId: str  # noqa: N815
    task: str
    mode: RunMode
    status: RunStatus
    currentStep: int  # noqa: N815
    maxSteps: int  # noqa: N815
    history: list[HistoryEntry]
    reflections: list[Reflection]
    currentSnapshot: dict[str, Any] | None = None  # noqa: N815
    createdAt: int  # noqa: N815
    updatedAt: int  # noqa: N815
    # beyond the spec, present only when set
    browser: str | None = None
    result: str | None = None
    error: str | None = None
    question: str | None = None


class RunStateResponse(_Out):
    success: bool = True
    state: RunState


class CancelResponse(_Out):
    success: bool = True
