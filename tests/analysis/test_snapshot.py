"""The survey snapshot stays exact while the living corpus grows."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import GOLDEN, REPO

SNAPSHOT = json.loads((GOLDEN / "stats-snapshot-survey.json").read_text("utf-8"))
LIVING = json.loads((REPO / "site" / "docs" / "data" / "stats.json").read_text("utf-8"))  # the repository as built


@pytest.fixture
def grown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the real corpus plus one paper and one exclusion added after the survey's cutoff."""
    root = tmp_path / "corpus"
    root.mkdir()
    for name in ("taxonomy.yaml", "venues.yaml", "claims.yaml", "protocol.yaml", "README.md"):
        shutil.copy(REPO / name, root / name)
    for folder in ("papers", "exclusions", "audits"):
        shutil.copytree(REPO / folder, root / folder)
    paper = (REPO / "papers" / "magrpo.yaml").read_text("utf-8")
    paper = (
        paper.replace("key: magrpo", "key: newcomer2026")
        .replace("2508.04652", "2607.00001")
        .replace("origin: survey", "origin: contributor")
        .replace('added: "2026-05-04"', 'added: "2026-07-15"')
        .replace("credit_unit: agent", "credit_unit: message")
    )
    paper = re.sub(r"(?m)^(doi|code): .*\n", "", paper)  # the newcomer's own work, not magrpo's
    (root / "papers" / "newcomer2026.yaml").write_text(paper, "utf-8")
    exclusion = (REPO / "exclusions" / "E001.yaml").read_text("utf-8")  # E99999: a number the corpus has not reached
    exclusion = (
        exclusion.replace("id: E001", "id: E99999")
        .replace("2305.14325", "2607.00002")
        .replace("origin: survey", "origin: discovery")
        .replace('added: "2026-05-04"', 'added: "2026-07-15"')
    )
    (root / "exclusions" / "E99999.yaml").write_text(exclusion, "utf-8")
    monkeypatch.chdir(root)
    monkeypatch.delenv("MASRL_ROOT", raising=False)
    return root


def _without_claims(text: str) -> dict[str, Any]:
    data = json.loads(text)
    data.pop("claims")
    return data


def test_snapshot_of_the_real_corpus_is_the_survey(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = run_cli("stats", "--snapshot", "survey", "--json")
    assert result.exit_code == 0, result.output
    assert _without_claims(result.stdout) == SNAPSHOT
    assert SNAPSHOT["retained"] == 84
    assert SNAPSHOT["excluded"] == 32
    assert SNAPSHOT["audited"] == 32


def test_added_records_move_the_living_counts_not_the_snapshot(grown: Path, run_cli: Any) -> None:
    # Act
    snapshot = run_cli("stats", "--snapshot", "survey", "--json")
    living = run_cli("stats", "--json")
    # Assert
    assert snapshot.exit_code == living.exit_code == 0, (snapshot.output, living.output)
    assert _without_claims(snapshot.stdout) == SNAPSHOT
    data = json.loads(living.stdout)
    assert (data["retained"], data["excluded"], data["identified"]) == (
        LIVING["retained"] + 1,
        LIVING["excluded"] + 1,
        LIVING["identified"] + 2,
    )
    assert data["counts"]["credit_unit"]["message"] == LIVING["counts"]["credit_unit"]["message"] + 1
    assert data["counts"]["origin"] == {
        "survey": 84,
        "contributor": LIVING["counts"]["origin"]["contributor"] + 1,
        "discovery": LIVING["counts"]["origin"]["discovery"],
    }
    assert data["snapshot"] == {"retained": 84, "excluded": 32, "identified": 116, "audited": 32}


def test_readme_shows_the_snapshot_beside_living_counts_that_differ(grown: Path, run_cli: Any) -> None:
    # Act
    result = run_cli("build")
    # Assert
    assert result.exit_code == 0, result.output
    readme = (grown / "README.md").read_text("utf-8")
    retained, excluded = LIVING["retained"] + 1, LIVING["excluded"] + 1
    assert (
        f"**{retained}** retained entries (survey snapshot: 84) · **{excluded}** screened-out records "
        f"(survey snapshot: 32) ({retained + excluded} identified)" in readme
    )
    home = (grown / "site" / "docs" / "index.md").read_text("utf-8")
    assert f"<strong>{retained}</strong><span>entries (84 in the survey snapshot)</span>" in home


def test_snapshot_option_accepts_only_known_snapshots(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = run_cli("stats", "--snapshot", "living")
    assert result.exit_code == 2
    assert "'living' is not 'survey'" in result.output


def test_the_claims_hold_on_the_snapshot_and_the_readme_says_which_turn_on_the_grown_corpus(
    grown: Path, run_cli: Any
) -> None:
    # Act
    snapshot = run_cli("claims", "--snapshot", "survey")
    living = run_cli("claims", "--stress", "--json")
    built = run_cli("build")
    # Assert: every claim is exact on the survey's records, whatever was added
    assert snapshot.exit_code == 0, snapshot.output
    assert snapshot.stderr.startswith("13 of 13 claims hold")
    turned = [r["id"] for r in json.loads(living.stdout)["claims"] if "living" in r["turns"]]
    assert "retained-total" in turned
    assert built.exit_code == 0, built.output
    readme = (grown / "README.md").read_text("utf-8")
    sentence = next(line for line in readme.splitlines() if line.startswith("On the survey's snapshot"))
    assert sentence.startswith(
        f"On the survey's snapshot, its 116 records as published (`masrl claims --snapshot survey`), 13 of the 13 "
        f"claims about it hold exactly. On the living corpus, grown to {LIVING['retained'] + 1} entries and "
        f"{LIVING['excluded'] + 1} exclusions, {len(turned)} of them no longer hold: `retained-total` (84 → "
    )
    assert all(f"`{claim}` (" in sentence for claim in turned)
