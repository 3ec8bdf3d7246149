"""Loading the corpus: the real records, and the parallel path agreeing with the serial one."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO
from masrl import _records
from masrl._records import load_corpus
from masrl._synth import write_synthetic_corpus


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
    monkeypatch.setattr(_records, "PARALLEL_THRESHOLD", 10**9)
    serial = load_corpus(root)
    monkeypatch.setattr(_records, "PARALLEL_THRESHOLD", 10)
    monkeypatch.setattr(_records, "_worker_count", lambda: 2)  # the pool runs even on a 1-CPU machine
    parallel = load_corpus(root)
    # Assert
    assert all(h.doc.data is None for h in parallel.handles), "the worker pool did not parse the records"
    assert all(h.doc.data is not None for h in serial.handles)
    assert parallel.problems == serial.problems
    assert "papers/synth-00001.yaml:8:1: arxiv: arXiv" in "\n".join(str(p) for p in serial.problems)
    assert any(p.path == "papers/bad.yaml" for p in serial.problems)
    assert (parallel.corpus.papers, parallel.corpus.exclusions) == (serial.corpus.papers, serial.corpus.exclusions)
    assert len(serial.corpus.papers) == 121
