"""Checks on the event graph of a trace that already matches the schema.

The schema says what each event and edge looks like; these rules say how they fit together. Each
broken rule yields a (JSON Pointer, message) pair; nothing raises or prints.

1. Event ids are unique.
2. Every edge's ``src`` and ``dst`` name an event.
3. No edge goes back in time: ``dst.t >= src.t``.
4. The events and edges form a directed acyclic graph. Because of rule 3, a cycle can only join
   events with equal ``t``, so when no edge goes back in time only equal-time edges are searched
   (Kahn's algorithm); on a 300,000-event trace that is a handful of edges instead of all of them.
5. ``end`` is not before ``t``; when ``duration`` is given too, ``t + duration == end``.
6. ``parent`` names another event that starts no later, and parent links form no loop.
7. An agent acts only after it is spawned (``t`` not before its first spawn). An agent that is
   never spawned may act if it is a *root*, acting at the trace's first time, or a *tool
   answering a call*: every event it has is a ``tool_result`` for a tool some ``tool_call`` named
   no later (the survey's reference example has such a result with ``agent`` ``browser.search``).
   People and monitors outside the team need no spawn either: ``human_intervention`` and
   ``safety_event`` events may come from anyone. No agent spawns itself.
8. ``from``, when given, equals ``agent``: the sender is the one acting.
9. A ``return`` goes to an agent that spawned the returner or delegated to it (a ``delegate``
   edge from one of its events to one of the returner's).
10. Attributions name real units: an event (of the right type) for token, turn, message and tool;
    an agent for agent and orchestrator; a role in use for role; ``index`` only for tokens.
11. An ablation run (``ablation``) names what it leaves out, has a ``task_id`` (it is compared with
    the full team's runs of that task), and nothing it leaves out acts in it: no event of a removed
    agent, no event carrying a removed role.

Rules 1 and 2 are the survey's original validator's own. A trace without ``schema_version`` is
read under the original format, which checks nothing else: there rules 3 to 10 give warnings, not
errors (``--strict`` makes them errors again), and an empty or missing ``to``, ``tool`` or
``from`` counts as not given.

:class:`Graph` keeps what the checks learn on the way (times by id, first acts, spawn times, who
acts) so the metrics need not find it again.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice, repeat
from operator import attrgetter, eq, gt, is_, is_not, itemgetter, le, lt, not_
from typing import Any

from msgspec import UNSET

from masrl.base._problems import one_of
from masrl.trace import _model as m
from masrl.trace._problems import pointer

Found = tuple[str, str]  # (JSON Pointer, message)
# The findings of rules 1 to 4: breaks of rules 1 and 2, of rules 3 and 4, and whether every edge
# moves forward in time (Graph.forward).
EdgeFindings = tuple[list[Found], list[Found], bool]

_CYCLES_SHOWN = 12  # events of a cycle spelled out in its message
_RARE = 64  # a class of events is rare when fewer than 1 in this many events are of it
_FEW_KEYS = 16  # up to this many distinct tools, first occurrences are found with list.index


@dataclass
class Graph:
    """What the checks learn about a trace's events on the way; the metrics reuse it."""

    events: list[Any]
    ids: list[str]
    ts: list[float]
    agents: list[str]
    kinds: list[type]  # the struct class of each event
    in_order: bool  # events are listed in time order
    forward: bool = False  # every edge ends strictly later than it starts
    original: bool = False  # the trace is in the original format (no schema_version)
    spawned_at: dict[str, float] = field(default_factory=dict)  # agent -> time of its first spawn
    first_act: dict[str, int] = field(default_factory=dict)  # agent -> position of its earliest event
    _index: dict[str, int] | None = None
    _t_of: dict[str, float] | None = None
    _positions: dict[type, list[int]] = field(default_factory=dict)
    _present: Counter[type] | None = None  # events of each class
    _acting: set[str] | None = None

    @property
    def t_of(self) -> dict[str, float]:
        """Event id -> t of the first event with that id (built on first use)."""
        if self._t_of is None:
            self._t_of = dict(zip(self.ids, self.ts, strict=True))
            if len(self._t_of) != len(self.ids):  # the first of each id wins
                self._t_of = dict(zip(reversed(self.ids), reversed(self.ts), strict=True))
        return self._t_of

    @property
    def unique(self) -> bool:
        """No two events share an id."""
        return len(self.t_of) == len(self.ids)

    @property
    def index(self) -> dict[str, int]:
        """Event id -> position of the first event with that id (built on first use)."""
        if self._index is None:
            self._index = dict(zip(reversed(self.ids), range(len(self.ids) - 1, -1, -1), strict=True))
        return self._index

    @property
    def acting(self) -> set[str]:
        """Actors of events other than tool results, interventions and safety events (found on first use)."""
        if self._acting is None:
            exempt = self.counts.keys() & m.UNSPAWNED_KINDS
            if len(exempt) == 1:
                (kind,) = exempt
                self._acting = set(compress(self.agents, map(is_not, self.kinds, repeat(kind))))
            else:
                self._acting = set(compress(self.agents, map(not_, map(exempt.__contains__, self.kinds))))
        return self._acting

    @property
    def counts(self) -> Counter[type]:
        """Number of events of each struct class (found on first use)."""
        if self._present is None:
            self._present = Counter(self.kinds)
        return self._present

    def of_kind(self, kind: type) -> list[int]:
        """Positions of the events of struct class *kind*, in order (found on first use)."""
        count = self.counts.get(kind, 0)
        if not count:
            return []
        if kind not in self._positions:
            kinds = self.kinds
            if count * _RARE < len(kinds):  # a rare class: list.index jumps from one to the next at C speed
                found, i, index = [], -1, kinds.index
                for _ in range(count):
                    i = index(kind, i + 1)
                    found.append(i)
                self._positions[kind] = found
            else:
                self._positions[kind] = list(compress(range(len(kinds)), map(is_, kinds, repeat(kind))))
        return self._positions[kind]


def check(
    trace: m.AnyTrace, edges: Callable[[], EdgeFindings | None] | None = None
) -> tuple[list[Found], list[Found], Graph]:
    """Every broken graph rule of *trace*, and what was learnt finding them.

    Returns the breaks of rules 1 and 2 (which the original format checks too), those of the
    other rules, and the graph. *edges*, when given, is asked for the findings of
    :func:`edge_rules` on this trace, found elsewhere (see :mod:`._helper`), once the other rules
    are checked; when it gives them, rules 1 to 4 are not checked again.

    The work over all events is done by comprehensions and C-level ``map``, ``compress`` and
    ``dict`` calls; Python-level loops run only over events of rare kinds, or once something is
    known to be wrong and its place must be named.
    """
    events = trace.events
    ts = list(map(attrgetter("t"), events))
    if isinstance(trace, m.OriginalTrace):  # the checks and metrics speak of this version's classes
        kinds = list(map(m.CANONICAL.__getitem__, map(type, events)))
    else:
        kinds = list(map(type, events))
    graph = Graph(
        events,
        list(map(attrgetter("id"), events)),
        ts,
        list(map(attrgetter("agent"), events)),
        kinds,
        all(map(le, ts, islice(ts, 1, None))),
        original=m.is_original(trace),
    )
    found = [
        *_times(events),
        *_parents(events, graph),
        *_spawns(graph),
        *_senders(graph),
        *_returns(trace, graph),
        *_attributions(trace, graph),
        *_ablation(trace, graph),
    ]
    findings = edges() if edges is not None else None
    if findings is None:
        original, edge_found = _ids_and_edges(graph, trace.edges)
    else:
        original, edge_found, graph.forward = findings
    return original, [*edge_found, *found], graph


def edge_rules(ids: list[str], ts: list[float], edges: Sequence[Any]) -> EdgeFindings:
    """Rules 1 to 4 from the events' ids and times alone, as :func:`check` finds them."""
    graph = Graph([], ids, ts, [], [], in_order=False)
    original, found = _ids_and_edges(graph, edges)
    return original, found, graph.forward


def _ids_and_edges(g: Graph, edges: Sequence[Any]) -> tuple[list[Found], list[Found]]:
    """Rules 1 and 2 (the original format's own), and rules 3 and 4 (which need the same lookups)."""
    original: list[Found] = [] if g.unique else list(_duplicates(g.ids))
    found = list(_edges(edges, g, original))
    return original, found


def lookup(mapping: dict[str, Any], keys: list[str]) -> Sequence[Any]:
    """``[mapping[k] for k in keys]`` in one C call (KeyError if one is missing)."""
    if len(keys) < 2:  # itemgetter of one key returns the value, not a tuple
        return [mapping[k] for k in keys]
    values: tuple[Any, ...] = itemgetter(*keys)(mapping)
    return values


def _duplicates(ids: list[str]) -> Iterator[Found]:
    first: dict[str, int] = {}
    for i, id_ in enumerate(ids):
        if id_ in first:
            yield (
                pointer("events", i, "id"),
                f"event id {id_!r} is already used by /events/{first[id_]}; event ids must be unique",
            )
        else:
            first[id_] = i


def _t(value: float) -> str:
    """A time as messages show it: ``3`` for 3.0, and a Unix time in full (``1767225600.25``)."""
    return f"{value:.15g}"


def _edges(edges: Sequence[Any], g: Graph, dangling: list[Found]) -> Iterator[Found]:
    """Rule 3 and 4, yielded; edge ends that name no event (rule 2) are added to *dangling*."""
    try:
        t_src = lookup(g.t_of, list(map(attrgetter("src"), edges)))
        t_dst = lookup(g.t_of, list(map(attrgetter("dst"), edges)))
        numbered: range | list[int] = range(len(edges))
    except KeyError:
        numbered = []
        for j, e in enumerate(edges):
            missing = [end for end in ("src", "dst") if getattr(e, end) not in g.t_of]
            for end in missing:
                dangling.append(
                    (
                        pointer("edges", j, end),
                        f"edge {end} {getattr(e, end)!r} is not the id of any event; src and dst must name events in /events",
                    )
                )
            if not missing:
                numbered.append(j)
        t_src = [g.t_of[edges[j].src] for j in numbered]
        t_dst = [g.t_of[edges[j].dst] for j in numbered]
    if all(map(lt, t_src, t_dst)):  # every edge moves forward in time: no edge goes back, no cycle
        g.forward = True
        return
    back = list(compress(numbered, map(gt, t_src, t_dst)))
    for j in back:
        e = edges[j]
        yield (
            pointer("edges", j),
            f"edge {e.src!r} -> {e.dst!r} goes back in time, from t={_t(g.t_of[e.src])} to "
            f"t={_t(g.t_of[e.dst])}; an edge must not end before it starts (dst.t >= src.t)",
        )
    # Without a backward edge, every cycle runs through events of one time (see the docstring).
    suspects = list(numbered) if back else list(compress(numbered, map(eq, t_src, t_dst)))
    if suspects:
        yield from _cycles(edges, suspects, g)


def _cycles(edges: Sequence[m.Edge | m.OriginalEdge], suspects: list[int], g: Graph) -> Iterator[Found]:
    """Kahn's algorithm on the *suspects* edges; names one cycle if any remain."""
    succ: dict[str, list[str]] = defaultdict(list)
    pred: dict[str, list[str]] = defaultdict(list)
    indegree: dict[str, int] = defaultdict(int)
    edge_of: dict[tuple[str, str], int] = {}
    for j in suspects:
        s, d = edges[j].src, edges[j].dst
        succ[s].append(d)
        pred[d].append(s)
        indegree[d] += 1
        edge_of.setdefault((s, d), j)
    nodes = set(succ) | set(pred)
    ready = [v for v in nodes if indegree[v] == 0]
    while ready:
        v = ready.pop()
        for w in succ[v]:
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    left = {v for v in nodes if indegree[v] > 0}
    if not left:
        return
    # Every event left has a predecessor left; walking back along them must come round again.
    order = g.index
    walk: list[str] = []
    seen: dict[str, int] = {}
    v = min(left, key=order.__getitem__)
    while v not in seen:
        seen[v] = len(walk)
        walk.append(v)
        v = min((p for p in pred[v] if p in left), key=order.__getitem__)
    cycle = list(reversed(walk[seen[v] :]))  # forward order
    start = cycle.index(min(cycle, key=order.__getitem__))
    cycle = cycle[start:] + cycle[:start]  # from the event listed first; the closing edge leads back to it
    names = [repr(x) for x in cycle[:_CYCLES_SHOWN]] + (["..."] if len(cycle) > _CYCLES_SHOWN else [])
    closing = edge_of[(cycle[-1], cycle[0])]
    more = len(left) - len(cycle)
    yield (
        pointer("edges", closing),
        f"edges form a cycle: {' -> '.join([*names, repr(cycle[0])])}; the event graph must be acyclic"
        + (f" ({more} more events are on or after a cycle)" if more > 0 else ""),
    )


def _times(events: list[Any]) -> Iterator[Found]:
    ends = list(map(attrgetter("end"), events))
    if ends.count(UNSET) == len(ends):
        return
    for i in compress(range(len(ends)), map(is_not, ends, repeat(UNSET))):
        e = events[i]
        end, duration = e.end, e.duration
        if end < e.t:
            yield (
                pointer("events", i, "end"),
                f"end {_t(end)} is before t={_t(e.t)}; an event cannot end before it starts",
            )
        elif duration is not UNSET and not math.isclose(e.t + duration, end, rel_tol=1e-9, abs_tol=1e-9):
            yield (
                pointer("events", i, "duration"),
                f"duration {_t(duration)} disagrees with end - t = {_t(end - e.t)}; "
                "give one of them, or make t + duration equal end",
            )


def _parents(events: list[Any], g: Graph) -> Iterator[Found]:
    parents = list(map(attrgetter("parent"), events))
    if parents.count(UNSET) == len(parents):
        return
    parent_of: dict[int, int] = {}
    index, ts = g.index, g.ts
    for i in compress(range(len(parents)), map(is_not, parents, repeat(UNSET))):
        e = events[i]
        p = index.get(e.parent)
        if p is None:
            yield pointer("events", i, "parent"), f"parent {e.parent!r} is not the id of any event"
        elif p == i:
            yield pointer("events", i, "parent"), f"event {e.id!r} cannot be its own parent"
        elif ts[p] > ts[i]:
            yield (
                pointer("events", i, "parent"),
                f"parent {e.parent!r} starts at t={_t(ts[p])}, after this event (t={_t(ts[i])}); "
                "a parent must not start later than its children",
            )
        else:
            parent_of[i] = p
    done: set[int] = set()
    for start in parent_of:
        path: dict[int, None] = {}
        v: int | None = start
        while v is not None and v not in done and v not in path:
            path[v] = None
            v = parent_of.get(v)
        if v is not None and v in path:
            loop = list(path)[list(path).index(v) :]
            yield (
                pointer("events", v, "parent"),
                f"parent links form a loop: {' -> '.join(repr(events[x].id) for x in [*loop, v])}; "
                "parents must form a tree",
            )
        done.update(path)


def _spawns(g: Graph) -> Iterator[Found]:
    events, ts, agents = g.events, g.ts, g.agents
    spawned_at: dict[str, float] = {}
    spawn_of: dict[str, int] = {}
    for i in g.of_kind(m.Spawn):
        e = events[i]
        if not e.to:  # only in the original format, where to is optional
            continue
        if e.to == e.agent:
            yield pointer("events", i, "to"), f"agent {e.agent!r} cannot spawn itself"
        elif e.to not in spawned_at or ts[i] < spawned_at[e.to]:
            spawned_at[e.to] = ts[i]
            spawn_of[e.to] = i
    if g.in_order:  # the first event of each agent is its earliest; found at C speed
        first = dict(zip(reversed(agents), range(len(agents) - 1, -1, -1), strict=True))
    else:
        first = {}
        for i, agent in enumerate(agents):
            j = first.get(agent)
            if j is None or ts[i] < ts[j]:
                first[agent] = i
    g.spawned_at, g.first_act = spawned_at, first
    start = ts[0] if g.in_order else min(ts)
    for agent in sorted(a for a, i in first.items() if a in spawned_at and ts[i] < spawned_at[a]):
        before = sorted(
            (i for i, a in enumerate(agents) if a == agent and ts[i] < spawned_at[agent]), key=ts.__getitem__
        )
        i, k = before[0], spawn_of[agent]
        more = f"; {len(before) - 1} more of its events come before the spawn" if len(before) > 1 else ""
        yield (
            pointer("events", i),
            f"agent {agent!r} acts at t={_t(ts[i])} (event {g.ids[i]!r}) before it is spawned at "
            f"t={_t(spawned_at[agent])} (/events/{k}); an agent acts only after its first spawn{more}",
        )
    unspawned = {a for a, i in first.items() if a not in spawned_at and ts[i] > start}
    if unspawned:
        yield from _unspawned(g, unspawned, start)


def _unspawned(g: Graph, unspawned: set[str], start: float) -> Iterator[Found]:
    """Agents never spawned that start after the trace does: each may only answer tool calls.

    Checked wholesale first: does any of them act in an event other than a tool result, and is
    the first event naming each tool a call (a result first means it answered nothing)? Events are
    looked at one by one only when that fails.
    """
    events, ts, agents, kinds = g.events, g.ts, g.agents, g.kinds
    acting = g.acting
    tools = list(map(attrgetter("tool"), events))
    first_call: dict[str, float] = {}
    suspect_tools: set[Any] = set()
    named = set(tools) - {UNSET, ""}
    if g.in_order and len(named) <= _FEW_KEYS:  # list.index finds first occurrences at C speed
        for tool in named:
            i = tools.index(tool)
            if kinds[i] is not m.ToolCall:  # named before any call: a result of it may answer nothing
                suspect_tools.add(tool)
                calls = [j for j in range(i, len(tools)) if tools[j] == tool and kinds[j] is m.ToolCall]
                first_call[tool] = ts[calls[0]] if calls else math.inf
    else:
        for i in g.of_kind(m.ToolCall):
            if ts[i] < first_call.get(tools[i], math.inf):
                first_call[tools[i]] = ts[i]
        suspect_tools = {tools[i] for i in g.of_kind(m.ToolResult)}
    if g.original and not all(compress(tools, map(is_, kinds, repeat(m.ToolResult)))):
        suspect_tools |= {UNSET, ""}  # a result naming no tool (original format only) answers no call
    wrong: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for agent in acting & unspawned:
        for i, a in enumerate(agents):
            if a == agent and kinds[i] not in m.UNSPAWNED_KINDS:
                wrong[agent].append((i, f"a {events[i].kind} event"))
    if suspect_tools:
        for i in g.of_kind(m.ToolResult):
            tool = tools[i]
            if tool in suspect_tools and agents[i] in unspawned and ts[i] < first_call.get(tool, math.inf):
                named_tool = f"for {tool!r}" if tool else "naming no tool"
                wrong[agents[i]].append((i, f"a result {named_tool}, which no earlier tool_call names"))
    for agent in sorted(wrong):
        cases = sorted(wrong[agent], key=lambda case: (ts[case[0]], case[0]))
        i, what = cases[0]
        more = f"; {len(cases) - 1} more of its events break this rule" if len(cases) > 1 else ""
        yield (
            pointer("events", i),
            f"agent {agent!r} is never spawned, yet at t={_t(ts[i])} (event {g.ids[i]!r}) it records {what}; "
            f"only root agents (acting from the trace's start, t={_t(start)}) and tools answering an earlier "
            f"tool_call may act without a spawn{more}",
        )


def _senders(g: Graph) -> Iterator[Found]:
    for kind in (m.Message, m.Return):
        for i in g.of_kind(kind):
            e = g.events[i]
            if e.from_ and e.from_ != e.agent:
                yield (
                    pointer("events", i, "from"),
                    f"from {e.from_!r} differs from agent {e.agent!r}; the sender of a {kind.kind} is the agent that acts",
                )


def _returns(trace: m.AnyTrace, g: Graph) -> Iterator[Found]:
    returns = g.of_kind(m.Return)
    if not returns:
        return
    allowed: dict[str, set[str]] = defaultdict(set)  # returner -> agents it may return to
    for i in g.of_kind(m.Spawn):
        if g.events[i].to:
            allowed[g.events[i].to].add(g.agents[i])
    types = list(map(attrgetter("type"), trace.edges))
    if "delegate" in types:
        index = g.index
        for j in compress(range(len(types)), map(eq, types, repeat("delegate"))):
            e = trace.edges[j]
            s, d = index.get(e.src), index.get(e.dst)
            if s is not None and d is not None:
                allowed[g.agents[d]].add(g.agents[s])
    for i in returns:
        e = g.events[i]
        ok = allowed.get(e.agent, set())
        if e.to and e.to not in ok:
            targets = one_of(sorted(ok)) if ok else "an agent that spawned or delegated to it, and none did"
            yield (
                pointer("events", i, "to"),
                f"return from {e.agent!r} goes to {e.to!r}, which neither spawned it nor delegated to it; "
                f"it may return to {targets}",
            )


def _attributions(trace: m.AnyTrace, g: Graph) -> Iterator[Found]:
    if trace.attributions is UNSET:
        return
    roles: set[str] | None = None
    for k, a in enumerate(trace.attributions):
        where = pointer("attributions", k, "ref")
        if a.index is not UNSET and a.unit != "token":
            yield pointer("attributions", k, "index"), f"index is only for unit token, not {a.unit}"
        if a.ref is UNSET:
            if a.unit != "team":
                yield (
                    where,
                    f"ref is required for unit {a.unit}: it names the {_REF_NAMES[a.unit]} that gets the reward",
                )
            continue
        if a.unit in m.EVENT_UNITS:
            position = g.index.get(a.ref)
            types = m.EVENT_UNITS[a.unit]
            if position is None:
                yield where, f"ref {a.ref!r} is not the id of any event; unit {a.unit} names an event"
            elif types is not None and g.events[position].kind not in types:
                yield (
                    where,
                    f"ref {a.ref!r} is a {g.events[position].kind} event; unit {a.unit} names a {' or '.join(types)} event",
                )
        elif a.unit in m.AGENT_UNITS:
            if a.ref not in g.first_act:
                yield where, f"ref {a.ref!r} is not an agent of this trace; unit {a.unit} names an agent"
        elif a.unit == "role":
            if roles is None:
                roles = {e.role for e in g.events if e.role is not UNSET}
            if a.ref not in roles:
                yield where, f"ref {a.ref!r} is not a role of any event; unit role names a role in use"


def _ablation(trace: m.AnyTrace, g: Graph) -> Iterator[Found]:
    ablation = trace.ablation
    if ablation is UNSET:
        return
    if ablation.agents is UNSET and ablation.roles is UNSET:
        yield pointer("ablation"), "ablation must name the agents or the roles the run leaves out"
    if trace.task_id is UNSET:
        yield (
            pointer("ablation"),
            "an ablation run needs a task_id: it is compared with the full team's runs of the same task",
        )
    for k, agent in enumerate([] if ablation.agents is UNSET else ablation.agents):
        i = g.first_act.get(agent)
        if i is not None:
            yield (
                pointer("ablation", "agents", k),
                f"agent {agent!r} acts in this run (event {g.ids[i]!r}), yet the ablation leaves it out",
            )
    roles = [] if ablation.roles is UNSET else ablation.roles
    removed = set(roles)
    if removed:
        used: dict[str, int] = {}
        for i, e in enumerate(g.events):
            if e.role in removed and e.role not in used:
                used[e.role] = i
        for k, role in enumerate(roles):
            if role in used:
                yield (
                    pointer("ablation", "roles", k),
                    f"role {role!r} is carried by event {g.ids[used[role]]!r}, yet the ablation leaves it out",
                )


_REF_NAMES = {
    "token": "event holding the token",
    "turn": "event",
    "message": "message event",
    "tool": "tool_call or tool_result event",
    "agent": "agent",
    "role": "role",
    "orchestrator": "orchestrating agent",
}
