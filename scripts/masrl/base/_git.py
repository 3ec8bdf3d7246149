"""Reading files of a git revision without touching the working tree (``git archive``).

``masrl diff REV`` compares the corpus at REV with the working tree; ``--at REV`` on ``stats``,
``claims`` and ``export`` reads the corpus of a revision or release tag, so that a figure from any
release can be reproduced exactly; ``masrl release`` reads tags and the tree's state.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from masrl.base._cli_common import MasrlError

# What a corpus is made of; the rest of the tree does not affect counts or claims.
CORPUS_PATHS = ("taxonomy.yaml", "venues.yaml", "claims.yaml", "papers", "exclusions", "audits")
# What stats also read: the search protocol and its screening rounds.
ANALYSIS_PATHS = (*CORPUS_PATHS, "protocol.yaml", "screening")
_RETIRED_LINE = re.compile(r"^entry_type:.*\n", re.M)  # a paper field venues.yaml replaced


def git(root: Path, *args: str) -> bytes:
    """Run git in *root*; its output, or a :class:`MasrlError` naming what failed."""
    try:
        result = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except FileNotFoundError:
        raise MasrlError("git is not installed; reading a revision needs it") from None
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise MasrlError(f"git {' '.join(args[:2])} failed: {message[-1] if message else 'unknown error'}")
    return result.stdout


def resolve(root: Path, rev: str) -> str:
    """The commit hash of *rev*, or a clear error when it names no commit of this repository."""
    if rev.startswith("-"):
        raise MasrlError(f"'{rev}' is not a revision (a branch, tag or commit hash)")
    try:
        return git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
    except MasrlError:
        raise MasrlError(f"'{rev}' is not a commit of this repository (try a branch, tag or hash)") from None


def checkout_corpus(root: Path, rev: str, into: Path, paths: tuple[str, ...] = CORPUS_PATHS) -> None:
    """Extract *paths* of *rev* into *into* (git archive, nothing touches the worktree)."""
    top = Path(git(root, "rev-parse", "--show-toplevel").decode().strip())
    prefix = root.resolve().relative_to(top.resolve()).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    commit = resolve(root, rev)
    listed = git(root, "ls-tree", "--name-only", commit, "--", *[prefix + p for p in paths]).decode().split()
    if not listed:
        raise MasrlError(f"{rev} holds no corpus files ({', '.join(paths)})")
    archive = git(root, "archive", "--format=tar", commit, "--", *listed)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    if prefix:
        for item in (into / prefix).iterdir():
            shutil.move(str(item), into / item.name)
    if not (into / "venues.yaml").exists() and (root / "venues.yaml").is_file():
        # A revision from before the venue registry: read with today's registry, its papers'
        # entry_type fields (which the registry now gives) dropped, so its counts compare.
        shutil.copy(root / "venues.yaml", into / "venues.yaml")
        for path in (into / "papers").glob("*.yaml") if (into / "papers").is_dir() else ():
            text = path.read_text("utf-8")
            path.write_text(_RETIRED_LINE.sub("", text), "utf-8")


@contextmanager
def corpus_at(root: Path, rev: str | None) -> Iterator[Path]:
    """*root* itself when *rev* is None, else a temporary folder holding the corpus of *rev*."""
    if rev is None:
        yield root
        return
    with tempfile.TemporaryDirectory(prefix="masrl-at-") as tmp:
        checkout_corpus(root, rev, Path(tmp), ANALYSIS_PATHS)
        yield Path(tmp)


def at_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--at REV`` option of the commands that read the records."""
    return click.option(
        "--at",
        "at",
        metavar="REV",
        default=None,
        help="Read the records at this git revision or release tag (e.g. 2026.12) instead of the working tree; the working tree is not touched.",
    )(function)
