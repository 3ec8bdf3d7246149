"""A cache of checked records, so loading the corpus reads again only the files that changed.

``masrl validate`` writes it (the pre-commit hook and an editing session run it often); every
command that loads the corpus reads it.

Parsing a record and running the checks that look at it alone (its spec and its own rules) is most
of what ``masrl validate`` does; at a few hundred records that is most of a second of work, for
files that rarely change between two runs. Each file's result (the typed record, its problems, its
key and identifiers) is kept in ``.masrl-cache/records.msgpack``, under the file's path, size and
modification time (to the nanosecond). The whole cache belongs to what those checks also depend
on: taxonomy.yaml's bytes, the masrl package's files, the Python version and the day (a date may
not lie ahead), and the folder names are shown from. Rules across records, the venue registry and
the files that are not records are checked afresh every time. A file changed in the last two
seconds is not cached yet: it could change again within the file system's clock resolution and
keep its size and time. A load that finds an error writes no cache (nothing is written while a
record is broken).

msgspec decodes the cache straight into the record types, so a damaged or foreign cache file is
refused, never executed, and rebuilt; failing to read or write it only costs a full parse. Set
``MASRL_NO_CACHE=1`` to read every file (CI does, on a clean clone).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import msgspec

from masrl.base._problems import Problem
from masrl.base._settings import caching_off
from masrl.corpus._records import Audit, Exclusion, Paper

CACHE_FILE = ".masrl-cache/records.msgpack"
FORMAT = 1  # bump when the shape of an entry or of a record changes


class Entry(msgspec.Struct, array_like=True, frozen=True):
    """One file's parse and per-record checks, with the size and time it had then."""

    size: int
    mtime: int
    kind: str
    shown: str
    parsed: bool
    name: str | None
    idents: tuple[tuple[str, tuple[str | int, ...]], ...]
    problems: tuple[Problem, ...]
    paper: Paper | None = None
    exclusion: Exclusion | None = None
    audit: Audit | None = None

    @property
    def record(self) -> Paper | Exclusion | Audit | None:
        return self.paper or self.exclusion or self.audit


class _File(msgspec.Struct, frozen=True):
    key: str
    entries: dict[str, Entry]


@dataclass
class RecordCache:
    """The cache of one corpus root: what it held when read, and what this run found."""

    path: Path
    key: str
    entries: dict[str, Entry]
    changed: bool = False

    def get(self, path: Path, shown: str, stat: os.stat_result) -> Entry | None:
        """The cached result for *path* if the file has not changed since (same size and time)."""
        entry = self.entries.get(os.path.abspath(path))
        if entry is None or entry.size != stat.st_size or entry.mtime != stat.st_mtime_ns or entry.shown != shown:
            return None
        return entry

    def put(self, path: Path, entry: Entry) -> None:
        self.entries[os.path.abspath(path)] = entry
        self.changed = True

    def keep_only(self, paths: Iterable[Path]) -> None:
        """Forget the files that are gone."""
        wanted = {os.path.abspath(p) for p in paths}
        for gone in [p for p in self.entries if p not in wanted]:
            del self.entries[gone]
            self.changed = True

    def save(self) -> None:
        """Write the cache if this run changed it, atomically; a failure is harmless."""
        if not self.changed:
            return
        try:
            self.path.parent.mkdir(exist_ok=True)
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(msgspec.msgpack.encode(_File(self.key, self.entries)))
            os.replace(tmp, self.path)
        except OSError:
            pass


def cache_key(root: Path, taxonomy_bytes: bytes, today: str) -> str:
    """What every cached result depends on besides its own file."""
    package = Path(__file__).resolve().parents[1]
    parts = [f"{FORMAT}|{sys.version_info[:3]}|{today}|{Path.cwd().resolve()}|{root.resolve()}"]
    parts.append(hashlib.blake2b(taxonomy_bytes, digest_size=16).hexdigest())
    for folder, _, names in sorted(os.walk(package)):
        if "__pycache__" in folder:
            continue
        for name in sorted(names):
            if name.endswith((".py", ".yaml", ".j2")):
                st = os.stat(os.path.join(folder, name))
                parts.append(f"{folder}/{name}\t{st.st_size}\t{st.st_mtime_ns}")
    return hashlib.blake2b("\n".join(parts).encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()


_DECODER = msgspec.msgpack.Decoder(_File)


def open_cache(root: Path, taxonomy_bytes: bytes, today: str) -> RecordCache | None:
    """The record cache of *root* (empty when absent, stale or unreadable), or None when caching
    is switched off (``MASRL_NO_CACHE``)."""
    if caching_off():
        return None
    path = root / CACHE_FILE
    key = cache_key(root, taxonomy_bytes, today)
    try:
        stored = _DECODER.decode(path.read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return RecordCache(path, key, {}, changed=path.exists())
    if stored.key != key:
        return RecordCache(path, key, {}, changed=True)
    return RecordCache(path, key, dict(stored.entries))
