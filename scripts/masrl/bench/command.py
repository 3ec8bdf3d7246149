"""``masrl bench``: time the tools as whole processes, on the real corpus and on generated ones.

Each target runs as a separate process several times; the report gives the median, the fastest and
slowest run, and the largest peak resident memory, next to the budget the project holds itself to.
Timings are wall-clock on a shared machine, so compare medians, not single runs.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click

from masrl.base._cli_common import MasrlError, root_of


@dataclass(frozen=True)
class Target:
    """A timed benchmark: a whole process (*argv* in *cwd*), or a *probe* that times itself."""

    name: str
    argv: list[str]
    cwd: Path
    budget_s: float | None = None
    budget_mib: float | None = None
    setup: Callable[[], None] | None = None  # makes the inputs, once, untimed (shared setups run once)
    prepare: Callable[[], None] | None = None  # run before every timed run, untimed
    probe: Callable[[], float] | None = None  # returns seconds measured inside, e.g. in a browser


@dataclass(frozen=True)
class Result:
    target: Target
    seconds: list[float]
    peak_mib: float  # the largest high-water mark of any one process
    exit_codes: list[int]
    tree_mib: float | None = None  # peak memory of the process and its helpers together, when sampled

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def memory_mib(self) -> float:
        """The figure a memory budget is held against: the larger of the two measures."""
        return max(self.peak_mib, self.tree_mib or 0.0)


def run_once(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """Run *argv* in *cwd*; return (wall seconds, peak RSS in MiB, exit code)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss / 1024, proc.returncode


_SAMPLE_S = 0.002  # how often tree_peak_mib looks at the processes


def _tree(pid: int) -> list[int]:
    """*pid* and every process descended from it that is still running (Linux's /proc)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                todo.extend(map(int, Path(f"/proc/{p}/task/{task}/children").read_text().split()))
        except OSError:  # it ended meanwhile
            continue
    return found


def _pss_kib(pid: int) -> int:
    """Proportional set size of *pid* in KiB: its own pages, plus its share of pages it shares."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):  # it ended meanwhile
        pass
    return 0


def tree_peak_mib(argv: list[str], cwd: Path) -> float | None:
    """Run *argv* once, untimed, and return the peak of its processes' memory summed, in MiB.

    A process's high-water mark misses what its helpers and workers hold; this sums the
    proportional set size (shared pages split between the processes sharing them, so the file a
    process maps counts once) over the process and its descendants, sampled every few
    milliseconds. None where /proc cannot tell (not Linux).
    """
    if not Path("/proc/self/smaps_rollup").exists():
        return None
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, sum(map(_pss_kib, _tree(proc.pid))))
        time.sleep(_SAMPLE_S)
    return peak / 1024


def measure(target: Target, runs: int) -> Result:
    if target.setup:
        target.setup()
    seconds, peaks, codes = [], [], []
    for _ in range(runs):
        if target.prepare:
            target.prepare()
        if target.probe is not None:
            seconds.append(target.probe())
            peaks.append(0.0)
            codes.append(0)
            continue
        elapsed, peak, code = run_once(target.argv, target.cwd)
        seconds.append(elapsed)
        peaks.append(peak)
        codes.append(code)
    tree = None
    if target.budget_mib is not None and target.probe is None:
        if target.prepare:
            target.prepare()
        tree = tree_peak_mib(target.argv, target.cwd)
    return Result(target, seconds, max(peaks), codes, tree)


def masrl_argv(*args: str) -> list[str]:
    """The installed console script when there is one (what users run), else ``python -m masrl``."""
    script = Path(sys.executable).with_name("masrl")
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "masrl", *args]


def targets(root: Path, work: Path, size: int) -> list[Target]:
    """Every benchmark, in the order they run. *work* holds generated inputs, made when a chosen target needs them."""
    from masrl.bench import _targets as _bench_targets

    return _bench_targets.all_targets(root, work, size)


def format_report(results: list[Result], runs: int, facts: list[tuple[str, str]] | None = None) -> str:
    lines = [
        f"{'target':44} {'median s':>9} {'min s':>7} {'max s':>7} {'peak MiB':>9} {'all MiB':>8}  budget",
        "-" * 105,
    ]
    for r in results:
        t = r.target
        budget = []
        if t.budget_s is not None:
            budget.append(f"<= {t.budget_s:g} s {'ok' if r.median <= t.budget_s else 'OVER'}")
        if t.budget_mib is not None:
            budget.append(f"<= {t.budget_mib:g} MiB {'ok' if r.memory_mib <= t.budget_mib else 'OVER'}")
        failed = "" if not any(r.exit_codes) else f"  (exit codes {sorted(set(r.exit_codes))})"
        lines.append(
            f"{t.name:44} {r.median:9.3f} {min(r.seconds):7.3f} {max(r.seconds):7.3f} {r.peak_mib:9.1f} "
            f"{'' if r.tree_mib is None else f'{r.tree_mib:.1f}':>8}  "
            f"{'; '.join(budget)}{failed}"
        )
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines.append(
        f"\n{runs} runs each; wall-clock medians of whole processes on {os.cpu_count()} CPUs "
        "(in-page targets are timed inside Chromium)."
    )
    lines.append(
        "Peak MiB is the largest high-water mark of any one process of a target, which on Linux starts from "
        f"the size of the process that spawned it; this bench process peaked at {own:.1f} MiB."
    )
    lines.append(
        "All MiB, for targets with a memory budget, is the peak of the memory of all of a target's processes "
        "together (helpers and workers too; shared pages split between them), sampled every "
        f"{_SAMPLE_S * 1000:g} ms in one more, untimed run. A memory budget holds against the larger figure."
    )
    for name, value in facts or []:
        lines.append(f"{name}: {value}")
    return "\n".join(lines)


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
        from masrl.bench import _targets as _bench_targets

        facts = _bench_targets.facts(root, work) if not only or any("site" in o for o in only) else []
        click.echo(format_report(results, runs, facts))
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
