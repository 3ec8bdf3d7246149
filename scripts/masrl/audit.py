"""``masrl audit``: agreement between the corpus coding and the independent second reading."""

from __future__ import annotations

import json

import click

from masrl.base._cli_common import root_of
from masrl.build import analysis_or_fail


@click.command(name="audit")
@click.option("--json", "as_json", is_flag=True, help="Print the audit section of the statistics as JSON.")
@click.pass_context
def command(ctx: click.Context, as_json: bool) -> None:
    """Report, per audited field, agreement, Cohen's kappa and every disagreement.

    The audit records in audits/ hold an independent second reading of a sample of entries
    (category, RL status, reward type, credit unit, topology, and a strict-credit flag). Kappa
    corrects the raw agreement for the agreement two readers would reach by chance.

    Example:

    \b
        masrl audit
        masrl audit --json
    """
    analysis = analysis_or_fail(root_of(ctx))
    audit = analysis.stats["audit"]
    if as_json:
        click.echo(json.dumps(audit, indent=2, ensure_ascii=False))
        return
    click.echo(f"{audit['rows']} audited rows")
    click.echo(f"{'field':14} {'rows':>5} {'agreement':>10} {'kappa':>7}  disagreements")
    for name, result in audit["fields"].items():
        kappa = "n/a" if result["kappa"] is None else f"{result['kappa']:.3f}"
        agreement = "n/a" if result["agreement"] is None else f"{result['agreement']:.1f}%"
        listed = ", ".join(f"{d['key']} ({d['first']} → {d['second']})" for d in result["disagreements"]) or "none"
        click.echo(f"{name:14} {result['rows']:5d} {agreement:>10} {kappa:>7}  {listed}")
    click.echo(
        f"strict-credit flag: the paper record and the second reading agree on "
        f"{audit['strict_credit_agreement']} of {audit['rows']} rows"
    )
