"""Loading the corpus for a command: the records, or their problems printed and exit 1.

The commands that read records share these; the plumbing every command shares (the root, the
problem report, expected failures) is :mod:`masrl.base._cli_common`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from masrl.base._cli_common import ReportedFailure, report

if TYPE_CHECKING:  # the records and vocabulary modules load only in the commands that read the corpus
    from masrl.corpus._records import Loaded


@contextmanager
def taxonomy_failures() -> Iterator[None]:
    """Inside the block, a broken taxonomy.yaml is reported like records are, then exit 1."""
    from masrl.corpus._vocab import TaxonomyError

    try:
        yield
    except TaxonomyError as exc:
        report(exc.problems, 1)
        raise ReportedFailure() from None


def load_or_fail(root: Path, *, show_warnings: bool = False) -> Loaded:
    """Load the corpus at *root*; on any error print the problems and exit 1."""
    from masrl.corpus._load import load_corpus

    with taxonomy_failures():
        loaded = load_corpus(root)
    if not loaded.ok:
        report(loaded.problems, loaded.files, quiet=True)
        click.echo("Nothing was written; fix the errors above (masrl validate lists them all).", err=True)
        raise ReportedFailure()
    if show_warnings:
        for problem in loaded.problems:
            click.echo(str(problem), err=True)
    return loaded


def load_tolerating_unfinished(root: Path) -> Loaded:
    """Load the corpus at *root* for commands that add records (add, screen, discover).

    Records with errors, such as a scaffold still being filled in, do not stop them: they are
    left out of the typed corpus, named in one note on stderr, and their identifiers still count
    (see :func:`masrl.living._scaffold.unfinished_records`). A broken taxonomy.yaml still stops them.
    """
    from masrl.corpus._load import load_corpus

    with taxonomy_failures():
        loaded = load_corpus(root)
    if not loaded.ok:
        files = sorted({p.path for p in loaded.problems if p.is_error})
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        click.echo(
            f"note: {shown} still {'has' if len(files) == 1 else 'have'} errors; `masrl validate` lists them", err=True
        )
    return loaded
