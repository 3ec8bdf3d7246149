"""Where the corpus is: the one helper every command needs, kept free of heavy imports."""

from __future__ import annotations

import os
from pathlib import Path

ROOT_ENV = "MASRL_ROOT"
TAXONOMY_FILE = "taxonomy.yaml"


def find_root(start: Path | None = None) -> Path:
    """The corpus root: ``$MASRL_ROOT``, else the nearest folder upwards holding taxonomy.yaml."""
    env = os.environ.get(ROOT_ENV)
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / TAXONOMY_FILE).is_file():
            return folder
    return here
