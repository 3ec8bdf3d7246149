"""The list of benchmark targets and the budgets each must meet (see ``masrl bench``)."""

from __future__ import annotations

from pathlib import Path

from masrl._synth import write_synthetic_corpus
from masrl.bench import Target, masrl_argv


def all_targets(root: Path, work: Path, size: int) -> list[Target]:
    synthetic = work / f"synthetic-{size}"
    if not (synthetic / "taxonomy.yaml").exists():
        write_synthetic_corpus(root, synthetic, papers=size, exclusions=max(size // 10, 1))
    return [
        Target("validate: corpus", masrl_argv("validate"), root, budget_s=0.25),
        Target(f"validate: {size:,} generated papers", masrl_argv("validate"), synthetic, budget_s=3.0),
    ]
