"""The record cache: a second load reads only what changed, and finds exactly what a full load finds."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pytest

from conftest import REPO, protocol_naming_no_records
from masrl.corpus import _load
from masrl.corpus._cache import CACHE_FILE
from masrl.corpus._load import load_corpus


@pytest.fixture
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Forty papers and twenty exclusions of the repository with its taxonomy, venue registry and
    protocol, as the working directory, caching on."""
    root = tmp_path / "corpus"
    root.mkdir()
    for name in ("taxonomy.yaml", "venues.yaml"):
        shutil.copy(REPO / name, root / name)
    # the protocol whose rounds and rules records name, without the records this subset may lack
    protocol = (REPO / "protocol.yaml").read_text("utf-8")
    (root / "protocol.yaml").write_text(protocol_naming_no_records(protocol), "utf-8")
    for folder, n in (("papers", 40), ("exclusions", 20)):
        (root / folder).mkdir()
        for path in [
            *sorted((REPO / folder).glob("*.yaml"))[:n],
            REPO / folder / "c3.yaml",
            REPO / folder / "malt.yaml",
        ]:
            if path.is_file():
                shutil.copy(path, root / folder / path.name)
    _settle(root)
    monkeypatch.chdir(root)
    monkeypatch.delenv("MASRL_NO_CACHE", raising=False)
    return root


def _settle(root: Path) -> None:
    """Date every file a minute back, as files that have not just been written are."""
    past = time.time() - 60
    for path in root.rglob("*.yaml"):
        os.utime(path, (past, past))


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files each load parses (rather than takes from the cache)."""
    seen: list[str] = []
    real = _load._parse_one

    def spy(kind: str, path: Path, *args: object, **kwargs: object) -> object:
        seen.append(path.name)
        return real(kind, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_load, "_parse_one", spy)
    return seen


def _full(root: Path, monkeypatch: pytest.MonkeyPatch) -> _load.Loaded:
    with monkeypatch.context() as m:
        m.setenv("MASRL_NO_CACHE", "1")
        return load_corpus(root)


def test_a_second_load_reads_no_file_and_finds_the_same(
    copy: Path, parsed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Act
    first = load_corpus(copy, write_cache=True)
    files = len(parsed)
    parsed.clear()
    second = load_corpus(copy, write_cache=True)
    # Assert
    assert files == first.files >= 60
    assert parsed == []
    assert (copy / CACHE_FILE).is_file()
    full = _full(copy, monkeypatch)
    for loaded in (first, second):
        assert loaded.problems == full.problems
        assert (loaded.corpus.papers, loaded.corpus.exclusions, loaded.corpus.audits) == (
            full.corpus.papers,
            full.corpus.exclusions,
            full.corpus.audits,
        )
        assert [(h.kind, h.shown, h.name, h.idents) for h in loaded.handles] == [
            (h.kind, h.shown, h.name, h.idents) for h in full.handles
        ]


def test_an_edited_record_is_read_again_and_its_problems_found(
    copy: Path, parsed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Arrange
    load_corpus(copy, write_cache=True)
    parsed.clear()
    path = copy / "papers" / "c3.yaml"
    path.write_text(path.read_text("utf-8").replace("topology: ", "topology: star  # ", 1), "utf-8")
    # Act
    loaded = load_corpus(copy, write_cache=True)
    # Assert: only the edited file was read, and its problem is found at its line
    assert parsed == ["c3.yaml"]
    assert [p for p in loaded.problems if p.path == "papers/c3.yaml"] == [
        p for p in _full(copy, monkeypatch).problems if p.path == "papers/c3.yaml"
    ]
    assert any(p.field == "topology" and p.is_error for p in loaded.problems)


def test_a_warning_from_the_cache_still_names_its_line(copy: Path, parsed: list[str]) -> None:
    # Arrange: a record with a warning (LaTeX in its summary), loaded once
    path = copy / "papers" / "c3.yaml"
    text = re.sub(
        r"(?m)^summary: .*$", r"summary: Gives each message \\\\emph{credit} of its own.", path.read_text("utf-8")
    )
    path.write_text(text, "utf-8")
    _settle(copy)
    first = [p for p in load_corpus(copy, write_cache=True).problems if p.path == "papers/c3.yaml"]
    parsed.clear()
    # Act
    second = [p for p in load_corpus(copy, write_cache=True).problems if p.path == "papers/c3.yaml"]
    # Assert
    assert parsed == []
    assert second == first
    assert [(p.field, p.is_error) for p in first] == [("summary", False)]
    assert first[0].line > 1


def test_a_corpus_with_an_error_writes_no_cache(copy: Path) -> None:
    path = copy / "exclusions" / "E001.yaml"
    path.write_text(path.read_text("utf-8").replace("stage: ", "stage: never  # ", 1), "utf-8")
    _settle(copy)
    assert not load_corpus(copy, write_cache=True).ok
    assert not (copy / CACHE_FILE).exists()


@pytest.mark.parametrize(
    "change",
    ["taxonomy", "cache damaged", "cache foreign", "no cache wanted", "file removed", "day"],
)
def test_what_the_cache_depends_on(copy: Path, parsed: list[str], monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    # Arrange
    load_corpus(copy, write_cache=True)
    parsed.clear()
    cache = copy / CACHE_FILE
    removed = copy / "papers" / "malt.yaml"
    # Act
    if change == "taxonomy":
        path = copy / "taxonomy.yaml"
        path.write_text(path.read_text("utf-8") + "\n# a comment\n", "utf-8")
    elif change == "cache damaged":
        cache.write_bytes(cache.read_bytes()[:1000])
    elif change == "cache foreign":
        cache.write_bytes(b"\x93\xa3key\x80\x01")
    elif change == "no cache wanted":
        monkeypatch.setenv("MASRL_NO_CACHE", "1")
    elif change == "file removed":
        removed.unlink()
    else:
        import datetime as dt

        class Tomorrow(dt.date):
            @classmethod
            def today(cls) -> dt.date:
                return dt.date(2099, 1, 1)

        monkeypatch.setattr(dt, "date", Tomorrow)
    loaded = load_corpus(copy, write_cache=True)
    # Assert: anything the checks depend on reads every file again; a removed file is forgotten
    if change == "file removed":
        assert parsed == []
        assert "malt" not in {p.key for p in loaded.corpus.papers}
        assert os.path.abspath(removed) not in _entries(cache)
    else:
        assert len(parsed) == loaded.files
    if change != "no cache wanted":
        assert cache.is_file()


def _entries(cache: Path) -> dict[str, object]:
    from masrl.corpus._cache import _DECODER

    return dict(_DECODER.decode(cache.read_bytes()).entries)


def test_validate_reads_the_cache_and_reports_the_same(copy: Path, run_cli: object, parsed: list[str]) -> None:
    # The command line, twice: the second run reads no record, and says the same
    first = run_cli("validate")  # type: ignore[operator]
    parsed.clear()
    second = run_cli("validate")  # type: ignore[operator]
    assert first.exit_code == 0, first.output
    assert (first.stdout, first.stderr) == (second.stdout, second.stderr)
    assert parsed == []


def test_a_file_changed_a_moment_ago_is_read_every_time(copy: Path, parsed: list[str]) -> None:
    # Arrange: a record just written (its time could repeat within the clock's resolution)
    path = copy / "papers" / "c3.yaml"
    path.write_text(path.read_text("utf-8"), "utf-8")
    # Act
    load_corpus(copy, write_cache=True)
    parsed.clear()
    load_corpus(copy, write_cache=True)
    # Assert
    assert parsed == ["c3.yaml"]


def test_only_validate_writes_the_cache(copy: Path, run_cli: object) -> None:
    # a plain load (build, check, stats and the rest) reads the cache but never writes it
    load_corpus(copy)
    assert not (copy / CACHE_FILE).exists()
    assert run_cli("validate").exit_code == 0  # type: ignore[operator]
    assert (copy / CACHE_FILE).is_file()


def test_a_new_record_clashing_with_a_cached_one_is_found_as_a_full_load_finds_it(
    copy: Path, parsed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Arrange: every record cached, then a new paper that repeats malt's arXiv id under another key
    load_corpus(copy, write_cache=True)
    before = (copy / CACHE_FILE).read_bytes()
    parsed.clear()
    text = (copy / "papers" / "malt.yaml").read_text("utf-8")
    (copy / "papers" / "malt-again.yaml").write_text(text.replace("key: malt", "key: malt-again", 1), "utf-8")
    # Act
    cached = load_corpus(copy, write_cache=True)
    # Assert: only the new file was read, and the clash names both files as a full load does
    assert parsed == ["malt-again.yaml"]
    assert cached.problems == _full(copy, monkeypatch).problems
    clash = [(p.path, p.line > 1, p.field) for p in cached.problems if p.is_error]
    assert clash == [("papers/malt.yaml", True, "arxiv"), ("papers/malt.yaml", True, "url")]
    assert (copy / CACHE_FILE).read_bytes() == before  # a corpus with an error leaves the cache as it was


# -- a whole clean validation is remembered and replayed while nothing changes


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item for each time `masrl validate` really validates (rather than replays)."""
    import masrl.validate as command

    seen: list[int] = []
    real = command.validate_paths

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(command, "validate_paths", spy)
    return seen


def test_a_clean_validation_is_replayed_while_nothing_changes(
    copy: Path, run_cli: object, validations: list[int]
) -> None:
    # Arrange: a warning (LaTeX in a summary), so the replay has something to say besides the count
    path = copy / "papers" / "c3.yaml"
    text = re.sub(
        r"(?m)^summary: .*$", r"summary: Gives each message \\\\emph{credit} of its own.", path.read_text("utf-8")
    )
    path.write_text(text, "utf-8")
    _settle(copy)
    # Act
    first = run_cli("validate")  # type: ignore[operator]
    second = run_cli("validate")  # type: ignore[operator]
    quiet = run_cli("validate", "--quiet")  # type: ignore[operator]
    # Assert
    assert first.exit_code == second.exit_code == 0, first.output
    assert "papers/c3.yaml:" in first.stdout
    assert "summary: warning: " in first.stdout
    assert (second.stdout, second.stderr) == (first.stdout, first.stderr)
    assert (quiet.stdout, quiet.stderr) == ("", first.stderr)  # --quiet leaves the warnings out
    assert validations == [1]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("papers/c3.yaml", ": rl: "),  # a record broken after a clean run is found
        ("protocol.yaml", "protocol.yaml"),  # so is the protocol
    ],
)
def test_a_change_after_a_clean_validation_is_validated_again(
    copy: Path, run_cli: object, validations: list[int], change: str, expected: str
) -> None:
    # Arrange: a clean run, remembered
    assert run_cli("validate").exit_code == 0  # type: ignore[operator]
    # Act: break a file
    path = copy / change
    text = path.read_text("utf-8")
    broken = text.replace('rl: "yes"', "rl: maybe", 1) if change.startswith("papers") else text + "\nstray: 1\n"
    assert broken != text
    path.write_text(broken, "utf-8")
    result = run_cli("validate")  # type: ignore[operator]
    # Assert
    assert result.exit_code == 1
    assert expected in result.stdout
    assert validations == [1, 1]


def test_no_cache_validates_every_time(
    copy: Path, run_cli: object, validations: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MASRL_NO_CACHE", "1")
    for _ in range(2):
        assert run_cli("validate").exit_code == 0  # type: ignore[operator]
    assert validations == [1, 1]
