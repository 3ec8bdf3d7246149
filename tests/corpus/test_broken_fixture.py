"""The deliberately broken fixture corpus: every problem it has, in order, and nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import fixture_corpus
from masrl.corpus._schema import next_year


@pytest.fixture
def broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fixture_corpus("broken", tmp_path, monkeypatch)


def expected() -> list[str]:
    b = "papers/broken-entry.yaml"
    return [
        "audits/twin.yaml:8:3: first_reading.topology: warning: the audited first reading 'swarm' differs from "
        "the paper's current 'harness'; re-audit the row or record why the tag changed",
        "audits/twin.yaml:16:1: verdict: verdict 'disagree_topology' does not match the readings; it must be 'agree'",
        "exclusions/E900.yaml:6:1: identifier: arXiv 2502.00002 is already used by paper 'twin' "
        "(a paper cannot be both retained and excluded)",
        "exclusions/E900.yaml:8:1: date_screened: date_screened must be a date written YYYY-MM-DD, not '2026-13-01'",
        "exclusions/E900.yaml:9:1: stage: stage must be one of 'abstract_screen', 'full_text_screen', "
        "'artifact_screen' or 'duplicate_screen', not 'title_screen' (did you mean 'artifact_screen'?)",
        "exclusions/E900.yaml:10:1: reasons: reasons must list at least one item",
        "exclusions/E900.yaml:11:1: note: note must be one sentence ending with '.'",
        f"{b}:3:1: key: key must be lowercase letters and digits in words joined by '-', e.g. 'm-grpo', "
        "not 'Broken_Entry'",
        f"{b}:4:1: title: title must not start or end with spaces",
        f"{b}:5:1: authors: authors must be a list, not text 'Doe, Jane'",
        f"{b}:7:1: year: year must lie between 1950 and {next_year()}, not 1901",
        f'{b}:8:1: arxiv: arxiv must be text, not a number 2401.1234; quote it, e.g. arxiv: "2508.04652", '
        "or YAML reads it as a number and drops zeros",
        f"{b}:10:1: url: url must be an http(s) URL with no spaces, not 'ftp://example.org/broken.pdf'",
        f"{b}:13:5: more_urls[1]: more_urls must not repeat 'https://example.org/ok'",
        f"{b}:14:1: entry_type: entry_type is no longer a field: the venue gives it (venues.yaml); "
        "`masrl fmt` removes it where it agrees with the venue",
        f"{b}:15:1: category: category must be one of 'rl_method', 'framework', 'benchmark', 'survey', "
        "'industry' or 'classical_marl', not 'rl-method' (did you mean 'rl_method'?)",
        f"{b}:16:1: rl: rl must be one of 'yes', 'partial', 'sft' or 'no', not true "
        "(YAML reads bare true/false as booleans; write the value as listed)",
        f"{b}:17:1: reward_type: reward_type must be one of 'shared', 'individual', 'role', 'process', 'tool', "
        "'debate', 'verifier', 'orchestration', 'hybrid' or 'NA', not 'hybird' (did you mean 'hybrid'?)",
        f"{b}:18:1: credit_unit: credit_unit must be one of 'token', 'turn', 'message', 'tool', 'agent', 'role', "
        "'orchestrator', 'team' or 'NA', not 'agnet' (did you mean 'agent'?)",
        f"{b}:19:1: topology: topology must be one of 'centralized', 'planner_executor_critic', 'debate', "
        "'swarm', 'hierarchical', 'harness' or 'NA', not 'centralised' (did you mean 'centralized'?)",
        f"{b}:24:1: strict_credit: strict_credit must be true or false, not text 'yes'",
        f"{b}:26:3: subdecisions.O1.evidence: evidence is required: One sentence, in our own words, saying what "
        "in the source supports the code (at most 200 characters).",
        f"{b}:27:5: subdecisions.O1.code: code must be one of 'learned' or 'designed', not 'learnt' "
        "(did you mean 'learned'?)",
        f"{b}:29:3: subdecisions.O7: subdecisions keys must be 'O1', 'O2', 'O3', 'O4' or 'O5', not 'O7'",
        f"{b}:33:1: summary: summary must be one sentence ending with '.'",
        f"{b}:34:1: titel: unknown field (did you mean 'title'?); allowed fields are key, title, authors, et_al, "
        "affiliation, year, arxiv, doi, venue, url, more_urls, code, bibtex, category, rl, reward_type, "
        "credit_unit, topology, scenario, role, verified, evidence_kind, origin, added, round, rule, changes, strict_credit, "
        "subdecisions, summary, notes, exceptions",
        f"{b}:35:1: origin: origin must be one of 'survey', 'contributor' or 'discovery', not 'surveyed' "
        "(did you mean 'survey'?)",
        f"{b}:36:1: added: added must be a date written YYYY-MM-DD, not '2026-02-30'",
        f"{b}:38:5: changes[0].date: date must be a date written YYYY-MM-DD, not '2026-13-40'",
        f"{b}:39:5: changes[0].note: note must be one sentence ending with '.'",
        f"{b}:40:5: changes[1].date: date is required: Date of the change, YYYY-MM-DD.",
        f"{b}:40:5: changes[1].note: note is required: One sentence on what changed and why, at most 200 characters.",
        f"{b}:40:5: changes[1].when: unknown field; allowed fields are date, note",
        "papers/draft.yml:1:1: (record): not a record, so it would be left out: rename it to draft.yaml",
        "papers/twin.yaml:17:1: role: warning: role is 'core' for category 'industry'; industry entries are "
        "'case' and only they are [industry_is_case; if intended, explain it under exceptions: industry_is_case]",
    ]


def test_every_problem_is_reported(broken: Path, run_cli: Any) -> None:
    result = run_cli("validate")
    assert result.stdout.splitlines() == expected()
    assert result.stderr == "33 errors, 2 warnings in 4 files\n"
    assert result.exit_code == 1


def test_quiet_hides_warnings(broken: Path, run_cli: Any) -> None:
    result = run_cli("validate", "--quiet")
    assert result.stdout.splitlines() == [line for line in expected() if ": warning: " not in line]


def test_paths_restrict_the_report(broken: Path, run_cli: Any) -> None:
    result = run_cli("validate", "exclusions/E900.yaml")
    assert result.stdout.splitlines() == [line for line in expected() if line.startswith("exclusions/")]
    assert result.stderr == "5 errors in 1 file\n"


def test_nothing_is_written_when_records_are_broken(broken: Path, run_cli: Any) -> None:
    before = sorted(p.relative_to(broken) for p in broken.rglob("*"))
    result = run_cli("export", "csv", "-o", "out.csv")
    assert result.exit_code == 1
    assert "Nothing was written" in result.stderr
    assert sorted(p.relative_to(broken) for p in broken.rglob("*")) == before
