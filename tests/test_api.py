"""The library: ``masrl.load(root)`` and ``masrl.analysis``, and the example on the Python API page.

Each function is held to the command that reports the same thing: ``masrl validate`` for the
problems, ``masrl stats --json`` for the statistics and claims, ``masrl export json`` for the records.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import masrl
from conftest import REPO, Corpus
from masrl import analysis
from masrl.analysis.api import EXAMPLE
from masrl.corpus.api import CorpusError
from masrl.corpus.api import Paper as ApiPaper


@functools.cache  # the repository does not change during a run; each command is run once
def _cli_json(*args: str, root: Path = REPO) -> Any:
    run = subprocess.run(
        [sys.executable, "-m", "masrl", "--root", str(root), *args], capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def repo_corpus() -> masrl.corpus.api.Corpus:
    return masrl.load(REPO)


@pytest.fixture(scope="module")
def cli_stats() -> dict[str, Any]:
    stats: dict[str, Any] = _cli_json("stats", "--json")
    return stats


# -- The example on the page.


def test_the_documented_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # Arrange: the page's only Python block, run in the corpus folder as a reader would.
    [code] = re.findall(r"```python\n(.*?)```", (REPO / "site/docs/python-api.md").read_text("utf-8"), re.S)
    assert code == EXAMPLE
    monkeypatch.chdir(REPO / "papers")  # load() finds the corpus upwards
    monkeypatch.delenv("MASRL_ROOT", raising=False)
    # Act
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "python-api.md", "exec"), {})
    # Assert: the figures the commands give for the same corpus.
    stats = json.loads((REPO / "site/docs/data/stats.json").read_text("utf-8"))
    papers = _cli_json("export", "json")["papers"]
    debate = [p for p in papers if p["topology"] == "debate"]
    held = sum(c["holds"] for c in stats["claims"])
    assert printed.getvalue() == (
        f"{stats['retained']} {stats['counts']['topology']['debate']} {sum(p['rl'] == 'yes' for p in debate)}\n"
        f"{held} of {len(stats['claims'])} claims hold\n"
        f"{min(p['year'] for p in debate)}\n"
    )


# -- masrl.load


def test_load_returns_every_valid_record_typed(repo_corpus: Any) -> None:
    exported = _cli_json("export", "json")
    assert isinstance(repo_corpus, masrl.corpus.api.Corpus)
    assert repo_corpus.root == REPO
    assert [p.key for p in repo_corpus.papers] == sorted(p["key"] for p in exported["papers"])
    assert [e.id for e in repo_corpus.exclusions] == sorted(e["id"] for e in exported["exclusions"])
    assert all(isinstance(p, ApiPaper) for p in repo_corpus.papers)


@pytest.mark.parametrize("how", ["argument", "text", "environment", "working directory"])
def test_load_finds_the_corpus(corpus: Corpus, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    # Arrange: one paper, and the working directory somewhere else unless the case says so.
    corpus.paper("x")
    elsewhere = corpus.root.parent / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    if how == "environment":
        monkeypatch.setenv("MASRL_ROOT", str(corpus.root))
    if how == "working directory":
        monkeypatch.chdir(corpus.root / "papers")
    # Act
    root = {"argument": corpus.root, "text": str(corpus.root)}.get(how)
    loaded = masrl.load(root)
    # Assert
    assert [p.key for p in loaded.papers] == ["x"]


def test_a_broken_record_raises_what_validate_reports(corpus: Corpus, run_cli: Any) -> None:
    # Arrange: a paper with two errors.
    corpus.paper("x", year="year: 1800", topology="topology: ring")
    # Act
    with pytest.raises(CorpusError) as caught:
        masrl.load(corpus.root)
    # Assert: the same problems, in the same order and words, as `masrl validate` prints.
    validate = run_cli("validate")
    assert validate.exit_code == 1
    assert [str(p) for p in caught.value.problems] == validate.stdout.splitlines()
    assert len(caught.value.problems) == 2
    assert str(caught.value).startswith("the corpus has errors: papers/x.yaml:")


@pytest.mark.parametrize(
    ("taxonomy", "message"),
    [
        (None, "taxonomy.yaml:1:1: (record): taxonomy.yaml not found in "),
        ("fields: [\n", "taxonomy.yaml:2:1: "),
    ],
    ids=["missing", "not YAML"],
)
def test_a_missing_or_broken_taxonomy_raises(tmp_path: Path, taxonomy: str | None, message: str) -> None:
    if taxonomy is not None:
        (tmp_path / "taxonomy.yaml").write_text(taxonomy, "utf-8")
    with pytest.raises(CorpusError) as caught:
        masrl.load(tmp_path)
    [problem] = caught.value.problems
    assert str(problem).startswith(message)


# -- masrl.analysis


def test_statistics_are_the_stats_document(repo_corpus: Any, cli_stats: dict[str, Any]) -> None:
    expected = dict(cli_stats)
    del expected["claims"]
    # the rounds and the search arms come from protocol.yaml and screening/, which the library's
    # statistics of a corpus do not read
    expected["screening"] = {k: v for k, v in expected["screening"].items() if k not in ("rounds", "arms")}
    assert analysis.statistics(repo_corpus) == expected


def test_claims_are_the_claims_of_the_stats_document(repo_corpus: Any, cli_stats: dict[str, Any]) -> None:
    outcomes = analysis.claims(repo_corpus)
    assert [o.as_json() for o in outcomes] == cli_stats["claims"]
    assert all(isinstance(o, analysis.Outcome) and isinstance(o.claim, analysis.Claim) for o in outcomes)


@pytest.mark.parametrize(
    ("ledger", "claims"),
    [
        (None, []),
        (
            "claims:\n  - id: total\n    statement: One paper.\n    query: {count: papers}\n    expected: 1\n",
            [("total", 1, True)],
        ),
        (
            "claims:\n  - id: total\n    statement: Two papers.\n    query: {count: papers}\n    expected: 2\n",
            [("total", 1, False)],
        ),
    ],
    ids=["no file", "holds", "fails"],
)
def test_claims_of_a_small_corpus(corpus: Corpus, ledger: str | None, claims: list[tuple[str, Any, bool]]) -> None:
    corpus.paper("x")
    if ledger is not None:
        corpus.write("claims.yaml", ledger)
    outcomes = analysis.claims(masrl.load(corpus.root))
    assert [(o.claim.id, o.actual, o.holds) for o in outcomes] == claims


def test_a_broken_claims_file_raises(corpus: Corpus, run_cli: Any) -> None:
    corpus.paper("x")
    corpus.write(
        "claims.yaml", "claims:\n  - id: total\n    statement: One paper.\n    query: {count: cats}\n    expected: 1\n"
    )
    with pytest.raises(CorpusError) as caught:
        analysis.claims(masrl.load(corpus.root))
    [problem] = caught.value.problems
    assert (problem.path, problem.line, problem.field) == ("claims.yaml", 4, "claims.0.query.count")
    assert str(problem) in run_cli("claims").output


def test_the_frame_has_a_row_per_paper(repo_corpus: Any) -> None:
    frame = analysis.frame(repo_corpus)
    assert list(frame["key"]) == [p.key for p in repo_corpus.papers]
    assert isinstance(frame["topology"].dtype, pd.CategoricalDtype)
    assert list(frame["topology"].cat.categories) == [v.id for v in repo_corpus.taxonomy.fields["topology"].values]
    assert frame["year"].tolist() == [p.year for p in repo_corpus.papers]


@pytest.mark.parametrize(
    ("code", "absent"),
    [
        ("import masrl", ["masrl.corpus", "masrl.analysis", "yaml", "pandas"]),
        ("from masrl import analysis", ["masrl.analysis.api", "masrl.analysis._stats", "pandas"]),
    ],
)
def test_importing_the_library_loads_nothing_until_it_is_used(code: str, absent: list[str]) -> None:
    probe = f"import sys; {code}; print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert [name for name in absent if name in loaded] == []


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'statistic'"):
        _ = analysis.statistic  # type: ignore[attr-defined]


# -- The attribute tables of the page.


def test_the_page_describes_every_attribute_of_every_record() -> None:
    page = (REPO / "site/docs/python-api.md").read_text("utf-8")
    from masrl.corpus._records import Audit, Exclusion, Paper

    for cls in (Paper, Exclusion, Audit):
        section = page.split(f"## `{cls.__name__}`", 1)[1].split("\n## ", 1)[0]
        named = re.findall(r"^\| `(\w+)` \|", section, re.M)
        assert [f.name for f in dataclasses.fields(cls)] == named[: len(dataclasses.fields(cls))]


def test_an_attribute_without_a_description_stops_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    from masrl.corpus._vocab import load_taxonomy
    from masrl.publish import _python_api
    from masrl.publish._errors import BuildError

    monkeypatch.delitem(_python_api.ATTRIBUTES, ("paper", "path"))
    with pytest.raises(BuildError, match="no description for paper attribute 'path'"):
        _python_api.context(load_taxonomy(REPO))
