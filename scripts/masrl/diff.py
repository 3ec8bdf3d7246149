"""``masrl diff REV``: what the working tree changes in records, counts and claims since REV."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from masrl.base._cli_common import MasrlError, ReportedFailure, report, root_of
from masrl.base._git import checkout_corpus
from masrl.build import analysis_or_fail
from masrl.corpus._vocab import TaxonomyError
from masrl.publish._build import analyse
from masrl.publish._errors import BuildError


@click.command(name="diff")
@click.argument("rev", default="HEAD")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also append the Markdown to this file (e.g. $GITHUB_STEP_SUMMARY).",
)
@click.pass_context
def command(ctx: click.Context, rev: str, output: Path | None) -> None:
    """Show what the working tree changes since git revision REV (default HEAD).

    Compares the corpus at REV with the working tree: records added, removed or changed (with
    the fields that changed), counts and cross-tab cells that moved (before → after), and
    claims whose value or status changed. Prints Markdown that can go straight into a pull
    request comment or a CI job summary.

    Example:

    \b
        masrl diff origin/main
        masrl diff HEAD~3 -o "$GITHUB_STEP_SUMMARY"
    """
    from masrl.publish._diff import compare, markdown

    root = root_of(ctx)
    after = analysis_or_fail(root, arms=False)  # the diff compares records, counts and claims
    with tempfile.TemporaryDirectory(prefix="masrl-diff-") as tmp:
        checkout_corpus(root, rev, Path(tmp))
        try:
            before = analyse(Path(tmp), strict=False)
        except TaxonomyError as exc:
            raise MasrlError(f"the taxonomy at {rev} does not load: {exc.problems[0].message}") from None
        except BuildError as exc:
            report(exc.problems, exc.files)
            click.echo(f"claims.yaml at {rev} does not load", err=True)
            raise ReportedFailure() from None
    text = markdown(compare(before, after), rev, "working tree")
    click.echo(text, nl=False)
    if output is not None:
        with output.open("a", encoding="utf-8") as handle:
            handle.write(text)
