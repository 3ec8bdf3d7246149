"""What every command shares: the corpus root option, expected failures, and the problem report.

Loading the corpus for a command, with its problems reported, is :mod:`masrl.corpus._cli`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from masrl.base._problems import Problem, summary_line

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
