"""Credit over a collection of trace files: read on every core, compared through DuckDB, written back.

``masrl trace credit`` runs in three stages, so its memory depends on the largest task, never on
the size of the collection:

1. every file is read and validated by a process pool, in chunks. A method of one run
   (:data:`~._credit.RUN_METHODS`) credits it there and then. A method that compares runs
   (:data:`~._credit.COLLECTION_METHODS`) keeps one row per run and channel (task, reward, the
   units acting, what an ablation run leaves out), spooled to a JSON Lines file;
2. DuckDB reads that file and hands the runs back sorted by task and channel, a batch at a time
   (it sorts out of memory when it must); each task's runs are credited by
   :func:`~._credit.task_credit` and the credit spooled again, then sorted by file;
3. the pool reads each credited trace again and puts the attributions in.

Nothing is written until every file has passed: a file that does not validate, lacks the reward
channel, or a task the method cannot credit stops the command with every such problem listed.
The traces are edited as JSON documents (every key they hold is kept, the original format's
extra event keys too); each new file is staged beside its target and renamed into place once all
are ready. With ``write`` false the credit comes back as rows instead, for a table.

DuckDB is an optional dependency (``pip install 'masrl[credit]'``), loaded only by the methods
that compare runs and by :mod:`._export`.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET

from masrl.trace import _credit as c
from masrl.trace import _model as m

SMALL = 32  # collections up to this size are read in this process
_CHUNK = 64  # files per task handed to a worker
_BATCH = 4096  # rows fetched from DuckDB at a time
TEAM = ""  # the key of the team's value in a run's credit (JSON keys are strings)
T = TypeVar("T")
ROW_COLUMNS = ("file", "trace_id", "task_id", "channel", "method", "unit", "ref", "index", "value")


class CollectionError(Exception):
    """The collection cannot be credited; ``problems`` lists every reason (file: message)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems[:3]))
        self.problems = problems


class MissingDependency(Exception):
    """DuckDB is needed and not installed."""


@dataclass(frozen=True)
class Job:
    """What to credit, and how."""

    method: str
    unit: str
    channels: tuple[str, ...] = ()  # empty: every channel of each run
    gamma: float = 0.9
    scale: str = "std"
    samples: int | None = None
    seed: int = 0
    strict: bool = False


@dataclass
class Outcome:
    """What a credit run did: traces written (or rows for a table), ablation runs left alone."""

    traces: int = 0
    written: int = 0
    ablations: int = 0
    rows: Path | None = None  # JSON Lines of ROW_COLUMNS, when not writing
    staged: list[tuple[str, str]] = field(default_factory=list)


def duckdb_module() -> Any:
    """DuckDB, or :class:`MissingDependency` saying how to install it."""
    try:
        import duckdb
    except ImportError:
        raise MissingDependency(
            "comparing runs and exporting training data need DuckDB: pip install 'masrl[credit]'"
        ) from None
    return duckdb


def connect(work: Path) -> Any:
    """A DuckDB connection that keeps its memory small and spills to *work*."""
    duckdb = duckdb_module()
    return duckdb.connect(
        config={
            "memory_limit": "512MB",
            "threads": max(1, min(2, os.cpu_count() or 1)),
            "temp_directory": str(work),
            "preserve_insertion_order": False,
        }
    )


# ---------------------------------------------------------------------------------------------
# Stage 1 and 3: one file at a time, in the workers


def _channels(trace: m.AnyTrace, job: Job, shown: str) -> tuple[dict[str, float], str | None]:
    rewards = {} if trace.rewards is UNSET else dict(trace.rewards)
    if not rewards:
        return {}, (
            f'{shown}: the run has no rewards to credit; give it some (such as "rewards": {{"team": 1}}), '
            "or import a framework's reward spans"
        )
    if not job.channels:
        return rewards, None
    missing = [ch for ch in job.channels if ch not in rewards]
    if missing:
        return {}, (
            f"{shown}: the run has no reward on channel {', '.join(map(repr, missing))}; "
            f"its channels are {', '.join(map(repr, sorted(rewards)))}"
        )
    return {ch: rewards[ch] for ch in job.channels}, None


def read_checked(path: str, shown: str, strict: bool) -> tuple[Any, list[str]]:
    from masrl.trace._validate import validate_file

    checked = validate_file(Path(path), shown, strict=strict)
    if not checked.ok or checked.trace is None or checked.graph is None:
        return None, [str(p) for p in checked.problems]
    return checked, []


def _row(shown: str, trace: m.AnyTrace, job: Job, attribution: dict[str, Any]) -> dict[str, Any]:
    return {
        "file": shown,
        "trace_id": trace.trace_id,
        "task_id": None if trace.task_id is UNSET else trace.task_id,
        "channel": attribution["channel"],
        "method": job.method,
        "unit": job.unit,
        "ref": attribution.get("ref"),
        "index": attribution.get("index"),
        "value": attribution["value"],
    }


def _stage(path: str, doc_edit: list[dict[str, Any]], job: Job) -> tuple[str, str]:
    """Write the trace at *path* with *doc_edit* as its new attributions of the job, beside it."""
    target = Path(path)
    doc = msgspec.json.decode(target.read_bytes())
    c.replace_attributions(doc, doc_edit, job.unit, job.method)
    text = msgspec.json.format(msgspec.json.encode(doc), indent=2) + b"\n"
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".credit.tmp")
    with os.fdopen(fd, "wb") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)
    return tmp, path


@dataclass
class _Done:
    """What a worker did with one chunk."""

    problems: list[str] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)  # a table's rows, or runs for stage 2
    staged: list[tuple[str, str]] = field(default_factory=list)
    ablations: int = 0


def _first_pass(chunk: list[tuple[str, str]], job: Job, write: bool) -> _Done:
    done = _Done()
    compare = job.method in c.COLLECTION_METHODS
    for path, shown in chunk:
        checked, problems = read_checked(path, shown, job.strict)
        if problems:
            done.problems.extend(problems)
            continue
        trace, g = checked.trace, checked.graph
        rewards, problem = _channels(trace, job, shown)
        if problem:
            done.problems.append(problem)
            continue
        ablation = trace.ablation
        if compare:
            if trace.task_id is UNSET:
                done.problems.append(f"{shown}: the run has no task_id; {job.method} compares the runs of one task")
                continue
            if ablation is not UNSET:
                done.ablations += 1
                removed = ablation.roles if job.unit == "role" else ablation.agents
                if removed is UNSET:  # it leaves out the other kind of player: no coalition of these
                    continue
                players: list[str] = []
            else:
                removed = None
                players = []
                if job.unit != "team":  # event units take their agent's credit, so their players are agents
                    try:
                        found = c.units(trace, g, job.unit if job.unit in c.PLAYER_UNITS else "agent")
                    except c.Refused as exc:
                        done.problems.append(f"{shown}: {exc}")
                        continue
                    players = [u.ref for u in found if u.ref is not None]
            for channel, reward in rewards.items():
                done.rows.append(
                    {
                        "file": path,
                        "shown": shown,
                        "task": trace.task_id,
                        "channel": channel,
                        "reward": reward,
                        "players": json.dumps(players),
                        "removed": None if removed is None else json.dumps(list(removed)),
                    }
                )
            continue
        try:
            found = c.units(trace, g, job.unit)
        except c.Refused as exc:
            done.problems.append(f"{shown}: {exc}")
            continue
        new: list[dict[str, Any]] = []
        for channel, reward in rewards.items():
            values = c.run_credit(trace, g, found, job.method, reward, job.gamma)
            new.extend(c.attributions_of(found, values, job.unit, channel, job.method))
        _deliver(done, path, shown, trace, job, new, write)
    return done


def _deliver(
    done: _Done, path: str, shown: str, trace: m.AnyTrace, job: Job, new: list[dict[str, Any]], write: bool
) -> None:
    if write:
        if not done.problems:  # a chunk with a problem stages nothing: nothing will be written
            done.staged.append(_stage(path, new, job))
    else:
        done.rows.extend(_row(shown, trace, job, a) for a in new)


def _second_pass(chunk: list[tuple[str, str, dict[str, dict[str, float]]]], job: Job, write: bool) -> _Done:
    """Put the credit each run got (by channel, a value per unit ref) into its trace."""
    done = _Done()
    for path, shown, by_channel in chunk:
        checked, problems = read_checked(path, shown, job.strict)
        if problems:  # pragma: no cover - the file changed between the passes
            done.problems.extend(problems)
            continue
        trace, g = checked.trace, checked.graph
        found = c.units(trace, g, job.unit)
        new: list[dict[str, Any]] = []
        for channel, values in by_channel.items():
            if job.unit in c.EVENT_UNITS:
                team = values.get(TEAM, 0.0)
                credit = [values.get(g.agents[u.events[0]], team) for u in found]
            elif job.unit == "team":
                credit = [values.get(TEAM, 0.0)]
            else:  # a unit the method gives nothing (a member no run leaves out, under leave-one-out) gets none
                credited = [u for u in found if (u.ref or TEAM) in values]
                new.extend(
                    c.attributions_of(
                        credited, [values[u.ref or TEAM] for u in credited], job.unit, channel, job.method
                    )
                )
                continue
            new.extend(c.attributions_of(found, credit, job.unit, channel, job.method))
        _deliver(done, path, shown, trace, job, new, write)
    return done


# ---------------------------------------------------------------------------------------------
# The stages, driven from the command's process


def pool_map(fn: Callable[..., T], chunks: Iterable[list[Any]], *args: Any, parallel: bool) -> Iterator[T]:
    """*fn* over *chunks* in order, on a process pool when *parallel*; at most two chunks per worker
    are in flight, so neither the chunks nor the answers pile up in memory."""
    if not parallel:
        yield from (fn(chunk, *args) for chunk in chunks)
        return
    from masrl.trace import _graph, _metrics, _validate  # noqa: F401 - imported once, inherited by every worker

    workers = os.cpu_count() or 1
    with ProcessPoolExecutor(max_workers=workers) as pool:
        waiting: deque[Future[T]] = deque()
        for chunk in chunks:
            waiting.append(pool.submit(fn, chunk, *args))
            if len(waiting) >= 2 * workers:
                yield waiting.popleft().result()
        while waiting:
            yield waiting.popleft().result()


def chunks(items: Iterable[Any], total: int) -> Iterator[list[Any]]:
    """*items* in chunks sized for the workers (all in one for a small collection)."""
    workers = os.cpu_count() or 1
    size = total if total <= SMALL else max(1, min(_CHUNK, total // (workers * 4) or 1))
    chunk: list[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def credit(
    files: list[tuple[Path, str]],
    job: Job,
    work: Path,
    *,
    write: bool,
    progress: Callable[[int], None] | None = None,
) -> Outcome:
    """Credit every trace of *files* ((path, name shown)); see the module docstring.

    *work* is a scratch folder. Raises :class:`CollectionError` with every problem (and removes
    whatever was staged), :class:`~._credit.Refused` when the method cannot apply to the unit, and
    :class:`MissingDependency` when DuckDB is needed but absent.
    """
    c.check_unit(job.method, job.unit)
    compare = job.method in c.COLLECTION_METHODS
    if compare:
        duckdb_module()
    outcome = Outcome(traces=len(files))
    problems: list[str] = []
    spool = work / ("runs.jsonl" if compare else "rows.jsonl")
    encoder = msgspec.json.Encoder()
    try:
        with spool.open("wb") as out:
            items = ((str(p), s) for p, s in files)
            parallel = len(files) > SMALL
            for done in pool_map(_first_pass, chunks(items, len(files)), job, write and not compare, parallel=parallel):
                problems.extend(done.problems)
                outcome.staged.extend(done.staged)
                outcome.ablations += done.ablations
                for r in done.rows:
                    out.write(encoder.encode(r) + b"\n")
                if progress is not None:
                    progress(1)
        if problems:
            raise CollectionError(problems)
        if compare:
            credited = work / "credit.jsonl"
            count = _compare(spool, credited, job, work)
            rows = work / "rows.jsonl"
            with rows.open("wb") as out:
                batches = chunks(_credited(credited, work), count)
                for done in pool_map(_second_pass, batches, job, write, parallel=count > SMALL):
                    problems.extend(done.problems)
                    outcome.staged.extend(done.staged)
                    for r in done.rows:
                        out.write(encoder.encode(r) + b"\n")
            if problems:  # pragma: no cover - a file changed between the passes
                raise CollectionError(problems)
            spool = rows
        if write:
            for tmp, path in outcome.staged:
                os.replace(tmp, path)
            outcome.written = len(outcome.staged)
            outcome.staged = []
        else:
            outcome.rows = spool
    finally:
        for tmp, _ in outcome.staged:
            Path(tmp).unlink(missing_ok=True)
    return outcome


def _compare(runs: Path, out: Path, job: Job, work: Path) -> int:
    """Stage 2: credit each task's runs, from *runs* (JSON Lines) to *out* (a JSON Lines row per
    credited run and channel); returns the number of files credited."""
    con = connect(work)
    problems: list[str] = []
    tasks = pairs = 0
    files: set[str] = set()  # only to count them (the names of one collection fit in memory)
    try:
        cursor = con.execute(
            "select file, shown, task, channel, reward, players, removed from read_json(?, format='newline_delimited', "
            "columns={file: 'VARCHAR', shown: 'VARCHAR', task: 'VARCHAR', channel: 'VARCHAR', reward: 'DOUBLE', "
            "players: 'VARCHAR', removed: 'VARCHAR'}) order by task, channel, file",
            [str(runs)],
        )
        encoder = msgspec.json.Encoder()
        with out.open("wb") as sink:
            for key, rows in grouped(cursor, lambda r: (r[2], r[3])):
                task, channel = key
                tasks += 1
                runs_of = [
                    c.Run(
                        reward=r[4],
                        players=tuple(json.loads(r[5])),
                        removed=None if r[6] is None else tuple(json.loads(r[6])),
                    )
                    for r in rows
                ]
                try:
                    credit = c.task_credit(
                        runs_of, job.method, task=task, scale=job.scale, samples=job.samples, seed=job.seed
                    )
                except c.Refused as exc:
                    problems.append(f"{exc}; {_instead(job.method)}")
                    continue
                if job.method == "group" and sum(r.removed is None for r in runs_of) > 1:
                    pairs += 1
                for r, values in zip(rows, credit, strict=True):
                    if values is None:
                        continue
                    files.add(r[0])
                    shown = {TEAM if k is None else k: v for k, v in values.items()}
                    sink.write(
                        encoder.encode({"file": r[0], "shown": r[1], "channel": channel, "values": shown}) + b"\n"
                    )
    finally:
        con.close()
    if problems:
        raise CollectionError(problems)
    if job.method == "group" and tasks and not pairs:
        raise CollectionError(
            [
                "every task has a single run of the full team: group compares several runs of one task_id "
                "(run the task more than once); split or broadcast credit single runs"
            ]
        )
    return len(files)


def _instead(method: str) -> str:
    if method == "shapley":
        return (
            'mark each run of a coalition with the agents it leaves out ("ablation": {"agents": [...]}); '
            "leave-one-out needs only the runs without one agent each, group none"
        )
    return 'mark a run without each agent with "ablation": {"agents": [NAME]}; group needs no ablation runs'


def grouped(cursor: Any, key: Callable[[Any], Any]) -> Iterator[tuple[Any, list[Any]]]:
    """Consecutive rows of *cursor* with equal *key*, fetched a batch at a time."""
    current: list[Any] = []
    current_key: Any = None
    while True:
        batch = cursor.fetchmany(_BATCH)
        if not batch:
            break
        for row in batch:
            k = key(row)
            if current and k != current_key:
                yield current_key, current
                current = []
            current_key = k
            current.append(row)
    if current:
        yield current_key, current


def _credited(credited: Path, work: Path) -> Iterator[tuple[str, str, dict[str, dict[str, float]]]]:
    """The credited runs one file at a time (with each channel's values), from DuckDB's sorted answer."""
    con = connect(work)
    try:
        cursor = con.execute(
            "select file, shown, channel, values from read_json(?, format='newline_delimited', "
            "columns={file: 'VARCHAR', shown: 'VARCHAR', channel: 'VARCHAR', values: 'JSON'}) order by file, channel",
            [str(credited)],
        )
        for (path, shown), rows in grouped(cursor, lambda r: (r[0], r[1])):
            yield path, shown, {r[2]: json.loads(r[3]) for r in rows}
    finally:
        con.close()


def read_rows(path: Path) -> Iterator[dict[str, Any]]:
    """The rows a credit run spooled (see :attr:`Outcome.rows`)."""
    with path.open("rb") as handle:
        for line in handle:
            yield msgspec.json.decode(line)
