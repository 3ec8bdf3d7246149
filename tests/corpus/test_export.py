"""Exports: the CSV reproduces every published fact; the JSON and CSV read back to the records."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from conftest import FIXTURES, REPO, real_corpus
from masrl.corpus._bibtex import decode_latex
from masrl.corpus._export import (
    EXCLUSION_COLUMNS,
    PAPER_COLUMNS,
    bib_name,
    exclusions_csv,
    latex_text,
    papers_csv,
    parse_exclusion_reason,
)

CORPUS = real_corpus()  # loaded once per test process, for every module that reads it
SNAPSHOT = CORPUS.snapshot()  # the survey's records: what the reference tables describe
CORRECTED = {p.key for p in SNAPSHOT.papers if p.changes}  # facts refreshed since, each with a dated note
# The reference columns a correction may change: facts, never tags or the survey's own screening.
CORRECTABLE = {"title", "first_author", "affiliation", "arxiv_id", "venue", "url"}


def _rows(text: str, key: str) -> dict[str, dict[str, str]]:
    return {row[key]: row for row in csv.DictReader(io.StringIO(text))}


def test_csv_has_the_reference_header_then_the_extra_fields() -> None:
    assert papers_csv(CORPUS).splitlines()[0].split(",") == [*PAPER_COLUMNS, "evidence_kind", "origin", "added"]
    assert exclusions_csv(CORPUS).splitlines()[0].split(",") == [*EXCLUSION_COLUMNS, "origin", "added"]


def test_papers_csv_round_trips_every_reference_fact() -> None:
    reference = _rows((FIXTURES / "reference" / "papers_facts.csv").read_text(encoding="utf-8"), "key")
    ours = _rows(papers_csv(CORPUS), "key")
    assert set(ours) >= set(reference)
    assert {k for k, row in ours.items() if row["origin"] == "survey"} == set(reference)
    moved = set()
    for key, row in reference.items():
        for column, value in row.items():
            # The reference spells a few names in LaTeX (Gr\\'{e}goire); records hold them in Unicode.
            expected = decode_latex(value) if "\\" in value else value
            if ours[key][column] != expected:
                assert key in CORRECTED, (key, column)
                assert column in CORRECTABLE, (key, column)
                moved.add((key, column))
    assert ("latentmas", "venue") in moved  # a known correction: published at ICML 2026


def test_exclusions_csv_round_trips_every_reference_fact() -> None:
    reference = _rows((FIXTURES / "reference" / "excluded_facts.csv").read_text(encoding="utf-8"), "record_id")
    ours = _rows(exclusions_csv(CORPUS), "record_id")
    assert {r for r, row in ours.items() if row["origin"] == "survey"} == set(reference)
    for rid, row in reference.items():
        for column, value in row.items():
            assert ours[rid][column] == value, (rid, column)


def test_exclusion_reason_cell_reads_back_to_codes_and_note() -> None:
    ours = _rows(exclusions_csv(CORPUS), "record_id")
    for exclusion in CORPUS.exclusions:
        assert parse_exclusion_reason(ours[exclusion.id]["exclusion_reason"]) == (exclusion.reasons, exclusion.note)


def test_our_prose_is_in_the_prose_columns() -> None:
    ours = _rows(papers_csv(CORPUS), "key")
    for paper in CORPUS.papers:
        assert ours[paper.key]["one_liner"] == paper.summary


def test_audits_carry_the_spot_check_exactly() -> None:
    names = {
        "category": "category",
        "rl": "is_rl",
        "reward_type": "reward_type",
        "credit_unit": "credit_granularity",
        "topology": "orchestration_form",
    }
    rows = list(csv.DictReader(io.StringIO((FIXTURES / "reference" / "spotcheck_facts.csv").read_text("utf-8"))))
    # the survey's spot check: the audits of its snapshot's papers (later rounds add their own)
    survey = {p.key for p in CORPUS.papers if p.origin == "survey"}
    audits = {a.key: a for a in CORPUS.audits if a.key in survey}
    assert set(audits) == {r["key"] for r in rows}
    for row in rows:
        audit = audits[row["key"]]
        for ours, theirs in names.items():
            assert audit.first_reading[ours] == row[f"orig_{theirs}"]
            assert audit.second_reading[ours] == row[f"ann_{theirs}"]
        assert audit.strict_credit == (row["strict_explicit_credit"] == "yes")
        assert audit.verdict == row["agreement_note"]


def test_cli_csv_to_file_and_stdout(run_cli: Any, tmp_path: Any, monkeypatch: Any) -> None:
    monkeypatch.chdir(REPO)
    out = tmp_path / "papers.csv"
    result = run_cli("export", "csv", "-o", str(out))
    assert result.exit_code == 0
    assert out.read_text(encoding="utf-8") == papers_csv(CORPUS) == run_cli("export", "csv").stdout


def test_json_export_reads_back(run_cli: Any, monkeypatch: Any) -> None:
    monkeypatch.chdir(REPO)
    data = json.loads(run_cli("export", "json").stdout)
    assert [p["key"] for p in data["papers"]] == [p.key for p in CORPUS.papers]
    assert len(data["exclusions"]) == len(CORPUS.exclusions)
    assert sum(e["origin"] == "survey" for e in data["exclusions"]) == 32
    assert len(data["audits"]) == len(CORPUS.audits)
    assert sum(a["key"] in {p.key for p in CORPUS.papers if p.origin == "survey"} for a in data["audits"]) == 32
    c3 = next(p for p in data["papers"] if p["key"] == "c3")
    assert c3["reward_family"] == "R1"
    assert c3["credit_unit"] == "message"
    assert c3["strict_credit"] is True


@pytest.mark.parametrize(
    "text",
    [
        # BibTeX and LaTeX specials
        "Q&A for 50% of $5 budgets, #1 on R_1",
        "braces {kept} and a back\\slash",
        "a tilde ~ between",
        # ligatures LaTeX would merge
        "A--B and C---D",
        "''quoted'' and ``quoted``",
        # Unicode stays as written
        "Gavenčiak, Tomáš – “AI–AI” ß",
    ],
)
def test_bibtex_text_parses_back_to_the_same_unicode(text: str) -> None:
    import bibtexparser

    entry = "@misc{k, title = {" + latex_text(text) + "}, year = {2024}}"
    library = bibtexparser.parse_string(entry)
    assert library.failed_blocks == []
    assert decode_latex(library.entries[0]["title"]) == text


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("Balunović, Mislav", "Balunović, Mislav"),
        ("Kimi Team", "{Kimi Team}"),  # a team stays whole instead of becoming 'Team, Kimi'
        ("Barnes & Noble", "{Barnes \\& Noble}"),
    ],
)
def test_bib_names(name: str, written: str) -> None:
    assert bib_name(name) == written
