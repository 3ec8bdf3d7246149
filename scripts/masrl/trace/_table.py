"""Metrics of a whole collection of traces as one table: a row per trace, in CSV, JSON Lines or Parquet.

Rows are computed on every core by a process pool (:mod:`concurrent.futures`), files handed out
in chunks; a small collection is done in this process. A file that cannot be read or does not
validate still gets its row, with ``problem`` (its first problem) and ``errors`` filled in and the
metrics empty, and the others go on. Parquet is written with pyarrow (the ``parquet`` extra), so
DuckDB, pandas, Polars or Spark read the file as it is.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

FORMATS = ("csv", "jsonl", "parquet")
REWARD_PREFIX = "reward_"
# Columns before the reward channels, with their Parquet types; then the channels, then the counts.
COLUMNS: dict[str, str] = {
    "file": "string",
    "id": "string",
    "system": "string",
    "topology": "string",
    "events": "int64",
    "agents": "int64",
    "critical_steps": "int64",
    "parallel_speedup": "float64",
    "makespan": "float64",
    "tokens": "int64",
    "cost": "float64",
}
TAIL: dict[str, str] = {"warnings": "int64", "errors": "int64", "problem": "string"}
COLUMN_MEANINGS: dict[str, str] = {
    "file": "The trace file, as given or found under a folder.",
    "id": "trace_id.",
    "system": "system, when given.",
    "topology": "topology, when given.",
    "events": "Number of events.",
    "agents": "Number of agents of the team (tools and outside actors not counted).",
    "critical_steps": "Events on the longest path through the event graph.",
    "parallel_speedup": "steps / critical_steps (tools one agent asks for together count as one step).",
    "makespan": "makespan_s: latest finish minus earliest start, in seconds.",
    "tokens": "Tokens summed over events; when no event counts tokens, the run's recorded costs.tokens.",
    "cost": "US dollars: per-event cost.usd summed; when no event has one, the run's recorded costs.usd.",
    "reward_<channel>": "The run's reward on each channel found in the collection (empty where a trace lacks it).",
    "warnings": "Warnings (rules the original format did not check, broken by a trace in that format).",
    "errors": "Problems that make the trace invalid; its metrics are then empty.",
    "problem": "The first problem of an invalid trace.",
}
_SMALL = 32  # collections up to this size are measured in this process
_CHUNK = 64  # files per task handed to a worker


class TableError(Exception):
    """The table cannot be written (an unknown format, or pyarrow missing for Parquet)."""


def table_format(out: Path) -> str:
    """The format named by *out*'s suffix; TableError if it is not one of :data:`FORMATS`."""
    suffix = out.suffix.lstrip(".").lower()
    if suffix not in FORMATS:
        raise TableError(
            f"{out}: the table's file name must end in .csv, .jsonl or .parquet, not {out.suffix or 'nothing'!r}"
        )
    if suffix == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise TableError(
                "writing Parquet needs pyarrow: pip install 'masrl[parquet]' (or write .csv or .jsonl)"
            ) from None
    return suffix


def row(path: Path, shown: str | None = None, strict: bool = False) -> dict[str, Any]:
    """The table row of the trace in *path* (reward channels as ``reward_<channel>`` keys)."""
    from masrl.trace._metrics import summary
    from masrl.trace._validate import validate_file

    shown = shown if shown is not None else str(path)
    checked = validate_file(path, shown, strict=strict)
    out: dict[str, Any] = dict.fromkeys([*COLUMNS, *TAIL])
    out.update(file=shown, warnings=len(checked.warnings), errors=len(checked.problems))
    trace, graph = checked.trace, checked.graph
    if not checked.ok or trace is None or graph is None:
        first = checked.problems[0]
        out["problem"] = f"{first.where or '(trace)'}: {first.message}"
        return out
    r = summary(trace, graph)
    recorded = {} if not trace.costs else trace.costs
    out.update(
        id=trace.trace_id,
        system=None if not trace.system else trace.system,
        topology=None if not trace.topology else trace.topology,
        events=r["events"],
        agents=r["agents"],
        critical_steps=r["critical_steps"],
        parallel_speedup=float(r["parallel_speedup"]),
        makespan=float(r["makespan_s"]),
        tokens=r["tokens"] if r["tokens"] is not None else _whole(recorded.get("tokens")),
        cost=float(r["usd"]) if r["usd"] is not None else _real(recorded.get("usd")),
    )
    for channel, value in (trace.rewards or {}).items():
        out[REWARD_PREFIX + channel] = float(value)
    return out


def _whole(value: Any) -> int | None:
    return None if value is None else int(value)


def _real(value: Any) -> float | None:
    return None if value is None else float(value)


def _rows_of(chunk: list[tuple[str, str]], strict: bool) -> list[dict[str, Any]]:
    return [row(Path(path), shown, strict) for path, shown in chunk]


def rows(
    files: list[tuple[Path, str]], *, strict: bool = False, progress: Callable[[int], None] | None = None
) -> Iterator[dict[str, Any]]:
    """A row per file of *files* ((path, name shown)), in order; *progress* is told of each finished chunk."""
    if len(files) <= _SMALL:
        for path, shown in files:
            yield row(path, shown, strict)
            if progress:
                progress(1)
        return
    from masrl.trace import _metrics, _validate  # noqa: F401 - imported once here, inherited by every worker

    workers = os.cpu_count() or 1
    chunk = max(1, min(_CHUNK, len(files) // (workers * 4) or 1))
    chunks = [[(str(p), s) for p, s in files[k : k + chunk]] for k in range(0, len(files), chunk)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for done in pool.map(_rows_of, chunks, [strict] * len(chunks)):
            yield from done
            if progress:
                progress(len(done))


def columns(table: list[dict[str, Any]]) -> list[str]:
    """The table's columns: the fixed ones, a ``reward_<channel>`` per channel seen (sorted), the counts."""
    channels = sorted({key for r in table for key in r if key.startswith(REWARD_PREFIX)})
    return [*COLUMNS, *channels, *TAIL]


def encode(table: list[dict[str, Any]], kind: str) -> bytes:
    """*table* as the bytes of a CSV, JSON Lines or Parquet file."""
    names = columns(table)
    if kind == "csv":
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(names)
        for r in table:
            writer.writerow(["" if r.get(n) is None else r[n] for n in names])
        return text.getvalue().encode("utf-8")
    if kind == "jsonl":
        return "".join(json.dumps({n: r.get(n) for n in names}, ensure_ascii=False) + "\n" for r in table).encode()
    return _parquet(table, names)


def _parquet(table: list[dict[str, Any]], names: list[str]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {**COLUMNS, **TAIL}
    schema = pa.schema([(n, getattr(pa, types.get(n, "float64"))()) for n in names])
    data = pa.Table.from_pydict({n: [r.get(n) for r in table] for n in names}, schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(data, sink)
    return bytes(sink.getvalue().to_pybytes())
