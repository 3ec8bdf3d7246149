"""Traces in the survey's original format (no ``schema_version``): all that format allows validates.

The facts of that format (its JSON Schema and its validator) are restated in the module docstring
of :mod:`masrl.trace._model`. Each case below is a trace the original schema and validator both
accept, made by editing the survey's example; it must validate here with exit 0, with warnings at
the JSON Pointers given for the graph rules the original never checked. The same trace declaring
``schema_version`` 1.0 is held to every rule of this version, and must fail exactly where today's
rules say so. A property test draws random original-valid traces.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trace_cases import encode, reference

from masrl.trace import _model as m
from masrl.trace._metrics import compute
from masrl.trace._validate import validate_bytes

F = "t.json"
Edit = Callable[[dict[str, Any]], Any]


def judged(doc: dict[str, Any], *, strict: bool = False) -> tuple[list[str], list[str]]:
    """(pointers of the errors, pointers of the warnings) of *doc*."""
    checked = validate_bytes(encode(doc), F, strict=strict)
    return [p.where for p in checked.problems], [w.where for w in checked.warnings]


def ev(id_: str, t: float, kind: str, agent: str, **fields: Any) -> dict[str, Any]:
    return {"id": id_, "t": t, "type": kind, "agent": agent, **fields}


def add_events(*events: dict[str, Any]) -> Edit:
    return lambda d: d["events"].extend(events)


def add_edges(*edges: tuple[str, str, str]) -> Edit:
    return lambda d: d["edges"].extend({"src": s, "dst": t, "type": k} for s, t, k in edges)


def set_event(i: int, **fields: Any) -> Edit:
    return lambda d: d["events"][i].update(fields)


def drop_event_key(i: int, key: str) -> Edit:
    return lambda d: d["events"][i].pop(key)


def set_top(key: str, value: Any) -> Edit:
    return lambda d: d.update({key: value})


def also(*edits: Edit) -> Edit:
    def run(d: dict[str, Any]) -> None:
        for edit in edits:
            edit(d)

    return run


# (case, edit of the survey's example, warning pointers without schema_version, error pointers with 1.0)
ORIGINAL_VALID: list[tuple[str, Edit, list[str], list[str]]] = [
    ("example-unchanged", lambda d: None, [], []),
    # every edge type of the original
    *[(f"edge-{kind}", add_edges(("e1", "e8", kind)), [], [] if kind in m.EDGE_TYPES else ["/edges/8/type"]) for kind in m.ORIGINAL_EDGE_TYPES if kind != "delegate"],
    # every topology of the original, and none
    *[(f"topology-{name}", set_top("topology", name), [], [] if name in m.TOPOLOGIES else ["/topology"]) for name in m.ORIGINAL_TOPOLOGIES if name != "NA"],
    ("no-topology", lambda d: d.pop("topology"), [], []),
    ("no-system", lambda d: d.pop("system"), [], []),
    ("empty-system", set_top("system", ""), [], ["/system"]),
    ("no-metrics", lambda d: d.pop("metrics"), [], []),
    ("any-reward-cost-metric-keys", lambda d: (d["rewards"].update(process=-0.5, x=3), d["costs"].update(usd=0.2, gpu_s=9), d["metrics"].update(anything=-7.25)), [], []),
    ("no-edges", lambda d: d.update(edges=[]), [], []),
    # every event type of the original
    ("despawn-human-safety", add_events(ev("e9", 8, "despawn", "orchestrator", to="planner_1"), ev("e10", 9, "human_intervention", "reviewer"), ev("e11", 10, "safety_event", "guard")), [], []),
    # optional keys, present, missing or empty
    ("spawn-without-to", drop_event_key(1, "to"), ["/events/3"], ["/events/1/to"]),
    ("spawn-empty-to", set_event(1, to=""), ["/events/3"], ["/events/1/to"]),
    ("message-without-to", drop_event_key(3, "to"), [], ["/events/3/to"]),
    ("return-empty-to", set_event(6, to=""), [], ["/events/6/to"]),
    ("tool-call-without-tool", drop_event_key(4, "tool"), ["/events/5"], ["/events/4/tool"]),
    ("tool-result-empty-tool", set_event(5, tool=""), ["/events/5"], ["/events/5/tool"]),
    ("empty-role-from-content-ref", set_event(3, role="", content_ref="", **{"from": ""}), [], ["/events/3/content_ref", "/events/3/from", "/events/3/role"]),
    ("no-optional-keys", lambda d: d.update(events=[{k: e[k] for k in ("id", "t", "type", "agent")} for e in d["events"]]), ["/events/3", "/events/4", "/events/5"], ["/events/1/to", "/events/2/to", "/events/3/to", "/events/4/tool", "/events/5/tool", "/events/6/to"]),
    ("trusted-false", set_event(0, trusted=False), [], []),
    # extra event keys carry no rules
    ("extra-keys", set_event(4, model="gpt-x", latency_ms=812, nested={"a": [1, None]}), [], ["/events/4/latency_ms", "/events/4/model", "/events/4/nested"]),
    ("added-keys-typed", set_event(4, tokens={"input": 10, "output": 2}, cost={"usd": 0.01}, end=4.5, stage="s1", attributes={"k": 1}), [], []),
    ("added-keys-other-shapes", set_event(4, tokens=1234, cost="cheap", end="later", stage=2, attributes=[1, 2]), ["/events/4/attributes", "/events/4/cost", "/events/4/end", "/events/4/stage", "/events/4/tokens"], ["/events/4/attributes", "/events/4/cost", "/events/4/end", "/events/4/stage", "/events/4/tokens"]),
    ("added-keys-null", set_event(2, tokens=None, end=None, duration=None, parent=None), ["/events/2/duration", "/events/2/end", "/events/2/parent", "/events/2/tokens"], ["/events/2/duration", "/events/2/end", "/events/2/parent", "/events/2/tokens"]),
    # graph rules the original never checked: warnings here, errors under 1.0
    ("from-differs", set_event(3, **{"from": "executor_1"}), ["/events/3/from"], ["/events/3/from"]),
    ("equal-timestamps", lambda d: [e.update(t=5) for e in d["events"]], [], []),
    ("unix-time", lambda d: [e.update(t=1_767_225_600 + e["t"]) for e in d["events"]], [], []),
    ("self-loop", add_edges(("e5", "e5", "causal")), ["/edges/8"], ["/edges/8"]),
    ("duplicate-edges", add_edges(("e1", "e2", "spawn"), ("e1", "e2", "spawn")), [], []),
    ("edge-back-in-time", add_edges(("e8", "e1", "causal")), ["/edges/8", "/edges/8"], ["/edges/8", "/edges/8"]),
    ("temporal-self-loop", add_edges(("e5", "e5", "temporal")), ["/edges/8"], ["/edges/8/type"]),
    ("act-before-spawn", set_event(1, t=3.5), ["/edges/2", "/events/3"], ["/edges/2", "/events/3"]),
    ("never-spawned", set_event(3, agent="stranger"), ["/events/3", "/events/3/from"], ["/events/3", "/events/3/from"]),
    ("return-elsewhere", set_event(6, to="planner_1"), ["/events/6/to"], ["/events/6/to"]),
    ("events-listed-backwards", lambda d: d["events"].reverse(), [], []),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "warnings", "errors_v1"), ORIGINAL_VALID, ids=[c[0] for c in ORIGINAL_VALID])
def test_original_valid_traces_validate(
    case: str, edit: Edit, warnings: list[str], errors_v1: list[str], run_cli: Any, tmp_path: Path
) -> None:
    doc = reference()
    edit(doc)
    assert judged(doc) == ([], warnings)
    # The same trace declaring this version keeps today's rules.
    errors, _ = judged({"schema_version": "1.0", **doc})
    assert sorted(errors) == errors_v1
    # Through the command line: exit 0, warnings printed; --strict makes them errors.
    path = tmp_path / F
    path.write_bytes(encode(doc))
    result = run_cli("trace", "validate", str(path))
    assert result.exit_code == 0, result.stdout
    assert len(result.stdout.splitlines()) == len(warnings)
    assert all(": warning: " in line for line in result.stdout.splitlines())
    strict = run_cli("trace", "validate", "--strict", str(path))
    assert strict.exit_code == (1 if warnings else 0)


def test_every_enum_value_of_the_original_is_covered() -> None:
    cases = {c[0] for c in ORIGINAL_VALID}
    assert {f"edge-{k}" for k in m.ORIGINAL_EDGE_TYPES if k != "delegate"} <= cases
    assert {f"topology-{k}" for k in m.ORIGINAL_TOPOLOGIES if k != "NA"} <= cases
    kinds = {e["type"] for e in reference()["events"]} | {"despawn", "human_intervention", "safety_event"}
    assert kinds == set(m.EVENT_TYPES)


def test_opaque_values_are_kept_in_metadata() -> None:
    doc = reference()
    doc["events"][4].update(tokens=1234, stage=["x"])
    checked = validate_bytes(encode(doc), F)
    assert checked.ok
    assert checked.trace is not None
    assert checked.trace.metadata == {"opaque": {"/events/4/tokens": 1234, "/events/4/stage": ["x"]}}
    assert [str(w) for w in checked.warnings] == [
        f"{F}: /events/4/stage: warning: stage holds an array, while this version reads stage as a non-empty "
        "string; the value is kept unread in /metadata/opaque, as the original format allows any value",
        f"{F}: /events/4/tokens: warning: tokens holds the number 1234, while this version reads tokens as an "
        "object of whole input and output counts; the value is kept unread in /metadata/opaque, as the original "
        "format allows any value",
    ]


# What the original validator itself refuses stays an error without schema_version.
ORIGINAL_INVALID: list[tuple[str, Edit, list[str]]] = [
    ("duplicate-id", set_event(3, id="e2"), ["/edges/2/dst", "/edges/3/dst", "/edges/4/src", "/events/3/id"]),
    ("dangling-edge", add_edges(("e1", "e42", "temporal")), ["/edges/8/dst"]),
    ("negative-t", set_event(2, t=-1), ["/events/2/t"]),
    ("unknown-event-type", set_event(2, type="teleport"), ["/events/2/type"]),
    ("unknown-edge-type", add_edges(("e1", "e2", "delegation")), ["/edges/8/type"]),
    ("unknown-topology", set_top("topology", "star"), ["/topology"]),
    ("negative-cost", lambda d: d["costs"].update(tokens=-1), ["/costs/tokens"]),
    ("no-events", lambda d: d.update(events=[]), ["/events"]),
    ("no-trace-id", lambda d: d.pop("trace_id"), ["/trace_id"]),
    ("empty-agent", set_event(0, agent=""), ["/events/0/agent"]),
    ("missing-agent", drop_event_key(0, "agent"), ["/events/0/agent"]),
    ("trusted-not-bool", set_event(4, trusted="yes"), ["/events/4/trusted"]),
    ("unknown-top-key", set_top("notes", "x"), ["/notes"]),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "errors"), ORIGINAL_INVALID, ids=[c[0] for c in ORIGINAL_INVALID])
def test_what_the_original_refuses_stays_refused(case: str, edit: Edit, errors: list[str]) -> None:
    doc = reference()
    edit(doc)
    assert sorted(judged(doc)[0]) == errors


# -- Properties: random traces the original format allows ---------------------------------------

_text = st.text(max_size=6)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-9, 9) | st.floats(-9, 9) | _text,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_text, inner, max_size=2),
    max_leaves=4,
)
_ADDED = ["tokens", "cost", "end", "duration", "stage", "attributes", "parent", "model", "latency_ms"]


@st.composite
def original_traces(draw: st.DrawFn) -> dict[str, Any]:
    """A trace the original schema and validator accept: anything within the facts of that format."""
    agents = draw(st.lists(st.sampled_from(["o", "p", "q", "tool.x", "w"]), min_size=1, max_size=4))
    events = []
    for i in range(draw(st.integers(1, 20))):
        event: dict[str, Any] = {
            "id": f"e{i}",
            "t": draw(st.sampled_from([0, 0, 1, 2.5, 7, 1.7e9])),
            "type": draw(st.sampled_from(m.EVENT_TYPES)),
            "agent": draw(st.sampled_from(agents)),
        }
        for key in ("role", "from", "to", "tool", "content_ref"):
            if draw(st.booleans()):
                event[key] = draw(st.sampled_from(["", *agents]))
        if draw(st.booleans()):
            event["trusted"] = draw(st.booleans())
        for key in draw(st.lists(st.sampled_from(_ADDED), max_size=3, unique=True)):
            event[key] = draw(_json)
        events.append(event)
    ids = [e["id"] for e in events]
    edges = [
        {"src": draw(st.sampled_from(ids)), "dst": draw(st.sampled_from(ids)), "type": kind}
        for kind in draw(st.lists(st.sampled_from([k for k in m.ORIGINAL_EDGE_TYPES if k != "delegate"]), max_size=25))
    ]
    trace: dict[str, Any] = {
        "trace_id": draw(st.text(min_size=1, max_size=6)),
        "task_id": draw(st.text(min_size=1, max_size=6)),
        "events": events,
        "edges": edges,
        "rewards": draw(st.dictionaries(_text, st.floats(-5, 5), max_size=3)),
        "costs": {
            "tokens": draw(st.integers(0, 10**6)),
            "wall_clock_s": draw(st.floats(0, 1e4)),
            **draw(st.dictionaries(_text, st.floats(0, 9), max_size=2)),
        },
    }
    if draw(st.booleans()):
        trace["system"] = draw(_text)
    if draw(st.booleans()):
        trace["topology"] = draw(st.sampled_from([t for t in m.ORIGINAL_TOPOLOGIES if t != "NA"]))
    if draw(st.booleans()):
        trace["metrics"] = draw(st.dictionaries(_text, st.floats(-9, 9), max_size=3))
    return trace


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(original_traces())
def test_random_original_traces_validate_and_measure(doc: dict[str, Any]) -> None:
    checked = validate_bytes(json.dumps(doc).encode(), F)
    assert checked.problems == []
    assert checked.trace is not None
    assert checked.graph is not None
    r = compute(checked.trace, checked.graph)  # cycles and edges back in time are left out, never loop
    assert 1 <= r["critical_steps"] <= r["events"]
    assert r["parallel_speedup"] >= 1
    assert r["critical_path_s"] <= r["makespan_s"] + 1e-6
