"""Orchestration metrics of a valid trace: the numbers that orchestration rewards are built from.

Every metric is defined once, in :data:`METRIC_DEFINITIONS` (the site renders its metrics reference
from it, and ``masrl trace metrics --help`` points there). The definitions in short:

* counts: events, agents (tools not counted), tools, spawns, messages, tool calls, events by type;
* fan-out and spawn depth, from spawn events;
* ``critical_steps``, the number of events on the longest path through the event graph, and
  ``parallel_speedup`` = steps / critical_steps, where steps are the events with the tool calls one
  agent asks for together counted as one step (and their results as one);
* the time-weighted critical path (the critical path method over event durations), the busy
  time and the makespan;
* PARL-style critical steps per stage, after the Parallel-Agent RL of Kimi K2.5 (Kimi Team,
  "Kimi K2.5: Visual Agentic Intelligence", arXiv:2602.02276): for each stage t,
  ``S_main(t) + max_i S_sub,i(t)``, summed over stages;
* tokens and costs, a per-agent breakdown, and rewards by channel and by credit unit.

:func:`compute` takes a trace that passed validation, with the :class:`~._graph.Graph` the checks
built, and returns one JSON-ready dict.

Invariants, for every valid trace (tests/trace/test_trace_metrics.py checks them with hypothesis over
random traces with events out of order, more than 16 tools and nested spans):

* ``1 <= critical_steps <= steps <= events``, so ``parallel_speedup >= 1``; the critical path lists
  ``critical_steps`` events;
* ``critical_path_s <= makespan_s`` and ``critical_path_s <= busy_s`` (so ``time_speedup >= 1``):
  time covered by two events of a path counts once, so a tool call whose span encloses the work of
  a sub-agent it invoked does not count that time twice;
* the per-agent events, input and output tokens and per-event costs add up to the trace's totals;
* each event's tokens count once, whatever its ``parent`` or its span encloses: totals are sums
  over events, never over a span and its children.

A trace of the original format may hold cycles and edges back in time (warnings); the longest
paths leave those edges out, so these bounds hold for it too.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import compress, islice, repeat
from operator import add, attrgetter, eq, is_not, le, lt
from typing import Any, NamedTuple

from msgspec import UNSET

from masrl.trace import _model as m
from masrl.trace._graph import Graph, lookup

_PLACES = 6  # times and sums are rounded to microseconds / millionths, hiding float noise

METRIC_DEFINITIONS: dict[str, str] = {
    "events": "Number of events in the trace.",
    "agents": (
        "Number of distinct agents of the team: actors (values of `agent`) that are root or sub-agent in "
        "per_agent, so neither tools nor people and monitors outside the team."
    ),
    "tools": "Number of distinct tool names in `tool_call` and `tool_result` events.",
    "spawns": "Number of `spawn` events.",
    "max_fan_out": "The largest number of distinct agents that one agent spawns over the whole run.",
    "max_spawn_depth": (
        "Levels of spawning: 0 when nobody is spawned, 1 when only root agents spawn, 2 when a spawned agent "
        "spawns in turn, and so on (each agent counted at its first spawn)."
    ),
    "messages": "Number of `message` events.",
    "tool_calls": "Number of `tool_call` events.",
    "by_type": "Number of events of each type.",
    "critical_steps": (
        "Number of events on the longest path through the event graph (events as nodes, edges as arcs). An event "
        "with no edges is a path of one, so a trace without edges has 1."
    ),
    "critical_path": "The ids of the events on one longest path, in order.",
    "steps": (
        "Events, with each fan of tool calls asked for together counted as one call and one result: two or more "
        "`tool_call` events of one agent that follow exactly the same events are one step of its turn, and so "
        "are the results that follow them alone. A framework may run such calls one by one or at once (CrewAI "
        "runs them on a thread pool); PARL counts one step per turn either way."
    ),
    "parallel_speedup": (
        "steps / critical_steps: steps done per step of the longest dependency chain; 1 for a run in which "
        "every event waits for the one before, and for a run of one agent at a time, whatever tools it calls "
        "together."
    ),
    "makespan_s": (
        "Wall time of the run: the latest finish minus the earliest start, where an event finishes at `end`, "
        "else at `t + duration`, else at `t`."
    ),
    "busy_s": "Sum of event durations (`end - t`, or `duration`; 0 for an event with neither).",
    "timed_events": "Number of events with a duration (`end` or `duration` given).",
    "critical_path_s": (
        "The time-weighted critical path: the most time covered by the events of any one path of the event graph, "
        "where an event covers its span from `t` to its finish and time covered by two events of the path (a "
        "sub-agent's work inside the tool call that invoked it) counts once. With no overlap this is the sum of "
        "the path's durations (the critical path method): how long the run would take if everything off the "
        "path ran in parallel and nothing waited. Never more than makespan_s; 0 when no event has a duration."
    ),
    "time_speedup": "busy_s / critical_path_s, the time-weighted counterpart of parallel_speedup; null when critical_path_s is 0.",
    "stages": (
        "One entry per stage (events grouped by `stage`, in order of their first event; events without a stage "
        "form a stage of their own, shown as null). For each: its events; main_steps, the events of root agents "
        "(never spawned, acting from the start; the orchestrator); the longest sub-agent chain, the most events "
        "any one spawned agent records in the stage, and that agent; and critical_steps = main_steps + the "
        "longest chain. This follows the critical steps of Parallel-Agent RL in Kimi K2.5 (Kimi Team, "
        "arXiv:2602.02276), which sum S_main(t) + max_i S_sub,i(t) over stages t; we count a step as one event "
        "of that agent, and tool results, which belong to no agent's steps, are left out. Empty when no event "
        "has a stage."
    ),
    "parl_critical_steps": "Sum of critical_steps over the stages; null when no event has a stage.",
    "errors": "Number of events whose `status` is error (a failed tool call, model call or agent run).",
    "tokens": "Token counts summed over events: input, output, and total = input + output.",
    "cost": (
        "recorded: the run's own totals (`costs`) as written; events: the per-event `cost` values summed by name."
    ),
    "per_agent": (
        "For each actor: its kind, events, first and last start time, busy_s (sum of its event durations), input "
        "and output tokens, agents it spawned, and its per-event costs summed by name. Kinds: root (never spawned, "
        "acting from the trace's start: the orchestrator), sub-agent (spawned), tool (never spawned, records tool "
        "results), external (never spawned, records only human interventions or safety events: a person or a "
        "monitor outside the team)."
    ),
    "rewards": (
        "channels: the run's rewards by channel as recorded (`rewards`); attributed: the `attributions` summed by "
        "channel, by credit unit (token ... team), and by unit and ref (which agent, event or role got how much)."
    ),
}

ROOT, SUB_AGENT, TOOL, EXTERNAL = "root", "sub-agent", "tool", "external"


def compute(trace: m.AnyTrace, g: Graph) -> dict[str, Any]:
    """Every metric of *trace* (which must have passed validation), keyed as in METRIC_DEFINITIONS."""
    events, ts, agents = g.events, g.ts, g.agents
    n = len(events)
    durations = _durations(events, ts)
    roles = actor_kinds(g)
    by_type = Counter({kind.kind: len(g.of_kind(kind)) for kind in m.EVENT_CLASSES if g.of_kind(kind)})
    spawned: dict[str, set[str]] = defaultdict(set)
    for i in g.of_kind(m.Spawn):
        if events[i].to:  # optional only in the original format
            spawned[agents[i]].add(events[i].to)
    found = _critical_paths(trace, g, durations)
    steps, path, critical_s = found.top, found.path, found.covered
    finishes = max(map(add, ts, durations))
    busy = math.fsum(durations)
    stages = _stages(events, roles, agents)
    tools = {e.tool for e in events} - {UNSET, ""}
    per_agent = _per_agent(g, durations, roles, spawned)
    out: dict[str, Any] = {
        "trace_id": trace.trace_id,
        "events": n,
        "steps": found.steps,
        "agents": sum(1 for kind in roles.values() if kind in (ROOT, SUB_AGENT)),
        "tools": len(tools),
        "spawns": len(g.of_kind(m.Spawn)),
        "max_fan_out": max((len(v) for v in spawned.values()), default=0),
        "max_spawn_depth": _depth(g),
        "messages": by_type.get("message", 0),
        "tool_calls": by_type.get("tool_call", 0),
        "by_type": {kind: by_type[kind] for kind in m.EVENT_TYPES if kind in by_type},
        "critical_steps": steps,
        "parallel_speedup": _round(found.steps / steps),
        "makespan_s": _seconds(finishes - min(ts)),
        "busy_s": _seconds(busy),
        "timed_events": n - sum(1 for e in events if e.duration is UNSET and e.end is UNSET),
        "critical_path_s": _seconds(critical_s),
        "time_speedup": _round(busy / critical_s) if critical_s > 0 else None,
        "stages": stages,
        "parl_critical_steps": sum(s["critical_steps"] for s in stages) if stages else None,
        "errors": sum(1 for e in events if e.status == "error"),
        "tokens": _tokens(per_agent),
        "cost": {"recorded": _given(trace.costs), "events": _event_costs(events, range(n))},
        "per_agent": per_agent,
        "rewards": _rewards(trace),
        "critical_path": path,
    }
    return out


def summary(trace: m.AnyTrace, g: Graph) -> dict[str, Any]:
    """The few metrics of a collection table, each equal to its value in :func:`compute`, found faster.

    Keys: events, agents, critical_steps, parallel_speedup, makespan_s, tokens (the total, or None
    when no event counts tokens), usd (per-event ``cost.usd`` summed, or None when no event has one).
    """
    events, ts = g.events, g.ts
    n = len(events)
    durations = _durations(events, ts)
    found = _critical_paths(trace, g, durations)
    roles = actor_kinds(g)
    counted = [e.tokens for e in events if e.tokens is not UNSET]
    usd = [e.cost["usd"] for e in events if e.cost is not UNSET and "usd" in e.cost]
    return {
        "events": n,
        "agents": sum(1 for kind in roles.values() if kind in (ROOT, SUB_AGENT)),
        "critical_steps": found.top,
        "parallel_speedup": _round(found.steps / found.top),
        "makespan_s": _seconds(max(map(add, ts, durations)) - min(ts)),
        "tokens": int(
            sum((0 if t.input is UNSET else t.input) + (0 if t.output is UNSET else t.output) for t in counted)
        )
        if counted
        else None,
        "usd": _round(math.fsum(usd)) if usd else None,
    }


def _given(value: dict[str, float] | Any) -> dict[str, float]:
    """A mapping field of the trace, or {} when it is not given; whole numbers shown as such."""
    return {} if value is UNSET else {k: _plain(v) for k, v in value.items()}


def _plain(value: float) -> float:
    """12000.0 as 12000: numbers decode as floats, but a count reads better whole."""
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) < 2**53 else value


def _round(value: float) -> float:
    return round(value, _PLACES) if isinstance(value, float) else value


def _seconds(value: float) -> float:
    return round(float(value), _PLACES)


def _durations(events: list[Any], ts: list[float]) -> list[float]:
    """Each event's duration: ``duration``, else ``end - t``, else 0."""
    return [
        e.duration if e.duration is not UNSET else (e.end - t if e.end is not UNSET else 0)
        for e, t in zip(events, ts, strict=True)
    ]


def actor_kinds(g: Graph) -> dict[str, str]:
    """Each actor's kind: root, sub-agent, tool or external (see METRIC_DEFINITIONS["per_agent"])."""
    start = min(g.ts)
    acting = g.acting
    results = set(map(g.agents.__getitem__, g.of_kind(m.ToolResult)))
    kinds = {}
    for agent, i in g.first_act.items():
        if agent in g.spawned_at:
            kinds[agent] = SUB_AGENT
        elif agent in acting and g.ts[i] == start:
            kinds[agent] = ROOT
        else:  # never spawned and (the trace being valid) records only results, interventions, safety events
            kinds[agent] = TOOL if agent in results else EXTERNAL
    return kinds


def _depth(g: Graph) -> int:
    depth: dict[str, int] = {}
    spawns = sorted(g.of_kind(m.Spawn), key=lambda i: (g.ts[i], i))
    for i in spawns:
        child = g.events[i].to
        if child and child not in depth:
            depth[child] = depth.get(g.agents[i], 0) + 1
    return max(depth.values(), default=0)


def depths(trace: m.AnyTrace, g: Graph) -> tuple[list[int], list[str]]:
    """For each event, the number of events on the longest path that ends with it (1 for an event
    nothing leads to), and the ids of one longest path of the trace: the critical path.

    An event's depth is the step of the run it could be taken at, at the earliest, if everything
    ran as soon as what it depends on was done; credit discounted along the graph counts from it.
    """
    found = _critical_paths(trace, g, _durations(g.events, g.ts))
    return found.depth, found.path


class _Paths(NamedTuple):
    top: int  # events on the longest path
    path: list[str]  # the ids of one longest path
    covered: float  # the most time covered by one path
    depth: list[int]  # each event's: the events of the longest path that ends with it
    steps: int  # the events, with each fan of tool calls asked for together counted as one call and one result


def _critical_paths(trace: m.AnyTrace, g: Graph, durations: list[float]) -> _Paths:
    """Longest path by events (with one such path) and by time covered, each event's depth, and the steps.

    Both are dynamic programmes over a topological order. Time order is one, except between events
    of equal ``t`` joined by an edge; those events are ordered by their depth among equal-time
    edges. In a valid trace every edge runs forward in that order; in a trace of the original
    format (whose graph may hold cycles and edges back in time, reported as warnings) the edges that
    do not are left out, so the programme always works on an acyclic graph.

    The time of a path is the time its events cover: sorted by start, each event adds the part of
    its span ``[t, t + duration]`` that ends after every earlier event of the path has ended. An
    event nested in an earlier one (a sub-agent's work inside the tool call that invoked it) adds
    nothing, and the gaps between events count for nothing, so a path's time never exceeds the
    makespan. For each event the programme keeps the best path into it found so far.
    """
    n = len(g.events)
    edges = trace.edges
    src = lookup(g.index, list(map(attrgetter("src"), edges)))
    dst = lookup(g.index, list(map(attrgetter("dst"), edges)))
    ts = g.ts
    work = n - _fanned(g, src, dst)
    level = {} if g.forward else _equal_time_levels(src, dst, ts)
    if g.in_order and not level and g.forward:
        dst_rank = dst  # the position of an event is its rank
    else:
        order = sorted(range(n), key=lambda i: (ts[i], level.get(i, 0)))
        rank = [0] * n
        for r, i in enumerate(order):
            rank[i] = r
        dst_rank = list(map(rank.__getitem__, dst))
        if not g.forward:  # keep only edges that run forward in the order (all of them in a valid trace)
            keep = list(map(lt, map(rank.__getitem__, src), dst_rank))
            if not all(keep):
                src, dst, dst_rank = (list(compress(x, keep)) for x in (src, dst, dst_rank))
    # Relaxing edges in the rank order of their targets visits all of an event's incoming edges
    # before any of its outgoing ones. Logs written as the run goes list edges that way already.
    if not all(map(le, dst_rank, islice(dst_rank, 1, None))):
        by_target = sorted(range(len(src)), key=dst_rank.__getitem__)
        src, dst = [src[j] for j in by_target], [dst[j] for j in by_target]
    steps = [1] * n
    best = [-1] * n
    ends = list(map(add, ts, durations))
    covered = list(durations)  # time covered by the best path into each event found so far
    frontier = list(ends)  # when every event of that path has ended
    for s, d in zip(src, dst, strict=True):
        reach = steps[s] + 1
        if reach > steps[d]:
            steps[d] = reach
            best[d] = s
        front = frontier[s]
        start = ts[d] if ts[d] > front else front
        done = covered[s] + (ends[d] - start if ends[d] > start else 0)
        if done > covered[d]:
            covered[d] = done
            frontier[d] = front if front > ends[d] else ends[d]
    top = max(steps)
    last = steps.index(top)
    path = []
    while last != -1:
        path.append(g.ids[last])
        last = best[last]
    path.reverse()
    return _Paths(top, path, max(covered), steps, work)


def _fanned(g: Graph, src: Sequence[int], dst: Sequence[int]) -> int:
    """Events that one step holds besides its first call and first result: in each fan of tool
    calls asked for together (two or more ``tool_call`` events of one agent that follow exactly the
    same events), every call but one and every result that follows a call of the fan alone but one.

    A model's answer may ask for several tools at once; frameworks run them one by one or side by
    side (CrewAI 1.x runs them on a thread pool), but either way they are one step of that
    agent's turn, as PARL counts one step per turn.
    """
    calls = g.of_kind(m.ToolCall)
    if len(calls) < 2:
        return 0
    is_call = [False] * len(g.events)
    for i in calls:
        is_call[i] = True
    before: dict[int, list[int]] = defaultdict(list)
    for s, d in compress(zip(src, dst, strict=True), map(is_call.__getitem__, dst)):
        before[d].append(s)
    fans: dict[tuple[str, frozenset[int]], list[int]] = defaultdict(list)
    for d, sources in before.items():
        fans[(g.agents[d], frozenset(sources))].append(d)
    grouped = [group for group in fans.values() if len(group) > 1]
    if not grouped:
        return 0
    fan_of = {call: k for k, group in enumerate(grouped) for call in group}
    # A result counts with its fan's when it follows its call alone (no sub-agent's work inside the
    # call leads to it): then no path holds two of them, nor two calls of a fan, so the critical
    # path never holds more events than there are steps.
    into: dict[int, list[int]] = defaultdict(list)
    kinds = g.kinds
    for s, d in zip(src, dst, strict=True):
        if kinds[d] is m.ToolResult:
            into[d].append(s)
    results: dict[int, int] = defaultdict(int)
    for sources in into.values():
        if len(sources) == 1 and sources[0] in fan_of:
            results[fan_of[sources[0]]] += 1
    return sum(len(group) - 1 for group in grouped) + sum(count - 1 for count in results.values())


def _equal_time_levels(src: Sequence[int], dst: Sequence[int], ts: list[float]) -> dict[int, int]:
    """For events joined by equal-time edges, their depth along those edges (others: absent)."""
    pairs = [
        (s, d)
        for s, d, flag in zip(src, dst, map(eq, map(ts.__getitem__, src), map(ts.__getitem__, dst)), strict=True)
        if flag
    ]
    if not pairs:
        return {}
    succ: dict[int, list[int]] = defaultdict(list)
    indegree: Counter[int] = Counter()
    for s, d in pairs:
        succ[s].append(d)
        indegree[d] += 1
    level = {v: 0 for v in {*succ, *indegree}}
    ready = [v for v in level if indegree[v] == 0]
    while ready:
        v = ready.pop()
        for w in succ[v]:
            level[w] = max(level[w], level[v] + 1)
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    return level


def _stages(events: list[Any], roles: dict[str, str], agents: list[str]) -> list[dict[str, Any]]:
    stage_of = [e.stage for e in events]
    if stage_of.count(UNSET) == len(stage_of):
        return []
    counts: dict[Any, dict[str, int]] = {}  # stage (None: none given) -> agent -> events; in order of first event
    for (stage, agent), count in Counter(zip(stage_of, agents, strict=True)).items():
        counts.setdefault(None if stage is UNSET else stage, {})[agent] = count
    out = []
    for stage, per_agent in counts.items():
        main = sum(c for a, c in per_agent.items() if roles.get(a) == ROOT)
        subs = sorted((-c, a) for a, c in per_agent.items() if roles.get(a) == SUB_AGENT)
        longest, who = (-subs[0][0], subs[0][1]) if subs else (0, None)
        out.append(
            {
                "stage": stage,
                "events": sum(per_agent.values()),
                "main_steps": main,
                "longest_sub_agent_steps": longest,
                "longest_sub_agent": who,
                "critical_steps": main + longest,
            }
        )
    return out


def _tokens(per_agent: dict[str, dict[str, Any]]) -> dict[str, int]:
    inputs = sum(row["tokens_in"] for row in per_agent.values())
    outputs = sum(row["tokens_out"] for row in per_agent.values())
    return {"input": inputs, "output": outputs, "total": inputs + outputs}


def _event_costs(events: list[Any], positions: range | list[int]) -> dict[str, float]:
    totals: dict[str, list[float]] = defaultdict(list)
    for i in positions:
        cost = events[i].cost
        if cost is not UNSET:
            for name, value in cost.items():
                totals[name].append(value)
    return {name: _round(math.fsum(values)) for name, values in sorted(totals.items())}


def _per_agent(
    g: Graph, durations: list[float], roles: dict[str, str], spawned: dict[str, set[str]]
) -> dict[str, dict[str, Any]]:
    events, agents, ts = g.events, g.agents, g.ts
    count = Counter(agents)
    if g.in_order:  # the last pair written for each agent is its latest
        last = dict(zip(agents, ts, strict=True))
    else:
        last = {}
        for agent, t in zip(agents, ts, strict=True):
            if t > last.get(agent, -math.inf):
                last[agent] = t
    busy: dict[str, float] = dict.fromkeys(count, 0.0)
    for agent, d in zip(agents, durations, strict=True):
        busy[agent] += d
    tokens_in: Counter[str] = Counter()
    tokens_out: Counter[str] = Counter()
    costs: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for e in compress(events, map(is_not, [e.tokens for e in events], repeat(UNSET))):
        tokens_in[e.agent] += 0 if e.tokens.input is UNSET else e.tokens.input
        tokens_out[e.agent] += 0 if e.tokens.output is UNSET else e.tokens.output
    for e in compress(events, map(is_not, [e.cost for e in events], repeat(UNSET))):
        for name, value in e.cost.items():
            costs[e.agent][name] += value
    return {
        agent: {
            "kind": roles.get(agent, TOOL),
            "events": count[agent],
            "first_t": _plain(ts[g.first_act[agent]]),
            "last_t": _plain(last[agent]),
            "busy_s": _seconds(busy[agent]),
            "tokens_in": int(tokens_in[agent]),
            "tokens_out": int(tokens_out[agent]),
            "spawned": len(spawned.get(agent, ())),
            "cost": {name: _round(v) for name, v in sorted(costs[agent].items())},
        }
        for agent in sorted(count)
    }


def _rewards(trace: m.AnyTrace) -> dict[str, Any]:
    by_channel: dict[str, list[float]] = defaultdict(list)
    by_unit: dict[str, list[float]] = defaultdict(list)
    by_ref: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for a in [] if trace.attributions is UNSET else trace.attributions:
        by_channel[a.channel].append(a.value)
        by_unit[a.unit].append(a.value)
        by_ref[a.unit]["" if a.ref is UNSET else a.ref].append(a.value)
    return {
        "channels": _given(trace.rewards),
        "attributed": {
            "by_channel": {k: _round(math.fsum(v)) for k, v in sorted(by_channel.items())},
            "by_unit": {u: _round(math.fsum(by_unit[u])) for u in m.CREDIT_UNITS if u in by_unit},
            "by_unit_ref": {
                u: {ref: _round(math.fsum(v)) for ref, v in sorted(by_ref[u].items())}
                for u in m.CREDIT_UNITS
                if u in by_ref
            },
        },
    }


# ---------------------------------------------------------------------------------------------
# Text report

_AGENT_ROWS = 30  # agents listed in the text report; --json lists all
_PATH_SHOWN = 8  # events of the critical path spelled out


def _n(value: float | None) -> str:
    """A number for the text report: thousands separated, at most three decimals."""
    if value is None:
        return "n/a"
    if isinstance(value, int):
        return f"{value:,}"
    text = f"{value:,.3f}".rstrip("0").rstrip(".")
    return text or "0"


def _pairs(values: dict[str, Any]) -> str:
    return ", ".join(f"{k} {_n(v)}" for k, v in values.items()) or "none"


def to_text(r: dict[str, Any]) -> str:
    """The metrics of :func:`compute` as a readable report."""
    path = r["critical_path"]
    shown = path if len(path) <= _PATH_SHOWN else [*path[:5], f"... ({len(path) - 7} more)", *path[-2:]]
    tools = r["tools"]
    lines = [
        f"trace {r['trace_id']}",
        f"events            {_n(r['events'])} ({_pairs(r['by_type'])})",
        f"agents            {_n(r['agents'])}, and {_n(tools)} tool{'s' if tools != 1 else ''}",
        f"spawns            {_n(r['spawns'])}; max fan-out {_n(r['max_fan_out'])}, spawn depth {_n(r['max_spawn_depth'])}",
        f"messages          {_n(r['messages'])}; tool calls {_n(r['tool_calls'])}",
        f"critical steps    {_n(r['critical_steps'])}; parallel speed-up {r['parallel_speedup']:.2f}",
        f"critical path     {' -> '.join(shown)}",
        f"makespan          {_n(r['makespan_s'])} s; busy {_n(r['busy_s'])} s over {_n(r['timed_events'])} timed events",
        f"critical path (time-weighted) {_n(r['critical_path_s'])} s; time speed-up "
        + ("n/a" if r["time_speedup"] is None else f"{r['time_speedup']:.2f}"),
        f"tokens            input {_n(r['tokens']['input'])}, output {_n(r['tokens']['output'])}, "
        f"total {_n(r['tokens']['total'])}",
        f"costs recorded    {_pairs(r['cost']['recorded'])}",
        f"costs of events   {_pairs(r['cost']['events'])}",
        f"rewards           {_pairs(r['rewards']['channels'])}",
    ]
    if r["errors"]:
        lines.insert(5, f"errors            {_n(r['errors'])} events failed (status error)")
    attributed = r["rewards"]["attributed"]
    if attributed["by_unit"]:
        lines.append(f"  attributed by unit     {_pairs(attributed['by_unit'])}")
        lines.append(f"  attributed by channel  {_pairs(attributed['by_channel'])}")
    if r["stages"]:
        lines += ["", "stage               events  main steps  longest sub-agent chain          critical steps"]
        for s in r["stages"]:
            name = "(no stage)" if s["stage"] is None else s["stage"]
            chain = f"{_n(s['longest_sub_agent_steps'])} ({s['longest_sub_agent'] or '-'})"
            lines.append(
                f"{name:18} {_n(s['events']):>7} {_n(s['main_steps']):>11}  {chain:31} {_n(s['critical_steps']):>14}"
            )
        lines.append(f"PARL critical steps, summed over stages: {_n(r['parl_critical_steps'])}")
    rows = sorted(r["per_agent"].items(), key=lambda kv: (-kv[1]["events"], kv[0]))
    lines += [
        "",
        f"{'agent':24} {'kind':9} {'events':>8} {'first t':>10} {'last t':>10} {'busy s':>11} {'tokens in':>12} "
        f"{'tokens out':>11} {'spawned':>8}",
    ]
    for agent, a in rows[:_AGENT_ROWS]:
        lines.append(
            f"{agent[:24]:24} {a['kind']:9} {_n(a['events']):>8} {_n(a['first_t']):>10} {_n(a['last_t']):>10} "
            f"{_n(a['busy_s']):>11} {_n(a['tokens_in']):>12} {_n(a['tokens_out']):>11} {_n(a['spawned']):>8}"
        )
    if len(rows) > _AGENT_ROWS:
        lines.append(f"... {len(rows) - _AGENT_ROWS} more agents; --json lists them all")
    return "\n".join(lines) + "\n"
