"""masrl diff REV: the Markdown a reviewer reads on a pull request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import assert_golden, commit_all


@pytest.fixture
def repo(small: Path) -> Path:
    commit_all(small)
    return small


def test_diff_of_an_unchanged_tree(repo: Path, run_cli: Any) -> None:
    result = run_cli("diff", "HEAD")
    assert result.exit_code == 0
    assert result.stdout == (
        "## Corpus diff: HEAD → working tree\n\nNo record changed; every count, cross-tab cell and claim is the same.\n"
    )


def test_diff_shows_records_counts_cells_and_claims(repo: Path, run_cli: Any, tmp_path: Path) -> None:
    # Arrange: retag one paper, add one, remove an exclusion.
    beta = repo / "papers" / "beta.yaml"
    beta.write_text(beta.read_text("utf-8").replace("credit_unit: message", "credit_unit: agent"), "utf-8")
    gamma = (repo / "papers" / "gamma.yaml").read_text("utf-8")
    (repo / "papers" / "epsilon.yaml").write_text(
        gamma.replace("key: gamma", "key: epsilon").replace("https://example.org/gamma", "https://example.org/eps"),
        "utf-8",
    )
    (repo / "exclusions" / "E002.yaml").unlink()
    summary = tmp_path / "summary.md"
    # Act
    result = run_cli("diff", "HEAD", "-o", str(summary))
    # Assert
    assert result.exit_code == 0, result.output
    assert_golden("diff-small.md", result.stdout)
    assert summary.read_text("utf-8") == result.stdout


def test_diff_against_a_bad_revision(repo: Path, run_cli: Any) -> None:
    result = run_cli("diff", "no-such-branch")
    assert result.exit_code == 1
    assert result.stderr == "Error: 'no-such-branch' is not a commit of this repository (try a branch, tag or hash)\n"


def test_diff_outside_git(small: Path, run_cli: Any) -> None:
    result = run_cli("diff", "HEAD")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: git rev-parse --show-toplevel failed: fatal: not a git repository")


def test_a_revision_from_before_the_venue_registry_compares(small: Path, run_cli: Any) -> None:
    # Arrange: the old layout committed, with every paper holding entry_type and no venues.yaml
    registry = (small / "venues.yaml").read_text("utf-8")
    (small / "venues.yaml").unlink()
    for path in (small / "papers").glob("*.yaml"):
        text = path.read_text("utf-8")
        path.write_text(text.replace("\ncategory:", "\nentry_type: article\ncategory:", 1), "utf-8")
    commit_all(small, "before venues.yaml")
    # Act: today's layout in the working tree
    (small / "venues.yaml").write_text(registry, "utf-8")
    for path in (small / "papers").glob("*.yaml"):
        path.write_text(path.read_text("utf-8").replace("\nentry_type: article\n", "\n"), "utf-8")
    result = run_cli("diff", "HEAD")
    # Assert: the old revision read whole, so nothing changed
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "## Corpus diff: HEAD → working tree\n\nNo record changed; every count, cross-tab cell and claim is the same.\n"
    )
