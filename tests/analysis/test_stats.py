"""Statistics: the survey snapshot's counts match the published reference tables, zeros kept,
kappa computed right; the living corpus is published as stats.json."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pandas as pd
import pytest

from conftest import FIXTURES, REPO, real_analysis, real_corpus
from masrl.analysis import _stats
from masrl.analysis._stats import cohen_kappa
from masrl.corpus._load import load_corpus
from masrl.corpus._vocab import load_taxonomy
from masrl.publish._build import Analysis

TAX = load_taxonomy(REPO)
REFERENCE = list(csv.DictReader(io.StringIO((FIXTURES / "reference" / "papers_facts.csv").read_text("utf-8"))))
EXCLUDED = list(csv.DictReader(io.StringIO((FIXTURES / "reference" / "excluded_facts.csv").read_text("utf-8"))))


# The reference tables are the survey's: they describe its snapshot, which the living corpus extends.
# Both analyses are made once per test process, when a test first needs them (conftest.real_analysis).
@pytest.fixture
def survey() -> Analysis:
    return real_analysis("survey")


@pytest.fixture
def survey_stats(survey: Analysis) -> dict[str, Any]:
    return survey.stats


@pytest.fixture
def living_stats() -> dict[str, Any]:
    return real_analysis().stats


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        ("category", "category"),
        ("rl", "is_rl"),
        ("reward_type", "reward_type"),
        ("credit_unit", "credit_granularity"),
        ("topology", "orchestration_form"),
        ("scenario", "scenario"),
        ("role", "is_core"),
        ("verified", "verified"),
    ],
)
def test_counts_equal_the_reference_tables(ours: str, theirs: str, survey_stats: dict[str, Any]) -> None:
    expected = Counter(row[theirs] for row in REFERENCE)
    assert {k: n for k, n in survey_stats["counts"][ours].items() if n} == dict(expected)
    assert list(survey_stats["counts"][ours]) == list(TAX.ids(ours)), "every value, in taxonomy order"


def test_reward_families_follow_the_taxonomy_mapping(survey_stats: dict[str, Any]) -> None:
    expected = Counter(TAX.family_of(row["reward_type"]) for row in REFERENCE)
    assert survey_stats["counts"]["reward_family"] == {f: expected.get(f, 0) for f in TAX.ids("reward_family")}


def test_zero_cells_are_kept(survey_stats: dict[str, Any]) -> None:
    assert survey_stats["counts"]["credit_unit"]["token"] == 0
    assert survey_stats["counts"]["credit_unit"]["team"] == 0
    assert survey_stats["counts"]["reward_family"]["R5"] == 0
    assert survey_stats["crosstabs"]["reward_type x credit_unit"]["tool"]["tool"] == 0


def test_crosstabs_add_up(survey_stats: dict[str, Any]) -> None:
    for name, table in survey_stats["crosstabs"].items():
        assert sum(sum(row.values()) for row in table.values()) == 84, name
    cell = Counter((r["reward_type"], r["credit_granularity"]) for r in REFERENCE)
    table = survey_stats["crosstabs"]["reward_type x credit_unit"]
    for (reward, unit), n in cell.items():
        assert table[reward][unit] == n


def test_screening_matches_the_exclusion_log(survey_stats: dict[str, Any]) -> None:
    flow = survey_stats["screening"]
    assert (flow["identified"], flow["excluded"], flow["retained"]) == (116, 32, 84)
    assert {k: n for k, n in flow["by_stage"].items() if n} == dict(Counter(r["stage"] for r in EXCLUDED))
    assert sum(flow["first_reason"].values()) == 32


def test_years_are_continuous_and_complete(survey_stats: dict[str, Any]) -> None:
    years = [int(y) for y in survey_stats["by_year"]]
    assert years == list(range(1994, 2027))
    assert sum(sum(c.values()) for c in survey_stats["by_year"].values()) == 84
    assert survey_stats["by_year"]["1995"] == dict.fromkeys(TAX.ids("category"), 0)


def test_strict_credit_counts(survey_stats: dict[str, Any]) -> None:
    assert survey_stats["strict_credit"]["message"] == 1
    assert survey_stats["strict_credit"]["orchestrator"] == 5


def test_subdecision_coverage(survey_stats: dict[str, Any]) -> None:
    subs = survey_stats["subdecisions"]
    assert subs["coded"] == 52
    assert subs["O5"]["learned"] == 0
    assert set(subs["O2"]["keys"]["learned"]) == {"paramanager", "puppeteer", "sharp"}
    for o in TAX.ids("subdecision"):
        assert subs[o]["learned"] == len(subs[o]["keys"]["learned"])


def test_papers_with_code_are_counted_by_category(survey_stats: dict[str, Any], living_stats: dict[str, Any]) -> None:
    corpus = real_corpus()
    for stats, papers in (
        (living_stats, corpus.papers),
        (survey_stats, [p for p in corpus.papers if p.origin == "survey"]),
    ):
        code = stats["code"]
        assert code["with_code"] == sum(1 for p in papers if p.code) == sum(code["by_category"].values())
        assert list(code["by_category"]) == list(TAX.ids("category"))  # every category, zeros kept
        assert all(code["by_category"][c] <= stats["counts"]["category"][c] for c in code["by_category"])


@pytest.mark.parametrize(
    ("codes", "expected"),
    [
        ({}, {"with_code": 0}),
        ({"magrpo": "https://github.com/example/magrpo"}, {"with_code": 1, "rl_method": 1}),
        (
            {"magrpo": "https://github.com/example/a", "sharp": "https://github.com/example/b"},
            {"with_code": 2, "rl_method": 2},
        ),
    ],
)
def test_code_counts_take_only_the_papers_with_a_code_link(codes: dict[str, str], expected: dict[str, int]) -> None:
    corpus = real_corpus()
    papers = tuple(replace(p, code=codes.get(p.key)) for p in corpus.papers)
    counted = _stats.code_counts(replace(corpus, papers=papers))
    assert counted["with_code"] == expected.pop("with_code")
    assert {c: n for c, n in counted["by_category"].items() if n} == expected


@pytest.mark.parametrize(
    ("first", "second", "kappa"),
    [
        # -- perfect agreement on a varied field
        (["a", "b", "a", "c"], ["a", "b", "a", "c"], 1.0),
        # -- agreement no better than chance
        (["a", "a", "b", "b"], ["a", "b", "a", "b"], 0.0),
        # -- a textbook 2x2 case: p_o = 0.7, p_e = 0.5 -> 0.4
        (["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15, ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15, 0.4),
        # -- one rater uses one label only: chance agreement equals observed
        (["a", "a", "a"], ["a", "b", "a"], 0.0),
        # -- both raters use one identical label: kappa undefined
        (["a", "a"], ["a", "a"], None),
        ([], [], None),
    ],
)
def test_cohen_kappa(first: list[str], second: list[str], kappa: float | None) -> None:
    result = cohen_kappa(first, second)
    assert result == pytest.approx(kappa) if kappa is not None else result is None


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        # -- each rater labels every item once, so the lists must be as long as each other
        (["a", "b"], ["a"], "shorter"),
        (["a"], ["a", "b"], "longer"),
    ],
    ids=["second-shorter", "second-longer"],
)
def test_cohen_kappa_refuses_lists_of_different_lengths(first: list[str], second: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cohen_kappa(first, second)


def test_audit_agreement_matches_the_spot_check(survey: Analysis, survey_stats: dict[str, Any]) -> None:
    audit = survey_stats["audit"]
    assert audit["rows"] == 32
    credit = audit["fields"]["credit_unit"]
    assert credit["disagreements"] == [{"key": "halo", "first": "role", "second": "orchestrator"}]
    assert credit["agreement"] == pytest.approx(96.88)
    for name in ("category", "rl", "reward_type", "topology"):
        assert audit["fields"][name]["agreement"] == 100.0
        assert audit["fields"][name]["kappa"] == 1.0
    # kappa for credit_unit recomputed by hand from the audit records
    first = [a.first_reading["credit_unit"] for a in survey.corpus.audits]
    second = [a.second_reading["credit_unit"] for a in survey.corpus.audits]
    n = len(first)
    p_o = sum(x == y for x, y in zip(first, second, strict=True)) / n
    p_e = sum(first.count(label) * second.count(label) for label in set(first)) / n**2
    assert credit["kappa"] == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-4)


def test_stats_json_is_documented_by_its_schema(survey_stats: dict[str, Any], living_stats: dict[str, Any]) -> None:
    schema = json.loads((REPO / "schemas" / "stats.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(survey_stats, schema)
    jsonschema.validate(living_stats, schema)


def test_cli_json_equals_the_published_file(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = run_cli("stats", "--json")
    assert result.exit_code == 0
    published = json.loads((REPO / "site" / "docs" / "data" / "stats.json").read_text("utf-8"))
    assert json.loads(result.stdout) == published
    for key in ("retained", "excluded", "counts", "crosstabs", "claims"):
        assert key in published
    assert set(published["counts"]) >= {
        "category",
        "rl",
        "reward_type",
        "reward_family",
        "credit_unit",
        "topology",
        "scenario",
        "role",
        "verified",
        "screening_stage",
        "exclusion_reason",
    }


def test_cli_table_output(run_cli: Any, monkeypatch: pytest.MonkeyPatch, living_stats: dict[str, Any]) -> None:
    monkeypatch.chdir(REPO)
    result = run_cli("stats", "--snapshot", "survey")
    assert result.exit_code == 0
    assert result.stdout.startswith("84 retained, 32 excluded, 116 identified, 32 audited")
    living = run_cli("stats")
    assert living.stdout.startswith(f"{living_stats['retained']} retained, {living_stats['excluded']} excluded")
    assert "\ncredit_unit\n  Token             0\n" in result.stdout


def test_frame_has_ordered_categoricals(survey: Analysis) -> None:
    frame = _stats.papers_frame(survey.corpus)
    assert list(frame["credit_unit"].cat.categories) == list(TAX.ids("credit_unit"))
    assert len(frame) == 84


@pytest.mark.parametrize(
    ("column", "values"),
    [
        # -- the paper's own fields, one row per paper in key order
        ("key", ["alpha", "beta", "delta", "gamma"]),
        (
            "title",
            [
                "Alpha | pipes, *stars*, `ticks` and <script>alert(1)</script> in a title",
                "Beta debate with message credit",
                "Delta swarm report",
                "Gamma, a benchmark of agent teams",
            ],
        ),
        ("year", [2025, 2024, 2026, 2023]),
        ("strict_credit", [True, False, False, False]),
        # -- sub-decisions: coded at all (gamma is not), then each one's code or None
        ("coded", [True, True, True, False]),
        ("O1", ["learned", None, None, None]),
        ("O3", [None, "learned", None, None]),
        ("O4", ["designed", None, None, None]),
        ("O5", [None, None, None, None]),
    ],
    ids=["key", "title", "year", "strict_credit", "coded", "O1", "O3", "O4", "O5"],
)
def test_frame_has_a_row_per_paper(small: Path, column: str, values: list[Any]) -> None:
    frame = _stats.papers_frame(load_corpus(small).corpus)
    assert [None if pd.isna(x) else x for x in frame[column]] == values  # pandas may show None as NaN


@pytest.mark.parametrize("papers", ["four", "none"])
def test_frame_columns_keep_their_types(small: Path, papers: str) -> None:
    # Arrange: the small corpus, or the same corpus with its papers left out.
    corpus = load_corpus(small).corpus
    if papers == "none":
        corpus = replace(corpus, papers=())
    # Act
    frame = _stats.papers_frame(corpus)
    # Assert
    assert (frame["strict_credit"].dtype, frame["coded"].dtype) == (bool, bool)
    for f in corpus.taxonomy.counted_fields("paper"):
        assert frame[f.name].cat.ordered, f.name
        assert list(frame[f.name].cat.categories) == list(f.ids), f.name


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        # -- two exclusions: E001 at the abstract for two reasons, E002 at the artifact for one
        ("identified", 6),
        ("excluded", 2),
        ("retained", 4),
        (
            "by_stage",
            {"abstract_screen": 1, "full_text_screen": 0, "artifact_screen": 1, "duplicate_screen": 0},
        ),
        (
            "by_reason",
            {
                "no_rl": 1,
                "single_agent": 0,
                "no_mas_mechanism": 1,
                "out_of_scope": 0,
                "background_only": 0,
                "superseded": 0,
                "duplicate": 0,
                "insufficient_detail": 1,
                "no_trace_instrumentation": 0,
            },
        ),
        (
            "first_reason",
            {
                "no_rl": 1,
                "single_agent": 0,
                "no_mas_mechanism": 0,
                "out_of_scope": 0,
                "background_only": 0,
                "superseded": 0,
                "duplicate": 0,
                "insufficient_detail": 1,
                "no_trace_instrumentation": 0,
            },
        ),
    ],
    ids=["identified", "excluded", "retained", "by_stage", "by_reason", "first_reason"],
)
def test_screening_flow_keeps_zeros(small: Path, key: str, expected: Any) -> None:
    assert _stats.screening(load_corpus(small).corpus)[key] == expected
