"""The list of benchmark targets and the budgets each must meet (see ``masrl bench``)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from masrl._synth import write_synthetic_corpus
from masrl.bench import Target, masrl_argv


def _copy_corpus(root: Path, into: Path) -> None:
    """A private copy of the real corpus, so build targets never touch the working tree."""
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    for name in ("taxonomy.yaml", "claims.yaml", "README.md"):
        shutil.copy(root / name, into / name)
    for folder in ("papers", "exclusions", "audits", "schemas", "site"):
        if (root / folder).is_dir():
            shutil.copytree(root / folder, into / folder, ignore=shutil.ignore_patterns("build"))


def _reset_outputs(corpus: Path, readme: Path) -> Callable[[], None]:
    """Delete every generated file, so each timed build starts cold."""

    def reset() -> None:
        shutil.rmtree(corpus / "site", ignore_errors=True)
        shutil.rmtree(corpus / "schemas", ignore_errors=True)
        shutil.copy(readme, corpus / "README.md")

    return reset


def _drop_figure_cache(corpus: Path) -> Callable[[], None]:
    def drop() -> None:
        (corpus / "site" / "docs" / "figures" / "manifest.json").unlink(missing_ok=True)

    return drop


# The trace benchmark: a swarm the size of published deployments (100 sub-agents x 1,500 tool rounds).
TRACE_AGENTS, TRACE_ROUNDS, TRACE_SEED = 100, 1_500, 7


def _trace_file(path: Path) -> Callable[[], None]:
    """Generate the benchmark trace once (untimed); later runs find it in place."""

    def make() -> None:
        if not path.exists():
            from masrl.trace._generate import encode, swarm

            path.write_bytes(encode(swarm(TRACE_AGENTS, TRACE_ROUNDS, seed=TRACE_SEED)))

    return make


def trace_targets(work: Path) -> list[Target]:
    big = work / f"trace-swarm-{TRACE_AGENTS}x{TRACE_ROUNDS}.json"
    events = TRACE_AGENTS * (2 * TRACE_ROUNDS + 2) + 2
    make = _trace_file(big)
    return [
        Target(
            f"trace validate: {events:,} events",
            masrl_argv("trace", "validate", str(big)),
            work,
            budget_s=1.0,
            budget_mib=400,
            prepare=make,
        ),
        Target(
            f"trace metrics: {events:,} events",
            masrl_argv("trace", "metrics", str(big)),
            work,
            budget_s=2.0,
            prepare=make,
        ),
    ]


def all_targets(root: Path, work: Path, size: int) -> list[Target]:
    synthetic = work / f"synthetic-{size}"
    if not (synthetic / "taxonomy.yaml").exists():
        write_synthetic_corpus(root, synthetic, papers=size, exclusions=max(size // 10, 1))
    real = work / "corpus"
    _copy_corpus(root, real)
    return [
        Target("validate: corpus", masrl_argv("validate"), real, budget_s=0.25),
        Target(f"validate: {size:,} generated papers", masrl_argv("validate"), synthetic, budget_s=3.0),
        Target("build: corpus, nothing changed", masrl_argv("build"), real, budget_s=1.5),
        Target(
            "build: corpus, figures redrawn", masrl_argv("build"), real, budget_s=1.5, prepare=_drop_figure_cache(real)
        ),
        Target("check: corpus", masrl_argv("check"), real, budget_s=1.5),
        Target(
            f"build: {size:,} generated papers, from scratch",
            masrl_argv("build"),
            synthetic,
            budget_s=15.0,
            budget_mib=1024,
            prepare=_reset_outputs(synthetic, root / "README.md"),
        ),
        *trace_targets(work),
    ]
