"""What every command shares: the corpus root option, loading, and the problem report."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from masrl.base._problems import Problem, summary_line

if TYPE_CHECKING:  # the records and vocabulary modules load only in the commands that read the corpus
    from masrl.corpus._records import Loaded


HARD_EXIT = False  # set by masrl.cli.main, which ends the process without freeing objects
_KEPT: list[object] = []


def keep_until_exit(value: object) -> None:
    """Keep *value* alive until the process ends, when :func:`masrl.cli.main` runs it.

    That saves freeing a large trace object by object just before the process exits anyway.
    Elsewhere (tests calling the command in-process) nothing is kept.
    """
    if HARD_EXIT:
        _KEPT.append(value)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block, then restore it as it was.

    Decoding a large trace makes hundreds of thousands of objects and no garbage; the collector
    would only walk them again and again.
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class MasrlError(click.ClickException):
    """An expected failure; click prints ``Error: <message>`` and exits with code 1."""


class ReportedFailure(click.exceptions.Exit):
    """Exit 1 after the problems have already been printed."""

    def __init__(self) -> None:
        super().__init__(1)


def root_of(ctx: click.Context) -> Path:
    """The corpus root: --root, else found on first use (commands that need none, such as the trace
    ones, never import the records module that finds it)."""
    obj = ctx.find_root().obj
    if obj["root"] is None:
        from masrl.base._root import find_root

        obj["root"] = find_root()
    root: Path = obj["root"]
    return root


def report(problems: list[Problem], files: int, *, quiet: bool = False) -> None:
    """Print *problems* one per line to stdout and the count to stderr."""
    for problem in problems:
        if not (quiet and not problem.is_error):
            click.echo(str(problem))
    click.echo(summary_line(problems, files), err=True)


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
