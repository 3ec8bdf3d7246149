"""Validate and encode the traces of an OpenTelemetry import, one by one or on all cores.

Each trace of an export is converted, validated and encoded on its own, so a folder import of many
traces is spread over a process pool (forked, so the workers share the spans read by the parent
instead of receiving copies). Each trace comes back as its text, or as a file in a staging
folder beside the output when a worker encoded it, with the lines to report; the command moves
the files into place only once every trace has passed, so a refused trace leaves nothing
half-written.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from masrl.trace._content import store_text
from masrl.trace._otel import Imported, Skipped, Span, Unmapped, convert_trace
from masrl.trace._validate import validate_trace


@dataclass
class Outcome:
    """What became of one trace: its text, or skipped (nothing maps) or refused, and the lines to print."""

    path: Path | None = None  # where the trace goes (None: standard output)
    text: str | None = None  # the trace, validated and encoded
    staged: Path | None = None  # or the file in the staging folder that holds it
    content: str | None = None  # its side store of message content (import --content), beside it
    refused: bool = False
    out: list[str] = field(default_factory=list)  # problems, for standard output
    err: list[str] = field(default_factory=list)  # reports, for standard error


def unmapped_lines(shown: str, unmapped: list[Unmapped]) -> list[str]:
    """One line per reason: the span when it is the only one, else how many and the first."""
    by_reason: dict[str, list[Unmapped]] = {}
    for u in unmapped:
        by_reason.setdefault(u.reason, []).append(u)
    lines = []
    for reason, spans in by_reason.items():
        u = spans[0]
        if len(spans) == 1:
            lines.append(f"{shown}: {u.where}: span {u.name or u.span_id!r} not mapped: {reason}")
        else:
            lines.append(
                f"{shown}: {len(spans)} spans not mapped: {reason} (the first: {u.name or u.span_id!r} at {u.where})"
            )
    return lines


def encode_one(shown: str, result: Imported | Skipped, output: Path | None) -> Outcome:
    """Validate one imported trace and encode it, to be written to *output* (None: standard output)."""
    if isinstance(result, Skipped):
        return Outcome(
            err=[f"{shown}: trace {result.trace_id}: none of its {result.spans} spans maps to an event; not written"]
        )
    outcome = Outcome(err=[f"{shown}: warning: {w}" for w in result.warnings] + unmapped_lines(shown, result.unmapped))
    checked = validate_trace(result.trace, str(output or "<imported trace>"))
    if not checked.ok:
        outcome.refused = True
        outcome.err.append(f"{shown}: trace {result.trace.trace_id}: the imported trace does not validate; not written")
        outcome.out = [str(p) for p in checked.problems]
        return outcome
    outcome.path = output
    outcome.text = msgspec.json.format(msgspec.json.encode(result.trace), indent=2).decode("utf-8") + "\n"
    if result.content:
        outcome.content = store_text(result.content)
    outcome.err.append(
        f"trace {result.trace.trace_id}: {result.spans} spans as {len(result.trace.events)} events and "
        f"{len(result.trace.edges)} edges; {len(result.unmapped)} not mapped"
        + (f"; {result.adjusted} moved inside their parent span" if result.adjusted else "")
        + (f"; the content of {len(result.content)} model calls kept beside it" if result.content else "")
    )
    return outcome


# What the forked workers share: the spans of each trace and where to write.
_SHARED: dict[str, Any] = {}


def _job(trace_id: str) -> Outcome:
    shared = _SHARED
    result = convert_trace(
        trace_id,
        shared["groups"][trace_id],
        system=shared["system"],
        content=shared["content"],
        task=shared["task"],
        rewards=shared["rewards"],
    )
    outcome = encode_one(shared["shown"], result, shared["folder"] / f"{trace_id}.json")
    if outcome.text is not None and shared["staging"] is not None:  # a worker: hand back a file, not the text
        outcome.staged = shared["staging"] / f"{trace_id}.json"
        outcome.staged.write_text(outcome.text, encoding="utf-8")
        outcome.text = None
    return outcome


def encode_folder(
    shown: str,
    groups: dict[str, list[Span]],
    system: str | None,
    folder: Path,
    staging: Path,
    *,
    workers: int | None = None,
    content: bool = False,
    task: str | None = None,
    rewards: dict[str, float] | None = None,
) -> Iterator[Outcome]:
    """Import every trace of *groups*, bound for *folder*, in trace order, on up to *workers* processes
    (which leave the traces they encode in *staging*, a folder on the same file system)."""
    workers = min(workers if workers is not None else (os.cpu_count() or 1), len(groups))
    parallel = workers > 1 and "fork" in multiprocessing.get_all_start_methods()
    _SHARED.update(
        groups=groups,
        system=system,
        folder=folder,
        shown=shown,
        staging=staging if parallel else None,
        content=content,
        task=task,
        rewards=rewards,
    )
    try:
        if not parallel:
            yield from map(_job, groups)
            return
        chunk = max(1, len(groups) // (workers * 4))
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            yield from pool.map(_job, list(groups), chunksize=chunk)
    finally:
        _SHARED.clear()
