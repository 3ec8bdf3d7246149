"""The build state: one fingerprint of every file a build reads or writes.

``masrl build`` and ``masrl check`` end, when everything is current, by recording a fingerprint
of the corpus's inputs and outputs and of the masrl package itself in ``.masrl-cache/``. The next
run computes the fingerprint again (one ``stat`` of a few hundred files, with the standard
library only) and, if it is unchanged, knows the generated files are current without loading a
record or importing pandas. Anything else, including a clean clone with no cache, takes the full
path.

A file counts as changed when its size or its modification time (to the nanosecond) changed, or
when it appeared or went away; a file touched without a change only costs one full run. The day
is part of the fingerprint because validation depends on the calendar (a year or a date may not
lie ahead), and so are the settings that change what is generated.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

# What a build reads besides the package: a copy of these is a complete corpus to build from.
INPUT_FILES = (
    "taxonomy.yaml",
    "venues.yaml",
    "claims.yaml",
    "protocol.yaml",
    "README.md",
    "CONTRIBUTING.md",
    "CITATION.cff",
    "CHANGELOG.md",
    "venue_checks.csv",
)
INPUT_DIRS = ("papers", "exclusions", "audits", "traces", "site", "schemas", "screening")
SKIP_DIRS = frozenset({"build", "__pycache__", ".cache"})  # site/build is MkDocs' output, not ours
ENVIRONMENT = ("MASRL_SITE_URL",)  # variables that change what is generated
CACHE_DIR = ".masrl-cache"
STATE_FILE = "build-state.json"  # in CACHE_DIR
FORMAT = 1


def _stats(base: Path, out: list[str], newest: list[int]) -> None:
    """Append ``path size mtime`` for every file under *base* (sorted, depth first) to *out*, and
    keep the latest modification time (ns) in ``newest[0]``."""
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIP_DIRS:
                _stats(Path(entry.path), out, newest)
        else:
            st = entry.stat()
            out.append(f"{entry.path}\t{st.st_size}\t{st.st_mtime_ns}")
            newest[0] = max(newest[0], st.st_mtime_ns)


def scan(root: Path) -> tuple[str, float]:
    """One walk of *root*: the :func:`fingerprint` of its inputs and outputs, and when the most
    recently changed of those files changed (seconds since the epoch)."""
    package = Path(__file__).resolve().parents[1]  # the whole masrl package, not only this wing
    lines = [f"{FORMAT}|{dt.date.today()}|{sys.version_info[:2]}"]
    lines += [f"{name}={os.environ.get(name, '')}" for name in ENVIRONMENT]
    newest = [0]
    for name in INPUT_FILES:
        try:
            st = (root / name).stat()
            lines.append(f"{root / name}\t{st.st_size}\t{st.st_mtime_ns}")
            newest[0] = max(newest[0], st.st_mtime_ns)
        except OSError:
            lines.append(f"{root / name}\tmissing")
    for folder in INPUT_DIRS:
        _stats(root / folder, lines, newest)
    _stats(package, lines, [0])
    digest = hashlib.blake2b("\n".join(lines).encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()
    return digest, newest[0] / 1e9


def fingerprint(root: Path) -> str:
    """A digest of every input and output file under *root*, the package, the day and the settings."""
    return scan(root)[0]


def recall(root: Path, name: str, key: str) -> dict[str, Any] | None:
    """What :func:`remember` kept in ``.masrl-cache/<name>`` under *key*, or None when it kept
    nothing, something else or under another key."""
    try:
        state = json.loads((root / CACHE_DIR / name).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and state.get("fingerprint") == key else None


def remember(root: Path, name: str, key: str, payload: dict[str, Any]) -> None:
    """Keep *payload* in ``.masrl-cache/<name>`` under *key*. A cache: failing to write it is harmless."""
    path = root / CACHE_DIR / name
    try:
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"fingerprint": key, **payload}) + "\n", "utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def current_outputs(root: Path) -> int | None:
    """The number of generated files, if nothing changed since the last run that found them current."""
    state = recall(root, STATE_FILE, fingerprint(root))
    outputs = state.get("outputs") if state else None
    return outputs if isinstance(outputs, int) else None


def record(root: Path, outputs: int) -> None:
    """Remember that every generated file under *root* is current. A cache: failing to write it is harmless."""
    remember(root, STATE_FILE, fingerprint(root), {"outputs": outputs})
