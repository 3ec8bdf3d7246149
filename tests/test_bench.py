"""`masrl bench`: what it measures and reports, not how fast anything is (no timed assertions).

The memory of a target's whole process tree against one process's high-water mark, the budget
verdicts, the report's lines, that listing targets makes no inputs and shared setups run once,
and the command's own errors through the command line.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO, real_corpus
from masrl.bench import _targets
from masrl.bench._measure import Result, Target, format_report

MIB = 1024 * 1024

# A parent that forks: the child holds 120 MiB, the parent 60 MiB, both written to (so resident),
# each allocated after the fork (so nothing is shared); both hold it for a while, then end.
TWO_PROCESSES = textwrap.dedent(
    f"""
    import os, time
    pid = os.fork()
    held = bytearray({120 * MIB} if pid == 0 else {60 * MIB})
    for i in range(0, len(held), 4096):
        held[i] = 1
    time.sleep(0.5)
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    """
)


# Measured from a small process, as the bench does: a child's high-water mark on Linux starts from
# the size of the process that started it, and pytest's is large.
MEASURE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from masrl.bench._measure import run_once, tree_peak_mib
    argv = [sys.executable, "-c", sys.argv[1]]
    _, peak, code = run_once(argv, Path("."))
    print(peak, tree_peak_mib(argv, Path(".")), code)
    """
)


def test_the_whole_tree_counts_the_helper_a_high_water_mark_does_not(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", MEASURE, TWO_PROCESSES], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    peak, tree, code = run.stdout.split()
    assert code == "0"
    assert 120 < float(peak) < 160  # the child's own mark: its 120 MiB and the interpreter
    assert float(tree) > 180  # both processes' memory together


def _result(peak: float, tree: float | None, budget: float | None) -> Result:
    return Result(
        Target("t", ["x"], Path("."), budget_s=1.0, budget_mib=budget), [0.5, 0.7, 0.6], peak, [0, 0, 0], tree
    )


# (case, high-water mark, tree, budget, the line's end)
VERDICTS: list[tuple[str, float, float | None, float | None, str]] = [
    ("both-under", 100.0, 150.0, 200.0, "<= 1 s ok; <= 200 MiB ok"),
    ("tree-over", 100.0, 250.0, 200.0, "<= 1 s ok; <= 200 MiB OVER"),
    ("mark-over", 250.0, 150.0, 200.0, "<= 1 s ok; <= 200 MiB OVER"),
    ("not-sampled", 100.0, None, 200.0, "<= 1 s ok; <= 200 MiB ok"),
    ("no-budget", 900.0, None, None, "<= 1 s ok"),
]


@pytest.mark.parametrize(("case", "peak", "tree", "budget", "end"), VERDICTS, ids=[v[0] for v in VERDICTS])
def test_a_memory_budget_holds_against_the_larger_figure(
    case: str, peak: float, tree: float | None, budget: float | None, end: str
) -> None:
    line = format_report([_result(peak, tree, budget)], 3).splitlines()[2]
    assert line.endswith(end)


def test_the_report_lines() -> None:
    lines = format_report([_result(100.0, 150.25, 200.0), _result(100.0, None, None)], 3).splitlines()
    assert lines[0].split() == ["target", "median", "s", "min", "s", "max", "s", "peak", "MiB", "all", "MiB", "budget"]
    assert lines[2].split() == [
        "t",
        "0.600",
        "0.500",
        "0.700",
        "100.0",
        "150.2",
        "<=",
        "1",
        "s",
        "ok;",
        "<=",
        "200",
        "MiB",
        "ok",
    ]
    assert lines[3].split() == ["t", "0.600", "0.500", "0.700", "100.0", "<=", "1", "s", "ok"]
    assert "sampled every 2 ms" in lines[-1]


def test_listing_makes_nothing_and_shared_setups_run_once(tmp_path: Path) -> None:
    targets = {t.name: t for t in _targets.all_targets(REPO, tmp_path, 10)}
    assert list(tmp_path.iterdir()) == []
    first, second = targets["validate: corpus"], targets["check: corpus, nothing changed"]
    assert first.setup is second.setup is not None
    first.setup()
    marker = tmp_path / "corpus" / "marker"
    marker.write_text("kept")
    second.setup()
    assert marker.read_text() == "kept"  # the copy was not made again
    assert (tmp_path / "corpus" / "taxonomy.yaml").is_file()
    assert not (tmp_path / "synthetic-10").exists()


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "masrl", "bench", *args], cwd=REPO, capture_output=True, text=True, check=False
    )


# (case, arguments, standard error)
REFUSED: list[tuple[str, list[str], str]] = [
    ("no-match", ["--only", "nothing-like-this"], "Error: no target matches nothing-like-this\n"),
    ("no-runs", ["--runs", "0"], "Error: --runs must be at least 1\n"),
]


@pytest.mark.parametrize(("case", "args", "stderr"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_at_once(case: str, args: list[str], stderr: str) -> None:
    run = _bench(*args)
    assert (run.returncode, run.stdout, run.stderr) == (1, "", stderr)


def test_one_target_through_the_command_line(tmp_path: Path) -> None:
    run = _bench("--runs", "2", "--size", "1000", "--only", "validate: corpus", "--keep", str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert run.stderr == "running validate: corpus ...\n"
    rows = [line for line in run.stdout.splitlines() if line.startswith("validate: corpus")]
    assert len(rows) == 1
    assert "<= 0.25 s" in rows[0]
    assert "2 runs each" in run.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]


def test_the_grown_corpus_reads_like_the_real_one_and_validates(tmp_path: Path) -> None:
    from masrl.bench._synth import write_grown_corpus
    from masrl.corpus._load import load_corpus

    # Arrange
    real = real_corpus()
    entries = len(real.papers) + 20
    # Act
    write_grown_corpus(REPO, tmp_path / "grown", entries)
    loaded = load_corpus(tmp_path / "grown")
    # Assert: every record validates; the exclusions keep the corpus's ratio
    assert loaded.ok, [str(p) for p in loaded.problems if p.is_error]
    grown = loaded.corpus
    assert len(grown.papers) == entries
    assert len(grown.exclusions) == round(entries * len(real.exclusions) / len(real.papers))
    # no text repeats, and the generated records are as long as the real ones they come from
    for name in ("title", "summary"):
        texts = [getattr(p, name) for p in grown.papers]
        assert len(set(texts)) == len(texts), name
    new = [p for p in grown.papers if re.search(r"-g\d+$", p.key)]
    assert len(new) == 20
    for p in new:
        source = real.paper(p.key.rsplit("-g", 1)[0])
        assert (len(p.title), len(p.summary), len(p.authors)) == (
            len(source.title),
            len(source.summary),
            len(source.authors),
        )
        assert p.tags == {**source.tags, "origin": "discovery"}
    # the generated corpus is a whole corpus: protocol, claims and site frame are there
    for name in ("protocol.yaml", "claims.yaml", "README.md", "site/mkdocs.yml"):
        assert (tmp_path / "grown" / name).is_file(), name
