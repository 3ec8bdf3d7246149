"""The screening queue: one reviewable YAML file per candidate in ``screening/``, and duplicate flags.

A queue file holds where the candidate was found (source, query family, query), its rank (score
and the terms behind it), its facts (title, authors, date, identifiers, URL, abstract) and its
status: ``pending`` until ``masrl screen`` records a decision (``included`` with the paper key,
``excluded`` with the exclusion id), which is written to the same file. Every write replaces the
file atomically, so an interrupted session leaves each file either before or after a decision.

:class:`Known` matches a candidate against the corpus (papers and exclusions, by arXiv id with or
without version, DOI, or a near-identical normalised title) with the validator's and the
scaffold's own identifier rules.
"""

from __future__ import annotations

import bisect
import difflib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from masrl.base._problems import Problem
from masrl.base._writer import write_if_changed
from masrl.corpus._checks import record_ids
from masrl.corpus._format import scalar
from masrl.corpus._load import display_root
from masrl.corpus._records import Corpus
from masrl.corpus._yaml import YamlError, load_path
from masrl.living._scaffold import TITLE_SIMILARITY, normalise_title, same_numbers
from masrl.living._sources import Found, strip_version

QUEUE_DIR = "screening"
PENDING, INCLUDED, EXCLUDED = "pending", "included", "excluded"
STATUSES = (PENDING, INCLUDED, EXCLUDED)
FIELDS = (
    "id",
    "status",
    "source",
    "query_family",
    "query",
    "round",
    "score",
    "terms",
    "title",
    "authors",
    "published",
    "arxiv",
    "doi",
    "url",
    "found",
    "abstract",
    "decision",
)
DECISION_FIELDS = ("date", "key", "exclusion", "stage", "reasons", "rule", "note")
WRAP = 96


def identities(arxiv: str | None, doi: str | None, url: str | None) -> list[str]:
    """The identities the validator compares, for a candidate's identifiers."""
    data = {"arxiv": arxiv, "doi": doi, "url": url}
    return [ident for ident, _ in record_ids("paper", data)]


class Known:
    """Which paper or exclusion of *corpus* a candidate is, if any; and earlier candidates."""

    def __init__(self, corpus: Corpus, unfinished: Sequence[tuple[str, str, list[str], str]] = ()) -> None:
        self.owner: dict[str, str] = {}
        self.titles: dict[str, str] = {}
        for p in corpus.papers:
            for ident, _ in record_ids(
                "paper", {"arxiv": p.arxiv, "doi": p.doi, "url": p.url, "more_urls": list(p.more_urls)}
            ):
                self.owner.setdefault(ident, p.key)
            self.titles.setdefault(normalise_title(p.title), p.key)
        for e in corpus.exclusions:
            for ident, _ in record_ids("exclusion", {"identifier": e.identifier, "url": e.url}):
                self.owner.setdefault(ident, e.id)
            self.titles.setdefault(normalise_title(e.label), e.id)
        for _, name, idents, title in unfinished:
            for ident in idents:
                self.owner.setdefault(ident, name)
            if title:
                self.titles.setdefault(normalise_title(title), name)
        by_length = sorted(self.titles.items(), key=lambda kv: len(kv[0]))
        self._lengths = [len(norm) for norm, _ in by_length]
        self._grams = [(_grams(norm), norm, owner) for norm, owner in by_length]
        # Which titles (by position above) hold each 4-gram: a title close enough shares at least
        # half of a candidate's 4-grams, so it holds one of the rarer half of them (prefix filter),
        # and only the titles those few lists name need comparing.
        self._holders: dict[str, list[int]] = {}
        for i, (grams, _, _) in enumerate(self._grams):
            for gram in grams:
                self._holders.setdefault(gram, []).append(i)

    def match(self, arxiv: str | None, doi: str | None, url: str | None, title: str) -> str | None:
        for ident in identities(arxiv, doi, url):
            if ident in self.owner:
                return self.owner[ident]
        norm = normalise_title(title)
        if norm in self.titles:
            return self.titles[norm]
        if not norm:
            return None
        # Titles this similar differ in a few characters, each of which breaks at most four of the
        # 4-grams they share; comparing 4-gram sets first skips the slow comparison for the rest.
        # A ratio 2M/(a+b) of at least r needs the other length within [b*r/(2-r), b*(2-r)/r].
        n, r = len(norm), TITLE_SIMILARITY
        lo = bisect.bisect_left(self._lengths, n * r / (2 - r))
        hi = bisect.bisect_right(self._lengths, n * (2 - r) / r)
        grams = _grams(norm)
        rarest = sorted(grams, key=lambda g: len(self._holders.get(g, ())))
        prefix = rarest[: len(grams) - (len(grams) + 1) // 2 + 1]
        near = sorted({i for g in prefix for i in self._holders.get(g, ()) if lo <= i < hi})
        matcher = difflib.SequenceMatcher(None, "", norm, autojunk=False)
        for other_grams, other, owner in (self._grams[i] for i in near):
            if 2 * len(grams & other_grams) < max(len(grams), len(other_grams)) or not same_numbers(norm, other):
                continue
            matcher.set_seq1(other)
            if matcher.ratio() >= TITLE_SIMILARITY:
                return owner
        return None


def _grams(text: str) -> frozenset[str]:
    return frozenset(text[i : i + 4] for i in range(max(len(text) - 3, 1)))


@dataclass
class Entry:
    """One queue file."""

    path: Path
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def status(self) -> str:
        return str(self.data.get("status", PENDING))

    def names(self) -> set[str]:
        """Every spelling that picks this entry on the command line: arXiv id, with its version, DOI."""
        out = {self.id.lower()}
        if self.data.get("arxiv"):
            out.add(strip_version(str(self.data["arxiv"])).lower())
        if self.data.get("doi"):
            out.add(str(self.data["doi"]).lower())
        return out


def entry_data(found: Found, score: float, terms: tuple[str, ...], today: str) -> dict[str, Any]:
    return {
        "id": found.ident,
        "status": PENDING,
        "source": found.source,
        "query_family": found.query_family,
        "query": found.query,
        "score": score,
        "terms": list(terms),
        "title": found.title,
        "authors": found.authors,
        "published": found.published,
        "arxiv": found.arxiv,
        "doi": found.doi,
        "url": found.url,
        "found": today,
        "abstract": found.abstract,
    }


def _wrapped(value: str, indent: int) -> str:
    """*value* as a YAML scalar; a long one double-quoted and folded over lines at its spaces
    (in a double-quoted scalar a line break reads back as one space)."""
    text = scalar(value)
    if len(text) <= WRAP or "  " in value or value != value.strip():
        return text
    lines, line = [], ""
    for word in json.dumps(value, ensure_ascii=False).split(" "):
        if line and len(line) + 1 + len(word) > WRAP:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return ("\n" + " " * indent).join(lines)


def dump_entry(data: dict[str, Any]) -> str:
    """The text of a queue file."""
    ident = data["id"]
    lines = [
        "# A candidate found by `masrl discover`; decide it with `masrl screen`:",
        f"#   masrl screen {ident} --include   or   masrl screen {ident} --exclude REASON --note TEXT",
    ]
    for name in FIELDS:
        if name not in data:
            continue
        value = data[name]
        if name == "decision":
            if not value:
                continue
            lines.append("decision:")
            for sub in DECISION_FIELDS:
                if sub in value and value[sub] is not None:
                    item = value[sub]
                    if isinstance(item, list):
                        lines.append(f"  {sub}:")
                        lines.extend(f"    - {scalar(x)}" for x in item)
                    else:
                        lines.append(f"  {sub}: {_wrapped(str(item), 4)}")
            continue
        if isinstance(value, list):
            if not value:
                lines.append(f"{name}: []")
                continue
            lines.append(f"{name}:")
            lines.extend(f"  - {scalar(x)}" for x in value)
        elif value is None:
            lines.append(f"{name}:")
        elif isinstance(value, float):
            lines.append(f"{name}: {value!r}")
        elif isinstance(value, str) and name in ("title", "abstract", "query"):
            lines.append(f"{name}: {_wrapped(value, 2)}")
        else:
            lines.append(f"{name}: {scalar(value)}")
    return "\n".join(lines) + "\n"


def entry_path(root: Path, ident: str) -> Path:
    return root / QUEUE_DIR / f"{ident}.yaml"


def write_entry(root: Path, data: dict[str, Any]) -> Path:
    """Write one queue file atomically; returns its path."""
    path = entry_path(root, str(data["id"]))
    write_if_changed(path, dump_entry(data))
    return path


def read_queue(root: Path) -> tuple[list[Entry], list[Problem]]:
    """Every queue file, sorted by id, and a problem for each that cannot be read.

    A file read cleanly before is taken from ``.masrl-cache/queue.msgpack`` while its size and
    modification time (to the nanosecond) are unchanged: parsing some 15,000 queue files takes
    seconds, a stat of each a tenth of one. A file changed within the last two seconds is always
    parsed (it could change again without its time moving), and ``MASRL_NO_CACHE`` parses all.
    """
    folder = root / QUEUE_DIR
    if not folder.is_dir():
        return [], []
    import os

    # (a scan of names and one sort of strings: Path.glob and sorting Paths take far longer)
    with os.scandir(folder) as listing:
        names = sorted(e.name for e in listing if e.name.endswith(".yaml"))
    paths = [folder / name for name in names]
    from masrl.base._settings import caching_off

    if caching_off():
        return read_entries(paths)
    import time

    import msgspec

    cache_path = root / QUEUE_CACHE
    stamp = _queue_cache_stamp()
    known: dict[str, tuple[int, int, Any]] = {}
    try:
        held = msgspec.msgpack.decode(cache_path.read_bytes())
        if isinstance(held, dict) and held.get("stamp") == stamp and isinstance(held.get("files"), dict):
            known = held["files"]
    except (OSError, msgspec.DecodeError):
        pass
    now = time.time_ns()
    found: dict[Path, Entry] = {}
    stats: dict[str, tuple[int, int]] = {}
    misses: list[Path] = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            misses.append(path)  # gone or unreadable: read_entries says what is wrong
            continue
        stats[path.name] = (st.st_size, st.st_mtime_ns)
        held_file = known.get(path.name)
        fresh = now - st.st_mtime_ns >= 2_000_000_000
        if fresh and held_file is not None and (held_file[0], held_file[1]) == stats[path.name]:
            found[path] = Entry(path, held_file[2])
        else:
            misses.append(path)
    entries, problems = read_entries(misses)
    for entry in entries:
        found[entry.path] = entry
    files = {}
    if misses:
        for path, entry in found.items():
            size_time = stats.get(path.name)
            if size_time is not None and now - size_time[1] >= 2_000_000_000:
                files[path.name] = (size_time[0], size_time[1], entry.data)
    # written only when what it would hold differs from what it holds (a file that changed a
    # moment ago is never held, so a run right after an edit leaves the cache as it was)
    if misses and {n: tuple(v[:2]) for n, v in files.items()} != {n: tuple(v[:2]) for n, v in known.items()}:
        try:
            cache_path.parent.mkdir(exist_ok=True)
            tmp = cache_path.with_suffix(".tmp")
            tmp.write_bytes(msgspec.msgpack.encode({"stamp": stamp, "files": files}))
            tmp.replace(cache_path)
        except (OSError, TypeError, msgspec.EncodeError):
            pass  # a cache: failing to write it only costs the next run a parse
    return [found[p] for p in paths if p in found], problems


QUEUE_CACHE = ".masrl-cache/queue.msgpack"
_QUEUE_CACHE_FORMAT = 1


def _queue_cache_stamp() -> str:
    """What the cached entries depend on besides the files: this module and the YAML reader."""
    import hashlib

    from masrl.corpus import _yaml

    text = f"{_QUEUE_CACHE_FORMAT}\n" + Path(__file__).read_text("utf-8") + Path(_yaml.__file__).read_text("utf-8")
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def read_entries(paths: list[Path]) -> tuple[list[Entry], list[Problem]]:
    """The queue files *paths*, in that order, and a problem for each that cannot be read (no id,
    title or url as text, an unknown status, broken YAML)."""
    entries: list[Entry] = []
    problems: list[Problem] = []
    shown_in: dict[Path, Callable[[Path], str]] = {}  # one resolve per folder, not per file
    for path in paths:
        folder = path.parent
        if folder not in shown_in:
            shown_in[folder] = display_root(folder)
        shown = shown_in[folder](path)
        try:
            doc = load_path(path)
        except YamlError as exc:
            problems.append(Problem(shown, exc.line, exc.column, "", exc.message))
            continue
        data = doc.data
        for name in ("id", "title", "url"):
            if not isinstance(data.get(name), str):
                mark = doc.mark((name,))
                problems.append(Problem(shown, mark.line, mark.column, name, f"{name} is required and must be text"))
        status = data.get("status", PENDING)
        if status not in STATUSES:
            mark = doc.mark(("status",))
            problems.append(
                Problem(
                    shown,
                    mark.line,
                    mark.column,
                    "status",
                    f"status must be one of {', '.join(STATUSES)}, not {status!r}",
                )
            )
        if not problems or problems[-1].path != shown:
            entries.append(Entry(path, data))
    return entries, problems


def find_entry(entries: list[Entry], name: str) -> Entry | None:
    """The entry *name* picks: an arXiv id with or without version, a DOI, or a queue id."""
    wanted = name.strip().lower()
    wanted = re.sub(r"^(arxiv:|https?://arxiv\.org/abs/|https?://(dx\.)?doi\.org/|doi:)", "", wanted)
    for candidate in (wanted, strip_version(wanted)):
        for entry in entries:
            if candidate in entry.names():
                return entry
    return None
