"""Measuring a benchmark target: whole processes timed, their peak memory read, the report.

A :class:`Target` is one timed benchmark; :func:`measure` runs it several times and returns a
:class:`Result`; :func:`format_report` prints the results next to each target's budget.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


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
