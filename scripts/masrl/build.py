"""``masrl build``: validate, then regenerate every output that changed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from masrl.base._cli_common import MasrlError, ReportedFailure, report, root_of
from masrl.corpus._cli import taxonomy_failures
from masrl.publish import _state

if TYPE_CHECKING:  # the build machinery is imported when used, so a no-op build starts fast
    from masrl.publish._build import Analysis


def analysis_or_fail(root: Path, snapshot: str | None = None, *, arms: bool = True) -> Analysis:
    """The analysed corpus at *root* (only *snapshot*'s records, if given), or print its problems and
    exit 1; with *arms* false, without the search arms' report (see :func:`analyse`)."""
    from masrl.publish._build import analyse

    with _failing():
        return analyse(root, snapshot=snapshot, arms=arms)
    raise AssertionError("unreachable")  # pragma: no cover


def generate(root: Path) -> dict[str, str | bytes]:
    """Every generated file for the corpus at *root*; prints problems and exits 1 on bad input."""
    from masrl.publish._build import build_outputs

    with _failing():
        return build_outputs(root)
    raise AssertionError("unreachable")  # pragma: no cover


@contextmanager
def _failing() -> Iterator[None]:
    from masrl.publish._errors import BuildError

    try:
        with taxonomy_failures():
            yield
    except BuildError as exc:
        if exc.message:
            raise MasrlError(exc.message) from None
        report(exc.problems, exc.files, quiet=True)
        click.echo("Nothing was written; fix the errors above.", err=True)
        raise ReportedFailure() from None


@click.command(name="build")
@click.option("--draft", is_flag=True, help="List what would change, write nothing.")
@click.option("--full", is_flag=True, help="Regenerate everything, even when nothing changed since the last build.")
@click.pass_context
def command(ctx: click.Context, draft: bool, full: bool) -> None:
    """Validate the records, then regenerate every output that changed.

    Regenerates the README blocks, figures, JSON Schemas, data exports (CSV, JSON, BibTeX,
    stats.json) and the site pages. Files are written atomically and only when their content
    changed; generated files that no longer belong are removed. If any record has an error,
    nothing is written. When no file has changed since the last build or check found everything
    current (the fingerprint in .masrl-cache/), it answers at once; --full always regenerates.

    Example:

    \b
        masrl build
        masrl build --draft
    """
    root = root_of(ctx)
    known = None if draft or full else _state.current_outputs(root)
    if known is not None:
        click.echo(f"0 written, 0 removed, {known} unchanged (nothing changed since the last build)", err=True)
        return
    outputs = generate(root)
    from masrl.base._writer import write_all
    from masrl.publish._build import stale_files

    stale = stale_files(root, outputs)
    if draft:
        changed = [rel for rel, content in sorted(outputs.items()) if _differs(root / rel, content)]
        for rel in changed:
            click.echo(f"would write {rel}")
        for rel in stale:
            click.echo(f"would remove {rel}")
        click.echo(f"{len(changed)} to write, {len(stale)} to remove", err=True)
        return
    written = write_all(root, outputs)
    for rel in written:
        click.echo(f"wrote {rel}")
    for rel in stale:
        (root / rel).unlink()
        click.echo(f"removed {rel}")
    _state.record(root, len(outputs))
    click.echo(f"{len(written)} written, {len(stale)} removed, {len(outputs) - len(written)} unchanged", err=True)


def _differs(path: Path, content: str | bytes) -> bool:
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        return path.read_bytes() != data
    except OSError:
        return True
