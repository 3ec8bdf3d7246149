"""``masrl export``: write the records as CSV (reference layout), JSON or BibTeX."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from masrl.base._cli_common import root_of
from masrl.base._git import at_option, corpus_at
from masrl.corpus._cli import load_or_fail
from masrl.corpus._export import corpus_json, exclusions_csv, papers_bib, papers_csv

if TYPE_CHECKING:
    from masrl.corpus._records import Corpus


def _corpus(ctx: click.Context, at: str | None) -> Corpus:
    with corpus_at(root_of(ctx), at) as root:
        return load_or_fail(root).corpus


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        click.echo(text, nl=False)
    else:
        from masrl.base._writer import write_if_changed

        write_if_changed(output, text)
        click.echo(f"wrote {output}", err=True)


_output = click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file instead of standard output.",
)


@click.group(name="export")
def command() -> None:
    """Write the corpus in other formats (to standard output unless -o is given).

    Each format takes --at REV to write the records of a git revision or release tag instead.
    """


@command.command(name="csv")
@click.option("--exclusions", is_flag=True, help="Export the exclusion log (excluded.csv layout) instead of papers.")
@_output
@at_option
@click.pass_context
def export_csv(ctx: click.Context, exclusions: bool, output: Path | None, at: str | None) -> None:
    """CSV in exactly the column layout of the survey artifact's papers.csv / excluded.csv.

    `one_liner` holds our summary; `exclusion_reason` holds our codes and note as
    `code, code: note`.

    Example:

    \b
        masrl export csv -o papers.csv
        masrl export csv --exclusions > excluded.csv
        masrl export csv --at 2026.12 -o papers-2026.12.csv
    """
    corpus = _corpus(ctx, at)
    _emit(exclusions_csv(corpus) if exclusions else papers_csv(corpus), output)


@command.command(name="json")
@_output
@at_option
@click.pass_context
def export_json(ctx: click.Context, output: Path | None, at: str | None) -> None:
    """Every paper, exclusion and audit record as one JSON document.

    Example:

    \b
        masrl export json -o corpus.json
    """
    _emit(corpus_json(_corpus(ctx, at)), output)


@command.command(name="bib")
@_output
@at_option
@click.pass_context
def export_bib(ctx: click.Context, output: Path | None, at: str | None) -> None:
    """Citation-ready BibTeX for every retained entry, keyed by record key.

    Written with bibtexparser; titles keep their capitalisation, arXiv entries carry eprint
    fields, and every entry parses back. The same file is published as site/docs/data/papers.bib.

    Example:

    \b
        masrl export bib -o corpus.bib
    """
    _emit(papers_bib(_corpus(ctx, at)), output)
