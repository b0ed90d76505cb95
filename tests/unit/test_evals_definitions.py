"""Evaluation definitions: both YAML generations, and clear errors for broken files."""

from __future__ import annotations

import pytest
from evals.definitions import PACKAGED_DIR, DefinitionError, load_dir, main, parse_text

GOOD = """
id: wiki-001
name: Extract
target: {url: "https://example.com/", wait_for: networkidle}
tool: extract_schema_data
timeout: 30000
input: {schema: {type: object}}
validation: {type: hybrid, llm_judge: {criteria: [a]}}
metadata: {tags: [x], retries: 2, priority: high, unknown_field: kept}
some_future_field: ignored
"""


def test_per_evaluation_files_and_categories(tmp_path):
    (tmp_path / "schema-extractor").mkdir()
    (tmp_path / "schema-extractor" / "wiki.yaml").write_text(GOOD)
    cat = load_dir(tmp_path)
    assert cat.errors == []
    ev = cat.evaluations["wiki-001"]
    assert ev.category == "schema-extractor" and ev.metadata.retries == 2 and ev.priority_rank == 1
    assert [e.id for e in cat.assigned("anyone")] == ["wiki-001"]


def test_client_files_assign_exactly_their_evaluations(tmp_path):
    (tmp_path / "g.yaml").write_text(GOOD)
    (tmp_path / "clients").mkdir()
    (tmp_path / "clients" / "c1.yaml").write_text(
        "client: {id: c1, name: One, secret_key: k}\n"
        "settings: {max_concurrent_evaluations: 2, retry_policy: {max_retries: 1, initial_delay: 500}}\n"
        "evaluations:\n  - {id: a, target: {url: 'http://x.test/'}, tool: chat, enabled: false}\n"
        "  - {id: b, target: {url: 'http://x.test/'}, tool: chat}\n")
    cat = load_dir(tmp_path)
    assert cat.errors == []
    assert [e.id for e in cat.assigned("c1")] == ["b"]  # disabled ones are not assigned
    assert [e.id for e in cat.assigned("c2")] == ["wiki-001"]
    assert cat.clients["c1"].client.secret_key == "k"


@pytest.mark.parametrize(("text", "expected"), [
    ("id: x\ntool: chat\n", "target: Field required"),
    ("id: x\ntool: chat\ntarget: {url: 'ftp://x'}\n", "target.url: Value error, must be an http(s) URL"),
    ("id: 'bad id!'\ntool: chat\ntarget: {url: 'http://x'}\n", "id: String should match pattern"),
    ("id: x\ntool: chat\ntarget: {url: 'http://x'}\nvalidation: {type: vibes}\n", "validation.type"),
    ("id: x\ntool: chat\ntarget: {url: 'http://x'}\ntimeout: 5\n", "timeout: Input should be greater than"),
    ("id: [unclosed\n", "invalid YAML at line"),
    ("- just\n- a list\n", "expected a mapping"),
])
def test_errors_name_the_file_and_field(text, expected):
    with pytest.raises(DefinitionError) as err:
        parse_text(text, "evals/cat/x.yaml")
    assert any(e.startswith("evals/cat/x.yaml: ") and expected in e for e in err.value.errors), err.value.errors


def test_broken_files_are_skipped_and_reported(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "good.yaml").write_text(GOOD)
    (tmp_path / "a" / "dupe.yaml").write_text(GOOD)
    (tmp_path / "a" / "broken.yml").write_text("id: y\n")
    cat = load_dir(tmp_path)
    assert list(cat.evaluations) == ["wiki-001"]
    assert any("duplicate evaluation id 'wiki-001'" in e for e in cat.errors)
    assert any(e.startswith("a/broken.yml: target") for e in cat.errors)
    assert main(["x", str(tmp_path)]) == 1
    assert "a/broken.yml" in capsys.readouterr().err


def test_packaged_suite_is_valid_and_large_enough():
    cat = load_dir(PACKAGED_DIR)
    assert cat.errors == []
    assert len(cat.evaluations) >= 15
    assert {e.category for e in cat.evaluations.values()} >= {"extraction", "research", "chat", "action"}
