"""``masrl audit``: agreement between the corpus coding and the independent second reading, and
the reproducible random draw of the papers a second reader takes next (``--draw N --seed S``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import click

from masrl.base._cli_common import MasrlError, root_of
from masrl.corpus._records import Corpus


@click.command(name="audit")
@click.option("--json", "as_json", is_flag=True, help="Print the audit section of the statistics as JSON.")
@click.option(
    "--round",
    "round_id",
    metavar="ROUND",
    help="Only the audits of papers that a search round of protocol.yaml owns (e.g. round-1, backfill).",
)
@click.option(
    "--draw",
    "size",
    type=int,
    callback=lambda ctx, param, value: _at_least(value, 1, "the number of papers to draw"),
    metavar="N",
    help="Draw N papers with no audit record for a second reading (with --seed); prints them, writes nothing.",
)
@click.option(
    "--seed",
    type=int,
    callback=lambda ctx, param, value: _at_least(value, 0, "the seed"),
    metavar="S",
    help="The seed of the draw, a whole number: the same seed and pool give the same papers.",
)
@click.pass_context
def command(ctx: click.Context, as_json: bool, round_id: str | None, size: int | None, seed: int | None) -> None:
    """Report, per audited field, agreement, Cohen's kappa and every disagreement.

    The audit records in audits/ hold an independent second reading of a sample of entries
    (category, RL status, reward type, credit unit, topology, and a strict-credit flag). Kappa
    corrects the raw agreement for the agreement two readers would reach by chance.

    With --draw N --seed S, draw the next sample instead: N keys taken by
    random.Random(S).sample from the papers with no audit record yet, sorted by key (every paper
    of origin discovery, or with --round the round's own papers). It prints the keys and the
    entry that lists the draw under the round's audit_draws in protocol.yaml; it writes nothing.

    Example:

    \b
        masrl audit
        masrl audit --round backfill --json
        masrl audit --draw 6 --seed 20261204
    """
    root = root_of(ctx)
    if size is not None or seed is not None:
        _draw(root, size, seed, round_id, as_json)
        return
    # The agreement needs the records alone: not the claims, arms and estimate a build computes.
    from masrl.analysis._stats import audit_agreement
    from masrl.corpus._cli import load_or_fail

    corpus = load_or_fail(root).corpus
    audit = audit_agreement(corpus)
    if round_id is not None:
        audit = _round_audit(root, corpus, round_id)
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


def _at_least(value: int | None, least: int, what: str) -> int | None:
    if value is not None and value < least:
        raise click.BadParameter(f"{what} must be a whole number, {least} or more, not {value}")
    return value


def _draw(root: Path, size: int | None, seed: int | None, round_id: str | None, as_json: bool) -> None:
    """Print a reproducible draw of *size* papers with no audit record, and its protocol.yaml entry."""
    from masrl.corpus._cli import load_or_fail
    from masrl.living._draws import DrawError, audit_pool, draw, draw_entry

    if size is None or seed is None:
        given, missing = ("--draw N", "--seed S") if seed is None else ("--seed S", "--draw N")
        raise MasrlError(
            f"{given} needs {missing}: a draw takes its size and a fixed seed, e.g. --draw 6 --seed 20261204"
        )
    corpus = load_or_fail(root).corpus
    protocol = None
    if round_id is not None:
        from masrl.living.discover import protocol_or_fail

        protocol = protocol_or_fail(root, corpus)
        _known_round(protocol, round_id)
    try:
        drawn = draw(audit_pool(corpus, protocol, round_id), size, seed)
    except DrawError as exc:
        raise MasrlError(str(exc)) from None
    if as_json:
        out = {"seed": drawn.seed, "size": len(drawn.keys), "pool": len(drawn.pool.keys)}
        click.echo(json.dumps({**out, "drawn_from": drawn.drawn_from, "keys": list(drawn.keys)}, indent=2))
        return
    click.echo(
        f"{len(drawn.keys)} of the {len(drawn.pool.keys)} {drawn.pool.what} with no audit record, "
        f"drawn by random.Random({drawn.seed}).sample and sorted:"
    )
    for key in drawn.keys:
        click.echo(f"  {key}")
    where = f"round {round_id}" if round_id else "the round it is for"
    click.echo(f"\nTo list the draw, add this to protocol.yaml under audit_draws: of {where};")
    click.echo("`masrl validate` then asks for the second reading of each key, audits/<key>.yaml:\n")
    click.echo(draw_entry(drawn), nl=False)


def _known_round(protocol: Any, round_id: str) -> None:
    ids = [r.id for r in protocol.rounds]
    if round_id not in ids:
        raise MasrlError(f"--round must be one of {', '.join(ids)}, not {round_id!r}")


def _round_audit(root: Path, corpus: Corpus, round_id: str) -> dict[str, Any]:
    """The audit figures over the audits whose papers the round *round_id* owns."""
    from masrl.analysis._stats import audit_agreement
    from masrl.living._protocol import round_of
    from masrl.living.discover import protocol_or_fail

    protocol = protocol_or_fail(root, corpus)
    _known_round(protocol, round_id)
    owned = {p.key for p in corpus.papers if round_of(p, protocol) == round_id}
    audits = tuple(a for a in corpus.audits if a.key in owned)
    return audit_agreement(dataclasses.replace(corpus, audits=audits))
