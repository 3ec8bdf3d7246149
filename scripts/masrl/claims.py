"""``masrl claims``: evaluate the survey's headline claims against the records."""

from __future__ import annotations

import click

from masrl._cli_common import ReportedFailure, root_of
from masrl.build import analysis_or_fail

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
@click.pass_context
def command(ctx: click.Context, quiet: bool) -> None:
    """Evaluate every claim in claims.yaml and show the rows behind it.

    Exits 1 if any claim no longer holds. When a change to the records moves a claim on
    purpose, update its `expected` value in claims.yaml in the same change.

    Example:

    \b
        masrl claims
    """
    outcomes = analysis_or_fail(root_of(ctx)).outcomes
    for o in outcomes:
        if quiet and o.holds:
            continue
        mark = "ok  " if o.holds else "FAIL"
        click.echo(f"{mark} {o.claim.id}: {o.claim.statement}")
        if o.holds:
            click.echo(f"      value: {_value(o.actual)}")
        else:
            click.echo(f"      expected: {_value(o.claim.expected)}")
            click.echo(f"      actual:   {_value(o.actual)}")
            click.echo(f"      (claims.yaml line {o.claim.line})")
        click.echo(f"      rows: {_rows(o.rows)}")
    failing = [o for o in outcomes if not o.holds]
    click.echo(f"{len(outcomes) - len(failing)} of {len(outcomes)} claims hold", err=True)
    if failing:
        raise ReportedFailure()


def _value(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {n}" for k, n in value.items())
    return str(value)
