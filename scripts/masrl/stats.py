"""``masrl stats``: print the corpus statistics, as tables or as one JSON document."""

from __future__ import annotations

import json

import click

from masrl._cli_common import root_of
from masrl.build import analysis_or_fail


@click.command(name="stats")
@click.option("--json", "as_json", is_flag=True, help="Print the full statistics document as JSON.")
@click.pass_context
def command(ctx: click.Context, as_json: bool) -> None:
    """Print the corpus statistics.

    With --json, prints the document published as site/docs/data/stats.json: `retained`,
    `excluded`, `counts` per field (every value, zeros kept), `crosstabs`, `by_year`,
    `screening`, `subdecisions`, `audit` and `claims`. Its shape is described in
    schemas/stats.schema.json.

    Example:

    \b
        masrl stats
        masrl stats --json | jq '.counts.credit_unit'
    """
    analysis = analysis_or_fail(root_of(ctx))
    stats = analysis.stats
    if as_json:
        click.echo(json.dumps(stats, indent=2, ensure_ascii=False))
        return
    labels = {name: {x.id: x.label for x in f.values} for name, f in analysis.corpus.taxonomy.fields.items()}
    click.echo(
        f"{stats['retained']} retained, {stats['excluded']} excluded, {stats['identified']} identified, "
        f"{stats['audited']} audited, {stats['subdecisions']['coded']} coded for sub-decisions"
    )
    for field, values in stats["counts"].items():
        click.echo(f"\n{field}")
        width = max(len(labels[field].get(k, k)) for k in values)
        for value, n in values.items():
            click.echo(f"  {labels[field].get(value, value):{width}}  {n:5d}")
