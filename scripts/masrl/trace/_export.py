"""Training data from credited traces: each model call's messages joined with its credit.

``masrl trace export`` turns a collection into samples, one per model call: an event whose
``content_ref`` names a record of the trace's side store (:mod:`._content`). A sample carries the
call's agent and role, its input and output messages, the run's reward on the channel and the
call's credit on it (its *advantage*): the credit of the finest unit that covers the call, from
the call's own event (turn, message, tool; its tokens' mean) to its agent, its role, its agent as
orchestrator, and the team.

The formats follow the dataset types that TRL's trainers document ("Dataset formats and types",
https://huggingface.co/docs/trl/dataset_formats), in their conversational form:

* ``transitions``: one row per call with ``agent``, ``role``, ``input``, ``output``, ``reward``,
  ``advantage``, ``trace_id``, ``task_id``, ``event_id`` (and ``channel``, ``method``, ``unit``);
* ``sft``: conversational language modeling, ``messages`` (input then output), for the calls whose
  advantage is above ``--min-advantage`` (SFTTrainer);
* ``dpo``: preference with an explicit prompt, ``prompt``, ``chosen``, ``rejected`` (DPOTrainer):
  calls of the same agent on the same task at the same turn (its k-th call of the run), from two
  runs, the one with the higher advantage chosen; each group's calls are paired best with worst,
  second best with second worst, and so on, while their advantages differ (a pair whose two sides
  read the same is left out). The prompt is what the two inputs share from the start; what
  follows it in each input goes before that call's output;
* ``kto``: unpaired preference, ``prompt``, ``completion``, ``label`` (KTOTrainer): a call is
  desirable when its advantage is above ``--min-advantage``.

Like credit, the export streams: the pool reads the traces and spools samples; DuckDB sorts them
for the pairs and writes Parquet. Output is JSON Lines, or Parquet by the suffix ``.parquet``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from msgspec import UNSET

from masrl.trace import _collection as col
from masrl.trace import _content
from masrl.trace import _model as m

FORMATS = ("transitions", "sft", "dpo", "kto")
TRL_DOC = "https://huggingface.co/docs/trl/dataset_formats"
# The columns of each format, in order.
COLUMNS: dict[str, tuple[str, ...]] = {
    "transitions": (
        "agent",
        "role",
        "input",
        "output",
        "reward",
        "advantage",
        "trace_id",
        "task_id",
        "event_id",
        "channel",
        "method",
        "unit",
    ),
    "sft": ("messages",),
    "dpo": ("prompt", "chosen", "rejected"),
    "kto": ("prompt", "completion", "label"),
}
# The finest unit first: the credit of a call is the first of these that covers it.
_EVENT_UNITS = ("turn", "message", "tool", "token")
_MESSAGES = (
    "STRUCT(role VARCHAR, content VARCHAR, tool_calls STRUCT(type VARCHAR, function STRUCT(name VARCHAR, "
    "arguments VARCHAR))[])[]"
)
_TYPES = {
    "agent": "VARCHAR",
    "role": "VARCHAR",
    "input": _MESSAGES,
    "output": _MESSAGES,
    "reward": "DOUBLE",
    "advantage": "DOUBLE",
    "trace_id": "VARCHAR",
    "task_id": "VARCHAR",
    "event_id": "VARCHAR",
    "channel": "VARCHAR",
    "method": "VARCHAR",
    "unit": "VARCHAR",
    "messages": _MESSAGES,
    "prompt": _MESSAGES,
    "chosen": _MESSAGES,
    "rejected": _MESSAGES,
    "completion": _MESSAGES,
    "label": "BOOLEAN",
}


@dataclass(frozen=True)
class Job:
    """What to export."""

    to: str
    agents: tuple[str, ...] = ()  # only these agents' calls (all when empty)
    channel: str | None = None  # the reward channel (the only one of each run when not given)
    method: str | None = None  # the credit method whose values are read (the only one when not given)
    min_advantage: float = 0.0
    strict: bool = False


@dataclass
class Outcome:
    """What an export wrote."""

    traces: int = 0
    calls: int = 0
    rows: int = 0


@dataclass
class _Done:
    problems: list[str] = field(default_factory=list)
    samples: list[bytes] = field(default_factory=list)  # JSON lines


def samples_of(trace: m.AnyTrace, store: dict[str, dict[str, Any]], job: Job, shown: str) -> list[dict[str, Any]]:
    """The samples of one trace: a dict per model call (see the module docstring); raises
    :class:`~._credit.Refused` with what is missing."""
    from masrl.trace._credit import Refused

    calls = [e for e in trace.events if e.content_ref is not UNSET and e.content_ref in store]
    if not calls:
        raise Refused(
            f"{shown}: the trace holds no content: import it with 'masrl trace import otel --content' to keep each "
            f"model call's messages beside it ({_content.store_path(Path(shown)).name})"
        )
    rewards = {} if trace.rewards is UNSET else trace.rewards
    channel = job.channel
    if channel is None:
        if len(rewards) != 1:
            named = ", ".join(map(repr, sorted(rewards))) or "none"
            raise Refused(f"{shown}: choose the reward channel with --channel (the run's channels: {named})")
        channel = next(iter(rewards))
    if channel not in rewards:
        raise Refused(f"{shown}: the run has no reward on channel {channel!r}")
    credit = [a for a in ([] if trace.attributions is UNSET else trace.attributions) if a.channel == channel]
    methods = sorted({a.method for a in credit if a.method is not UNSET})
    method = job.method
    if method is None and len(methods) > 1:
        raise Refused(
            f"{shown}: the run holds credit of several methods ({', '.join(methods)}); choose one with --method"
        )
    if method is None and methods:
        method = methods[0]
    if method is not None:
        credit = [a for a in credit if a.method == method]
    by: dict[tuple[str, str], list[float]] = {}
    for a in credit:
        by.setdefault((a.unit, "" if a.ref is UNSET else a.ref), []).append(a.value)
    out = []
    count: dict[str, int] = {}
    for e in calls:
        if job.agents and e.agent not in job.agents:
            count[e.agent] = count.get(e.agent, 0) + 1
            continue
        found = _advantage(by, e)
        if found is None:
            raise Refused(
                f"{shown}: no credit on channel {channel!r}{f' by {method}' if method else ''} covers the model call "
                f"{e.id!r} of {e.agent!r}: credit the runs first (masrl trace credit --unit agent --method group)"
            )
        unit, value = found
        record = store[str(e.content_ref)]
        out.append(
            {
                "agent": e.agent,
                "role": None if e.role is UNSET or not e.role else e.role,
                "input": record["input"],
                "output": record["output"],
                "reward": rewards[channel],
                "advantage": value,
                "trace_id": trace.trace_id,
                "task_id": None if trace.task_id is UNSET else trace.task_id,
                "event_id": e.id,
                "channel": channel,
                "method": method,
                "unit": unit,
                "turn": count.get(e.agent, 0),
            }
        )
        count[e.agent] = count.get(e.agent, 0) + 1
    return out


def _advantage(by: dict[tuple[str, str], list[float]], e: Any) -> tuple[str, float] | None:
    for unit in _EVENT_UNITS:
        values = by.get((unit, e.id))
        if values:
            return unit, math.fsum(values) / len(values)
    role = "" if e.role is UNSET else e.role
    for unit, ref in (("agent", e.agent), ("role", role), ("orchestrator", e.agent), ("team", "")):
        values = by.get((unit, ref))
        if values:
            return unit, values[0]
    return None


def _read_pass(chunk: list[tuple[str, str]], job: Job) -> _Done:
    from masrl.trace._credit import Refused

    done = _Done()
    encoder = msgspec.json.Encoder()
    for path, shown in chunk:
        checked, problems = col.read_checked(path, shown, job.strict)
        if problems:
            done.problems.extend(problems)
            continue
        try:
            text = _content.store_path(Path(path)).read_text(encoding="utf-8")
        except OSError:
            text = ""
        try:
            samples = samples_of(checked.trace, _content.read_store(text), job, shown)
        except Refused as exc:
            done.problems.append(str(exc))
            continue
        done.samples.extend(encoder.encode(s) for s in samples)
    return done


def common_prefix(a: Sequence[Any], b: Sequence[Any]) -> int:
    """How many messages *a* and *b* share from the start."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def pairs(group: Sequence[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """DPO rows from one group of calls (same task, agent and turn): best with worst, and inwards."""
    ranked = sorted(group, key=lambda s: (-s["advantage"], s["trace_id"]))
    for k in range(len(ranked) // 2):
        chosen, rejected = ranked[k], ranked[-1 - k]
        if chosen["advantage"] <= rejected["advantage"]:
            break
        shared = common_prefix(chosen["input"], rejected["input"])
        better = [*chosen["input"][shared:], *chosen["output"]]
        worse = [*rejected["input"][shared:], *rejected["output"]]
        if better != worse:  # the same answer twice teaches no preference
            yield {"prompt": chosen["input"][:shared], "chosen": better, "rejected": worse}


def row_of(sample: dict[str, Any], job: Job) -> dict[str, Any] | None:
    """The row of one sample in format sft, kto or transitions (None: left out)."""
    if job.to == "transitions":
        return {k: sample[k] for k in COLUMNS["transitions"]}
    if job.to == "sft":
        if sample["advantage"] <= job.min_advantage:
            return None
        return {"messages": [*sample["input"], *sample["output"]]}
    return {"prompt": sample["input"], "completion": sample["output"], "label": sample["advantage"] > job.min_advantage}


def export(files: list[tuple[Path, str]], job: Job, out: Path, work: Path, *, parquet: bool) -> Outcome:
    """Export *files* to *out* (JSON Lines, or Parquet with *parquet*), through a staging file
    beside it; *work* is a scratch folder. Raises :class:`~._collection.CollectionError` with every
    problem, and writes nothing then."""
    if job.to == "dpo" or parquet:
        col.duckdb_module()
    outcome = Outcome(traces=len(files))
    spool = work / "samples.jsonl"
    problems: list[str] = []
    with spool.open("wb") as sink:
        items = ((str(p), s) for p, s in files)
        for done in col.pool_map(_read_pass, col.chunks(items, len(files)), job, parallel=len(files) > col.SMALL):
            problems.extend(done.problems)
            outcome.calls += len(done.samples)
            for line in done.samples:
                sink.write(line + b"\n")
    if problems:
        raise col.CollectionError(problems)
    rows = work / "rows.jsonl"
    encoder = msgspec.json.Encoder()
    with rows.open("wb") as sink:
        for row in _rows(spool, job, work):
            sink.write(encoder.encode(row) + b"\n")
            outcome.rows += 1
    staged = out.with_name(f".{out.name}.export.tmp")
    try:
        if parquet:
            _parquet(rows, staged, job, work)
        else:
            os.replace(rows, staged)
        os.replace(staged, out)
    finally:
        staged.unlink(missing_ok=True)
    return outcome


def _rows(spool: Path, job: Job, work: Path) -> Iterator[dict[str, Any]]:
    if job.to != "dpo":
        with spool.open("rb") as handle:
            for line in handle:
                row = row_of(json.loads(line), job)
                if row is not None:
                    yield row
        return
    yield from _dpo(spool, work)


def _dpo(spool: Path, work: Path) -> Iterator[dict[str, Any]]:
    """Pairs of calls of one agent on one task at one turn, sorted by DuckDB; each group's lines are
    read back from the spool by their offsets, so only one group is in memory."""
    index = work / "index.jsonl"
    with spool.open("rb") as handle, index.open("wb") as sink:
        offset = 0
        for line in handle:
            s = json.loads(line)
            if s["task_id"] is not None:
                sink.write(
                    json.dumps({"task": s["task_id"], "agent": s["agent"], "turn": s["turn"], "pos": offset}).encode()
                    + b"\n"
                )
            offset += len(line)
    con = col.connect(work)
    try:
        cursor = con.execute(
            "select task, agent, turn, pos from read_json(?, format='newline_delimited', columns={task: 'VARCHAR', "
            "agent: 'VARCHAR', turn: 'BIGINT', pos: 'BIGINT'}) order by task, agent, turn, pos",
            [str(index)],
        )
        with spool.open("rb") as handle:
            for _, rows in col.grouped(cursor, lambda r: (r[0], r[1], r[2])):
                group = []
                for row in rows:
                    handle.seek(row[3])
                    group.append(json.loads(handle.readline()))
                yield from pairs(group)
    finally:
        con.close()


def _parquet(rows: Path, target: Path, job: Job, work: Path) -> None:
    names = COLUMNS[job.to]
    columns = ", ".join(f"{n}: '{_TYPES[n]}'" for n in names)
    con = col.connect(work)
    try:
        con.execute(
            f"copy (select {', '.join(names)} from read_json({_quoted(rows)}, format='newline_delimited', "
            f"columns={{{columns}}})) to {_quoted(target)} (format parquet)"
        )
    finally:
        con.close()


def _quoted(path: Path) -> str:
    """*path* as an SQL string literal."""
    return "'" + str(path).replace("'", "''") + "'"
