"""The only module that writes generated files.

Writes are atomic (a temporary file in the same folder, then a rename) and skipped when the file
already holds the same bytes, so an unchanged corpus rebuilds without touching any file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path


def write_if_changed(path: Path, content: str | bytes) -> bool:
    """Write *content* to *path* atomically unless it is already there; True if written."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return True


def write_all(root: Path, files: Mapping[str, str | bytes]) -> list[str]:
    """Write every relative path in *files* under *root*; returns the paths that changed."""
    return [rel for rel, content in sorted(files.items()) if write_if_changed(root / rel, content)]
