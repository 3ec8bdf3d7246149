"""A tag field added to taxonomy.yaml alone is a field everywhere; empty corpora count zeros."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, REPO, fixture_corpus
from masrl.corpus._load import load_corpus
from masrl.publish._site import rows_of

# A multi-valued field, as a maintainer would add a new axis of the survey.
MODALITY = """
  modality:
    label: Modality
    description: The kinds of input the agents read.
    applies_to: [paper]
    required: true
    multiple: true
    table: true
    values:
      - id: text
        label: Text only
        definition: Agents read and write text.
      - id: vision
        label: Vision
        definition: Agents also read images or screens.
"""
# What each paper of the small fixture corpus reads.
READS = {"alpha": "[text]", "beta": "[text, vision]", "gamma": "[vision]", "delta": "[text]"}


@pytest.fixture
def with_modality(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The small corpus with `modality` added to taxonomy.yaml and set in every paper."""
    root = fixture_corpus("small", tmp_path, monkeypatch)
    taxonomy = root / "taxonomy.yaml"
    text = taxonomy.read_text("utf-8")
    taxonomy.write_text(text.replace("\n  subdecision:\n", MODALITY + "\n  subdecision:\n", 1), "utf-8")
    for key, value in READS.items():
        path = root / "papers" / f"{key}.yaml"
        path.write_text(path.read_text("utf-8") + f"modality: {value}\n", "utf-8")
    return root


def test_new_field_is_validated(with_modality: Path, run_cli: Any) -> None:
    # Arrange: one paper leaves it out, one names a value the taxonomy lacks.
    alpha = with_modality / "papers" / "alpha.yaml"
    alpha.write_text(alpha.read_text("utf-8").replace("modality: [text]\n", ""), "utf-8")
    beta = with_modality / "papers" / "beta.yaml"
    beta.write_text(beta.read_text("utf-8").replace("[text, vision]", "[text, audio]"), "utf-8")
    # Act
    result = run_cli("validate")
    # Assert
    assert result.stdout.splitlines() == [
        "papers/alpha.yaml:2:1: modality: modality is required: The kinds of input the agents read.",
        "papers/beta.yaml:32:18: modality[1]: modality must be one of 'text' or 'vision', not 'audio'",
    ]
    assert result.exit_code == 1


def test_new_field_is_typed_as_a_tuple_of_ids(with_modality: Path) -> None:
    papers = load_corpus(with_modality).corpus.papers
    assert {p.key: p.tag_values("modality") for p in papers} == {
        "alpha": ("text",),
        "beta": ("text", "vision"),
        "delta": ("text",),
        "gamma": ("vision",),
    }


def test_new_field_reaches_schema_stats_exports_readme_and_site(with_modality: Path, run_cli: Any) -> None:
    # Act
    validate = run_cli("validate")
    build = run_cli("build")
    stats = json.loads(run_cli("stats", "--json").stdout)
    exported = json.loads(run_cli("export", "json").stdout)
    table = list(csv.DictReader(io.StringIO(run_cli("export", "csv").stdout)))
    # Assert
    assert validate.exit_code == 0, validate.stdout
    assert build.exit_code == 0, build.output
    schema = json.loads((with_modality / "schemas" / "paper.schema.json").read_text("utf-8"))
    assert schema["properties"]["modality"]["items"]["enum"] == ["text", "vision"]
    assert "modality" in schema["required"]
    assert stats["counts"]["modality"] == {"text": 3, "vision": 2}
    assert {p["key"]: p["modality"] for p in exported["papers"]} == {
        "alpha": ["text"],
        "beta": ["text", "vision"],
        "gamma": ["vision"],
        "delta": ["text"],
    }
    assert list(table[0])[-3:] == ["origin", "modality", "added"]
    assert {row["key"]: row["modality"] for row in table}["beta"] == "text;vision"
    readme = (with_modality / "README.md").read_text("utf-8")
    assert "| Modality | Text only **3** · Vision **2** |" in readme
    statistics = (with_modality / "site" / "docs" / "statistics.md").read_text("utf-8")
    assert "### Modality" in statistics
    assert "| Vision `vision` | 2 |" in statistics
    # The papers table filters on it ("any of") and shows it as a column.
    page = (with_modality / "site" / "docs" / "papers" / "index.md").read_text("utf-8")
    data = json.loads(page.split('id="masrl-paper-data">', 1)[1].split("</script>", 1)[0])
    modality = next(f for f in data["filters"] if f["name"] == "modality")
    assert (modality["k"], modality["kind"], modality["values"]) == (
        "modality",
        "list",
        [["text", "Text only"], ["vision", "Vision"]],
    )
    assert {r["k"]: r["modality"] for r in rows_of(data["cols"])}["beta"] == ["text", "vision"]
    assert ">Modality<" in page
    family = next(f for f in data["filters"] if f["name"] == "reward_family")
    assert family["cells"] == {**{f"R{i}": f"R{i}" for i in range(1, 9)}, "NA": "n/a"}


def test_new_field_can_be_crossed_with_another(with_modality: Path, run_cli: Any) -> None:
    # Arrange
    taxonomy = with_modality / "taxonomy.yaml"
    text = taxonomy.read_text("utf-8")
    taxonomy.write_text(text.replace("crosstabs:\n", "crosstabs:\n  - [modality, credit_unit]\n", 1), "utf-8")
    # Act
    stats = json.loads(run_cli("stats", "--json").stdout)
    # Assert: a paper reading both text and vision counts in both rows.
    table = stats["crosstabs"]["modality x credit_unit"]
    assert sum(table["text"].values()) == 3
    assert sum(table["vision"].values()) == 2


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # -- declarations that cannot hold
        (
            ("applies_to: [paper]\n    required: true\n    multiple: true", "applies_to: [papers]"),
            "taxonomy.yaml:{line}:5: fields.modality.applies_to: applies_to must be a list of record kinds: paper, exclusion",
        ),
        (
            ("multiple: true", "multiple: sometimes"),
            "taxonomy.yaml:{line}:5: fields.modality.multiple: multiple must be true or false",
        ),
        (
            ("  modality:\n", "  title:\n"),
            "taxonomy.yaml:{line}:3: fields.title: 'title' is a fixed field of the records; give the tag field another name",
        ),
        (
            ("  modality:\n", "  Modality:\n"),
            "taxonomy.yaml:{line}:3: fields.Modality: a tag field's name must be lowercase letters, digits and '_', starting with a letter",
        ),
    ],
    ids=["applies-to-unknown-kind", "multiple-not-bool", "reserved-name", "bad-name"],
)
def test_bad_field_declarations_are_reported(
    with_modality: Path, run_cli: Any, edit: tuple[str, str], message: str
) -> None:
    # Arrange
    taxonomy = with_modality / "taxonomy.yaml"
    text = taxonomy.read_text("utf-8")
    old, new = edit
    start = text.index("  modality:\n")
    text = text[:start] + text[start:].replace(old, new, 1)
    taxonomy.write_text(text, "utf-8")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.strip().startswith(new.split("\n")[0].strip()))
    # Act
    result = run_cli("validate")
    # Assert
    assert result.exit_code == 1
    assert message.format(line=line) in result.output


def test_built_in_fields_must_stay_tag_fields(small: Path, run_cli: Any) -> None:
    # Arrange: the rules read category, so it cannot stop applying to papers.
    taxonomy = small / "taxonomy.yaml"
    text = taxonomy.read_text("utf-8")
    taxonomy.write_text(text.replace("    applies_to: [paper]\n    required: true\n", "", 1), "utf-8")
    # Act
    result = run_cli("validate")
    # Assert
    assert result.exit_code == 1
    assert (
        "fields.category: field 'category' must apply to papers, be required and hold one value "
        "(applies_to: [paper], required: true); rules use it"
    ) in result.output


# -- corpora with nothing in them


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A corpus with the taxonomy, claims and README but no record at all."""
    root = tmp_path / "empty"
    root.mkdir()
    for name in ("taxonomy.yaml",):
        (root / name).write_text((REPO / name).read_text("utf-8"), "utf-8")
    (root / "README.md").write_text((FIXTURES / "small" / "README.md").read_text("utf-8"), "utf-8")
    for folder in ("papers", "exclusions", "audits"):
        (root / folder).mkdir()
    monkeypatch.chdir(root)
    monkeypatch.delenv("MASRL_ROOT", raising=False)
    return root


def test_empty_corpus_counts_zeros(empty: Path, run_cli: Any) -> None:
    # Act
    validate = run_cli("validate")
    stats = run_cli("stats", "--json")
    build = run_cli("build")
    check = run_cli("check")
    audit = run_cli("audit")
    # Assert
    for result in (validate, stats, build, check, audit):
        assert result.exit_code == 0, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
    data = json.loads(stats.stdout)
    assert data["retained"] == data["excluded"] == data["audited"] == 0
    assert set(data["counts"]["credit_unit"].values()) == {0}
    assert set(data["strict_credit"].values()) == {0}
    assert all(set(row.values()) == {0} for row in data["crosstabs"]["reward_type x credit_unit"].values())
    assert data["audit"]["fields"]["category"]["agreement"] is None


def test_corpus_without_audits(small: Path, run_cli: Any) -> None:
    # Arrange
    for path in (small / "audits").iterdir():
        path.unlink()
    # Act
    stats = run_cli("stats", "--json")
    build = run_cli("build")
    audit = run_cli("audit")
    # Assert
    assert stats.exit_code == build.exit_code == audit.exit_code == 0, (stats.output, build.output, audit.output)
    data = json.loads(stats.stdout)
    assert data["audited"] == 0
    assert data["audit"]["fields"]["rl"] == {"rows": 0, "agreement": None, "kappa": None, "disagreements": []}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("alpha.yml", "papers/alpha.yml:1:1: (record): not a record, so it would be left out: rename it to alpha.yaml"),
        ("alpha.YML", "papers/alpha.YML:1:1: (record): not a record, so it would be left out: rename it to alpha.yaml"),
        (
            "alpha.YAML",
            "papers/alpha.YAML:1:1: (record): not a record, so it would be left out: rename it to alpha.yaml",
        ),
        (
            "notes.txt",
            "papers/notes.txt:1:1: (record): not a record, so it would be left out: a paper record is a .yaml file; move this file out of papers/",
        ),
        (
            "alpha.yaml~",
            "papers/alpha.yaml~:1:1: (record): not a record, so it would be left out: a paper record is a .yaml file; move this file out of papers/",
        ),
        (
            "drafts/",
            "papers/drafts:1:1: (record): not a record, so it would be left out: move its files into papers/ or out of it",
        ),
    ],
    ids=["yml", "YML", "YAML", "txt", "backup", "folder"],
)
def test_stray_files_in_record_folders_are_errors(small: Path, run_cli: Any, name: str, message: str) -> None:
    # Arrange
    target = small / "papers" / name
    if name.endswith("/"):
        target.mkdir()
    else:
        target.write_text("key: alpha\n", "utf-8")
    (small / "papers" / ".gitkeep").write_text("", "utf-8")  # hidden files are never records
    # Act
    result = run_cli("validate")
    # Assert
    assert result.stdout.splitlines() == [message]
    assert result.exit_code == 1


def test_a_renamed_sub_decision_is_counted_under_its_new_id(small: Path, run_cli: Any) -> None:
    """Sub-decision ids come from taxonomy.yaml too: renaming one that no record uses renames its count,
    once the claims that name it follow."""
    import json

    taxonomy = small / "taxonomy.yaml"
    text = taxonomy.read_text("utf-8")
    assert text.count("- id: O5\n") == 1
    taxonomy.write_text(text.replace("- id: O5\n", "- id: O9\n"), "utf-8")
    claims = small / "claims.yaml"
    result = run_cli("stats", "--json")
    assert result.exit_code == 1  # a claim still filters on the old id, and says so
    assert "claims.yaml:12:36: claims.2.query.where.O5: cannot filter papers on 'O5'" in result.output
    claims.write_text(claims.read_text("utf-8").replace("O5", "O9"), "utf-8")
    result = run_cli("stats", "--json")
    assert result.exit_code == 0, result.output
    coverage = json.loads(result.stdout)["subdecisions"]
    assert "O9" in coverage
    assert "O5" not in coverage
