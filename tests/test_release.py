"""``masrl release VERSION`` in a scratch repository: changelog, CITATION.cff, .zenodo.json, tag."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import GIT_ENV, clone_of, commit_all, git, small_repository

# A paper found after the first release (synthetic: the arXiv id names no real paper).
NEW_PAPER = """\
# yaml-language-server: $schema=../schemas/paper.schema.json
key: synthetic2026
title: A synthetic study of trained agent teams
authors:
  - Doe, Jane
affiliation: Somewhere University
year: 2026
arxiv: "2612.99999"
venue: arXiv
url: https://arxiv.org/abs/2612.99999
category: rl_method
rl: "yes"
reward_type: shared
credit_unit: agent
topology: centralized
scenario: general
role: supporting
verified: partial
evidence_kind: paper
origin: discovery
added: "2026-12-01"
strict_credit: false
subdecisions: {}
summary: Trains a team of agents on a shared reward.
"""


@pytest.fixture(scope="session")
def committed_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's corpus, cut to the records its files name (a release reads every record: the
    whole corpus made these tests the suite's slowest), committed once in a fresh repository for the
    tests to clone. agentfugue2026 is the paper the tests correct and edit."""
    root = small_repository(tmp_path_factory.mktemp("release") / "repo", keep=("agentfugue2026",))
    # The repository as it was before its first release, whatever releases it has had since: no
    # changelog, no version in CITATION.cff, and the site built from that.
    (root / "CHANGELOG.md").unlink(missing_ok=True)
    citation = root / "CITATION.cff"
    citation.write_text(re.sub(r"^(version|date-released):.*\n", "", citation.read_text("utf-8"), flags=re.M), "utf-8")
    built = subprocess.run(
        [sys.executable, "-m", "masrl", "build"], cwd=root, capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stdout + built.stderr
    commit_all(root)
    return root


@pytest.fixture
def scratch(committed_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clone of the committed corpus of its own, as cwd: no tags, a clean tree."""
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    root = clone_of(committed_corpus, tmp_path / "repo")
    monkeypatch.chdir(root)
    monkeypatch.delenv("MASRL_ROOT", raising=False)
    return root


def test_a_first_release(scratch: Path, run_cli: Any) -> None:
    stats = run_cli("stats", "--json").stdout
    # Act
    result = run_cli("release", "2026.11", "--date", "2026-11-30")
    # Assert: the four files, one commit, one tag, a clean tree
    assert result.exit_code == 0, result.output
    changelog = (scratch / "CHANGELOG.md").read_text("utf-8")
    papers = len(list((scratch / "papers").glob("*.yaml")))
    assert changelog.startswith("# Changelog\n")
    assert f"## 2026.11 (2026-11-30)\n\n{papers} papers retained," in changelog
    # the first release counts its changes from the survey snapshot, which gets an entry of its own below it
    first, _, snapshot = changelog.partition("\n## Survey snapshot (2026-05-04)\n\n")
    assert "Changes since the survey snapshot:" in first
    assert snapshot.startswith("84 papers retained, 32 excluded, 32 audited. The records of the survey's own tables")
    assert changelog.endswith("reproduces the survey's figures from any release.\n")
    citation = yaml.safe_load((scratch / "CITATION.cff").read_text("utf-8"))
    assert (citation["version"], citation["date-released"]) == ("2026.11", "2026-11-30")
    zenodo = json.loads((scratch / ".zenodo.json").read_text("utf-8"))
    assert zenodo["version"] == "2026.11"
    assert zenodo["publication_date"] == "2026-11-30"
    assert zenodo["title"] == citation["title"]
    assert zenodo["description"] == " ".join(citation["abstract"].split())
    assert zenodo["upload_type"] == "dataset"
    assert zenodo["license"] == "cc0-1.0"
    assert zenodo["keywords"] == citation["keywords"]
    assert zenodo["creators"] == [{"name": "The masrl contributors"}]
    assert zenodo["related_identifiers"] == [
        {"identifier": "arXiv:2605.02801", "relation": "isSupplementTo", "scheme": "arxiv"}
    ]
    assert git(scratch, "status", "--porcelain") == ""
    assert git(scratch, "log", "-1", "--format=%s") == "Release 2026.11\n"
    assert git(scratch, "describe", "--exact-match", "HEAD").strip() == "2026.11"
    assert run_cli("check").exit_code == 0
    assert run_cli("stats", "--json", "--at", "2026.11").stdout == stats
    # The site: the Releases page from CHANGELOG.md, and the home page cites this version
    releases = (scratch / "site" / "docs" / "releases.md").read_text("utf-8")
    assert "No release has been made yet." not in releases
    assert "## 2026.11 (2026-11-30)\n" in releases
    home = " ".join((scratch / "site" / "docs" / "index.md").read_text("utf-8").split())
    assert (
        "This is version 2026.11, released 2026-11-30; every release is listed on the [Releases](releases.md) page"
        in home
    )


def test_the_site_before_any_release(scratch: Path) -> None:
    assert "No release has been made yet." in (scratch / "site" / "docs" / "releases.md").read_text("utf-8")
    assert "with the commit you used." in (scratch / "site" / "docs" / "index.md").read_text("utf-8")


def test_a_second_release_lists_what_changed(scratch: Path, run_cli: Any) -> None:
    # Arrange: a first release, then a paper added and a correction to another
    assert run_cli("release", "2026.11", "--date", "2026-11-30").exit_code == 0
    at_first = run_cli("stats", "--json").stdout
    (scratch / "papers" / "synthetic2026.yaml").write_text(NEW_PAPER, "utf-8")
    corrected = scratch / "papers" / "agentfugue2026.yaml"
    text = corrected.read_text("utf-8").replace(
        "strict_credit: false",
        '  - date: "2026-12-01"\n    note: "Venue checked again: still an arXiv preprint."\nstrict_credit: false',
    )
    corrected.write_text(text, "utf-8")
    assert run_cli("build").exit_code == 0
    git(scratch, "add", "-A")
    git(scratch, "commit", "-q", "-m", "a paper and a correction")
    # Act
    result = run_cli("release", "2026.12", "--date", "2026-12-01")
    # Assert
    assert result.exit_code == 0, result.output
    changelog = (scratch / "CHANGELOG.md").read_text("utf-8")
    second = changelog[changelog.index("## 2026.12") : changelog.index("## 2026.11")]
    assert "Changes since 2026.11:" in second
    assert "### Papers added (1)\n\n- `synthetic2026`: A synthetic study of trained agent teams (2026)\n" in second
    assert (
        "### Corrections (1)\n\n- `agentfugue2026` (2026-12-01): Venue checked again: still an arXiv preprint.\n"
        in second
    )
    assert "Exclusions added" not in second
    assert "Taxonomy changes" not in second
    assert changelog.index("## 2026.12") < changelog.index("## 2026.11")
    assert git(scratch, "tag", "--list").split() == ["2026.11", "2026.12"]
    # The first release's figures are still there to read, and differ from the second's
    assert run_cli("stats", "--json", "--at", "2026.11").stdout == at_first
    assert run_cli("stats", "--json", "--at", "2026.12").stdout == run_cli("stats", "--json").stdout != at_first


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (
            "v1.0",
            "'v1.0' is not a calendar version: use YYYY.MM (e.g. 2026.12), or YYYY.MM.N for a further release in the same month",
        ),
        ("2026.13", "'2026.13' is not a calendar version"),
        ("2026.1", "'2026.1' is not a calendar version"),
        ("26.12", "'26.12' is not a calendar version"),
        ("2026.12.0", "'2026.12.0' is not a calendar version"),
        ("2026-12", "'2026-12' is not a calendar version"),
        ("2027.01", "version 2027.01 names a month after the release date 2026-12-01"),
    ],
)
def test_a_version_that_is_not_a_calendar_version_is_refused(
    scratch: Path, run_cli: Any, version: str, message: str
) -> None:
    result = run_cli("release", version, "--date", "2026-12-01")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {message}")
    assert not (scratch / "CHANGELOG.md").exists()
    assert git(scratch, "tag", "--list") == ""


@pytest.mark.parametrize(
    ("arrange", "message"),
    [
        (
            "dirty",
            "Error: the working tree has uncommitted changes (papers/agentfugue2026.yaml); commit or stash them first\n",
        ),
        ("untracked", "Error: the working tree has uncommitted changes (NOTES.txt); commit or stash them first\n"),
        (
            "stale",
            "Error: generated files are out of date (stale: site/docs/data/papers.csv); run `masrl build` and commit the result\n",
        ),
        ("tagged", "Error: tag 2026.12 already exists\n"),
        ("older", "Error: version 2026.12 is not newer than the last release 2026.12.1\n"),
        ("bad-date", "Error: --date: '2026-13-01' is not a date (YYYY-MM-DD)\n"),
    ],
)
def test_a_release_that_cannot_be_made_writes_nothing(scratch: Path, run_cli: Any, arrange: str, message: str) -> None:
    # Arrange
    date = "2026-12-01"
    if arrange == "dirty":
        path = scratch / "papers" / "agentfugue2026.yaml"
        path.write_text(path.read_text("utf-8").replace("role: supporting", "role: core"), "utf-8")
    elif arrange == "untracked":
        (scratch / "NOTES.txt").write_text("draft\n", "utf-8")
    elif arrange == "stale":
        generated = scratch / "site" / "docs" / "data" / "papers.csv"
        generated.write_text(generated.read_text("utf-8") + "\n", "utf-8")
        git(scratch, "commit", "-qam", "hand edit")
    elif arrange == "tagged":
        git(scratch, "tag", "2026.12")
    elif arrange == "older":
        git(scratch, "tag", "2026.12.1")
    else:
        date = "2026-13-01"
    before = git(scratch, "status", "--porcelain"), git(scratch, "rev-parse", "HEAD"), git(scratch, "tag", "--list")
    # Act
    result = run_cli("release", "2026.12", "--date", date)
    # Assert
    assert result.exit_code == 1
    assert result.stderr == message
    after = git(scratch, "status", "--porcelain"), git(scratch, "rev-parse", "HEAD"), git(scratch, "tag", "--list")
    assert after == before
