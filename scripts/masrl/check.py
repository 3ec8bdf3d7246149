"""``masrl check``: fail when any generated file on disk is stale."""

from __future__ import annotations

import difflib
from pathlib import Path

import click

from masrl.base._cli_common import ReportedFailure, root_of
from masrl.publish import _state

DIFF_LINES = 60  # per file; enough to see what moved without flooding a CI log


def drift(root: Path, outputs: dict[str, str | bytes]) -> list[str]:
    """Human-readable report lines for every stale, missing or extra generated file."""
    lines: list[str] = []
    for rel, content in sorted(outputs.items()):
        path = root / rel
        new = content.encode("utf-8") if isinstance(content, str) else content
        try:
            old = path.read_bytes()
        except OSError:
            lines.append(f"missing: {rel}")
            continue
        if old == new:
            continue
        lines.append(f"stale: {rel}")
        try:
            before, after = old.decode("utf-8").splitlines(), new.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        diff = list(difflib.unified_diff(before, after, f"a/{rel}", f"b/{rel}", lineterm="", n=1))
        lines.extend(diff[:DIFF_LINES])
        if len(diff) > DIFF_LINES:
            lines.append(f"... {len(diff) - DIFF_LINES} more diff lines")
    from masrl.publish._build import stale_files

    lines.extend(f"extra: {rel} (no longer generated)" for rel in stale_files(root, outputs))
    return lines


@click.command(name="check")
@click.option(
    "--full", is_flag=True, help="Render and compare everything, even when nothing changed since the last check."
)
@click.pass_context
def command(ctx: click.Context, full: bool) -> None:
    """Fail (exit 1) if any generated file differs from what the records produce.

    Renders everything in memory, exactly as `masrl build` would, and compares it with the files
    on disk. Prints a unified diff for each stale file. Run `masrl build` to fix. Writes nothing
    but its cache: when no file has changed since the last run found everything current (the
    fingerprint in .masrl-cache/), it answers at once; --full always renders.

    Example:

    \b
        masrl check
    """
    root = root_of(ctx)
    known = None if full else _state.current_outputs(root)
    if known is not None:
        click.echo(f"{known} generated files are up to date (nothing changed since the last check)", err=True)
        return
    from masrl.build import generate

    outputs = generate(root)
    lines = drift(root, outputs)
    if lines:
        for line in lines:
            click.echo(line)
        click.echo("Generated files are out of date; run `masrl build` and commit the result.", err=True)
        raise ReportedFailure()
    _state.record(root, len(outputs))
    click.echo(f"{len(outputs)} generated files are up to date", err=True)
