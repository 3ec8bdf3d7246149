"""masrl fmt: canonical order and quoting, no content and no comment lost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO, assert_golden
from masrl.corpus._format import format_record
from masrl.corpus._vocab import load_taxonomy
from masrl.corpus._yaml import load_text

TAX = load_taxonomy(REPO)

MESSY = """\
# A note at the top of the file.
summary: 'Trains a team of agents on a shared reward.'   # written last
key: x
# The title as printed on the PDF.
title: A study of teams
year: 2025 # year of the arXiv version
authors:
  - Doe, Jane  # corresponding author
  # second author joined later
  - Roe, Richard
affiliation: Somewhere University
arxiv: "2501.00010"
venue: arXiv
url: "https://arxiv.org/abs/2501.00010"
category: rl_method
rl: "yes"
reward_type: shared
credit_unit: agent
topology: centralized
scenario: general
role: core
verified: "yes"
evidence_kind: paper
subdecisions:  # coded from the abstract
  O3:
    evidence: "Messages # are trained."
    code: learned
    basis: abstract
  O1: {code: designed, basis: abstract, evidence: Fixed team size.}
notes: |
  First line.
  # not a comment, part of the note
# trailing comment at the end
"""


def test_messy_record_is_formatted_as_golden() -> None:
    assert_golden("fmt-messy.yaml", format_record("paper", MESSY, TAX))


def test_formatting_keeps_data_and_is_idempotent() -> None:
    once = format_record("paper", MESSY, TAX)
    assert load_text(once).data == load_text(MESSY).data
    assert format_record("paper", once, TAX) == once


def test_every_record_of_the_corpus_is_already_canonical(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = run_cli("fmt", "--check")
    assert result.exit_code == 0
    records = sum(len(list((REPO / d).glob("*.yaml"))) for d in ("papers", "exclusions", "audits"))
    assert result.stderr == f"would reformat 0 of {records} files\n"


def test_check_shows_a_diff_and_fails(small: Path, run_cli: Any) -> None:
    path = small / "papers" / "gamma.yaml"
    text = path.read_text("utf-8")
    path.write_text(
        text.replace("title: Gamma, a benchmark of agent teams\n", "") + "title: Gamma, a benchmark of agent teams\n",
        "utf-8",
    )
    result = run_cli("fmt", "--check")
    assert result.exit_code == 1
    assert "--- a/papers/gamma.yaml" in result.stdout
    assert result.stderr.startswith("would reformat 1 of 7 files")
    assert path.read_text("utf-8") != text  # --check wrote nothing
    fixed = run_cli("fmt", "papers/gamma.yaml")
    assert fixed.stdout == "formatted papers/gamma.yaml\n"
    assert path.read_text("utf-8") == text


def test_unparsable_files_are_reported_not_touched(small: Path, run_cli: Any) -> None:
    (small / "papers" / "bad.yaml").write_text("key: [\n", "utf-8")
    result = run_cli("fmt")
    assert result.exit_code == 1
    assert "papers/bad.yaml:2:1: YAML syntax error" in result.stderr
    assert (small / "papers" / "bad.yaml").read_text("utf-8") == "key: [\n"


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (("screening",), "screening/2501.00001.yaml"),
        (("screening/2501.00001.yaml",), "screening/2501.00001.yaml"),
        (("papers", "screening/2501.00001.yaml"), "screening/2501.00001.yaml"),
    ],
)
def test_files_that_are_not_records_are_refused_and_nothing_is_written(
    small: Path, run_cli: Any, args: tuple[str, ...], shown: str
) -> None:
    # Arrange: a queue file of masrl discover, and a record fmt would change
    queue = small / "screening" / "2501.00001.yaml"
    queue.parent.mkdir(exist_ok=True)
    text = 'id: "2501.00001"\nstatus: pending\ntitle: A candidate\nabstract: Some words.\n'
    queue.write_text(text, "utf-8")
    paper = small / "papers" / "gamma.yaml"
    messy = paper.read_text("utf-8").replace("\nyear:", "\nyear:  ")
    paper.write_text(messy, "utf-8")
    # Act
    result = run_cli("fmt", *args)
    # Assert
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {shown}: not a record; fmt formats the files in papers/, exclusions/ and audits/ "
        "(give one of those folders or a file in it). Nothing was written.\n"
    )
    assert queue.read_text("utf-8") == text
    assert paper.read_text("utf-8") == messy


def test_floats_keep_their_digits() -> None:
    text = MESSY.replace('arxiv: "2501.00010"', "arxiv: 2501.00010")
    assert "arxiv: 2501.00010\n" in format_record("paper", text, TAX)


comment_text = (
    st.text(
        st.characters(blacklist_categories=["Cs", "Cc", "Zl", "Zp"], blacklist_characters="\x85"),
        min_size=1,
        max_size=20,
    )
    .map(lambda s: "# " + s.strip())
    .filter(lambda s: len(s) > 2)
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), comment_text, st.booleans()), max_size=6))
def test_comments_anywhere_survive(placements: list[tuple[int, str, bool]]) -> None:
    lines = MESSY.splitlines()
    block = {i for i, line in enumerate(lines) if line.startswith("  First line") or line.startswith("  # not a")}
    for index, comment, beside in placements:
        i = min(index, len(lines) - 1)
        if i in block or (beside and ("#" in lines[i] or lines[i].endswith(":") or lines[i].endswith("|"))):
            continue
        if beside:
            lines[i] = f"{lines[i]}  {comment}"
        else:
            indent = len(lines[i]) - len(lines[i].lstrip())
            lines.insert(i, " " * indent + comment)
            block = {j + 1 if j >= i else j for j in block}
    text = "\n".join(lines) + "\n"
    try:
        load_text(text)
    except Exception:
        return
    # format_record re-reads its output and compares data and every comment; it raises otherwise.
    out = format_record("paper", text, TAX)
    assert load_text(out).data == load_text(text).data
    assert format_record("paper", out, TAX) == out
