"""``masrl bench``: time the tools as whole processes, on the real corpus and on generated ones.

Each target runs as a separate process several times; the report gives the median, the fastest and
slowest run, and the largest peak resident memory, next to the budget the project holds itself to.
Timings are wall-clock on a shared machine, so compare medians, not single runs.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import click

from masrl.base._cli_common import MasrlError, root_of
from masrl.bench import _targets
from masrl.bench._measure import Target, format_report, measure


def targets(root: Path, work: Path, size: int) -> list[Target]:
    """Every benchmark, in the order they run. *work* holds generated inputs, made when a chosen target needs them."""
    return _targets.all_targets(root, work, size)


@click.command(name="bench")
@click.option("--runs", default=5, show_default=True, help="Timed runs per target.")
@click.option("--size", default=10_000, show_default=True, help="Records in the generated corpus.")
@click.option("--only", multiple=True, help="Run only targets whose name contains this text (repeatable).")
@click.option("--keep", type=click.Path(file_okay=False, path_type=Path), help="Keep generated inputs in this folder.")
@click.pass_context
def command(ctx: click.Context, runs: int, size: int, only: tuple[str, ...], keep: Path | None) -> None:
    """Time masrl as whole processes on the corpus and on generated inputs.

    Generates a synthetic corpus of --size records (and the large traces), runs every target
    --runs times, and prints the median, min and max wall time and the peak memory of each, with
    the budget it must meet. Nothing in the corpus is modified.

    Example:

    \b
        masrl bench --runs 5
        masrl bench --only validate --size 10000
    """
    if runs < 1:
        raise MasrlError("--runs must be at least 1")
    root = root_of(ctx)
    work = keep.resolve() if keep else Path(tempfile.mkdtemp(prefix="masrl-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        chosen = [t for t in targets(root, work, size) if not only or any(o in t.name for o in only)]
        if not chosen:
            raise MasrlError(f"no target matches {', '.join(only)}")
        results = []
        for target in chosen:
            click.echo(f"running {target.name} ...", err=True)
            results.append(measure(target, runs))
        facts = _targets.facts(root, work) if not only or any("site" in o for o in only) else []
        click.echo(format_report(results, runs, facts))
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
