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
)
INPUT_DIRS = ("papers", "exclusions", "audits", "traces", "site", "schemas", "screening")
SKIP_DIRS = frozenset({"build", "__pycache__", ".cache"})  # site/build is MkDocs' output, not ours
ENVIRONMENT = ("MASRL_SITE_URL",)  # variables that change what is generated
CACHE_DIR = ".masrl-cache"
STATE_FILE = f"{CACHE_DIR}/build-state.json"
FORMAT = 1


def _stats(base: Path, out: list[str]) -> None:
    """Append ``path size mtime`` for every file under *base* (sorted, depth first) to *out*."""
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIP_DIRS:
                _stats(Path(entry.path), out)
        else:
            st = entry.stat()
            out.append(f"{entry.path}\t{st.st_size}\t{st.st_mtime_ns}")


def fingerprint(root: Path) -> str:
    """A digest of every input and output file under *root*, the package, the day and the settings."""
    package = Path(__file__).resolve().parents[1]  # the whole masrl package, not only this wing
    lines = [f"{FORMAT}|{dt.date.today()}|{sys.version_info[:2]}"]
    lines += [f"{name}={os.environ.get(name, '')}" for name in ENVIRONMENT]
    for name in INPUT_FILES:
        try:
            st = (root / name).stat()
            lines.append(f"{root / name}\t{st.st_size}\t{st.st_mtime_ns}")
        except OSError:
            lines.append(f"{root / name}\tmissing")
    for folder in INPUT_DIRS:
        _stats(root / folder, lines)
    _stats(package, lines)
    return hashlib.blake2b("\n".join(lines).encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()


def current_outputs(root: Path) -> int | None:
    """The number of generated files, if nothing changed since the last run that found them current."""
    try:
        state = json.loads((root / STATE_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or state.get("fingerprint") != fingerprint(root):
        return None
    outputs = state.get("outputs")
    return outputs if isinstance(outputs, int) else None


def record(root: Path, outputs: int) -> None:
    """Remember that every generated file under *root* is current. A cache: failing to write it is harmless."""
    path = root / STATE_FILE
    try:
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"fingerprint": fingerprint(root), "outputs": outputs}) + "\n", "utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
