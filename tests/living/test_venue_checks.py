"""venue_checks.csv: the checks of a record's venue of record a person made, as `masrl validate`
and `masrl refresh --stale` meet them (the small fixture corpus: alpha cites arXiv, beta NeurIPS 2024)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import fixture_corpus

HEADER = "key,date,outcome,against\n"


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fixture_corpus("small", tmp_path, monkeypatch)


def _checks(root: Path, text: str) -> None:
    (root / "venue_checks.csv").write_text(text, "utf-8")


def test_a_well_formed_ledger_validates(small: Path, run_cli: Any) -> None:
    _checks(
        small,
        HEADER
        + "alpha,2026-11-02,none,ICML 2026 accepted list (by title)\n"
        + 'alpha,2026-11-30,none,"ACL Anthology 2026, NeurIPS 2026 accepted list"\n',
    )
    result = run_cli("validate")
    assert result.exit_code == 0, result.output
    assert "venue_checks.csv" not in result.output


def test_every_broken_row_is_reported_with_its_line_and_field(small: Path, run_cli: Any) -> None:
    # Arrange: one row of each kind of mistake
    _checks(
        small,
        HEADER
        + "alpah,2026-11-02,none,ICML 2026 accepted list\n"  # 2: unknown key, with a suggestion
        + "alpha,2026-02-30,none,ICML 2026 accepted list\n"  # 3: no such day
        + "alpha,2026-11-03,nothing,ICML 2026 accepted list\n"  # 4: unknown outcome
        + "alpha,2026-11-04,none,\n"  # 5: nothing named
        + "alpha,2026-11-05,moved,DBLP\n"  # 6: moved, but alpha still cites arXiv
        + "beta,2026-11-06,none,NeurIPS 2024 proceedings\n"  # 7: none, but beta is published
        + "alpha,2099-01-01,none,ICML 2026 accepted list\n"  # 8: after today
        + "alpha,2026-11-04,none,the same day again\n"  # 9: a second row for the same day
        + "alpha,2026-11-09\n"  # 10: too few fields
        + 'alpha,2026-11-10,none,"two\nlines"\n',  # 11: a line break inside a field
    )
    # Act
    result = run_cli("validate")
    # Assert: exit 1, every problem at once, each naming the file, line and field
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("venue_checks.csv:")]
    assert lines == [
        "venue_checks.csv:2:1: key: no paper with key 'alpah' in papers/ (did you mean 'alpha'?)",
        "venue_checks.csv:3:2: date: date must be a real date written YYYY-MM-DD, not '2026-02-30'",
        "venue_checks.csv:4:3: outcome: outcome must be one of none, moved, non-archival, not 'nothing'",
        "venue_checks.csv:5:4: against: against must name the proceedings, lists or indexes the record was compared with",
        "venue_checks.csv:6:3: outcome: says the venue was moved, but papers/alpha.yaml still cites 'arXiv'; "
        "move it (venue and a changes entry naming the source) or write none",
        "venue_checks.csv:7:3: outcome: says none, but papers/beta.yaml cites 'NeurIPS 2024' and no changes entry "
        "dated 2026-11-06 or later moved it; write moved",
        "venue_checks.csv:8:2: date: date 2099-01-01 is after today (" + _today() + ")",
        "venue_checks.csv:9:1: key: alpha already has a check dated 2026-11-04, on line 5",
        "venue_checks.csv:10:1: (record): a row must have 4 fields, not 2",
        "venue_checks.csv:12:4: against: against must be one line",
    ]


def _today() -> str:
    import datetime as dt

    return dt.date.today().isoformat()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "venue_checks.csv:1:1: (record): the header must be key,date,outcome,against; the file is empty"),
        ("key,date,against\n", "venue_checks.csv:1:1: (record): the header must be key,date,outcome,against, not key,date,against"),
        (HEADER + 'alpha,2026-11-02,none,"unclosed\n', "venue_checks.csv:2:1: (record): not CSV: unexpected end of data"),
    ],
)
def test_a_ledger_that_is_not_csv_or_lacks_its_header_is_refused(small: Path, run_cli: Any, text: str, message: str) -> None:
    _checks(small, text)
    result = run_cli("validate")
    assert result.exit_code == 1
    assert message in result.output


def _preprint(root: Path, key: str, arxiv: str) -> None:
    text = (root / "papers" / "alpha.yaml").read_text("utf-8")
    text = text.replace("key: alpha", f"key: {key}").replace("2501.00001", arxiv).replace("Alpha |", f"{key} |")
    (root / "papers" / f"{key}.yaml").write_text(text, "utf-8")


@pytest.mark.parametrize(
    ("args", "stdout", "summary"),
    [
        (
            (),
            [
                "papers/alpha.yaml: arXiv since 2025-01, 23 months; last checked 2026-11-20: none",
                "papers/epsilon.yaml: arXiv since 2026-03, 9 months; last checked 2026-06-01: non-archival",
                "papers/eta.yaml: arXiv since 2026-04, 8 months; never checked",
            ],
            "3 records still on arXiv or under submission after 6 months (on 2026-12-01); 1 never checked in the proceedings",
        ),
        (
            ("--unchecked-days", "90"),
            [
                "papers/epsilon.yaml: arXiv since 2026-03, 9 months; last checked 2026-06-01: non-archival",
                "papers/eta.yaml: arXiv since 2026-04, 8 months; never checked",
            ],
            "3 records still on arXiv or under submission after 6 months (on 2026-12-01); 1 never checked in the "
            "proceedings; 1 checked within 90 days left out, 2 listed",
        ),
        (
            ("--unchecked-days", "0"),  # only a check dated after today would be left out
            [
                "papers/alpha.yaml: arXiv since 2025-01, 23 months; last checked 2026-11-20: none",
                "papers/epsilon.yaml: arXiv since 2026-03, 9 months; last checked 2026-06-01: non-archival",
                "papers/eta.yaml: arXiv since 2026-04, 8 months; never checked",
            ],
            "3 records still on arXiv or under submission after 6 months (on 2026-12-01); 1 never checked in the "
            "proceedings; 0 checked within 0 days left out, 3 listed",
        ),
        (
            ("--unchecked-days", "365"),
            ["papers/eta.yaml: arXiv since 2026-04, 8 months; never checked"],
            "3 records still on arXiv or under submission after 6 months (on 2026-12-01); 1 never checked in the "
            "proceedings; 2 checked within 365 days left out, 1 listed",
        ),
    ],
)
def test_refresh_stale_shows_each_records_last_check_and_leaves_out_the_recent(
    small: Path, run_cli: Any, args: tuple[str, ...], stdout: list[str], summary: str
) -> None:
    # Arrange: alpha checked twice (the last check counts), epsilon once, eta never
    _preprint(small, "epsilon", "2603.01234")
    _preprint(small, "eta", "2604.01234")
    _checks(
        small,
        HEADER
        + "alpha,2026-01-10,none,ICLR 2026 accepted list\n"
        + "alpha,2026-11-20,none,NeurIPS 2026 accepted list\n"
        + "epsilon,2026-06-01,non-archival,ICML 2026 workshop page\n",
    )
    # Act
    result = run_cli("refresh", "--stale", "6", "--list", "--today", "2026-12-01", *args)
    # Assert
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == stdout
    assert result.stderr == summary + "\n"


def test_refresh_stale_refuses_a_broken_ledger_before_asking_anything(small: Path, run_cli: Any) -> None:
    _checks(small, HEADER + "alpha,2026-13-01,none,ICLR 2026 accepted list\n")
    result = run_cli("refresh", "--stale", "6", "--list", "--today", "2026-12-01")
    assert result.exit_code == 1
    assert "venue_checks.csv:2:2: date: date must be a real date written YYYY-MM-DD, not '2026-13-01'" in result.output
    assert "papers/alpha.yaml" not in result.output


# one line of any other characters: a field of the ledger is one line (a line break is refused)
_field = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=12)


@given(st.lists(st.tuples(_field, _field, st.sampled_from(["none", "moved", "non-archival", "x"]), _field), max_size=8))
def test_dumped_rows_parse_back_as_the_same_checks(rows: list[tuple[str, str, str, str]]) -> None:
    from masrl.living._checks import Check, dump_checks, parse_checks

    good = [
        Check(k.strip() or "k", "2026-01-0" + str(i % 9 + 1), o if o != "x" else "none", a.strip() or "a", 0)
        for i, (k, _, o, a) in enumerate(rows)
    ]
    unique = list({(c.key, c.date): c for c in good}.values())
    parsed, problems = parse_checks(dump_checks(unique))
    assert problems == []
    assert sorted((c.key, c.date, c.outcome, c.against) for c in parsed) == sorted(
        (c.key, c.date, c.outcome, c.against) for c in unique
    )
