"""How the graph checks name what they find: which event, which cycle, how many more.

Tables of small traces, each with the exact problems (or, in the original format, warnings)
expected: cycles (named from the event listed first, spelled from their own first event, pointing
at the edge that closes them, cut after twelve, the events beyond counted), events out of time
order, equal times, tools answering nothing, parents, returns and attributions; then the by-position
fast paths against the general ones, rare event kinds among many, and times in messages.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from trace_cases import encode

from masrl.trace._graph import check, edge_rules
from masrl.trace._read import decode
from masrl.trace._validate import validate_bytes, validate_file

F = "t.json"


def _doc(events: list[dict[str, object]], **top: object) -> dict[str, object]:
    """A trace of *events* declaring this version (every rule an error), with no edges unless given."""
    return {"schema_version": "1.0", "trace_id": "x", "events": events, "edges": [], **top}


def _validated(tmp_path: Path, doc: dict[str, object]) -> list[str]:
    """The problems of *doc* written as t.json, as printed."""
    path = tmp_path / F
    path.write_bytes(encode(doc))
    return [str(p) for p in validate_file(path, F).problems]


NEVER = "; only root agents (acting from the trace's start, t=0) and tools answering an earlier tool_call may act without a spawn"
MORE = "; 1 more of its events break this rule"
LEAD = {"id": "d", "t": 0, "type": "orchestrator_decision", "agent": "lead"}


def _trace(ids: list[str], edges: list[tuple[str, str]]) -> dict[str, object]:
    """An equal-time trace (one root agent, every event at t=0) with causal *edges*."""
    return _doc(
        [{"id": i, "t": 0, "type": "aggregate", "agent": "lead"} for i in ids],
        edges=[{"src": s, "dst": d, "type": "causal"} for s, d in edges],
    )


def _ring(names: list[str]) -> list[tuple[str, str]]:
    return list(zip(names, names[1:] + names[:1], strict=True))


LONG = [f"n{k:02d}" for k in range(13)]
TWELVE = LONG[:12]
ACYCLIC = "; the event graph must be acyclic"

CASES: list[tuple[str, list[str], list[tuple[str, str]], str]] = [
    # two cycles: the one holding the event listed first is named, not the first by name
    ("first-listed-cycle", ["q", "p", "b", "a"], [*_ring(["p", "q"]), *_ring(["a", "b"])],
     f"/edges/0: edges form a cycle: 'q' -> 'p' -> 'q'{ACYCLIC} (2 more events are on or after a cycle)"),
    # the event listed first lies after the cycle: it is counted, not named
    ("downstream-first", ["d", "b", "c", "a"], [*_ring(["a", "b", "c"]), ("c", "d")],
     f"/edges/0: edges form a cycle: 'b' -> 'c' -> 'a' -> 'b'{ACYCLIC} (1 more events are on or after a cycle)"),
    # a cycle is spelled from its event listed first, whatever the names sort to
    ("spelled-from-first-listed", ["z", "y"], _ring(["y", "z"]),
     f"/edges/0: edges form a cycle: 'z' -> 'y' -> 'z'{ACYCLIC}"),
    # walking back from an event with two predecessors on cycles follows the one listed first
    ("two-ways-back", ["m", "k", "j"], [("k", "m"), ("j", "m"), ("m", "k"), ("m", "j")],
     f"/edges/0: edges form a cycle: 'm' -> 'k' -> 'm'{ACYCLIC} (1 more events are on or after a cycle)"),
    # twelve events are spelled out in full, a thirteenth is cut
    ("twelve", TWELVE, _ring(TWELVE),
     f"/edges/11: edges form a cycle: {' -> '.join(repr(x) for x in [*TWELVE, 'n00'])}{ACYCLIC}"),
    ("thirteen", LONG, _ring(LONG),
     f"/edges/12: edges form a cycle: {' -> '.join(repr(x) for x in LONG[:12])} -> ... -> 'n00'{ACYCLIC}"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "ids", "edges", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_cycle_named(
    tmp_path: Path, case: str, ids: list[str], edges: list[tuple[str, str]], expected: str
) -> None:
    assert _validated(tmp_path, _trace(ids, edges)) == [f"{F}: {expected}"]


# Traces in the original format (no schema_version), where ``tool`` may be empty: (case, events,
# the warnings expected). An empty name matches no call, even an empty one.
ORIGINAL_CASES: list[tuple[str, list[dict[str, object]], list[str]]] = [
    ("empty-after-empty-call", [
        LEAD,
        {"id": "e2", "t": 1, "type": "tool_call", "agent": "lead", "tool": ""},
        {"id": "e3", "t": 2, "type": "tool_result", "agent": "calc", "tool": ""},
    ], [f"{F}: /events/2: warning: agent 'calc' is never spawned, yet at t=2 (event 'e3') it records a result naming no tool, which no earlier tool_call names{NEVER}"]),
    # whatever comes between, each result naming no tool answers nothing
    ("empty-around-empty-call", [
        LEAD,
        {"id": "e1", "t": 1, "type": "tool_result", "agent": "calc", "tool": ""},
        {"id": "e2", "t": 2, "type": "tool_call", "agent": "lead", "tool": ""},
        {"id": "e3", "t": 3, "type": "tool_result", "agent": "calc", "tool": ""},
    ], [f"{F}: /events/1: warning: agent 'calc' is never spawned, yet at t=1 (event 'e1') it records a result naming no tool, which no earlier tool_call names{NEVER}{MORE}"]),
    # results naming no tool and results answering nothing are both reported
    ("empty-and-unanswered", [
        LEAD,
        {"id": "e2", "t": 1, "type": "tool_result", "agent": "calc", "tool": "calc"},
        {"id": "e3", "t": 2, "type": "tool_result", "agent": "web", "tool": ""},
    ], [
        f"{F}: /events/1: warning: agent 'calc' is never spawned, yet at t=1 (event 'e2') it records a result for 'calc', which no earlier tool_call names{NEVER}",
        f"{F}: /events/2: warning: agent 'web' is never spawned, yet at t=2 (event 'e3') it records a result naming no tool, which no earlier tool_call names{NEVER}",
    ]),
]  # fmt: skip


@pytest.mark.parametrize(("case", "events", "expected"), ORIGINAL_CASES, ids=[c[0] for c in ORIGINAL_CASES])
def test_original_format_cases(case: str, events: list[dict[str, object]], expected: list[str]) -> None:
    checked = validate_bytes(encode({"trace_id": "x", "events": events, "edges": []}), F)
    assert checked.problems == []
    assert [str(w) for w in checked.warnings] == expected


# Traces declaring this version: (case, events, other top-level keys, the problems expected)
EVENT_CASES: list[tuple[str, list[dict[str, object]], dict[str, object], list[str]]] = [
    # a trace listed out of order starts at its earliest time, not at its first event
    ("start-is-earliest", [
        {"id": "e5", "t": 5, "type": "aggregate", "agent": "lead"},
        {"id": "e0", "t": 0, "type": "orchestrator_decision", "agent": "lead"},
        {"id": "e3", "t": 3, "type": "message", "agent": "x", "to": "lead"},
    ], {}, [f"{F}: /events/2: agent 'x' is never spawned, yet at t=3 (event 'e3') it records a message event{NEVER}"]),
    # every event is no earlier than the one two places before it, yet the list is not in time
    # order: the first act of an agent is then its earliest, not the first listed
    ("two-interleaved-orders", [
        {"id": "e0", "t": 0, "type": "orchestrator_decision", "agent": "lead"},
        {"id": "e1", "t": 2, "type": "message", "agent": "x", "to": "lead"},
        {"id": "e2", "t": 1, "type": "message", "agent": "x", "to": "lead"},
        {"id": "e3", "t": 2.5, "type": "aggregate", "agent": "lead"},
        {"id": "e4", "t": 1.5, "type": "spawn", "agent": "lead", "to": "x"},
    ], {}, [f"{F}: /events/2: agent 'x' acts at t=1 (event 'e2') before it is spawned at t=1.5 (/events/4); an agent acts only after its first spawn"]),
    # acts before a spawn are named from the earliest, and counted only strictly before it
    ("before-spawn-earliest", [
        LEAD,
        {"id": "late", "t": 1.2, "type": "message", "agent": "x", "to": "lead"},
        {"id": "early", "t": 1, "type": "message", "agent": "x", "to": "lead"},
        {"id": "at", "t": 1.5, "type": "message", "agent": "x", "to": "lead"},
        {"id": "s", "t": 1.5, "type": "spawn", "agent": "lead", "to": "x"},
    ], {}, [f"{F}: /events/2: agent 'x' acts at t=1 (event 'early') before it is spawned at t=1.5 (/events/4); an agent acts only after its first spawn; 1 more of its events come before the spawn"]),
    # of two spawns at one time the first listed is named
    ("two-spawns-at-one-time", [
        LEAD,
        {"id": "m", "t": 1, "type": "message", "agent": "w", "to": "lead"},
        {"id": "s1", "t": 2, "type": "spawn", "agent": "lead", "to": "w"},
        {"id": "s2", "t": 2, "type": "spawn", "agent": "lead", "to": "w"},
    ], {}, [f"{F}: /events/1: agent 'w' acts at t=1 (event 'm') before it is spawned at t=2 (/events/2); an agent acts only after its first spawn"]),
    # a tool answering nothing several times, listed latest first: named from its earliest result, the rest counted
    ("unanswered-several-times", [
        {"id": "e0", "t": 0, "type": "orchestrator_decision", "agent": "lead"},
        {"id": "e3", "t": 3, "type": "tool_result", "agent": "calc", "tool": "calc"},
        {"id": "e2", "t": 2, "type": "tool_result", "agent": "calc", "tool": "calc"},
        {"id": "e1", "t": 1, "type": "tool_result", "agent": "calc", "tool": "calc"},
        {"id": "e4", "t": 1, "type": "tool_result", "agent": "calc", "tool": "calc"},
    ], {}, [f"{F}: /events/3: agent 'calc' is never spawned, yet at t=1 (event 'e1') it records a result for 'calc', which no earlier tool_call names{NEVER}; 3 more of its events break this rule"]),
    # of two faults of one agent at one time the first listed is named
    ("two-faults-at-one-time", [
        LEAD,
        {"id": "r", "t": 1, "type": "tool_result", "agent": "x", "tool": "calc"},
        {"id": "m", "t": 1, "type": "message", "agent": "x", "to": "lead"},
    ], {}, [f"{F}: /events/1: agent 'x' is never spawned, yet at t=1 (event 'r') it records a result for 'calc', which no earlier tool_call names{NEVER}{MORE}"]),
    # a parent loop with another child is reported once
    ("parent-loop-once", [
        LEAD,
        {"id": "a", "t": 1, "type": "aggregate", "agent": "lead", "parent": "b"},
        {"id": "b", "t": 1, "type": "aggregate", "agent": "lead", "parent": "a"},
        {"id": "c", "t": 1, "type": "aggregate", "agent": "lead", "parent": "a"},
    ], {}, [f"{F}: /events/1/parent: parent links form a loop: 'a' -> 'b' -> 'a'; parents must form a tree"]),
    # a return from an agent nobody spawned or delegated to says so
    ("return-uninvited", [
        LEAD,
        {"id": "r", "t": 1, "type": "return", "agent": "lead", "to": "boss"},
    ], {}, [f"{F}: /events/1/to: return from 'lead' goes to 'boss', which neither spawned it nor delegated to it; it may return to an agent that spawned or delegated to it, and none did"]),
    # every attribution is checked after a team one; a tool attribution names both event types
    ("attributions-after-team", [
        LEAD,
        {"id": "m", "t": 1, "type": "message", "agent": "lead", "to": "lead"},
    ], {"attributions": [
        {"unit": "team", "channel": "team", "value": 1},
        {"unit": "tool", "ref": "m", "channel": "tool", "value": 1},
    ]}, [f"{F}: /attributions/1/ref: ref 'm' is a message event; unit tool names a tool_call or tool_result event"]),
]  # fmt: skip


@pytest.mark.parametrize(("case", "events", "top", "expected"), EVENT_CASES, ids=[c[0] for c in EVENT_CASES])
def test_event_cases(
    tmp_path: Path, case: str, events: list[dict[str, object]], top: dict[str, object], expected: list[str]
) -> None:
    assert _validated(tmp_path, _doc(events, **top)) == expected


@pytest.mark.parametrize(
    ("start", "shown"),
    [(0.0, ("3", "3.5")), (1_767_225_600.0, ("1767225603", "1767225603.5")), (0.000125, ("3.000125", "3.500125"))],
)
def test_times_in_messages_are_written_in_full(tmp_path: Path, start: float, shown: tuple[str, str]) -> None:
    events = [
        {"id": "e1", "t": start, "type": "orchestrator_decision", "agent": "lead"},
        {"id": "e2", "t": start + 3, "type": "message", "agent": "helper", "to": "lead"},
        {"id": "e3", "t": start + 3.5, "type": "spawn", "agent": "lead", "to": "helper"},
    ]
    [problem] = _validated(tmp_path, _doc(events))
    assert f"acts at t={shown[0]} (event 'e2') before it is spawned at t={shown[1]} (/events/2)" in problem


def _tool_trace(tools: int, reverse: bool) -> dict[str, object]:
    """A result for 'calc' that answers nothing, then a call of 'calc' and the result answering it;
    *tools* other tools called and answered around them, the events listed backwards if *reverse*."""
    events: list[dict[str, object]] = [{"id": "e0", "t": 0, "type": "orchestrator_decision", "agent": "lead"}]
    for k in range(tools):
        events.append({"id": f"c{k}", "t": 0.5, "type": "tool_call", "agent": "lead", "tool": f"tool{k}"})
        events.append({"id": f"r{k}", "t": 0.75, "type": "tool_result", "agent": f"tool{k}", "tool": f"tool{k}"})
    events += [
        {"id": "e1", "t": 1, "type": "tool_result", "agent": "calc", "tool": "calc"},
        {"id": "e2", "t": 2, "type": "tool_call", "agent": "lead", "tool": "calc"},
        {"id": "e3", "t": 3, "type": "tool_result", "agent": "calc", "tool": "calc"},
    ]
    return _doc(events[::-1] if reverse else events)


@pytest.mark.parametrize(
    ("tools", "reverse"),
    [(0, False), (15, False), (16, False), (0, True)],
    ids=["in-order", "fifteen-other-tools", "sixteen-other-tools", "listed-backwards"],
)
def test_only_the_result_before_the_first_call_answers_nothing(tmp_path: Path, tools: int, reverse: bool) -> None:
    """The same verdict whether events are in time order with few tools (found by position) or not."""
    doc = _tool_trace(tools, reverse)
    where = [e["id"] for e in doc["events"]].index("e1")  # type: ignore[index]
    assert _validated(tmp_path, doc) == [
        f"{F}: /events/{where}: agent 'calc' is never spawned, yet at t=1 (event 'e1') it records a result for "
        "'calc', which no earlier tool_call names; only root agents (acting from the trace's start, t=0) and "
        "tools answering an earlier tool_call may act without a spawn"
    ]


@pytest.mark.parametrize("filler", [0, 300])
def test_rare_events_among_many_are_all_found(tmp_path: Path, filler: int) -> None:
    """Spawns among hundreds of other events (a rare kind, found by jumping from one to the next)."""
    events: list[dict[str, object]] = [{"id": "d", "t": 0, "type": "orchestrator_decision", "agent": "lead"}]
    events += [{"id": f"s{k}", "t": 1 + k, "type": "spawn", "agent": "lead", "to": f"w{k}"} for k in range(3)]
    events += [{"id": f"a{k}", "t": 10, "type": "aggregate", "agent": "lead"} for k in range(filler)]
    # w2 acts before its spawn at t=3; w1 spawns itself; w0 behaves
    events += [
        {"id": "x0", "t": 2.5, "type": "message", "agent": "w2", "to": "lead"},
        {"id": "x1", "t": 11, "type": "spawn", "agent": "w1", "to": "w1"},
        {"id": "x2", "t": 12, "type": "message", "agent": "w0", "to": "lead"},
    ]
    n = len(events)
    assert _validated(tmp_path, _doc(events)) == [
        f"{F}: /events/{n - 3}: agent 'w2' acts at t=2.5 (event 'x0') before it is spawned at t=3 (/events/3); "
        "an agent acts only after its first spawn",
        f"{F}: /events/{n - 2}/to: agent 'w1' cannot spawn itself",
    ]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"end": 0, "duration": 1e-12}, []),  # float noise at time zero is not a disagreement
        ({"end": 1e9, "duration": 1e9 + 0.1}, []),  # nor a tenth of a second in a Unix time
        (
            {"end": 0, "duration": 1e-6},
            [
                f"{F}: /events/1/duration: duration 1e-06 disagrees with end - t = 0; give one of them, or make t + duration equal end"
            ],
        ),
    ],
)
def test_duration_and_end_agree_within_float_noise(
    tmp_path: Path, fields: dict[str, float], expected: list[str]
) -> None:
    events = [
        {"id": "e0", "t": 0, "type": "orchestrator_decision", "agent": "lead"},
        {"id": "e1", "t": 0, "type": "aggregate", "agent": "lead", **fields},
    ]
    assert _validated(tmp_path, _doc(events)) == expected


# -- Rules 1 to 4 found apart (as the edge helper does in its own process) --------------------

APART: list[tuple[str, dict[str, object]]] = [
    *((f"cycle-{case}", _trace(ids, edges)) for case, ids, edges, _ in CASES),
    ("forward", _doc([LEAD, {**LEAD, "id": "d2", "t": 1}], edges=[{"src": "d", "dst": "d2", "type": "causal"}])),
    ("dangling-and-duplicate", _doc([LEAD, LEAD], edges=[{"src": "d", "dst": "x", "type": "causal"}])),
    ("back-in-time", _doc([LEAD, {**LEAD, "id": "d2", "t": 1}], edges=[{"src": "d2", "dst": "d", "type": "causal"}])),
]


@pytest.mark.parametrize(("case", "doc"), APART, ids=[c[0] for c in APART])
def test_edge_rules_apart_find_what_check_finds(case: str, doc: dict[str, object]) -> None:
    trace, _ = decode(encode(doc), F)
    assert trace is not None
    original, found, graph = check(trace)
    apart = edge_rules(graph.ids, graph.ts, trace.edges)
    given_original, given_found, given_graph = check(trace, lambda: apart)
    assert (given_original, sorted(given_found), given_graph.forward) == (original, sorted(found), graph.forward)
    assert apart[0] == original
    assert set(apart[1]) <= set(found)


def test_findings_given_are_taken_as_they_are() -> None:
    trace, _ = decode(encode(_doc([LEAD], edges=[{"src": "d", "dst": "x", "type": "causal"}])), F)
    assert trace is not None
    given = ([("/a", "one")], [("/b", "two")], True)
    original, found, graph = check(trace, lambda: given)
    assert (original, found, graph.forward) == ([("/a", "one")], [("/b", "two")], True)
    assert (
        check(trace, lambda: None)[:2]
        == check(trace)[:2]
        == (
            [("/edges/0/dst", "edge dst 'x' is not the id of any event; src and dst must name events in /events")],
            [],
        )
    )
