"""Evaluation definitions in YAML, both generations of the reference server's format.

* One file per evaluation under ``<root>/<category>/<name>.yaml`` (the newer layout): the category is
  the folder name. Every enabled evaluation here is assigned to every client that has no client file.
* Per-client files under ``<root>/clients/<client-id>.yaml`` (the older layout)::

      client: {id: ..., name: ..., secret_key: ...}   # secret_key optional
      settings: {max_concurrent_evaluations: 3, default_timeout: 60000,  # ms, for evaluations without one
                 retry_policy: {max_retries: 1, initial_delay: 0, backoff_multiplier: 2}}
      evaluations: [ {id: ..., ...}, ... ]            # exactly this client's evaluations

Files are validated with pydantic; every problem is reported as ``path: field: message`` and the
broken file is skipped (the server keeps serving the valid ones). ``python -m evals.definitions DIR``
validates a folder and exits non-zero on any error.
"""

from __future__ import annotations

import datetime
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agenthost import limits
from agenthost.errors import BadInput

PACKAGED_DIR = Path(__file__).resolve().parent / "definitions"
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
PRIORITY_ORDER = {"critical": 0, "high": 1, "normal": 2, "medium": 2, "low": 3}


class DefinitionError(BadInput, ValueError):
    """A definition file (or uploaded document) is invalid; ``errors`` lists every problem."""

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Target(_Lenient):
    url: str = Field(min_length=1)
    wait_for: str | None = "load"
    wait_timeout: int = Field(default=5000, ge=0, le=120_000)

    @field_validator("url")
    @classmethod
    def _http_url(cls, v: str) -> str:
        if not v.startswith(("http://", "https://", "{pages}")):
            raise ValueError("must be an http(s) URL")
        return v


class Validation(_Lenient):
    type: Literal["llm-judge", "hybrid", "snapshot", "js-eval", "none", "schema", "expected"] = "none"
    #: JSON schema the output must satisfy (defaults to ``input.schema`` for extraction tools)
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    #: expected values: a subset of the output (strings compared case- and whitespace-insensitively)
    expected: Any = None
    snapshot: dict[str, Any] | None = None  # {expected: ..., exclude_paths: [...]}
    js_eval: dict[str, Any] | None = None  # {script: ..., expected_result: ...}
    llm_judge: dict[str, Any] | None = None  # {criteria: [...], model: ...}
    pass_threshold: float | None = Field(default=None, ge=0, le=1)


class Metadata(_Lenient):
    tags: list[str] = Field(default_factory=list)
    priority: str = "normal"
    retries: int = Field(default=0, ge=0, le=10)
    category: str | None = None


class Evaluation(_Lenient):
    id: str = Field(pattern=ID_PATTERN)
    name: str = ""
    description: str = ""
    enabled: bool = True
    target: Target
    tool: str = Field(min_length=1, max_length=100)
    timeout: int = Field(default=30_000, ge=1000, le=2 * 3600 * 1000)  # ms
    input: dict[str, Any] = Field(default_factory=dict)
    model: Any = None
    validation: Validation = Field(default_factory=Validation)
    metadata: Metadata = Field(default_factory=Metadata)
    category: str = "default"

    def url(self, pages_url: str = "") -> str:
        from agenthost.config import settings

        base = pages_url or settings().evals_pages_url or "http://127.0.0.1:8765"
        return self.target.url.replace("{pages}", base.rstrip("/"))

    @property
    def priority_rank(self) -> int:
        return PRIORITY_ORDER.get(self.metadata.priority.lower(), 2)

    def doc(self) -> dict[str, Any]:
        """JSON-safe form (stored in DynamoDB for uploads)."""
        return self.model_dump(mode="json", by_alias=True)


class RetryPolicy(_Lenient):
    max_retries: int | None = Field(default=None, ge=0, le=10)
    initial_delay: int = Field(default=0, ge=0, le=600_000)  # ms
    backoff_multiplier: float = Field(default=2.0, ge=1, le=10)


class ClientSettings(_Lenient):
    max_concurrent_evaluations: int | None = Field(default=None, ge=1, le=100)
    #: ms; applies to this file's evaluations that set no ``timeout`` of their own
    default_timeout: int | None = Field(default=None, ge=1000, le=2 * 3600 * 1000)
    retry_policy: RetryPolicy = Field(default_factory=RetryPolicy)


class ClientInfo(_Lenient):
    id: str = Field(pattern=ID_PATTERN)
    name: str = ""
    secret_key: str | None = None
    description: str = ""


class ClientFile(_Lenient):
    client: ClientInfo
    settings: ClientSettings = Field(default_factory=ClientSettings)
    evaluations: list[Evaluation] = Field(default_factory=list)


@dataclass
class Catalog:
    """Everything loaded: global evaluations, client files, and the problems found."""

    evaluations: dict[str, Evaluation] = field(default_factory=dict)
    clients: dict[str, ClientFile] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def assigned(self, client_id: str) -> list[Evaluation]:
        """A client's evaluations: those of its client file, else every enabled global one."""
        cf = self.clients.get(client_id)
        evals = cf.evaluations if cf is not None else list(self.evaluations.values())
        return [e for e in evals if e.enabled]

    def find(self, client_id: str, eval_id: str) -> Evaluation | None:
        cf = self.clients.get(client_id)
        if cf is not None:
            for e in cf.evaluations:
                if e.id == eval_id:
                    return e
            return None
        return self.evaluations.get(eval_id)

    def merge(self, other: Catalog) -> None:
        self.evaluations.update(other.evaluations)
        self.clients.update(other.clients)
        self.errors.extend(other.errors)


def _format(source: str, exc: ValidationError) -> list[str]:
    out = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(document)"
        out.append(f"{source}: {loc}: {err['msg']}")
    return out


def _category(ev: Evaluation, folder: str) -> str:
    """``metadata.category``, else an explicit ``category`` field, else the folder's name."""
    if ev.metadata.category:
        return ev.metadata.category
    return ev.category if "category" in ev.model_fields_set else folder


def parse_document(doc: Any, source: str, category: str = "default") -> Catalog:
    """One YAML document (either generation) -> Catalog. Raises :class:`DefinitionError`."""
    cat = Catalog()
    try:
        limits.check_object(doc)
    except limits.TooDeep as exc:
        raise DefinitionError([f"{source}: {exc.message}"]) from None
    if not isinstance(doc, dict):
        raise DefinitionError([f"{source}: expected a mapping at the top level, got {type(doc).__name__}"])
    try:
        if "client" in doc:
            cf = ClientFile.model_validate(doc)
            for e in cf.evaluations:
                e.category = _category(e, category)
                if cf.settings.default_timeout and "timeout" not in e.model_fields_set:
                    e.timeout = cf.settings.default_timeout
            ids = [e.id for e in cf.evaluations]
            dupes = sorted({i for i in ids if ids.count(i) > 1})
            if dupes:
                raise DefinitionError([f"{source}: evaluations: duplicate id(s) {', '.join(dupes)}"])
            cat.clients[cf.client.id] = cf
        else:
            ev = Evaluation.model_validate(doc)
            ev.category = _category(ev, category)
            cat.evaluations[ev.id] = ev
    except ValidationError as exc:
        raise DefinitionError(_format(source, exc)) from None
    return cat


def load_text(text: str, source: str = "upload") -> Any:
    """The YAML ``text`` as plain data (:func:`plain_document`). Raises :class:`DefinitionError` naming what
    cannot be read: nesting past the limit, a syntax error, a value PyYAML cannot build (an integer past
    Python's digit limit, an impossible date)."""
    try:
        limits.check_yaml(text)  # a document nested thousands deep would exhaust the loader's recursion
    except limits.TooDeep as exc:
        raise DefinitionError([f"{source}: {exc.message}"]) from None
    try:
        doc = yaml.safe_load(text)
    except RecursionError:
        raise DefinitionError([f"{source}: {limits.TooDeep().message}"]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise DefinitionError([f"{source}: invalid YAML{where}: {getattr(exc, 'problem', exc)}"]) from None
    except (ValueError, OverflowError) as exc:  # a scalar PyYAML matched but cannot build
        raise DefinitionError([f"{source}: invalid YAML: a value cannot be read ({str(exc).split(';')[0]})"]) from None
    return plain_document(doc, source)


def plain_document(doc: Any, source: str = "upload") -> Any:
    """``doc`` as plain JSON data the table can store: YAML dates and times become ISO text; a number DynamoDB
    cannot store (more than 38 digits, out of its range, infinite, NaN) or a YAML-only value (binary, a set)
    raises :class:`DefinitionError` naming each one, as the same document sent as JSON would."""
    problems: list[str] = []

    def walk(value: Any, path: str) -> Any:
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, int | float):
            if limits.clamp_number(value) != value:
                problems.append(f"{path or '(document)'}: the number cannot be stored (at most 38 digits, finite, "
                                "within 1E-130..9.99E+125)")
            return value
        if isinstance(value, datetime.date):  # datetime included
            return value.isoformat()
        if isinstance(value, dict):
            return {str(k): walk(v, f"{path}.{str(k)[:40]}" if path else str(k)[:40]) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(value)]
        problems.append(f"{path or '(document)'}: a YAML {type(value).__name__} value cannot be stored; write it "
                        "as text or a list")
        return None

    out = walk(doc, "")
    if problems:
        raise DefinitionError([f"{source}: {p}" for p in problems[:10]])
    return out


def parse_text(text: str, source: str = "upload", category: str = "default") -> Catalog:
    return parse_document(load_text(text, source), source, category)


def load_dir(root: str | Path) -> Catalog:
    """Load every ``*.yaml``/``*.yml`` under ``root``; collect errors, skip broken files."""
    root = Path(root)
    cat = Catalog()
    if not root.is_dir():
        cat.errors.append(f"{root}: not a directory")
        return cat
    for path in sorted(list(root.rglob("*.yaml")) + list(root.rglob("*.yml"))):
        rel = path.relative_to(root)
        category = rel.parts[0] if len(rel.parts) > 1 and rel.parts[0] != "clients" else "default"
        try:
            part = parse_text(path.read_text(encoding="utf-8"), str(rel), category)
        except DefinitionError as exc:
            cat.errors.extend(exc.errors)
            continue
        except OSError as exc:
            cat.errors.append(f"{rel}: cannot read: {exc.strerror}")
            continue
        for eid in part.evaluations:
            if eid in cat.evaluations:
                cat.errors.append(f"{rel}: id: duplicate evaluation id {eid!r} (first defined elsewhere)")
        for cid in part.clients:
            if cid in cat.clients:
                cat.errors.append(f"{rel}: client.id: duplicate client file for {cid!r}")
        part.errors.clear()
        for eid, ev in part.evaluations.items():
            cat.evaluations.setdefault(eid, ev)
        for cid, cf in part.clients.items():
            cat.clients.setdefault(cid, cf)
    return cat


def definitions_dir() -> Path:
    from agenthost.config import settings

    raw = settings().evals_dir.strip()
    return Path(raw) if raw else PACKAGED_DIR


def main(argv: list[str]) -> int:
    root = argv[1] if len(argv) > 1 else str(definitions_dir())
    cat = load_dir(root)
    for err in cat.errors:
        print(err, file=sys.stderr)
    print(f"{len(cat.evaluations)} evaluations, {len(cat.clients)} client files, {len(cat.errors)} errors")
    return 1 if cat.errors else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
