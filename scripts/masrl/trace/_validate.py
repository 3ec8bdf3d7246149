"""Validate trace files: the schema (through :mod:`._read`) and then the graph (through :mod:`._graph`).

:func:`validate_file` is the one entry point every command uses before it trusts a trace.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from masrl.trace import _model as m
from masrl.trace._graph import Graph, check
from masrl.trace._problems import TraceProblem, ordered
from masrl.trace._read import read_trace


@dataclass
class Checked:
    """A trace file after validation: the trace and its graph when both are sound, and the problems."""

    shown: str
    trace: m.Trace | None
    graph: Graph | None
    problems: list[TraceProblem]

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_file(path: Path, shown: str | None = None) -> Checked:
    """Read and check the trace in *path*; graph rules are checked only once the schema holds."""
    shown = shown if shown is not None else str(path)
    trace, problems = read_trace(path, shown)
    if trace is None:
        return Checked(shown, None, None, ordered(problems))
    return validate_trace(trace, shown)


def validate_trace(trace: m.Trace, shown: str) -> Checked:
    """Check the graph rules of an already decoded *trace*."""
    found, graph = check(trace)
    problems = ordered(TraceProblem(shown, where, message) for where, message in found)
    return Checked(shown, trace, graph, problems)


def trace_files(paths: Iterable[Path]) -> Iterator[Path]:
    """*paths*, with each folder replaced by the ``.json`` files under it, sorted."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.json") if p.is_file())
        else:
            yield path
