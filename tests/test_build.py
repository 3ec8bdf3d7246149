"""masrl build and masrl check: regenerate everything, write only what changed, catch drift."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, assert_golden
from masrl import _figures
from masrl._build import analyse, labels_of


def _snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_the_repository_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "masrl", "check", "--full"], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert result.stderr.endswith("generated files are up to date\n")


def test_build_then_rebuild_changes_nothing(small: Path, run_cli: Any) -> None:
    first = run_cli("build")
    assert first.exit_code == 0, first.output
    before = _snapshot(small)
    second = run_cli("build")
    assert second.exit_code == 0
    assert second.stdout == ""
    assert second.stderr.startswith("0 written, 0 removed, ")
    assert _snapshot(small) == before


def test_small_readme_matches_golden(small: Path, run_cli: Any) -> None:
    assert run_cli("build").exit_code == 0
    assert_golden("small-README.md", (small / "README.md").read_text("utf-8"))


def test_hostile_title_is_literal_in_every_table(small: Path, run_cli: Any) -> None:
    assert run_cli("build").exit_code == 0
    readme = (small / "README.md").read_text("utf-8")
    assert "<script>" not in readme
    assert r"Alpha \| pipes, \*stars\*, \`ticks\` and &lt;script&gt;alert(1)&lt;/script&gt; in a title" in readme
    # Every row of a table has as many cell separators as its header: no title split a row.
    widths: list[int] = []
    for line in [*readme.splitlines(), ""]:
        if line.startswith("|"):
            widths.append(len(re.findall(r"(?<!\\)\|", line)))
        elif widths:
            assert len(set(widths)) == 1, widths
            widths = []


def test_check_fails_on_a_hand_edit_and_shows_the_diff(small: Path, run_cli: Any) -> None:
    assert run_cli("build").exit_code == 0
    readme = small / "README.md"
    readme.write_text(readme.read_text("utf-8").replace("**4** retained", "**5** retained"), "utf-8")
    result = run_cli("check")
    assert result.exit_code == 1
    assert result.stdout.startswith("stale: README.md\n--- a/README.md\n+++ b/README.md\n")
    assert "-**5** retained" in result.stdout
    assert "+**4** retained" in result.stdout
    assert "run `masrl build`" in result.stderr


def test_check_catches_an_edited_figure_and_a_stray_file(small: Path, run_cli: Any) -> None:
    assert run_cli("build").exit_code == 0
    figure = small / "site/docs/figures/credit-units.svg"
    figure.write_text(figure.read_text("utf-8").replace("Token", "Tokens"), "utf-8")
    (small / "site/docs/data/old.csv").write_text("stale\n", "utf-8")
    result = run_cli("check")
    assert result.exit_code == 1
    assert "stale: site/docs/figures/credit-units.svg" in result.stdout
    assert "extra: site/docs/data/old.csv (no longer generated)" in result.stdout
    # build repairs both
    repaired = run_cli("build")
    assert "wrote site/docs/figures/credit-units.svg" in repaired.stdout
    assert "removed site/docs/data/old.csv" in repaired.stdout
    assert run_cli("check").exit_code == 0


def test_an_unchanged_corpus_is_answered_from_its_fingerprint(
    small: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Arrange: a full build records the fingerprint.
    (small / "site").mkdir(exist_ok=True)
    (small / "site" / "mkdocs.yml").write_text('site_url: !ENV [MASRL_SITE_URL, "https://example.org/"]\n', "utf-8")
    assert run_cli("build").exit_code == 0
    # Act / Assert: nothing changed, so neither command renders anything.
    assert run_cli("check").stderr.endswith("generated files are up to date (nothing changed since the last check)\n")
    assert run_cli("build").stderr.endswith("unchanged (nothing changed since the last build)\n")
    # --full renders anyway and agrees.
    full = run_cli("check", "--full")
    assert (full.exit_code, full.stderr.endswith("generated files are up to date\n")) == (0, True)
    # A retagged record, a setting that changes the output, and a lost cache each take the full path.
    beta = small / "papers" / "beta.yaml"
    beta.write_text(beta.read_text("utf-8").replace("credit_unit: message", "credit_unit: agent"), "utf-8")
    stale = run_cli("check")
    assert stale.exit_code == 1
    assert "stale: README.md" in stale.stdout
    assert run_cli("build").exit_code == 0
    monkeypatch.setenv("MASRL_SITE_URL", "https://mirror.example.net/")
    moved = run_cli("check")
    assert moved.exit_code == 1
    assert "stale: site/docs/feed.xml" in moved.stdout
    monkeypatch.delenv("MASRL_SITE_URL")
    shutil.rmtree(small / ".masrl-cache")
    fresh = run_cli("check")
    assert (fresh.exit_code, fresh.stderr) == (0, f"{_outputs(small)} generated files are up to date\n")


def _outputs(root: Path) -> int:
    import json

    return int(json.loads((root / ".masrl-cache" / "build-state.json").read_text("utf-8"))["outputs"])


def test_build_writes_nothing_when_a_record_is_broken(small: Path, run_cli: Any) -> None:
    assert run_cli("build").exit_code == 0
    (small / "papers/beta.yaml").write_text(
        (small / "papers/beta.yaml").read_text("utf-8").replace("credit_unit: message", "credit_unit: mesage"), "utf-8"
    )
    before = _snapshot(small)
    result = run_cli("build")
    assert result.exit_code == 1
    assert result.stdout.startswith("papers/beta.yaml:17:1: credit_unit: credit_unit must be one of")
    assert "Nothing was written" in result.stderr
    assert _snapshot(small) == before


def test_missing_readme_marker_is_a_clear_error(small: Path, run_cli: Any) -> None:
    readme = small / "README.md"
    readme.write_text(readme.read_text("utf-8").replace("<!-- END masrl:claims -->\n", ""), "utf-8")
    result = run_cli("build")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: README.md lacks the generated block claims; add '<!-- BEGIN masrl:claims -->' and "
        "'<!-- END masrl:claims -->' lines where it belongs\n"
    )


def test_draft_lists_changes_without_writing(small: Path, run_cli: Any) -> None:
    before = _snapshot(small)
    result = run_cli("build", "--draft")
    assert result.exit_code == 0
    assert "would write README.md" in result.stdout
    assert _snapshot(small) == before


def test_figures_are_byte_deterministic(small: Path) -> None:
    analysis = analyse(small)
    for spec in _figures.figure_specs(analysis.stats, labels_of(analysis.corpus)):
        first, second = _figures.draw(spec), _figures.draw(spec)
        assert first == second, spec.name
        assert b"<dc:date>" not in first
        assert first.startswith(b"<?xml")


def test_unchanged_figures_are_reused_not_redrawn(small: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli("build").exit_code == 0

    def refuse(spec: Any) -> bytes:
        raise AssertionError(f"{spec.name} was redrawn although its data did not change")

    monkeypatch.setattr(_figures, "draw", refuse)
    assert run_cli("build").exit_code == 0
    assert run_cli("check").exit_code == 0


@pytest.mark.parametrize("size", [320])
def test_large_corpora_summarise_the_paper_list(tmp_path: Path, size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from masrl._records import load_corpus
    from masrl._render import README_PER_CATEGORY, paper_groups
    from masrl._synth import write_synthetic_corpus

    write_synthetic_corpus(REPO, tmp_path / "big", papers=size, exclusions=10)
    groups = paper_groups(load_corpus(tmp_path / "big").corpus)
    assert all(len(g.papers) <= README_PER_CATEGORY for g in groups)
    assert sum(len(g.papers) + g.more for g in groups) == size


@pytest.mark.parametrize(
    ("rows", "defaults", "kept"),
    [
        ([], {}, []),
        # the most common value of a key every row holds is given once and left out of those rows
        (
            [{"k": "a", "ve": "arXiv"}, {"k": "b", "ve": "arXiv"}, {"k": "c", "ve": "ICML"}],
            {"ve": "arXiv"},
            [{"k": "a"}, {"k": "b"}, {"k": "c", "ve": "ICML"}],
        ),
        # a value held once saves nothing; a key some rows lack has no default
        ([{"k": "a", "ve": "x"}, {"k": "b", "ve": "y"}], {}, [{"k": "a", "ve": "x"}, {"k": "b", "ve": "y"}]),
        (
            [{"k": "a", "d": "x"}, {"k": "b", "d": "x"}, {"k": "c"}],
            {},
            [{"k": "a", "d": "x"}, {"k": "b", "d": "x"}, {"k": "c"}],
        ),
        # lists and the keys that name an entry stay in every row
        (
            [{"k": "a", "t": "T", "au": ["X"], "o": ["1"]}, {"k": "b", "t": "T", "au": ["X"], "o": ["1"]}],
            {},
            [{"k": "a", "t": "T", "au": ["X"], "o": ["1"]}, {"k": "b", "t": "T", "au": ["X"], "o": ["1"]}],
        ),
        # numbers count too, and True is not taken for 1
        (
            [{"k": "a", "y": 1}, {"k": "b", "y": 1}, {"k": "c", "y": True}],
            {"y": 1},
            [{"k": "a"}, {"k": "b"}, {"k": "c", "y": True}],
        ),
    ],
)
def test_page_data_gives_shared_values_once(
    rows: list[dict[str, Any]], defaults: dict[str, Any], kept: list[dict[str, Any]]
) -> None:
    from masrl._site import _defaults

    assert _defaults(rows) == defaults
    assert rows == kept


def test_figure_processes_end_when_rendering_fails(small: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    from masrl import _build

    def fail(*args: Any) -> None:
        raise _build.BuildError([], 0, "rendering failed")

    monkeypatch.setattr(_figures, "PARALLEL_FIGURES", 1)
    monkeypatch.setattr(_build, "_render_text", fail)
    (small / "site" / "docs" / "figures" / "manifest.json").unlink(missing_ok=True)
    with pytest.raises(_build.BuildError, match="rendering failed"):
        _build.render_outputs(small, analyse(small))
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("record_broken", [False, True])
def test_a_broken_example_trace_stops_the_build_after_the_records_have_spoken(
    small: Path, run_cli: Any, record_broken: bool
) -> None:
    traces = small / "traces"
    traces.mkdir()
    shutil.copy(REPO / "traces" / "debate.json", traces / "debate.json")
    (traces / "broken.json").write_text('{"trace_id": "x", "events": []}', "utf-8")
    if record_broken:
        beta = small / "papers/beta.yaml"
        beta.write_text(beta.read_text("utf-8").replace("credit_unit: message", "credit_unit: mesage"), "utf-8")
    before = _snapshot(small)
    result = run_cli("build")
    assert result.exit_code == 1
    if record_broken:
        assert result.stdout.startswith("papers/beta.yaml:17:1: credit_unit: credit_unit must be one of")
    else:
        assert "the example trace traces/broken.json does not validate" in result.stderr
    assert _snapshot(small) == before
