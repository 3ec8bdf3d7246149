"""``masrl trace``: check, measure, draw, import and generate orchestration traces.

Each subcommand parses its options, calls one function of the trace package and prints the result;
bad input becomes problems on standard output, a count on standard error and exit code 1. Only
click is imported here: the trace modules (and msgspec, jsonschema) load when a subcommand runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from masrl.base._cli_common import MasrlError, ReportedFailure, collector_paused, keep_until_exit

if TYPE_CHECKING:
    from masrl.trace._otel_write import Outcome
    from masrl.trace._validate import Checked

_FILES = click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
_FILE = click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))


@click.group(name="trace")
def command() -> None:
    """Check, measure, draw and import orchestration traces (schemas/trace.schema.json).

    A trace is one run of a team of agents: timed events (decisions, spawns, messages, tool calls
    and results, returns, aggregation, human and safety events), typed edges between them, and
    the run's rewards and costs. Example traces live in traces/.
    """


def _report(checked: list[Checked], *, quiet_warnings: bool = False) -> None:
    """Print every problem and warning of *checked* and the count; exit 1 if there is any problem."""
    from masrl.trace._problems import ordered, summary

    problems = [p for c in checked for p in c.problems]
    warnings = [w for c in checked for w in c.warnings]
    for problem in ordered([*problems, *([] if quiet_warnings else warnings)]):
        click.echo(str(problem))
    click.echo(summary(problems, len(checked), len(warnings)), err=True)
    if problems:
        raise ReportedFailure()


def _checked(file: Path, strict: bool = False) -> Checked:
    """The validated trace in *file*, or print its problems and exit 1 (warnings go to standard error)."""
    from masrl.trace._validate import validate_file

    with collector_paused():
        checked = validate_file(file, strict=strict, helper=True)
    keep_until_exit(checked)
    if not checked.ok:
        _report([checked])
    for warning in checked.warnings:
        click.echo(str(warning), err=True)
    return checked


_STRICT = click.option(
    "--strict",
    is_flag=True,
    help="Treat the warnings of a trace without schema_version (graph rules the original format did not check) as errors.",
)


@command.command(name="validate")
@_FILES
@_STRICT
def validate(files: tuple[Path, ...], strict: bool) -> None:
    """Check trace files against the schema and the rules of the event graph.

    Checks full conformance with schemas/trace.schema.json, then the graph: unique event ids,
    edges whose ends exist, no cycle, no edge back in time, agents acting only after they are
    spawned (roots acting from the start and tools answering a call excepted), returns going to
    an agent that spawned or delegated to the returner, finite numbers. A folder stands for the
    .json files under it. Prints each problem as `file: /json/pointer: message`, then a count;
    exits 1 on any problem.

    A trace without schema_version is read under the survey's original format: whatever that
    format allows validates, the graph rules it did not check are reported as warnings
    (`file: /pointer: warning: message`, exit 0), and --strict makes them errors.

    A file of 8 MiB or more is checked on two CPUs when the machine has them: a second process
    checks the edges while this one reads the events. The answer is the same either way.

    Example:

    \b
        masrl trace validate traces/
        masrl trace validate run-0042.json run-0043.json
    """
    from masrl.trace._validate import trace_files, validate_file

    paths = list(trace_files(files))
    if not paths:
        raise MasrlError(f"no .json files in {', '.join(map(str, files))}")
    with collector_paused():
        checked = [validate_file(path, strict=strict, helper=True) for path in paths]
    keep_until_exit(checked)
    _report(checked)


@command.command(name="metrics")
@_FILES
@click.option("--json", "as_json", is_flag=True, help="Print every metric as one JSON object.")
@click.option(
    "--table",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write one row per trace to this .csv, .jsonl or .parquet file (for many traces or folders).",
)
@_STRICT
def metrics(files: tuple[Path, ...], as_json: bool, table: Path | None, strict: bool) -> None:
    """Compute the orchestration metrics of a trace (validating it first), or of a whole collection.

    Counts (events, agents, tools, spawns, messages, tool calls), maximum fan-out and spawn depth;
    critical_steps, the number of events on the longest path through the event graph, and
    parallel_speedup = steps / critical_steps, where tools one agent asks for together count as
    one step (a sequential crew has a speed-up of 1); the time-weighted critical path (the most time
    covered by the events of one path), busy time and makespan; PARL-style critical steps per stage
    (main agent's steps plus the longest sub-agent chain, after Kimi K2.5's Parallel-Agent RL);
    tokens, costs, a per-agent breakdown, and rewards by channel and credit unit. The exact
    definitions, with sources, are in masrl.trace._metrics.METRIC_DEFINITIONS. A trace that does
    not validate gets its problems printed and exit code 1.

    With --table, FILES may be many files and folders (a folder stands for the .json files under
    it): every trace is measured, on all cores, and one row per trace is written with the columns
    file, id, system, topology, events, agents, critical_steps, parallel_speedup, makespan, tokens,
    cost, reward_<channel> for each reward channel, warnings, errors and problem. A file that does
    not validate is listed with its first problem and the others go on; the exit code is 0. The
    format follows the suffix; Parquet needs pyarrow (pip install 'masrl[parquet]').

    Example:

    \b
        masrl trace metrics traces/swarm.json
        masrl trace metrics --json traces/debate.json > debate-metrics.json
        masrl trace metrics runs/ --table runs.parquet
    """
    if table is not None:
        _metrics_table(files, table, strict)
        return
    if len(files) != 1 or files[0].is_dir():
        raise MasrlError("give one trace file, or --table OUT.csv|.jsonl|.parquet to measure several traces or folders")
    import json

    from masrl.trace._metrics import compute, to_text

    checked = _checked(files[0], strict)
    assert checked.trace is not None
    assert checked.graph is not None
    result = compute(checked.trace, checked.graph)
    click.echo(json.dumps(result, indent=2, ensure_ascii=False) if as_json else to_text(result), nl=as_json)


def _metrics_table(files: tuple[Path, ...], out: Path, strict: bool) -> None:
    """Write the metrics table of every trace in *files* to *out* (see ``metrics --table``)."""
    import sys

    from masrl.base._writer import write_if_changed
    from masrl.trace import _table
    from masrl.trace._validate import trace_files

    try:
        kind = _table.table_format(out)
    except _table.TableError as exc:
        raise MasrlError(str(exc)) from None
    paths = [(p, str(p)) for p in trace_files(files)]
    if not paths:
        raise MasrlError(f"no .json files in {', '.join(map(str, files))}")
    if sys.stderr.isatty():
        with click.progressbar(length=len(paths), label="measuring traces", file=sys.stderr) as bar:
            rows = list(_table.rows(paths, strict=strict, progress=bar.update))
    else:
        rows = list(_table.rows(paths, strict=strict))
    write_if_changed(out, _table.encode(rows, kind))
    broken = [r for r in rows if r["errors"]]
    for r in broken:
        click.echo(f"{r['file']}: {r['problem']}", err=True)
    click.echo(f"wrote {out}: {len(rows):,} trace{'s' if len(rows) != 1 else ''}, {len(broken):,} not valid", err=True)


@command.command(name="render")
@_FILE
@click.option(
    "--max-events",
    type=click.IntRange(min=1),
    default=300,
    show_default=True,
    help="Refuse traces with more events than this (a larger diagram is unreadable).",
)
def render(file: Path, max_events: int) -> None:
    """Print a trace as a Mermaid flowchart (validating it first).

    Events are nodes grouped by agent, shaped by type; edges carry their type. Paste the output
    into a ```mermaid block of any Markdown page. Every label is escaped, so no id or name in the
    trace can break the diagram.

    Example:

    \b
        masrl trace render traces/reference-example.json > example.mmd
    """
    from masrl.trace._render import TooLarge, mermaid

    checked = _checked(file)
    assert checked.trace is not None
    assert checked.graph is not None
    try:
        click.echo(mermaid(checked.trace, checked.graph, max_events=max_events), nl=False)
    except TooLarge as exc:
        raise MasrlError(f"{file}: {exc}; raise --max-events to draw it anyway") from None


@command.command(name="schema")
@click.option("--stdout", "to_stdout", is_flag=True, help="Print the schema instead of writing it.")
@click.pass_context
def schema(ctx: click.Context, to_stdout: bool) -> None:
    """Write schemas/trace.schema.json (JSON Schema 2020-12) from the trace model.

    The schema is generated from the typed structs in masrl.trace._model, which the validator
    decodes into; never edit the file by hand. It is written under the corpus root, only when
    it changed.

    Example:

    \b
        masrl trace schema
        masrl trace schema --stdout | less
    """
    from masrl.base._cli_common import root_of
    from masrl.base._writer import write_all
    from masrl.trace._schema import SCHEMA_PATH, schema_text

    text = schema_text()
    if to_stdout:
        click.echo(text, nl=False)
        return
    written = write_all(root_of(ctx), {SCHEMA_PATH: text})
    click.echo(f"wrote {SCHEMA_PATH}" if written else f"{SCHEMA_PATH} is up to date", err=not written)


@command.command(name="generate")
@click.argument("output", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--agents", type=click.IntRange(min=1), default=100, show_default=True, help="Sub-agents in the swarm.")
@click.option(
    "--rounds", type=click.IntRange(min=0), default=1500, show_default=True, help="Tool rounds per sub-agent."
)
@click.option("--stages", type=click.IntRange(min=1), default=1, show_default=True, help="Orchestration stages.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed; the same seed gives the same file.")
@click.option(
    "--original-format",
    is_flag=True,
    help="Write the survey's original format: no schema_version, temporal edges where this version has causal ones.",
)
def generate(output: Path, agents: int, rounds: int, stages: int, seed: int, original_format: bool) -> None:
    """Write a synthetic swarm trace, for benchmarks and tests.

    An orchestrator spawns --agents sub-agents per run (split over --stages); each runs --rounds
    rounds of tool_call and tool_result, then returns; the orchestrator aggregates. Events carry
    durations, stages and token counts. 100 agents x 1,500 rounds give 300,202 events. The file
    always passes `masrl trace validate`.

    Example:

    \b
        masrl trace generate --agents 100 --rounds 1500 big-swarm.json
    """
    from masrl.base._writer import write_if_changed
    from masrl.trace._generate import encode, original, swarm

    trace = swarm(agents, rounds, stages=stages, seed=seed)
    write_if_changed(output, original(trace) if original_format else encode(trace))
    click.echo(f"wrote {output}", err=True)


@command.group(name="import")
def import_group() -> None:
    """Convert traces from other formats into orchestration traces."""


@import_group.command(name="otel")
@_FILE
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=str),
    help="Write here, not to standard output; a folder (an existing one, or a path ending in /) gets "
    "every trace of the export as <trace_id>.json.",
)
@click.option("--trace-id", help="The OpenTelemetry trace to import when the file holds several.")
@click.option(
    "--keep-going",
    is_flag=True,
    help="Skip the parts of the export that cannot be read and the traces that cannot be imported, "
    "write the rest, list the problems, and exit 1 if there were any.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Processes that import the traces of a folder import. More help on an idle machine with many "
    "cores; each forked process copies the pages of the spans it reads.",
)
@click.option(
    "--content",
    is_flag=True,
    help="Keep the model calls' messages beside each trace (run.json keeps run.content.jsonl), each call's "
    "event naming them by content_ref; needs -o. Off by default: traces hold no content.",
)
@click.option("--task-id", "task", help="Set the imported traces' task_id: runs of one task are compared by credit.")
@click.option(
    "--reward",
    "rewards",
    multiple=True,
    metavar="CHANNEL=VALUE",
    help="Set a reward channel of the imported traces (repeatable), over any the spans carry.",
)
def import_otel(
    file: Path,
    output: str | None,
    trace_id: str | None,
    keep_going: bool,
    jobs: int | None,
    content: bool,
    task: str | None,
    rewards: tuple[str, ...],
) -> None:
    """Import OpenTelemetry spans of agent frameworks (OTLP/JSON) as orchestration traces.

    Reads one OTLP/JSON export, or one per line (JSON Lines, as the Collector's file exporter
    writes them), with spans in the OpenTelemetry GenAI conventions (gen_ai.operation.name
    invoke_agent, create_agent, execute_tool, chat, agent_handoff; gen_ai.agent.name,
    gen_ai.tool.name, gen_ai.usage.*) or OpenInference's (openinference.span.kind AGENT, CHAIN,
    TOOL, LLM; agent.name, graph.node.*, tool.name, llm.token_count.*). Agent spans become spawns
    or delegations and returns, handoffs between agents become delegations, tool spans tool calls
    and results, model calls messages to the model with their tokens; a failed span marks its
    event with status error. Parent and child spans become edges and parent links; timestamps
    become seconds from the first span. Spans that map to no event are listed on standard error
    and kept in the output's metadata.unmapped_spans; guesses are reported as warnings.

    With --content, the input and output messages of each model call (GenAI gen_ai.input.messages
    and gen_ai.output.messages or the older gen_ai.*.message events; OpenInference's
    llm.input_messages and llm.output_messages) go to a side store beside the trace, one JSON line
    per distinct content, named from the call's event by content_ref (its SHA-256). The trace
    itself never holds content. `masrl trace export` reads the store.

    Rewards: Agent Lightning's reward spans (emit_reward) become the trace's reward channels, the
    latest value of each winning; --reward CHANNEL=VALUE sets one by hand, and --task-id names the
    task the run attempted, so that `masrl trace credit` can compare runs of one task.

    An export holding several traces needs --trace-id, or a folder for -o: each trace is then
    written as FOLDER/<trace_id>.json (traces in which no span maps to an event are reported and
    skipped). Every trace is validated before anything is written: if one does not validate,
    nothing is written (with --keep-going, the others are) and the command exits 1. Supported
    frameworks: see traces/README.md.

    Example:

    \b
        masrl trace import otel spans.json -o traces/run-0042.json
        masrl trace import otel collector.jsonl -o runs/
        masrl trace import otel autogen.json --trace-id 4bf92f3577b34da6a3ce929d0e0e4736
        masrl trace import otel crew.json --content --task-id summarise --reward team=0.8 -o runs/
    """
    if content and output is None:
        raise MasrlError("--content writes the messages beside the trace file: give -o FILE or -o FOLDER/")
    given = _rewards(rewards)
    # The export becomes millions of small objects, none of them garbage until the command ends:
    # the cyclic collector would only walk them again and again (it triples the time of a 100 MB import).
    with collector_paused():
        _import_otel(file, output, trace_id, keep_going, jobs, content, task, given)


def _rewards(pairs: tuple[str, ...]) -> dict[str, float]:
    """CHANNEL=VALUE pairs as a dict, or a usage error naming the pair that is not one."""
    import math

    out = {}
    for pair in pairs:
        channel, sep, value = pair.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not sep or not channel or not math.isfinite(number):
            raise click.BadParameter(f"{pair!r} must be CHANNEL=NUMBER, such as team=1", param_hint="--reward")
        out[channel] = number
    return out


def _import_otel(
    file: Path,
    output: str | None,
    trace_id: str | None,
    keep_going: bool,
    jobs: int | None,
    content: bool = False,
    task: str | None = None,
    rewards: dict[str, float] | None = None,
) -> None:
    """The work of ``masrl trace import otel`` (see there)."""
    from masrl.trace._otel import SERVICE_NAME, OtelError, convert, group, read_export
    from masrl.trace._otel_write import encode_folder, encode_one, unmapped_lines

    to_folder = output is not None and (output.endswith(("/", "\\")) or Path(output).is_dir())
    target = Path(output) if output is not None else None
    shown = str(file)
    try:
        spans, broken, resource, problems = read_export(file.read_bytes(), keep_going=keep_going)
        system = resource.get(SERVICE_NAME)
        system = system if isinstance(system, str) and system else None
        if to_folder and trace_id is None:
            groups = group(spans)
            if not groups:
                raise OtelError("", "the export holds no span that can be read")
            traces = len(groups)
        else:
            result = convert(spans, trace_id=trace_id, system=system, content=content, task=task, rewards=rewards)
            traces = 1
            if broken:  # spans that could not be read belong to no known trace; with one trace, to it
                metadata = result.trace.metadata
                assert isinstance(metadata, dict)
                metadata["unmapped_spans"] = [u.as_json() for u in broken] + metadata["unmapped_spans"]
    except OtelError as exc:
        raise MasrlError(f"{file}: {exc.where or '(file)'}: {exc.message}") from None
    except RecursionError:
        raise MasrlError(f"{file}: spans nest too deeply to import (hundreds of levels of parent spans)") from None
    for where, message in problems:
        click.echo(f"{file}: {where}: {message}; skipped")
    for line in unmapped_lines(shown, broken):
        click.echo(line, err=True)
    if to_folder and trace_id is None:
        import tempfile

        assert target is not None
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=f".{target.name}.", dir=target.parent) as staging:
            outcomes = encode_folder(
                shown, groups, system, target, Path(staging), workers=jobs, content=content, task=task, rewards=rewards
            )
            written, failed = _gather(file, outcomes, len(problems), keep_going)
    else:
        path = target / f"{result.trace.trace_id}.json" if to_folder and target is not None else target
        written, failed = _gather(file, [encode_one(shown, result, path)], len(problems), keep_going)
    click.echo(
        f"imported {traces} trace{'s' if traces != 1 else ''} of {len(spans)} spans: wrote {written}"
        + (f" to {output}" if output is not None and written else "")
        + (f"; {failed} problem{'s' if failed != 1 else ''}" if failed else ""),
        err=True,
    )
    if failed:
        raise ReportedFailure()


def _gather(file: Path, outcomes: Iterable[Outcome], failed: int, keep_going: bool) -> tuple[int, int]:
    """Report every trace's outcome, then write the ones that passed, unless one failed without
    --keep-going; returns how many were written and how many failed."""
    ready = []
    try:
        for outcome in outcomes:
            _show(outcome)
            failed += outcome.refused
            if outcome.text is not None or outcome.staged is not None:
                ready.append(outcome)
    except RecursionError:
        raise MasrlError(f"{file}: spans nest too deeply to import (hundreds of levels of parent spans)") from None
    if failed and not keep_going:
        click.echo("Nothing was written (--keep-going writes the traces that passed).", err=True)
        raise ReportedFailure()
    return _write_all(ready), failed


def _write_all(ready: list[Outcome]) -> int:
    """Write the traces that passed (each file atomically); print the one without a path."""
    import os

    from masrl.base._writer import write_if_changed
    from masrl.trace._content import store_path

    for outcome in ready:
        if outcome.path is None:
            click.echo(outcome.text, nl=False)
            continue
        outcome.path.parent.mkdir(parents=True, exist_ok=True)
        if outcome.content is not None:
            write_if_changed(store_path(outcome.path), outcome.content)
        if outcome.staged is not None:
            os.replace(outcome.staged, outcome.path)
        else:
            assert outcome.text is not None
            write_if_changed(outcome.path, outcome.text)
    return len(ready)


def _show(outcome: Outcome) -> None:
    for line in outcome.err:
        click.echo(line, err=True)
    for line in outcome.out:
        click.echo(line)


# The choices of `trace credit`; tests hold them to masrl.trace._credit and the trace model (this
# module imports only click, so they are spelt out here).
CREDIT_UNITS = ("token", "turn", "message", "tool", "agent", "role", "orchestrator", "team")
CREDIT_METHODS = ("broadcast", "split", "discounted", "critical-path", "group", "leave-one-out", "shapley")
GROUP_SCALES = ("std", "none")


@command.command(name="credit")
@_FILES
@click.option("--unit", type=click.Choice(CREDIT_UNITS), required=True, help="The credit unit that receives credit.")
@click.option("--method", type=click.Choice(CREDIT_METHODS), required=True, help="How the reward is credited.")
@click.option(
    "--channel",
    "channels",
    multiple=True,
    help="Credit this reward channel (repeatable); every channel of each run when not given.",
)
@click.option(
    "--gamma", type=click.FloatRange(0, 1), default=0.9, show_default=True, help="Discount per step (discounted)."
)
@click.option(
    "--scale",
    type=click.Choice(GROUP_SCALES),
    default="std",
    show_default=True,
    help="group: divide by the group's standard deviation (std), or only subtract its mean (none).",
)
@click.option(
    "--samples",
    type=click.IntRange(min=1),
    help="shapley: estimate from this many seeded random orders of the players (default: exact up to 8 "
    "players, 1000 orders beyond).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="shapley: seed of the sampled orders.")
@click.option("--json", "as_json", is_flag=True, help="Print the credit as a JSON array instead of writing it.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the credit as CSV instead of writing it.")
@_STRICT
def credit(
    files: tuple[Path, ...],
    unit: str,
    method: str,
    channels: tuple[str, ...],
    gamma: float,
    scale: str,
    samples: int | None,
    seed: int,
    as_json: bool,
    as_csv: bool,
    strict: bool,
) -> None:
    """Turn the rewards of runs into credit at a unit of the taxonomy, and write it into the traces.

    FILES are traces, or folders of them (a collection). Each run's reward on a channel becomes
    `attributions` at --unit: token (each output token of an event that counts them), turn (each
    event of a team agent), message (between agents), tool (each tool call), agent, orchestrator
    (the root agent), role, or team. The methods:

    \b
      broadcast      every unit gets the reward (Agent Lightning's credit step)
      split          an equal share per unit; the credits sum to the reward
      discounted     gamma^d x reward, d the steps from the unit to the run's end along the graph
      critical-path  the reward shared among the events of the critical path; 0 off it
      group          (reward - mean) / std over the runs of one task_id in which the unit acts
      leave-one-out  the reward minus that of the runs of the task without the unit
      shapley        Shapley values over agents or roles from the runs of each coalition

    The last three compare the runs of one task_id in the collection. A run that leaves agents
    or roles out, to measure what they add, says so with "ablation": {"agents": [...]} (or
    "roles"); runs without it are the full team. leave-one-out needs, for each agent, a run
    without it; shapley a run of every coalition (exact up to 8 players, else --samples seeded
    random orders, whose coalitions are needed). They need DuckDB: pip install 'masrl[credit]'.

    Every trace is read and checked first; a method that lacks data says what is missing and
    which method would work, and nothing is written. Credit replaces what the same method gave the
    same unit and channel before; every other key of the trace is kept. --json or --csv print a
    table (file, trace_id, task_id, channel, method, unit, ref, index, value) instead of writing.

    Example:

    \b
        masrl trace credit runs/ --unit agent --method group
        masrl trace credit run.json --unit turn --method discounted --gamma 0.95 --csv
        masrl trace credit runs/ --unit agent --method shapley --channel team --json
    """
    if as_json and as_csv:
        raise MasrlError("give --json or --csv, not both")
    import sys
    import tempfile

    from masrl.trace import _collection
    from masrl.trace._credit import Refused
    from masrl.trace._validate import trace_files

    paths = [(p, str(p)) for p in trace_files(files)]
    if not paths:
        raise MasrlError(f"no .json files in {', '.join(map(str, files))}")
    job = _collection.Job(method, unit, channels, gamma, scale, samples, seed, strict)
    write = not (as_json or as_csv)
    with tempfile.TemporaryDirectory(prefix="masrl-credit-") as work, collector_paused():
        try:
            outcome = _collection.credit(paths, job, Path(work), write=write)
        except (Refused, _collection.MissingDependency) as exc:
            raise MasrlError(str(exc)) from None
        except _collection.CollectionError as exc:
            for problem in exc.problems:
                click.echo(problem)
            n = len(exc.problems)
            click.echo(f"{n} problem{'s' if n != 1 else ''}; nothing was written", err=True)
            raise ReportedFailure() from None
        if outcome.rows is not None:
            _print_rows(_collection.read_rows(outcome.rows), as_json)
    left = (
        f"; {outcome.ablations} ablation run{'s' if outcome.ablations != 1 else ''} credited none"
        if (outcome.ablations)
        else ""
    )
    done = f"wrote {outcome.written}" if write else "printed the credit"
    print(
        f"credited {outcome.traces} trace{'s' if outcome.traces != 1 else ''} at unit {unit} by {method}: {done}{left}",
        file=sys.stderr,
    )


def _print_rows(rows: Iterable[dict[str, object]], as_json: bool) -> None:
    """The credit table on standard output, a row at a time: a JSON array, or CSV."""
    import csv
    import io
    import json

    from masrl.trace._collection import ROW_COLUMNS

    if as_json:
        first = True
        for row in rows:
            click.echo(("[\n  " if first else ",\n  ") + json.dumps(row, ensure_ascii=False), nl=False)
            first = False
        click.echo("[]" if first else "\n]")
        return
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(ROW_COLUMNS)
    click.echo(text.getvalue(), nl=False)
    for row in rows:
        text.seek(0)
        text.truncate()
        writer.writerow(["" if row.get(k) is None else row[k] for k in ROW_COLUMNS])
        click.echo(text.getvalue(), nl=False)


EXPORT_FORMATS = ("transitions", "sft", "dpo", "kto")  # masrl.trace._export.FORMATS (a test holds them equal)


@command.command(name="export")
@_FILES
@click.option("--to", "to", type=click.Choice(EXPORT_FORMATS), required=True, help="The dataset format.")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Write here: JSON Lines, or Parquet when the name ends in .parquet.",
)
@click.option("--agents", help="Only these agents' model calls, comma-separated (train some agents of a team).")
@click.option("--channel", help="The reward channel; the run's only one when not given.")
@click.option("--method", help="Whose credit to read when the runs hold several methods' (group, shapley ...).")
@click.option(
    "--min-advantage",
    type=float,
    default=0.0,
    show_default=True,
    help="sft: keep the calls whose advantage is above this; kto: label them desirable.",
)
@_STRICT
def export(
    files: tuple[Path, ...],
    to: str,
    output: Path,
    agents: str | None,
    channel: str | None,
    method: str | None,
    min_advantage: float,
    strict: bool,
) -> None:
    """Write per-agent training data from credited traces with content kept beside them.

    Each sample joins one model call's messages (from the side store `masrl trace import otel
    --content` keeps beside the trace) with the run's reward and the call's credit (`masrl trace
    credit`): the credit of the finest unit that covers the call (its event, its agent, its role,
    the team). Column layouts follow TRL's documented dataset types
    (https://huggingface.co/docs/trl/dataset_formats), in conversational form:

    \b
      transitions  agent, role, input, output, reward, advantage, trace_id, task_id, event_id
      sft          messages: the calls whose advantage is above --min-advantage (SFTTrainer)
      dpo          prompt, chosen, rejected: calls of one agent on one task at the same turn
                   of two runs, the higher advantage chosen (DPOTrainer)
      kto          prompt, completion, label: desirable above --min-advantage (KTOTrainer)

    A trace without content, or whose calls no credit covers, is refused with what to run, and
    nothing is written. Dpo and Parquet need DuckDB: pip install 'masrl[credit]'.

    Example:

    \b
        masrl trace export runs/ --to dpo -o pairs.jsonl
        masrl trace export runs/ --to transitions -o calls.parquet --agents writer,critic
        masrl trace export runs/ --to sft --min-advantage 0.5 -o sft.jsonl
    """
    import tempfile

    from masrl.trace import _collection, _export
    from masrl.trace._validate import trace_files

    paths = [(p, str(p)) for p in trace_files(files)]
    if not paths:
        raise MasrlError(f"no .json files in {', '.join(map(str, files))}")
    chosen = tuple(a.strip() for a in agents.split(",") if a.strip()) if agents else ()
    job = _export.Job(to, chosen, channel, method, min_advantage, strict)
    with tempfile.TemporaryDirectory(prefix="masrl-export-") as work, collector_paused():
        try:
            done = _export.export(paths, job, output, Path(work), parquet=output.suffix.lower() == ".parquet")
        except _collection.MissingDependency as exc:
            raise MasrlError(str(exc)) from None
        except _collection.CollectionError as exc:
            for problem in exc.problems:
                click.echo(problem)
            n = len(exc.problems)
            click.echo(f"{n} problem{'s' if n != 1 else ''}; nothing was written", err=True)
            raise ReportedFailure() from None
    click.echo(
        f"wrote {output}: {done.rows:,} {to} row{'s' if done.rows != 1 else ''} from {done.calls:,} model calls "
        f"of {done.traces:,} trace{'s' if done.traces != 1 else ''}",
        err=True,
    )
