"""``masrl stats``: print the corpus statistics, as tables or as one JSON document."""

from __future__ import annotations

import json

import click

from masrl.base._cli_common import root_of
from masrl.base._git import at_option, corpus_at
from masrl.build import analysis_or_fail
from masrl.corpus._vocab import SURVEY


@click.command(name="stats")
@click.option("--json", "as_json", is_flag=True, help="Print the full statistics document as JSON.")
@click.option(
    "--snapshot",
    type=click.Choice([SURVEY]),
    default=None,
    help="Count only the survey's own records (origin survey): its figures as published, however the corpus has grown.",
)
@at_option
@click.pass_context
def command(ctx: click.Context, as_json: bool, snapshot: str | None, at: str | None) -> None:
    """Print the corpus statistics.

    With --json, prints the document published as site/docs/data/stats.json: `retained`,
    `excluded`, `counts` per field (every value, zeros kept), `crosstabs`, `by_year`,
    `screening`, `subdecisions`, `code` (papers that link their official code, by category),
    `audit`, `claims`, and the survey snapshot's totals under
    `snapshot`. Its shape is described in schemas/stats.schema.json.

    The living corpus is counted by default: every record, whatever its origin. --snapshot survey
    counts only the 116 records taken from the survey's tables, so the survey's own numbers stay
    reproducible as the corpus grows.

    --at REV counts the records of a git revision or release tag instead of the working tree.

    Example:

    \b
        masrl stats
        masrl stats --json | jq '.counts.credit_unit'
        masrl stats --snapshot survey --json
        masrl stats --at 2026.12 --json
    """
    with corpus_at(root_of(ctx), at) as root:
        analysis = analysis_or_fail(root, snapshot)
    stats = analysis.stats
    if as_json:
        click.echo(json.dumps(stats, indent=2, ensure_ascii=False))
        return
    labels = {name: {x.id: x.label for x in f.values} for name, f in analysis.corpus.taxonomy.fields.items()}
    click.echo(
        f"{stats['retained']} retained, {stats['excluded']} excluded, {stats['identified']} identified, "
        f"{stats['audited']} audited, {stats['subdecisions']['coded']} coded for sub-decisions, "
        f"{stats['code']['with_code']} with code"
    )
    for field, values in stats["counts"].items():
        click.echo(f"\n{field}")
        width = max(len(labels[field].get(k, k)) for k in values)
        for value, n in values.items():
            click.echo(f"  {labels[field].get(value, value):{width}}  {n:5d}")
    for round_id, report in stats["screening"].get("arms", {}).items():
        click.echo(f"\nsearch arms, round {round_id}")
        flow, est, stop = report["flow"], report["estimate"], report["stopping"]
        found = ", ".join(f"{a} {x['candidates']}" for a, x in flow["identified"].items())
        click.echo(f"  candidates  {flow['distinct']} distinct ({found}); {flow['screened']} screened in the round")
        if "error" in est:
            click.echo(f"  estimate    none: {est['error']}")
        else:
            lo, hi = est["interval"]
            rlo, rhi = est["recall_interval"]
            click.echo(
                f"  estimate    {est['observed']} in-scope papers found of {est['population']:.0f} estimated "
                f"(95% interval {lo:.0f} to {hi:.0f}); recall {est['recall']:.1%} ({rlo:.1%} to {rhi:.1%})"
            )
        if stop.get("applies"):
            click.echo(f"  stopping    {'the round may close' if stop['closes'] else 'the round stays open'}")
