"""Loading the corpus: the real records, every field typed, the paths shown, and the parallel path
agreeing with the serial one."""

from __future__ import annotations

import multiprocessing
import os
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from conftest import AUDIT_TEXT, EXCLUSION_TEXT, PAPER_TEXT, REPO, Corpus
from masrl.bench._synth import write_synthetic_corpus
from masrl.corpus import _load
from masrl.corpus._load import load_corpus, record_files
from masrl.corpus._vocab import load_taxonomy


def test_the_real_corpus_loads_whole() -> None:
    loaded = load_corpus(REPO)
    assert loaded.ok
    assert loaded.problems == []
    corpus = loaded.corpus
    snapshot = corpus.snapshot()
    assert (len(snapshot.papers), len(snapshot.exclusions), len(snapshot.audits)) == (84, 32, 32)
    assert len(corpus.papers) > 84  # the living corpus holds the survey's records and later ones
    assert [p.key for p in corpus.papers] == sorted(p.key for p in corpus.papers)


def test_generated_corpora_are_valid(tmp_path: Path) -> None:
    write_synthetic_corpus(REPO, tmp_path / "synth", papers=300, exclusions=30)
    loaded = load_corpus(tmp_path / "synth")
    assert [p for p in loaded.problems if p.is_error] == []
    assert len(loaded.corpus.papers) == 300


def test_parallel_loading_matches_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Arrange: a generated corpus plus one broken record and one duplicate identifier.
    root = tmp_path / "synth"
    write_synthetic_corpus(REPO, root, papers=120, exclusions=12)
    monkeypatch.chdir(root)
    text = (root / "papers" / "synth-00001.yaml").read_text(encoding="utf-8")
    (root / "papers" / "dupe.yaml").write_text(text.replace("key: synth-00001", "key: dupe"), encoding="utf-8")
    (root / "papers" / "bad.yaml").write_text("key: bad\nyear: [\n", encoding="utf-8")
    # Act
    monkeypatch.setattr(_load, "PARALLEL_THRESHOLD", 10**9)
    serial = load_corpus(root)
    monkeypatch.setattr(_load, "PARALLEL_THRESHOLD", 10)
    monkeypatch.setattr(_load, "_worker_count", lambda: 2)  # the pool runs even on a 1-CPU machine
    parallel = load_corpus(root)
    # Assert
    assert all(h.doc.data is None for h in parallel.handles), "the worker pool did not parse the records"
    assert all(h.doc.data is not None for h in serial.handles)
    assert parallel.problems == serial.problems
    assert "papers/synth-00001.yaml:8:1: arxiv: arXiv" in "\n".join(str(p) for p in serial.problems)
    assert any(p.path == "papers/bad.yaml" for p in serial.problems)
    assert (parallel.corpus.papers, parallel.corpus.exclusions) == (serial.corpus.papers, serial.corpus.exclusions)
    assert len(serial.corpus.papers) == 121


# -- Typed records: every field of a record reaches its typed form, and a field left out gets its
#    default. Each case writes one record next to the paper `x` and compares the whole record.

TAGS = {
    "category": "rl_method",
    "rl": "yes",
    "reward_type": "shared",
    "credit_unit": "agent",
    "topology": "centralized",
    "scenario": "general",
    "role": "core",
    "verified": "yes",
    "evidence_kind": "paper",
    "origin": "survey",
}
PAPER = {
    "key": "x",
    "title": "A study of teams",
    "authors": ("Doe, Jane",),
    "et_al": False,
    "affiliation": "Somewhere University",
    "year": 2025,
    "arxiv": "2501.00001",
    "doi": None,
    "venue": "arXiv",
    "url": "https://arxiv.org/abs/2501.00001",
    "more_urls": (),
    "bibtex": {},
    "tags": TAGS,
    "added": "2026-05-04",
    "changes": (),
    "strict_credit": False,
    "subdecisions": {},
    "summary": "Trains a team of agents on a shared reward.",
    "notes": None,
    "exceptions": {},
    "path": "papers/x.yaml",
    "code": None,
    "round": None,
    "rule": None,
}
EXCLUSION = {
    "id": "E001",
    "source": "arXiv",
    "query_family": "multi-agent LLM",
    "label": "A prompted debate paper",
    "identifier": "arXiv:2305.00001",
    "url": "https://arxiv.org/abs/2305.00001",
    "date_screened": "2026-04-26",
    "stage": "abstract_screen",
    "reasons": ("no_rl",),
    "tags": {"origin": "survey"},
    "added": "2026-05-04",
    "changes": (),
    "note": "Prompted agents only; nothing is trained.",
    "path": "exclusions/E001.yaml",
    "if_retained": None,
    "round": None,
    "rule": None,
}
READING = {
    "category": "rl_method",
    "rl": "yes",
    "reward_type": "shared",
    "credit_unit": "agent",
    "topology": "centralized",
}
AUDIT = {
    "key": "x",
    "first_reading": READING,
    "second_reading": READING,
    "strict_credit": False,
    "verdict": "agree",
    "note": None,
    "path": "audits/x.yaml",
}
RETAINED_TAGS = "if_retained:\n" + "".join(
    f"  {name}: {value}\n"
    for name, value in (
        ("category", "rl_method"),
        ("rl", '"yes"'),
        ("reward_type", "shared"),
        ("credit_unit", "agent"),
        ("topology", "centralized"),
        ("scenario", "general"),
    )
)
O1 = "O1:\n  code: learned\n  basis: abstract\n  evidence: The planner is trained with RL.\n"
O1_TYPED = {"O1": {"code": "learned", "basis": "abstract", "evidence": "The planner is trained with RL."}}


def _indent(text: str, by: str) -> str:
    return "".join(by + line for line in text.splitlines(keepends=True))


RECORDS: list[tuple[str, str, str, dict[str, Any]]] = [
    # -- papers: the fields left out, then every optional field set
    ("paper-least", "papers/x.yaml", PAPER_TEXT, PAPER),
    (
        "paper-most",
        "papers/x.yaml",
        PAPER_TEXT.replace("subdecisions: {}\n", "subdecisions:\n" + _indent(O1, "  "))
        + "et_al: true\n"
        + "doi: 10.1000/xyz123\n"
        + "more_urls:\n  - https://example.org/a\n"
        + "code: https://github.com/example/teams\n"
        + "bibtex:\n  journal: Journal of Teams\n"
        + "strict_credit: true\n"
        + "notes: Tagged from the abstract.\n"
        + "exceptions:\n  industry_is_case: Because it is special.\n"
        + "round: backfill\nrule: B3\n"
        + 'changes:\n  - date: "2026-06-01"\n    note: Venue updated.\n',
        {
            **PAPER,
            "et_al": True,
            "doi": "10.1000/xyz123",
            "more_urls": ("https://example.org/a",),
            "code": "https://github.com/example/teams",
            "bibtex": {"journal": "Journal of Teams"},
            "strict_credit": True,
            "subdecisions": O1_TYPED,
            "notes": "Tagged from the abstract.",
            "exceptions": {"industry_is_case": "Because it is special."},
            "changes": ({"date": "2026-06-01", "note": "Venue updated."},),
            "round": "backfill",
            "rule": "B3",
        },
    ),
    # -- exclusions: a plain one, and near misses with and without the optional retained fields
    ("exclusion", "exclusions/E001.yaml", EXCLUSION_TEXT, EXCLUSION),
    (
        "near-miss-least",
        "exclusions/E001.yaml",
        EXCLUSION_TEXT + RETAINED_TAGS + "  basis: Its router is trained, on one agent.\n",
        {
            **EXCLUSION,
            "if_retained": {
                "tags": {k: TAGS[k] for k in ("category", "rl", "reward_type", "credit_unit", "topology", "scenario")},
                "strict_credit": False,
                "subdecisions": None,
                "basis": "Its router is trained, on one agent.",
            },
        },
    ),
    (
        "near-miss-most",
        "exclusions/E001.yaml",
        EXCLUSION_TEXT
        + RETAINED_TAGS
        + "  strict_credit: true\n"
        + "  subdecisions:\n"
        + _indent(O1, "    ")
        + "  basis: Its router is trained, on one agent.\n"
        + "round: backfill\nrule: exclusion 2\n",
        {
            **EXCLUSION,
            "round": "backfill",
            "rule": "exclusion 2",
            "if_retained": {
                "tags": {k: TAGS[k] for k in ("category", "rl", "reward_type", "credit_unit", "topology", "scenario")},
                "strict_credit": True,
                "subdecisions": O1_TYPED,
                "basis": "Its router is trained, on one agent.",
            },
        },
    ),
    # -- audits, without and with a note
    ("audit", "audits/x.yaml", AUDIT_TEXT, AUDIT),
    ("audit-note", "audits/x.yaml", AUDIT_TEXT + "note: A note on the row.\n", {**AUDIT, "note": "A note on the row."}),
]


@pytest.mark.parametrize(("name", "rel", "text", "expected"), RECORDS, ids=[c[0] for c in RECORDS])
def test_records_are_typed_whole(corpus: Corpus, name: str, rel: str, text: str, expected: dict[str, Any]) -> None:
    # Arrange
    corpus.write("papers/x.yaml", PAPER_TEXT)
    corpus.write(rel, text)
    # Act
    loaded = load_corpus(corpus.root).corpus
    # Assert
    records = {"papers": loaded.papers, "exclusions": loaded.exclusions, "audits": loaded.audits}[rel.split("/")[0]]
    assert [asdict(r) for r in records if r.path == rel] == [expected]


@pytest.mark.parametrize(("key", "found"), [("x", "x"), ("y", "y"), ("z", None)], ids=["first", "second", "absent"])
def test_a_paper_is_found_by_its_key(corpus: Corpus, key: str, found: str | None) -> None:
    # Arrange
    corpus.paper("x")
    corpus.paper("y", arxiv='arxiv: "2501.00002"', url="url: https://arxiv.org/abs/2501.00002")
    loaded = load_corpus(corpus.root).corpus
    # Act and assert
    if found is None:
        with pytest.raises(KeyError, match=f"'{key}'"):
            loaded.paper(key)
    else:
        assert loaded.paper(key).key == found


def test_the_snapshot_belongs_to_the_same_corpus(corpus: Corpus) -> None:
    corpus.paper("x")
    loaded = load_corpus(corpus.root).corpus
    snapshot = loaded.snapshot()
    assert (snapshot.root, snapshot.taxonomy, [p.key for p in snapshot.papers]) == (corpus.root, loaded.taxonomy, ["x"])


# -- Where a problem's file is shown from: relative to the working directory when the file lies
#    below it, else as given.


@pytest.mark.parametrize(
    ("cwd", "shown"),
    [
        # -- in the corpus, or above it
        ("corpus", "papers/bad.yaml"),
        (".", "corpus/papers/bad.yaml"),
        # -- beside it
        ("elsewhere", "{root}/papers/bad.yaml"),
    ],
    ids=["in", "above", "beside"],
)
def test_files_are_shown_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cwd: str, shown: str
) -> None:
    # Arrange
    root = tmp_path / "corpus"
    Corpus(root).write("papers/bad.yaml", "key: bad\nyear: [\n")
    shutil.copy(REPO / "taxonomy.yaml", root / "taxonomy.yaml")
    shutil.copy(REPO / "venues.yaml", root / "venues.yaml")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / cwd)
    # Act
    loaded = load_corpus(root)
    # Assert
    assert [p.path for p in loaded.problems] == [shown.format(root=root)]


@pytest.mark.parametrize(
    ("extra", "shown"),
    [
        ("work/drafts/new.yaml", "drafts/new.yaml"),
        ("outside/new.yaml", "{tmp}/outside/new.yaml"),
    ],
    ids=["below-cwd", "outside-cwd"],
)
def test_extra_files_are_shown_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str, shown: str
) -> None:
    # Arrange: the corpus, a working directory beside it, and a record outside the corpus.
    root = tmp_path / "corpus"
    root.mkdir()
    shutil.copy(REPO / "taxonomy.yaml", root / "taxonomy.yaml")
    shutil.copy(REPO / "venues.yaml", root / "venues.yaml")
    path = Corpus(tmp_path).write(extra, "key: bad\nyear: [\n")
    (tmp_path / "work").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path / "work")
    # Act
    loaded = load_corpus(root, extra=[("paper", path)])
    # Assert
    assert [p.path for p in loaded.problems] == [shown.format(tmp=tmp_path)]


@pytest.mark.parametrize(
    ("stray", "message"),
    [
        # -- the record folders before it are missing; it is still found
        (
            "exclusions/E001.yml",
            "exclusions/E001.yml:1:1: (record): not a record, so it would be left out: rename it to E001.yaml",
        ),
        (
            "exclusions/notes.txt",
            "exclusions/notes.txt:1:1: (record): not a record, so it would be left out: an exclusion record is a .yaml file; move this file out of exclusions/",
        ),
        (
            "audits/x.txt",
            "audits/x.txt:1:1: (record): not a record, so it would be left out: an audit record is a .yaml file; move this file out of audits/",
        ),
    ],
    ids=["exclusions-yml", "exclusions-txt", "audits-txt"],
)
def test_strays_are_found_when_a_record_folder_is_missing(
    corpus: Corpus, run_cli: Any, stray: str, message: str
) -> None:
    # Arrange
    corpus.write(stray, "key: x\n")
    # Act
    result = run_cli("validate")
    # Assert
    assert result.stdout.splitlines() == [message]
    assert result.exit_code == 1


def test_a_stray_named_on_the_command_line_is_read_and_reported(corpus: Corpus, run_cli: Any) -> None:
    # Arrange
    corpus.write("papers/x.yml", "")
    # Act
    result = run_cli("validate", "papers/x.yml")
    # Assert
    assert result.stdout.splitlines() == [
        "papers/x.yml:1:1: (record): file is empty; a record is a mapping of field: value lines",
        "papers/x.yml:1:1: (record): not a record, so it would be left out: rename it to x.yaml",
    ]
    assert result.exit_code == 1


@pytest.mark.parametrize(
    ("rel", "text"),
    [("drafts/exclusions/E001.yaml", EXCLUSION_TEXT), ("drafts/audits/x.yaml", AUDIT_TEXT)],
    ids=["exclusion", "audit"],
)
def test_a_record_named_outside_the_record_folders_is_read_as_its_folder_says(
    corpus: Corpus, run_cli: Any, rel: str, text: str
) -> None:
    # Arrange
    corpus.paper("x")
    corpus.write(rel, text)
    # Act
    result = run_cli("validate", rel)
    # Assert
    assert (result.stdout, result.exit_code) == ("", 0)


# -- Parsing in worker processes.


def test_a_worker_reports_what_the_serial_path_reports(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    # Arrange: a valid paper and an unreadable one, listed as load_corpus lists them.
    corpus.paper("x")
    corpus.write("papers/bad.yaml", "key: bad\nyear: [\n")
    taxonomy = load_taxonomy(corpus.root)
    chunk = [(kind, path, f"papers/{path.name}") for kind, path in record_files(corpus.root)]
    monkeypatch.setattr(_load, "_WORKER_TAXONOMY", taxonomy)
    # Act: the function each worker runs, called in this process.
    parsed = _load._parse_chunk(chunk)
    # Assert
    serial = load_corpus(corpus.root)
    assert [(p.kind, p.shown, p.parsed, p.name) for p in parsed] == [
        ("paper", "papers/bad.yaml", False, None),
        ("paper", "papers/x.yaml", True, "x"),
    ]
    assert [p.record for p in parsed] == [None, serial.corpus.papers[0]]
    assert sorted(problem for p in parsed for problem in p.problems) == serial.problems


@pytest.mark.parametrize(("threshold", "parallel"), [(3, True), (4, False)], ids=["at", "above"])
def test_records_are_parsed_in_workers_from_the_threshold_on(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch, threshold: int, parallel: bool
) -> None:
    # Arrange: three record files.
    corpus.paper("x")
    corpus.write("exclusions/E001.yaml", EXCLUSION_TEXT)
    corpus.write("audits/x.yaml", AUDIT_TEXT)
    monkeypatch.setattr(_load, "PARALLEL_THRESHOLD", threshold)
    monkeypatch.setattr(_load, "_worker_count", lambda: 2)
    # Act
    loaded = load_corpus(corpus.root)
    # Assert: documents parsed in a worker arrive without their data.
    assert [h.doc.data is None for h in loaded.handles] == [parallel] * 3
    assert loaded.problems == []


def test_the_pool_forks_as_many_workers_as_counted(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    # Arrange: three record files, the pool from three on, and a note of every pool asked for.
    corpus.paper("x")
    corpus.write("exclusions/E001.yaml", EXCLUSION_TEXT)
    corpus.write("audits/x.yaml", AUDIT_TEXT)
    monkeypatch.setattr(_load, "PARALLEL_THRESHOLD", 3)
    monkeypatch.setattr(_load, "_worker_count", lambda: 3)
    asked: list[tuple[str | None, int | None]] = []
    real = multiprocessing.get_context

    class Noting:
        def __init__(self, method: str | None) -> None:
            self.method = method

        def Pool(self, processes: int | None = None) -> Any:
            asked.append((self.method, processes))
            return real(self.method).Pool(processes)

    monkeypatch.setattr(multiprocessing, "get_context", Noting)
    # Act
    loaded = load_corpus(corpus.root)
    # Assert: workers are forked, so they inherit the taxonomy (a spawned worker would not have
    # it), and there are as many as _worker_count says (one per CPU, at most four).
    assert asked == [("fork", 3)]
    assert loaded.problems == []
    assert [h.doc.data is None for h in loaded.handles] == [True] * 3


@pytest.mark.parametrize(("cpus", "workers"), [(None, 1), (1, 1), (2, 2), (4, 4), (8, 4)])
def test_one_worker_per_cpu_and_at_most_four(monkeypatch: pytest.MonkeyPatch, cpus: int | None, workers: int) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    assert _load._worker_count() == workers
