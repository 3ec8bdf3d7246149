"""Claims as code: the real claims hold, a moved count fails loudly, a bad claims file is explained."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from masrl.analysis._claims import load_claims
from masrl.corpus._vocab import load_taxonomy

TAX = load_taxonomy(REPO)


def test_every_claim_of_the_survey_holds(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = run_cli("claims")
    assert result.exit_code == 0, result.stdout
    assert result.stderr == "13 of 13 claims hold\n"
    assert "ok   o5-learned: No retained entry learns when to stop (O5)" in result.stdout
    assert (
        "ok   message-credit-strict: Only one entry computes explicit counterfactual credit for each message.\n      value: 1\n      rows: c3\n"
        in result.stdout
    )


def test_a_moved_count_fails_the_claim(small_copy: Path, run_cli: Any) -> None:
    # Arrange: give a second entry message-level credit.
    path = small_copy / "papers" / "magrpo.yaml"
    path.write_text(path.read_text("utf-8").replace("credit_unit: agent", "credit_unit: message"), "utf-8")
    # Act
    result = run_cli("claims", "--quiet")
    # Assert
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:5] == [
        "FAIL message-credit-broad: Message-level credit is sparse; only two entries attach reward or credit to individual messages.",
        "      expected: 2",
        "      actual:   3",
        "      (claims.yaml line 32)",
        "      rows: c3, debate-as-reward, magrpo",
    ]
    assert result.stderr == "10 of 13 claims hold\n"  # broad, strict and the unit counts all move


def test_a_new_stop_learner_breaks_the_o5_claim(small_copy: Path, run_cli: Any) -> None:
    path = small_copy / "papers" / "c3.yaml"
    text = path.read_text("utf-8").replace(
        "subdecisions:\n",
        "subdecisions:\n  O5:\n    code: learned\n    basis: abstract\n    evidence: Learns to stop.\n",
    )
    path.write_text(text, "utf-8")
    result = run_cli("claims", "--quiet")
    assert result.exit_code == 1
    assert "FAIL o5-learned:" in result.stdout
    assert "rows: c3" in result.stdout


CLAIM = "claims:\n  - id: x\n    statement: A claim.\n    query: {query}\n    expected: {expected}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("claims: 3\n", "claims.yaml:1:1: claims: claims must be a list of {id, statement, query, expected}"),
        (
            "claim: []\n",
            "claims.yaml:1:1: claim: unknown field; claims.yaml holds claims (a list of claims) and views (a list of readings)",
        ),
        (
            CLAIM.format(query="{count: paper}", expected=1),
            "claims.yaml:4:13: claims.0.query.count: count must be one of 'papers', 'exclusions' or 'audits', not 'paper'",
        ),
        (
            CLAIM.format(query="{count: papers, where: {credit: message}}", expected=1),
            "claims.yaml:4:36: claims.0.query.where.credit: cannot filter papers on 'credit' (did you mean 'credit_unit'?)",
        ),
        (
            CLAIM.format(query="{count: papers, where: {credit_unit: mesage}}", expected=1),
            "claims.yaml:4:36: claims.0.query.where.credit_unit: credit_unit must be 'token', 'turn', 'message', 'tool', "
            "'agent', 'role', 'orchestrator', 'team' or 'NA', not 'mesage' (did you mean 'message'?)",
        ),
        (
            CLAIM.format(query="{count: papers, where: {O5: learnt}}", expected=0),
            "claims.yaml:4:36: claims.0.query.where.O5: O5 must be 'learned', 'designed' or 'absent', not 'learnt' "
            "(did you mean 'learned'?)",
        ),
        (
            CLAIM.format(query="{count: papers}", expected="two"),
            "claims.yaml:5:5: claims.0.expected: expected must be a whole number for a count query",
        ),
        (
            CLAIM.format(query="{counts: credit_unit}", expected="{token: 0}"),
            "claims.yaml:5:5: claims.0.expected: expected must list every credit_unit value in taxonomy order: "
            "token, turn, message, tool, agent, role, orchestrator, team, NA",
        ),
        (
            CLAIM.format(query="{most_common: reward, ignore: [NA]}", expected="hybrid"),
            "claims.yaml:4:13: claims.0.query.most_common: most_common must name one of category, rl, reward_type, "
            "credit_unit, topology, scenario, role, verified, evidence_kind, origin, reward_family, not 'reward'",
        ),
        (
            CLAIM.format(query="{count: papers, counts: category}", expected=1),
            "claims.yaml:4:5: claims.0.query: query must have exactly one of count, counts or most_common",
        ),
        (
            "claims:\n  - id: x\n    statement: A.\n    query: {count: papers}\n",
            "claims.yaml:2:5: claims.0: expected is required: the value the query must return",
        ),
        (
            "claims:\n  - id: x\n    statement: A.\n    query: {count: papers}\n    expected: 1\n"
            "  - id: x\n    statement: B.\n    query: {count: papers}\n    expected: 1\n",
            "claims.yaml:6:5: claims.1.id: id 'x' is used twice",
        ),
        (
            "claims:\n  - id: x\n    statment: A.\n    query: {count: papers}\n    expected: 1\n",
            "claims.yaml:3:5: claims.0.statment: unknown field (did you mean 'statement'?)",
        ),
        (
            "claims: [\n",
            "claims.yaml:2:1: (record): YAML syntax error: while parsing a flow node did not find expected node content",
        ),
    ],
)
def test_bad_claims_files(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "claims.yaml").write_text(text, "utf-8")
    claims, problems = load_claims(tmp_path, TAX)
    assert claims == []
    assert str(problems[0]) == message


def test_claims_command_reports_a_broken_claims_file(small_copy: Path, run_cli: Any) -> None:
    (small_copy / "claims.yaml").write_text("claims: 3\n", "utf-8")
    result = run_cli("claims")
    assert result.exit_code == 1
    assert result.stdout == "claims.yaml:1:1: claims: claims must be a list of {id, statement, query, expected}\n"


def test_ties_are_reported_as_ties(small: Path, run_cli: Any) -> None:
    result = run_cli("claims")
    assert result.exit_code == 0
    assert (
        "ok   top-reward: Debate and orchestration rewards tie for most common.\n      value: debate = orchestration\n"
        in result.stdout
    )
