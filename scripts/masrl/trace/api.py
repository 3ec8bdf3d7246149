"""The trace toolkit as a Python library, for training loops and notebooks.

Three functions take a trace as a file path, the bytes of a file, or a ``dict`` (the parsed JSON)::

    from masrl.trace import load, validate, metrics

    problems = validate("runs/0042.json")      # [] when the trace is valid; never raises on bad input
    m = metrics(trace_dict)                   # typed numbers; TraceError if the trace is not valid
    reward = m.rewards.get("team", 0.0) - 0.01 * m.critical_steps

* :func:`load` reads and checks a trace and returns a :class:`Loaded`: the decoded trace (the
  msgspec structs of :mod:`masrl.trace._model`), its problems and its warnings;
* :func:`validate` returns the problems and warnings alone, as :class:`Problem` values;
* :func:`metrics` returns a :class:`Metrics`, the main numbers as typed attributes and every
  metric of ``masrl trace metrics --json`` in :attr:`Metrics.details`.

A trace without ``schema_version`` is read under the survey's original format (see
``masrl trace validate --help``): the graph rules that format did not check are warnings, and
``strict=True`` makes them problems. Nothing here prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.trace import _model as m
from masrl.trace._problems import TraceProblem as Problem
from masrl.trace._validate import Checked, validate_bytes, validate_file

__all__ = [
    "AgentMetrics",
    "Loaded",
    "Metrics",
    "Problem",
    "Source",
    "TokenCounts",
    "TraceError",
    "load",
    "metrics",
    "validate",
]

# The example the site's traces page shows (a test runs it from the built page).
EXAMPLE = """\
from masrl.trace import metrics, validate

trace = {
    "trace_id": "run-1",
    "events": [
        {"id": "a", "t": 0, "type": "orchestrator_decision", "agent": "lead", "duration": 2},
        {"id": "b", "t": 2, "type": "spawn", "agent": "lead", "to": "worker"},
        {"id": "c", "t": 2, "type": "tool_call", "agent": "worker", "tool": "search", "duration": 3},
    ],
    "edges": [{"src": "a", "dst": "b", "type": "spawn"}, {"src": "b", "dst": "c", "type": "causal"}],
    "rewards": {"team": 1.0},
}
assert validate(trace) == []  # problems and warnings, each with .where and .message
m = metrics(trace)  # raises TraceError with .problems if the trace is not valid
reward = m.rewards["team"] - 0.1 * (m.critical_steps - 1)
print(m.critical_steps, m.parallel_speedup, m.makespan_s, reward)  # 3 1.0 5.0 0.8
"""

Source = str | Path | bytes | dict[str, Any]
"""A trace: a path to a JSON file, the bytes of one, or the parsed JSON object."""


class TraceError(ValueError):
    """Raised by :func:`metrics` for a trace that does not validate; ``problems`` says why."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:3])
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        super().__init__(f"the trace does not validate: {shown}{more}")


@dataclass(frozen=True)
class Loaded:
    """A trace after reading and checking.

    ``trace`` is None when the trace could not be read at all; ``problems`` are errors (the trace
    is valid exactly when there are none); ``warnings`` are rules that only a trace in the original
    format may break.
    """

    trace: m.Trace | m.OriginalTrace | None
    problems: list[Problem]
    warnings: list[Problem]
    checked: Checked = field(repr=False)

    @property
    def ok(self) -> bool:
        """Whether the trace is valid (it may still have warnings)."""
        return not self.problems

    @property
    def original_format(self) -> bool:
        """Whether the trace is read under the original format's rules (it declares no schema_version)."""
        return self.trace is not None and m.is_original(self.trace)


@dataclass(frozen=True)
class TokenCounts:
    """Tokens summed over events."""

    input: int
    output: int
    total: int


@dataclass(frozen=True)
class AgentMetrics:
    """One actor's share of the run (see ``per_agent`` in the metrics reference)."""

    kind: str  # root, sub-agent, tool or external
    events: int
    busy_s: float
    tokens_in: int
    tokens_out: int
    spawned: int
    cost: dict[str, float]


@dataclass(frozen=True)
class Metrics:
    """The orchestration metrics of one valid trace; the definitions are ``METRIC_DEFINITIONS``."""

    trace_id: str
    events: int
    agents: int
    tools: int
    spawns: int
    max_fan_out: int
    max_spawn_depth: int
    critical_steps: int
    parallel_speedup: float
    makespan_s: float
    busy_s: float
    critical_path_s: float
    time_speedup: float | None
    parl_critical_steps: int | None
    tokens: TokenCounts
    rewards: dict[str, float]  # the run's rewards by channel, as recorded
    costs: dict[str, float]  # the run's recorded totals (``costs``)
    event_costs: dict[str, float]  # per-event ``cost`` values summed by name
    critical_path: list[str]
    per_agent: dict[str, AgentMetrics]
    details: dict[str, Any] = field(repr=False)  # every metric, as ``masrl trace metrics --json`` prints it


def load(source: Source, *, strict: bool = False) -> Loaded:
    """Read and check *source*; never raises on a bad trace (its problems say what is wrong)."""
    checked = _check(source, strict)
    return Loaded(checked.trace if checked.ok else None, checked.problems, checked.warnings, checked)


def validate(source: Source, *, strict: bool = False) -> list[Problem]:
    """The problems and then the warnings of *source* (``Problem.warning`` tells them apart); [] if clean."""
    checked = _check(source, strict)
    return [*checked.problems, *checked.warnings]


def metrics(source: Source, *, strict: bool = False) -> Metrics:
    """The metrics of *source*; raises :class:`TraceError` if it does not validate."""
    from masrl.trace._metrics import compute

    checked = _check(source, strict)
    if not checked.ok or checked.trace is None or checked.graph is None:
        raise TraceError(checked.problems)
    return _typed(compute(checked.trace, checked.graph))


def _check(source: Source, strict: bool) -> Checked:
    if isinstance(source, dict):
        try:
            raw = json.dumps(source, allow_nan=True).encode("utf-8")
        except (TypeError, ValueError) as exc:
            return Checked("<dict>", None, None, [Problem("<dict>", "", f"not JSON data: {exc}")])
        return validate_bytes(raw, "<dict>", strict=strict)
    if isinstance(source, bytes):
        return validate_bytes(source, "<bytes>", strict=strict)
    return validate_file(Path(source), str(source), strict=strict)


def _typed(r: dict[str, Any]) -> Metrics:
    return Metrics(
        trace_id=r["trace_id"],
        events=r["events"],
        agents=r["agents"],
        tools=r["tools"],
        spawns=r["spawns"],
        max_fan_out=r["max_fan_out"],
        max_spawn_depth=r["max_spawn_depth"],
        critical_steps=r["critical_steps"],
        parallel_speedup=r["parallel_speedup"],
        makespan_s=r["makespan_s"],
        busy_s=r["busy_s"],
        critical_path_s=r["critical_path_s"],
        time_speedup=r["time_speedup"],
        parl_critical_steps=r["parl_critical_steps"],
        tokens=TokenCounts(**r["tokens"]),
        rewards=dict(r["rewards"]["channels"]),
        costs=dict(r["cost"]["recorded"]),
        event_costs=dict(r["cost"]["events"]),
        critical_path=list(r["critical_path"]),
        per_agent={
            name: AgentMetrics(
                kind=a["kind"],
                events=a["events"],
                busy_s=a["busy_s"],
                tokens_in=a["tokens_in"],
                tokens_out=a["tokens_out"],
                spawned=a["spawned"],
                cost=dict(a["cost"]),
            )
            for name, a in r["per_agent"].items()
        },
        details=r,
    )
