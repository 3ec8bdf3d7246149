"""masrl audit: the spot-check as data, with agreement and kappa."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO


def test_audit_report(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The survey's own round: its 32 audits and their figures are fixed for good
    monkeypatch.chdir(REPO)
    result = run_cli("audit", "--round", "round-1")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "32 audited rows",
        "field           rows  agreement   kappa  disagreements",
        "category          32     100.0%   1.000  none",
        "rl                32     100.0%   1.000  none",
        "reward_type       32     100.0%   1.000  none",
        "credit_unit       32      96.9%   0.959  halo (role → orchestrator)",
        "topology          32     100.0%   1.000  none",
        "strict-credit flag: the paper record and the second reading agree on 32 of 32 rows",
    ]


def test_audit_json(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    data = json.loads(run_cli("audit", "--round", "round-1", "--json").stdout)
    assert data["rows"] == 32
    assert set(data["fields"]) == {"category", "rl", "reward_type", "credit_unit", "topology"}
    assert data["fields"]["credit_unit"]["kappa"] == pytest.approx(0.9592, abs=1e-4)


def test_small_audit_with_one_disagreement(small: Path, run_cli: Any) -> None:
    result = run_cli("audit")
    assert "credit_unit        1       0.0%   0.000  beta (message → agent)" in result.stdout


def test_audit_of_a_round_counts_only_its_papers(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Arrange
    monkeypatch.chdir(REPO)
    # Act
    every = json.loads(run_cli("audit", "--json").stdout)
    rounds = [
        json.loads(run_cli("audit", "--round", r, "--json").stdout)
        for r in ("round-1", "round-2", "backfill", "field-search")
    ]
    # Assert: the rounds split the audits between them, and a round's rows are its own
    assert sum(r["rows"] for r in rounds) == every["rows"]
    assert rounds[0]["rows"] == 32
    assert rounds[2]["rows"] > 0
    assert rounds[3]["rows"] > 0


def test_audit_refuses_an_unknown_round(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = run_cli("audit", "--round", "round-9")
    assert result.exit_code == 1
    assert "--round must be one of round-1, round-2, backfill, field-search, not 'round-9'" in result.output
