"""The queue's cache (.masrl-cache/queue.msgpack): a queue read from it is the queue parsed from the
files, whatever changed in between, and a broken file is reported on every run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from masrl.living._queue import QUEUE_CACHE, dump_entry, read_queue

OLD_NS = 1_700_000_000 * 10**9  # a modification time well in the past: the cache may trust the file


def _entry(i: str, title: str, status: str = "pending") -> dict[str, object]:
    return {
        "id": i,
        "status": status,
        "source": "manual",
        "query_family": "multi_agent_llm_rl",
        "query": "by hand",
        "title": title,
        "authors": ["A. Author"],
        "published": "2026-07-01",
        "arxiv": i,
        "doi": None,
        "url": f"https://arxiv.org/abs/{i}",
        "found": "2026-12-04",
        "abstract": "Two agents are trained together.",
    }


def _write(root: Path, name: str, text: str, old: bool = True) -> Path:
    path = root / "screening" / f"{name}.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, "utf-8")
    if old:
        os.utime(path, ns=(OLD_NS, OLD_NS))
    return path


def _plain(root: Path) -> tuple[list[tuple[str, dict[str, object]]], list[str]]:
    entries, problems = read_queue(root)
    return [(e.path.name, e.data) for e in entries], [f"{p.path}:{p.line}: {p.field}: {p.message}" for p in problems]


@pytest.fixture
def queue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MASRL_NO_CACHE", raising=False)
    for i, title in (("2607.00001", "Alpha team"), ("2607.00002", "Beta team"), ("2607.00003", "Gamma team")):
        _write(tmp_path, i, dump_entry(_entry(i, title)))
    return tmp_path


def test_a_second_read_comes_from_the_cache_and_equals_a_parse(queue: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _plain(queue)
    assert (queue / QUEUE_CACHE).is_file()
    # the second read parses nothing: a parse would fail here
    from masrl.living import _queue

    def no_parse(paths: list[Path]) -> object:
        assert paths == [], f"parsed {paths} although none changed"
        return [], []

    monkeypatch.setattr(_queue, "read_entries", no_parse)
    assert _plain(queue) == first


@pytest.mark.parametrize(
    "change",
    ["edit", "edit in place, same size", "add", "remove", "break", "fresh"],
)
def test_after_any_change_the_cached_read_equals_a_parse(
    queue: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    # Arrange: the cache is written, then the files change
    _plain(queue)
    path = queue / "screening" / "2607.00002.yaml"
    if change == "edit":
        _write(queue, "2607.00002", dump_entry(_entry("2607.00002", "Beta team, retitled", "excluded")))
    elif change == "edit in place, same size":
        text = path.read_text("utf-8").replace("Beta team", "Bxta team")
        path.write_text(text, "utf-8")
        os.utime(path, ns=(OLD_NS + 10**9, OLD_NS + 10**9))
    elif change == "add":
        _write(queue, "2607.00004", dump_entry(_entry("2607.00004", "Delta team")))
    elif change == "remove":
        path.unlink()
    elif change == "break":
        _write(queue, "2607.00002", 'id: "2607.00002"\ntitle: [unclosed\n')
    elif change == "fresh":  # changed a moment ago: never trusted to the cache
        _write(queue, "2607.00002", dump_entry(_entry("2607.00002", "Beta team now")), old=False)
    # Act
    cached = _plain(queue)
    monkeypatch.setenv("MASRL_NO_CACHE", "1")
    parsed = _plain(queue)
    # Assert
    assert cached == parsed
    if change == "break":  # the broken file is reported again on the next cached run
        monkeypatch.delenv("MASRL_NO_CACHE")
        assert _plain(queue)[1] == parsed[1] != []


def test_a_corrupt_cache_is_ignored(queue: Path) -> None:
    first = _plain(queue)
    (queue / QUEUE_CACHE).write_bytes(b"\x00not msgpack")
    assert _plain(queue) == first


def test_no_cache_reads_and_writes_no_cache(queue: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MASRL_NO_CACHE", "1")
    _plain(queue)
    assert not (queue / QUEUE_CACHE).exists()
