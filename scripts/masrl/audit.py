"""``masrl audit``: agreement between the corpus coding and the independent second reading."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import click

from masrl.base._cli_common import MasrlError, root_of
from masrl.build import analysis_or_fail
from masrl.corpus._records import Corpus


@click.command(name="audit")
@click.option("--json", "as_json", is_flag=True, help="Print the audit section of the statistics as JSON.")
@click.option(
    "--round",
    "round_id",
    metavar="ROUND",
    help="Only the audits of papers that a search round of protocol.yaml owns (e.g. round-1, backfill).",
)
@click.pass_context
def command(ctx: click.Context, as_json: bool, round_id: str | None) -> None:
    """Report, per audited field, agreement, Cohen's kappa and every disagreement.

    The audit records in audits/ hold an independent second reading of a sample of entries
    (category, RL status, reward type, credit unit, topology, and a strict-credit flag). Kappa
    corrects the raw agreement for the agreement two readers would reach by chance.

    Example:

    \b
        masrl audit
        masrl audit --round backfill --json
    """
    root = root_of(ctx)
    analysis = analysis_or_fail(root)
    audit = analysis.stats["audit"]
    if round_id is not None:
        audit = _round_audit(root, analysis.corpus, round_id)
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


def _round_audit(root: Path, corpus: Corpus, round_id: str) -> dict[str, Any]:
    """The audit figures over the audits whose papers the round *round_id* owns."""
    from masrl.analysis._stats import audit_agreement
    from masrl.living._protocol import round_of
    from masrl.living.discover import protocol_or_fail

    protocol = protocol_or_fail(root, corpus)
    ids = [r.id for r in protocol.rounds]
    if round_id not in ids:
        raise MasrlError(f"--round must be one of {', '.join(ids)}, not {round_id!r}")
    owned = {p.key for p in corpus.papers if round_of(p, protocol) == round_id}
    audits = tuple(a for a in corpus.audits if a.key in owned)
    return audit_agreement(dataclasses.replace(corpus, audits=audits))
