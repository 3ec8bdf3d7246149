"""Loading a corpus: the one function that reads, checks and types every record.

:func:`load_corpus` reads every record under a corpus root and the venue registry, checks each
record against its spec (:mod:`masrl.corpus._schema`) and then across records and against the
registry (:mod:`masrl.corpus._checks`, :mod:`masrl.corpus._venues`), and returns the typed records
(:mod:`masrl.corpus._records`) together with every problem found. It never raises on bad input.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from masrl.base._problems import Problem, has_errors
from masrl.corpus._checks import cross_check, record_check, record_ids, record_name
from masrl.corpus._records import (
    A_RECORD,
    RECORD_DIRS,
    SUFFIX,
    Audit,
    Corpus,
    Exclusion,
    Handle,
    Loaded,
    Paper,
)
from masrl.corpus._schema import check_record
from masrl.corpus._venues import VENUES_FILE, read_venues
from masrl.corpus._vocab import Taxonomy, load_taxonomy
from masrl.corpus._yaml import Document, YamlError, load_path

if TYPE_CHECKING:
    from masrl.corpus._cache import RecordCache


def display_path(path: Path, cwd: Path | None = None) -> str:
    """*path* relative to the working directory when it lies below it, else as given."""
    try:
        return str(path.resolve().relative_to((cwd or Path.cwd()).resolve()))
    except ValueError:
        return str(path)


def display_root(root: Path) -> Callable[[Path], str]:
    """A fast :func:`display_path` for files under *root*: one resolve for the folder, not per file."""
    cwd = Path.cwd().resolve()
    base = root.resolve()
    try:
        prefix = str(base.relative_to(cwd))
    except ValueError:
        prefix = str(root)
    prefix = "" if prefix == "." else prefix + os.sep

    def shown(path: Path) -> str:
        try:
            return prefix + str(path.relative_to(root))
        except ValueError:
            return display_path(path, cwd)

    return shown


def record_files(root: Path) -> list[tuple[str, Path]]:
    """Every record file under *root* as (kind, path), sorted."""
    out: list[tuple[str, Path]] = []
    for folder, kind in RECORD_DIRS.items():
        base = root / folder
        out.extend(
            (kind, base / e.name) for e in _entries(base) if os.path.splitext(e.name)[1] == SUFFIX and e.is_file()
        )
    return out


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The entries of *folder* by name (none when it is missing); the scan knows each entry's type
    without a call to stat."""
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def stray_files(root: Path, shown: Callable[[Path], str]) -> Iterator[Problem]:
    """A problem for every entry of a record folder that is not a record: a ``.yml`` file, a
    text file, an editor backup, a sub-folder. Each would otherwise be silently left out.
    Hidden entries (``.gitkeep``, an editor's swap file) are never records and are passed over."""
    for folder, kind in RECORD_DIRS.items():
        base = root / folder
        for e in _entries(base):
            p = base / e.name
            if e.name.startswith(".") or (p.suffix == SUFFIX and e.is_file()):
                continue
            if p.suffix in (".yml", ".YAML", ".YML") and e.is_file():
                hint = f"rename it to {p.stem}{SUFFIX}"
            elif e.is_dir():
                hint = f"move its files into {folder}/ or out of it"
            else:
                hint = f"{A_RECORD[kind]} is a {SUFFIX} file; move this file out of {folder}/"
            yield Problem(shown(p), 1, 1, "", f"not a record, so it would be left out: {hint}")


def kind_of(path: Path) -> str | None:
    """The record kind implied by the folder *path* sits in, if any."""
    return RECORD_DIRS.get(path.resolve().parent.name)


# Above this many files, records are parsed and checked in worker processes (when there is
# more than one CPU): parsing dominates validation and splits cleanly by file.
PARALLEL_THRESHOLD = 1000


_BUILDERS: dict[str, Any] = {"paper": Paper, "exclusion": Exclusion, "audit": Audit}


@dataclass(frozen=True)
class _Parsed:
    """One file after parsing and every per-record check; what a worker sends back."""

    kind: str
    path: Path
    shown: str
    parsed: bool  # False when the file could not be read as YAML
    name: str | None
    idents: tuple[tuple[str, tuple[str | int, ...]], ...]
    record: Paper | Exclusion | Audit | None  # None when the record has errors
    problems: list[Problem]


def _parse_one(
    kind: str, path: Path, shown: str, taxonomy: Taxonomy, keep_marks: bool
) -> tuple[_Parsed, Document | None]:
    try:
        doc = load_path(path)
    except YamlError as exc:
        problem = Problem(shown, exc.line, exc.column, "", exc.message)
        return _Parsed(kind, path, shown, False, None, (), None, [problem]), None
    problems = list(check_record(kind, doc, shown, taxonomy))
    record = None
    if not has_errors(problems):
        record = _BUILDERS[kind].from_yaml(doc.data, taxonomy, shown)
        problems.extend(record_check(record, doc, taxonomy))
    name = record_name(kind, doc.data)
    idents = tuple(record_ids(kind, doc.data))
    return _Parsed(kind, path, shown, True, name, idents, record, problems), (doc if keep_marks else None)


_WORKER_TAXONOMY: Taxonomy | None = None


def _parse_chunk(chunk: list[tuple[str, Path, str]]) -> list[_Parsed]:
    assert _WORKER_TAXONOMY is not None
    return [_parse_one(kind, path, shown, _WORKER_TAXONOMY, keep_marks=False)[0] for kind, path, shown in chunk]


def _worker_count() -> int:
    """Processes that parse records at once: one per CPU, at most four."""
    return min(os.cpu_count() or 1, 4)


def _parse_all(items: list[tuple[str, Path, str]], taxonomy: Taxonomy) -> list[tuple[_Parsed, Document]]:
    workers = _worker_count()
    if len(items) < PARALLEL_THRESHOLD or workers < 2:
        out = []
        for kind, path, shown in items:
            parsed, doc = _parse_one(kind, path, shown, taxonomy, keep_marks=True)
            out.append((parsed, doc or Document(None, {})))
        return out
    import multiprocessing

    global _WORKER_TAXONOMY
    _WORKER_TAXONOMY = taxonomy  # inherited by the forked workers
    size = -(-len(items) // workers)
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        results = pool.map(_parse_chunk, chunks)  # map keeps the order of the chunks
    return [(p, Document(None, {}, source=p.path)) for chunk in results for p in chunk]


RACY_NS = 2_000_000_000  # files changed less than this long ago are read every time


def _parse_cached(
    root: Path, items: list[tuple[str, Path, str]], taxonomy: Taxonomy
) -> tuple[list[tuple[_Parsed, Document]], RecordCache | None]:
    """:func:`_parse_all`, reading again only the files that changed since the last load
    (:mod:`masrl.corpus._cache`); the results come back in the order of *items*, with the cache
    to save once the load is known to be sound."""
    import datetime as dt

    from masrl.corpus._cache import Entry, open_cache

    try:
        taxonomy_bytes = (root / "taxonomy.yaml").read_bytes()
    except OSError:
        return _parse_all(items, taxonomy), None
    cache = open_cache(root, taxonomy_bytes, dt.date.today().isoformat())
    if cache is None:
        return _parse_all(items, taxonomy), None
    out: list[tuple[_Parsed, Document] | None] = []
    missing: list[tuple[str, Path, str]] = []
    stats: dict[Path, os.stat_result] = {}
    for kind, path, shown in items:
        try:
            stats[path] = stat = path.stat()
        except OSError:
            stat = None
        entry = cache.get(path, shown, stat) if stat is not None else None
        if entry is None or entry.kind != kind:
            out.append(None)
            missing.append((kind, path, shown))
            continue
        parsed = _Parsed(kind, path, shown, entry.parsed, entry.name, entry.idents, entry.record, list(entry.problems))
        out.append((parsed, Document(None, {}, source=path)))
    fresh = iter(_parse_all(missing, taxonomy))
    # A file changed in the last moments may change again within the clock's resolution, keeping
    # its size and time: it is not cached until it has been still for a while ("racily clean").
    settled = time.time_ns() - RACY_NS
    for i, item in enumerate(out):
        if item is not None:
            continue
        parsed, doc = next(fresh)
        out[i] = (parsed, doc)
        stat = stats.get(parsed.path)
        if stat is not None and stat.st_mtime_ns < settled:
            record = parsed.record
            cache.put(
                parsed.path,
                Entry(
                    stat.st_size,
                    stat.st_mtime_ns,
                    parsed.kind,
                    parsed.shown,
                    parsed.parsed,
                    parsed.name,
                    parsed.idents,
                    tuple(parsed.problems),
                    paper=record if isinstance(record, Paper) else None,
                    exclusion=record if isinstance(record, Exclusion) else None,
                    audit=record if isinstance(record, Audit) else None,
                ),
            )
    cache.keep_only(stats)
    return [item for item in out if item is not None], cache


def load_corpus(root: Path, extra: Iterable[tuple[str, Path]] = (), *, write_cache: bool = False) -> Loaded:
    """Load, check and type every record under *root*, plus *extra* (kind, path) files.

    Records unchanged since the cache was written are taken from it (:mod:`masrl.corpus._cache`);
    with *write_cache* (``masrl validate``), the cache is brought up to date when the corpus has no
    error. Other commands only read it, so a preview or a failed command writes nothing.

    Raises :class:`masrl.corpus._vocab.TaxonomyError` only when taxonomy.yaml itself is broken; every
    problem in records is returned in :attr:`Loaded.problems`.
    """
    taxonomy = load_taxonomy(root)
    files = record_files(root)
    shown_of = display_root(root)
    strays = list(stray_files(root, shown_of))
    venues, venue_problems = read_venues(root, taxonomy, shown_of(root / VENUES_FILE))
    if not venues.loaded and not any(kind == "paper" for kind, _ in files):
        venue_problems = [p for p in venue_problems if (root / VENUES_FILE).is_file()]  # no paper needs it
    strays += venue_problems
    if extra:
        seen = {p.resolve() for _, p in files}
        files += [(k, p) for k, p in extra if p.resolve() not in seen]
    loaded = Loaded(Corpus(root, taxonomy, (), (), ()), problems=strays, files=len(files))
    typed: dict[str, list[Any]] = {"paper": [], "exclusion": [], "audit": []}
    results, cache = _parse_cached(root, [(kind, path, shown_of(path)) for kind, path in files], taxonomy)
    for parsed, doc in results:
        loaded.problems.extend(parsed.problems)
        if not parsed.parsed:
            continue
        loaded.handles.append(Handle(parsed.kind, parsed.shown, parsed.name, parsed.idents, doc))
        if parsed.record is not None:
            typed[parsed.kind].append(parsed.record)
    loaded.corpus = Corpus(
        root,
        taxonomy,
        tuple(sorted(typed["paper"], key=lambda p: p.key)),
        tuple(sorted(typed["exclusion"], key=lambda e: e.id)),
        tuple(sorted(typed["audit"], key=lambda a: a.key)),
        venues,
    )
    loaded.problems.extend(cross_check(loaded.corpus, loaded.handles))
    loaded.problems.sort()
    if cache is not None and write_cache and loaded.ok:
        cache.save()  # a corpus with errors writes nothing, not even its cache
    return loaded
