"""``masrl claims``: evaluate the survey's headline claims against the records."""

from __future__ import annotations

import json

import click

from masrl.analysis._claims import show_value, stress_json, stress_text
from masrl.base._cli_common import ReportedFailure, root_of
from masrl.base._git import at_option, corpus_at
from masrl.build import analysis_or_fail
from masrl.corpus._vocab import SURVEY

ROW_LIMIT = 12  # rows printed per claim; the site lists them all


def _rows(rows: object) -> str:
    if isinstance(rows, dict):
        parts = [f"{value}: {', '.join(keys) if keys else '—'}" for value, keys in rows.items()]
        return "\n      ".join(parts)
    keys = list(rows)  # type: ignore[call-overload]
    if not keys:
        return "(no rows)"
    shown = ", ".join(keys[:ROW_LIMIT])
    return shown + (f", … {len(keys) - ROW_LIMIT} more" if len(keys) > ROW_LIMIT else "")


@click.command(name="claims")
@click.option("--quiet", "-q", is_flag=True, help="Print failing claims only.")
@click.option("--stress", is_flag=True, help="Evaluate every claim under every view of claims.yaml, as a table.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (with --stress: the table).")
@click.option(
    "--snapshot",
    type=click.Choice([SURVEY]),
    default=None,
    help="Read only the survey's own records (origin survey): every claim on the corpus as the survey published it.",
)
@at_option
@click.pass_context
def command(ctx: click.Context, quiet: bool, stress: bool, as_json: bool, snapshot: str | None, at: str | None) -> None:
    """Evaluate every claim in claims.yaml and show the rows behind it.

    Each claim is evaluated on its own population (the survey snapshot unless it says
    `population: living`). Exits 1 if any claim no longer holds there. When a change to the
    records moves a claim on purpose, update its `expected` value in claims.yaml in the same
    change.

    With --stress, every claim is also evaluated under every view named in claims.yaml (the
    living corpus, the second reader's tags, near misses retained, strict credit, ...): a
    table of the value per view, marking where the claim holds, then the rows that move a value
    between views. A claim that turns under another view is shown, but only a failure on its
    own population sets the exit code. With --snapshot survey, only the survey's own records are
    read, so every claim meets the corpus as the survey published it however much it has grown.

    With --at REV, the claims and records of a git revision or release tag are evaluated.

    Example:

    \b
        masrl claims
        masrl claims --snapshot survey
        masrl claims --stress
        masrl claims --stress --json
        masrl claims --at 2026.12
    """
    with corpus_at(root_of(ctx), at) as root:
        analysis = analysis_or_fail(root, snapshot, arms=False)  # no claim reads the arms
    outcomes = analysis.outcomes
    failing = [o for o in outcomes if not o.holds]
    if as_json:
        data = stress_json(analysis.views, analysis.stress) if stress else {"claims": [o.as_json() for o in outcomes]}
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    elif stress:
        click.echo(stress_text(analysis.views, analysis.stress), nl=False)
    else:
        for o in outcomes:
            if quiet and o.holds:
                continue
            mark = "ok  " if o.holds else "FAIL"
            click.echo(f"{mark} {o.claim.id}: {o.claim.statement}")
            if o.holds:
                click.echo(f"      value: {show_value(o.actual)}")
            else:
                click.echo(f"      expected: {show_value(o.claim.expected)}")
                click.echo(f"      actual:   {show_value(o.actual)}")
                click.echo(f"      (claims.yaml line {o.claim.line})")
            click.echo(f"      rows: {_rows(o.rows)}")
    summary = f"{len(outcomes) - len(failing)} of {len(outcomes)} claims hold"
    if stress:
        turning = sum(bool(row.turns) for row in analysis.stress)
        summary += f"; {turning} turn under at least one other view"
    click.echo(summary, err=True)
    if failing:
        raise ReportedFailure()
