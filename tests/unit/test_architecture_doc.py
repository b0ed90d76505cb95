"""ARCHITECTURE.md names every module of the shared layer and of each function, and nothing that is not there.

The lists are read from the tree: a module added, moved, split or removed fails here until the doc says so.
Both directions are checked:

* every module and package under ``layers/core/agenthost`` has a row in the shared-library table (its own,
  or, inside a package, named in the package's row or in the package's own section, a ``###`` heading naming
  ``agenthost.<package>``); every module of ``functions/<pkg>`` is named in the row
  of the function whose handler is ``<pkg>.app.handler``;
* every row key, every ``name.py``/``name/`` in a function's row, every repository path and every dotted
  ``agenthost.…`` name the doc mentions exists.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "ARCHITECTURE.md").read_text()
LAYER = ROOT / "layers" / "core" / "agenthost"
FUNCTIONS = ROOT / "functions"


def submodules(package: Path) -> list[tuple[str, ...]]:
    """Every module and package inside ``package`` as name parts relative to it (no ``__init__``/``__main__``)."""
    found = set()
    for path in package.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        parts = path.relative_to(package).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and parts[-1] != "__main__":
            found.add(parts)
    return sorted(found)


def section(title: str) -> str:
    start = DOC.index(f"\n## {title}")
    end = DOC.find("\n## ", start + 1)
    return DOC[start:end if end > 0 else None]


def rows(title: str) -> dict[str, str]:
    """A section's table as first cell (backticks off) -> the whole row."""
    out = {}
    for line in section(title).splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) >= 2 and not set(cells[0]) <= {"-"} and cells[0] not in ("module", "function"):
            out[cells[0].strip("`")] = line
    return out


def tokens(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", text)


def names(text: str) -> set[str]:
    """The module names a piece of the doc mentions: `x`, `x.py`, `x/`, and each part of `a.b` or `a/b.py`."""
    out = set()
    for token in tokens(text):
        token = token.removesuffix("/").removesuffix(".py")
        out.add(token)
        out.update(re.split(r"[./]", token))
    return out


LAYER_ROWS = rows("Shared library (`layers/core/agenthost`)")


def package_text(package: str) -> str:
    """What the doc says a layer package holds: its row, and its own ``### … (`agenthost.<package>`)`` section."""
    text = LAYER_ROWS.get(package, "")
    match = re.search(rf"^### [^\n]*`agenthost\.{package}`[^\n]*\n(?:(?!#).*\n?)*", DOC, re.MULTILINE)
    return text + (match.group(0) if match else "")


FUNCTION_ROWS = rows("Functions")


def function_row(package: str) -> str:
    matches = [row for row in FUNCTION_ROWS.values() if f"`{package}.app.handler`" in row]
    assert len(matches) == 1, f"ARCHITECTURE.md: no Functions row with handler `{package}.app.handler`"
    return matches[0]


@pytest.mark.parametrize("parts", submodules(LAYER), ids=".".join)
def test_every_layer_module_is_named(parts):
    dotted = ".".join(parts)
    if len(parts) == 1:
        assert dotted in LAYER_ROWS, f"ARCHITECTURE.md: no shared-library row for `{dotted}`"
        return
    own_row = any(dotted == key or dotted.startswith(key + ".") for key in LAYER_ROWS if "." in key)
    assert own_row or set(parts[1:]) <= names(package_text(parts[0])), \
        f"ARCHITECTURE.md: `{dotted}` is not named in the `{parts[0]}` row or section (nor has a row of its own)"


LAMBDA_PACKAGES = sorted(p.name for p in FUNCTIONS.iterdir() if (p / "app.py").is_file())


@pytest.mark.parametrize("package", LAMBDA_PACKAGES)
def test_every_function_module_is_named_in_its_row(package):
    named = names(function_row(package))
    missing = [".".join(parts) for parts in submodules(FUNCTIONS / package) if not set(parts) <= named]
    assert missing == [], f"ARCHITECTURE.md: the {package} row does not name {missing}"


def test_other_packages_under_functions_are_mentioned():
    for path in sorted(FUNCTIONS.iterdir()):
        if path.is_dir() and (path / "__init__.py").is_file() and not (path / "app.py").is_file():
            assert f"functions/{path.name}/" in DOC, f"ARCHITECTURE.md does not mention functions/{path.name}/"


def test_every_layer_row_names_a_module_that_exists():
    for key in LAYER_ROWS:
        path = LAYER.joinpath(*key.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), \
            f"ARCHITECTURE.md names `{key}`, which is not in layers/core/agenthost"


@pytest.mark.parametrize("package", LAMBDA_PACKAGES)
def test_files_named_in_a_function_row_exist(package):
    here = FUNCTIONS / package
    for token in tokens(function_row(package)):
        if re.fullmatch(r"[\w/.-]+(\.py|/)", token) and not token.startswith(("infra/", "tests/", "layers/")):
            name = token.removesuffix("/")
            found = (here / name).exists() or any(here.rglob(name)) or (ROOT / name).exists()
            assert found, f"ARCHITECTURE.md: the {package} row names `{token}`, which is not in functions/{package}"


def _paths(token: str) -> list[str]:
    """A path as the doc writes it (`tests/unit|contract|e2e`, `infra/bootstrap*.sh`) -> globs."""
    head, _, alternatives = token.partition("|")
    if not alternatives:
        return [token]
    base, _, first = head.rpartition("/")
    return [f"{base}/{alt}" for alt in [first, *alternatives.split("|")]]


def doc_paths() -> list[str]:
    layout = section("Layout")
    found = [line.split()[0] for line in layout.split("```")[1].splitlines() if line and not line[0].isspace()]
    for token in tokens(DOC):
        if re.match(r"(infra|tests|functions|layers|docs)/", token) and " " not in token:
            found.append(token)
    return sorted({p for p in found if "<" not in p and "{" not in p})


@pytest.mark.parametrize("token", doc_paths())
def test_every_path_the_doc_names_exists(token):
    for pattern in _paths(token.split("(")[0].removesuffix("/")):
        assert any(ROOT.glob(pattern)), f"ARCHITECTURE.md names `{token}`, which is not in the repository"


def dotted_names() -> list[str]:
    return sorted({m.group(1) for m in re.finditer(r"`(agenthost(?:\.\w+)+)", DOC)})


@pytest.mark.parametrize("dotted", dotted_names())
def test_every_dotted_name_resolves(dotted):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            if importlib.util.find_spec(module_name) is not None:
                break
        except ModuleNotFoundError:  # a parent that is a module, not a package
            continue
    obj = importlib.import_module(module_name)
    for attr in parts[cut:]:
        assert hasattr(obj, attr), f"ARCHITECTURE.md names `{dotted}`: {module_name} has no `{attr}`"
        obj = getattr(obj, attr)
