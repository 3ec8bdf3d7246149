"""``masrl fmt``: rewrite records into canonical field order and quoting, keeping comments."""

from __future__ import annotations

import difflib
from pathlib import Path

import click

from masrl.base._cli_common import ReportedFailure, root_of
from masrl.base._writer import write_if_changed
from masrl.corpus._cli import taxonomy_failures
from masrl.corpus._load import display_path, kind_of, record_files
from masrl.corpus._vocab import load_taxonomy


@click.command(name="fmt")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--check", is_flag=True, help="Write nothing; exit 1 and show a diff if any record would change.")
@click.pass_context
def command(ctx: click.Context, paths: tuple[Path, ...], check: bool) -> None:
    """Rewrite records into canonical field order and quoting.

    Fields follow the order of the record's schema, sub-decisions O1 to O5, one field per line,
    strings quoted only where a YAML reader could misread them. A paper loses what its venue in
    venues.yaml already gives: the retired entry_type field where it agrees with the venue, and a
    bibtex booktitle or journal equal to the venue's. Comments stay with the field they sit above
    or beside; the result is re-read and compared with the original (with those removals), so no
    other content and no comment is lost. With PATHs, only those files or folders.

    Example:

    \b
        masrl fmt
        masrl fmt --check
        masrl fmt papers/c3.yaml
    """
    from masrl.corpus._format import FormatError, format_record
    from masrl.corpus._venues import read_venues, redundant
    from masrl.corpus._yaml import YamlError, load_text, read_text

    root = root_of(ctx)
    with taxonomy_failures():
        taxonomy = load_taxonomy(root)
    venues, _ = read_venues(root, taxonomy)  # a broken registry only means nothing is dropped
    if paths:
        files, strangers = [], []
        for path in paths:
            for file in sorted(path.rglob("*.yaml")) if path.is_dir() else [path]:
                kind = kind_of(file)
                if kind is None:
                    strangers.append(display_path(file))
                else:
                    files.append((kind, file))
        if strangers:
            # A queue file in screening/ or any other YAML is not a record: formatting it as a
            # paper would reorder and drop its fields, so nothing is written.
            shown = ", ".join(strangers[:3]) + (f" and {len(strangers) - 3} more" if len(strangers) > 3 else "")
            click.echo(
                f"Error: {shown}: not a record; fmt formats the files in papers/, exclusions/ and "
                "audits/ (give one of those folders or a file in it). Nothing was written.",
                err=True,
            )
            raise ReportedFailure()
    else:
        files = record_files(root)
    changed, failed = [], []
    for kind, path in files:
        shown = display_path(path)
        try:
            before = read_text(path)
            changes = None
            if kind == "paper" and venues.loaded:
                data = load_text(before).data
                changes = redundant(data, venues) if isinstance(data, dict) else None
            after = format_record(kind, before, taxonomy, changes)
        except YamlError as exc:
            failed.append(f"{shown}:{exc.line}:{exc.column}: {exc.message}")
            continue
        except FormatError as exc:
            failed.append(f"{shown}: {exc}")
            continue
        if after == before:
            continue
        changed.append(shown)
        if check:
            diff = difflib.unified_diff(
                before.splitlines(), after.splitlines(), f"a/{shown}", f"b/{shown}", lineterm="", n=1
            )
            click.echo("\n".join(diff))
        else:
            write_if_changed(path, after)
            click.echo(f"formatted {shown}")
    for line in failed:
        click.echo(line, err=True)
    verb = "would reformat" if check else "reformatted"
    click.echo(
        f"{verb} {len(changed)} of {len(files)} files" + (f"; {len(failed)} could not be read" if failed else ""),
        err=True,
    )
    if failed or (check and changed):
        raise ReportedFailure()
