"""Validate trace files: the schema (through :mod:`._read`) and then the graph (through :mod:`._graph`).

:func:`validate_file` is the one entry point every command uses before it trusts a trace. A trace
that declares ``schema_version`` must keep every rule; one without it is read under the survey's
original format, where the graph rules the original did not check are warnings (errors with
``strict``), as are values of a shape this version does not read (kept as opaque data).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from masrl.trace import _model as m
from masrl.trace._graph import EdgeFindings, Graph, check
from masrl.trace._helper import EdgeHelper
from masrl.trace._problems import TraceProblem, ordered
from masrl.trace._read import decode, read_trace


@dataclass
class Checked:
    """A trace file after validation: the trace and its graph when both are sound, the problems and warnings."""

    shown: str
    trace: m.AnyTrace | None
    graph: Graph | None
    problems: list[TraceProblem]
    warnings: list[TraceProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_file(path: Path, shown: str | None = None, *, strict: bool = False, helper: bool = False) -> Checked:
    """Read and check the trace in *path*; graph rules are checked only once the schema holds.

    With *helper*, a large file's edge rules are checked in a forked process while this one
    decodes the file (:mod:`._helper`): the same answer, sooner on two or more CPUs. Only a
    single-threaded caller, such as the command line, should ask for it.
    """
    shown = shown if shown is not None else str(path)
    if not helper:
        trace, problems = read_trace(path, shown)
        return _finish(trace, problems, shown, strict)
    with EdgeHelper() as edges:
        trace, problems = read_trace(path, shown, edges.start)
        return _finish(trace, problems, shown, strict, edges)


def validate_bytes(raw: bytes, shown: str, *, strict: bool = False) -> Checked:
    """Like :func:`validate_file`, for the bytes of a trace."""
    trace, problems = decode(raw, shown)
    return _finish(trace, problems, shown, strict)


def _finish(
    trace: m.AnyTrace | None,
    problems: list[TraceProblem],
    shown: str,
    strict: bool,
    helper: EdgeHelper | None = None,
) -> Checked:
    errors = [p for p in problems if not p.warning]
    if trace is None or errors:
        return Checked(shown, None, None, ordered(errors))
    checked = validate_trace(trace, shown, strict=strict, edges=helper.result if helper else None)
    read_warnings = [TraceProblem(p.path, p.where, p.message, warning=not strict) for p in problems]
    if strict:
        checked.problems = ordered([*checked.problems, *read_warnings])
        if checked.problems:
            checked.trace = checked.graph = None
    else:
        checked.warnings = ordered([*checked.warnings, *read_warnings])
    return checked


def validate_trace(
    trace: m.AnyTrace,
    shown: str,
    *,
    strict: bool = False,
    edges: Callable[[], EdgeFindings | None] | None = None,
) -> Checked:
    """Check the graph rules of a decoded *trace* (warnings for one in the original format).

    *edges*: where to ask for the findings of rules 1 to 4, when a helper checks them.
    """
    original, found, graph = check(trace, edges)
    lenient = m.is_original(trace) and not strict
    errors = ordered(
        TraceProblem(shown, where, message) for where, message in (original if lenient else original + found)
    )
    warnings = ordered(TraceProblem(shown, where, message, warning=True) for where, message in found) if lenient else []
    return Checked(shown, trace, graph, errors, warnings)


def trace_files(paths: Iterable[Path]) -> Iterator[Path]:
    """*paths*, with each folder replaced by the ``.json`` files under it, sorted."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.json") if p.is_file())
        else:
            yield path
