"""``--at REV`` on stats, claims and export: the records of a revision or tag, the worktree untouched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import clone_of, commit_all, git, small_repository

# Every command that reads records with --at, as a user types it.
READERS = [
    ("stats", "--json"),
    ("stats", "--snapshot", "survey", "--json"),
    ("claims", "--json"),
    ("export", "csv"),
    ("export", "csv", "--exclusions"),
    ("export", "json"),
    ("export", "bib"),
]


@pytest.fixture(scope="session")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's corpus, cut to the records its files name (reading every record at a tag
    made these tests the suite's slowest), committed and tagged 2026.12 once for each test to clone."""
    root = small_repository(tmp_path_factory.mktemp("at") / "repo")
    commit_all(root)
    git(root, "tag", "2026.12")
    return root


@pytest.fixture
def tagged(committed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clone of its own of the tagged corpus, as cwd, with a clean worktree."""
    root = clone_of(committed, tmp_path / "repo")
    monkeypatch.chdir(root)
    monkeypatch.delenv("MASRL_ROOT", raising=False)
    return root


def _retag_one_paper(root: Path) -> Path:
    """Move one paper's reward_type to another value and change its title, so every output changes."""
    # A paper of the survey's snapshot, so the snapshot's figures and claims move too
    path = next(p for p in sorted((root / "papers").glob("*.yaml")) if "\norigin: survey\n" in p.read_text("utf-8"))
    text = path.read_text("utf-8")
    old = next(line for line in text.splitlines() if line.startswith("reward_type:"))
    new = "reward_type: individual" if old != "reward_type: individual" else "reward_type: shared"
    text = text.replace(old + "\n", new + "\n")
    title = next(line for line in text.splitlines() if line.startswith("title:"))
    opening = 'title: "' if title.startswith('title: "') else "title: "
    path.write_text(text.replace(title, opening + "Revised " + title[len(opening) :]), "utf-8")
    return path


@pytest.mark.parametrize("args", READERS, ids=" ".join)
def test_at_a_tag_reads_the_records_of_that_tag(tagged: Path, run_cli: Any, args: tuple[str, ...]) -> None:
    # Arrange: the output at the tag, read from the worktree as it was then
    then = run_cli(*args)
    assert then.exit_code == 0, then.output
    changed = _retag_one_paper(tagged)
    now = run_cli(*args)  # claims may exit 1 now: the retagged paper can turn a claim
    # Act
    at = run_cli(*args, "--at", "2026.12")
    # Assert: the tag's output exactly, the worktree's differs, and the worktree is untouched
    assert (at.exit_code, at.stdout) == (0, then.stdout), at.output
    if args != ("export", "csv", "--exclusions"):  # a paper's tag does not reach the exclusion log
        assert now.stdout != then.stdout
    assert git(tagged, "status", "--porcelain") == f" M {changed.relative_to(tagged).as_posix()}\n"


def test_at_a_commit_hash_and_an_older_commit(tagged: Path, run_cli: Any) -> None:
    # Arrange: the retagged paper committed, so HEAD~1 is the tag and HEAD the change
    then = run_cli("stats", "--json").stdout
    _retag_one_paper(tagged)
    git(tagged, "commit", "-q", "-am", "retag")
    now = run_cli("stats", "--json").stdout
    old_hash = git(tagged, "rev-parse", "HEAD~1").strip()
    # Act / Assert
    assert run_cli("stats", "--json", "--at", "HEAD~1").stdout == then
    assert run_cli("stats", "--json", "--at", old_hash[:12]).stdout == then
    assert run_cli("stats", "--json", "--at", "HEAD").stdout == now


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        ("no-such-tag", "Error: 'no-such-tag' is not a commit of this repository (try a branch, tag or hash)\n"),
        ("HEAD~7", "Error: 'HEAD~7' is not a commit of this repository (try a branch, tag or hash)\n"),
        ("--help", "Error: '--help' is not a revision (a branch, tag or commit hash)\n"),
        ("2026.12:papers", "Error: '2026.12:papers' is not a commit of this repository (try a branch, tag or hash)\n"),
    ],
)
@pytest.mark.parametrize("args", [("stats",), ("claims",), ("export", "json")], ids=" ".join)
def test_a_bad_revision_is_refused_clearly(
    tagged: Path, run_cli: Any, args: tuple[str, ...], rev: str, message: str
) -> None:
    result = run_cli(*args, f"--at={rev}")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == message


def test_at_outside_git(small: Path, run_cli: Any) -> None:
    result = run_cli("stats", "--at", "HEAD")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: git rev-parse --show-toplevel failed: fatal: not a git repository")


def test_a_revision_without_records(tagged: Path, run_cli: Any) -> None:
    # Arrange: an orphan commit holding only a README
    git(tagged, "checkout", "-q", "--orphan", "empty")
    git(tagged, "rm", "-rq", "--cached", ".")
    (tagged / "NOTES").write_text("nothing\n", "utf-8")
    git(tagged, "add", "NOTES")
    git(tagged, "commit", "-q", "-m", "empty")
    # Act
    result = run_cli("stats", "--at", "empty")
    # Assert
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: empty holds no corpus files (taxonomy.yaml, venues.yaml, claims.yaml")
