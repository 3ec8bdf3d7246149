"""`masrl trace validate`: every kind of bad input, each with its exact message; random traces.

Cases are tables: hostile files (not JSON, NaN, huge, deep, bad UTF-8 ...), schema faults, and
graph faults made by editing the survey's reference example under this version's rules (with
``schema_version``; how the same example is judged without it is in test_trace_original.py). The
property tests draw valid traces (all must pass) and then break each with one mutation from a list
(each must be caught, with the message that names it).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trace_cases import encode, reference, valid_traces

from masrl.trace import _read
from masrl.trace._validate import validate_file

F = "t.json"


def problems_of(tmp_path: Path, content: bytes | str | dict[str, Any]) -> list[str]:
    """Validate *content* written as t.json; the problems and warnings as printed, the file named t.json."""
    path = tmp_path / F
    if isinstance(content, dict):
        content = encode(content)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    checked = validate_file(path, F)
    return [str(p) for p in checked.problems + checked.warnings]


def current() -> dict[str, Any]:
    """The reference example, declaring this version (so every rule applies)."""
    return {"schema_version": "1.0", **reference()}


def edited(edit: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    doc = current()
    edit(doc)
    return doc


REF = json.dumps(reference())

# -- Files that are not traces at all: (case, content, exact problems) ------------------------
HOSTILE: list[tuple[str, bytes | str, list[str]]] = [
    ("empty", b"", [f"{F}: (trace): file is empty; a trace is one JSON object with trace_id, events and edges"]),
    ("blank", b" \n\t\n", [f"{F}: (trace): file is empty; a trace is one JSON object with trace_id, events and edges"]),
    ("not-json", b"events: []\n", [f"{F}: line 1 column 1: not valid JSON: Expecting value"]),
    ("truncated", REF[:200], [f"{F}: line 1 column 201: not valid JSON: Unterminated string starting at"][:0] or None),
    ("trailing", REF + " {}", [f"{F}: line 1 column {len(REF) + 2}: not valid JSON: Extra data"]),
    ("array", b"[1, 2]", [f"{F}: (trace): a trace must be a JSON object with trace_id, events and edges, not an array"]),
    ("string", b'"trace"', [f"{F}: (trace): a trace must be a JSON object with trace_id, events and edges, not the string 'trace'"]),
    ("number", b"42", [f"{F}: (trace): a trace must be a JSON object with trace_id, events and edges, not the number 42"]),
    ("null", b"null", [f"{F}: (trace): a trace must be a JSON object with trace_id, events and edges, not null"]),
    ("nan", REF.replace('"team": 1.0', '"team": NaN'), [f"{F}: /rewards/team: NaN is not valid JSON; numbers must be finite"]),
    ("infinity", REF.replace('"tool": 0.1', '"tool": Infinity'), [f"{F}: /rewards/tool: Infinity is not valid JSON; numbers must be finite"]),
    ("minus-infinity", REF.replace('"t": 4', '"t": -Infinity'), [f"{F}: /events/4/t: -Infinity is not valid JSON; numbers must be finite"]),
    ("overflow-float", REF.replace('"team": 1.0', '"team": 1e999'), [f"{F}: /rewards/team: 1e999 is too large for a 64-bit float; numbers must be finite"]),
    ("overflow-int", REF.replace('"tokens": 12000', '"tokens": ' + "9" * 400), [f"{F}: /costs/tokens: {'9' * 57}... is too large for a 64-bit float; numbers must be finite"]),
    ("bad-utf8", REF.encode().replace(b"demo-trace-001", b"demo-trace-\xff01"), [f"{F}: line 1 column 26: file must be UTF-8: byte 0xff is not valid UTF-8"]),
    ("lone-surrogate", REF.replace('"content_ref": "query_hash"', '"content_ref": "q\\ud800"'), [f"{F}: /events/4/content_ref: text holds a lone surrogate \\ud800, which is not a character; strings must be valid Unicode"]),
    ("surrogate-pair", REF.replace('"content_ref": "query_hash"', '"content_ref": "\\ud83d\\ude80"'), []),
    ("deep", b"[" * 100_000 + b"]" * 100_000, [f"{F}: (trace): JSON nests too deeply to read; a trace nests only a few levels"]),
    ("deep-inside", REF[:-1] + ', "metadata": ' + "[" * 50_000 + "]" * 50_000 + "}", [f"{F}: (trace): JSON nests too deeply to read; a trace nests only a few levels"]),
]  # fmt: skip
HOSTILE = [c for c in HOSTILE if c[2] is not None]


@pytest.mark.parametrize(("case", "content", "expected"), HOSTILE, ids=[c[0] for c in HOSTILE])
def test_hostile_files(tmp_path: Path, case: str, content: bytes | str, expected: list[str]) -> None:
    assert problems_of(tmp_path, content) == expected


def test_truncated_file_names_line_and_column(tmp_path: Path) -> None:
    [problem] = problems_of(tmp_path, REF[:200])
    assert problem.startswith(f"{F}: line 1 column ")
    assert ": not valid JSON: " in problem


def test_huge_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / F
    with path.open("wb") as handle:  # sparse: no disk space is used
        handle.truncate(_read.MAX_BYTES + 1)
    assert [str(p) for p in validate_file(path, F).problems] == [
        f"{F}: (trace): file is {_read.MAX_BYTES + 1:,} bytes; traces must be at most {_read.MAX_BYTES:,} bytes"
    ]


def test_a_systematic_fault_stops_the_report(tmp_path: Path) -> None:
    doc = current()
    doc["events"] = [{"id": f"e{i}", "t": i, "type": "aggregate", "agent": "a", "colour": "red"} for i in range(150)]
    doc["edges"] = []
    found = problems_of(tmp_path, doc)
    assert len(found) == 1 + _read.MAX_BAD_ITEMS
    assert found[0] == f"{F}: (trace): stopped after 100 events, edges and attributions with problems"
    assert found[-1].startswith(f"{F}: /events/99/colour: event has an unknown field 'colour'")


def test_byte_order_mark_is_allowed(tmp_path: Path) -> None:
    assert problems_of(tmp_path, b"\xef\xbb\xbf" + REF.encode()) == []


def test_unreadable_file(tmp_path: Path) -> None:
    folder = tmp_path / "dir.json"
    folder.mkdir()
    [problem] = [str(p) for p in validate_file(folder, F).problems]
    assert problem.startswith(f"{F}: (trace): cannot read file: ")


# -- Schema faults: (case, edit, exact problems) -----------------------------------------------
SCHEMA_CASES: list[tuple[str, Callable[[dict[str, Any]], Any], list[str]]] = [
    ("no-trace-id", lambda d: d.pop("trace_id"), [f"{F}: /trace_id: trace_id is required: Id of this trace."]),
    ("no-events", lambda d: d.update(events=[]), [f"{F}: /events: events must hold at least 1 item"]),
    ("unknown-top", lambda d: d.update(extra=1), [f"{F}: /extra: trace has an unknown field 'extra'; allowed fields are schema_version, trace_id, task_id, system, topology, events, edges, rewards, costs, metrics, ablation, attributions, metadata"]),
    ("wrong-type-t", lambda d: d["events"][2].update(t="2"), [f"{F}: /events/2/t: t must be a number, not the string '2'"]),
    ("negative-t", lambda d: d["events"][2].update(t=-1), [f"{F}: /events/2/t: t must be at least 0, not -1"]),
    ("unknown-type", lambda d: d["events"][1].update(type="spwan"), [f"{F}: /events/1/type: type must be one of 'orchestrator_decision', 'spawn', 'despawn', 'message', 'tool_call', 'tool_result', 'return', 'aggregate', 'human_intervention' or 'safety_event', not the string 'spwan' (did you mean 'spawn'?)"]),
    ("spawn-without-to", lambda d: d["events"][1].pop("to"), [f"{F}: /events/1/to: to is required for spawn events: Receiving agent: the one spawned (spawn), stopped (despawn), addressed (message; or the model called) or returned to (return). Required for those four types."]),
    ("tool-call-without-tool", lambda d: d["events"][4].pop("tool"), [f"{F}: /events/4/tool: tool is required for tool_call events: Tool name, such as browser.search. Required for tool_call and tool_result."]),
    ("null-role", lambda d: d["events"][0].update(role=None), [f"{F}: /events/0/role: role must be a string, not null"]),
    ("empty-agent", lambda d: d["events"][0].update(agent=""), [f"{F}: /events/0/agent: agent must not be empty"]),
    ("event-not-object", lambda d: d["events"].append("e9"), [f"{F}: /events/8: event must be an object, not the string 'e9'"]),
    ("unknown-event-field", lambda d: d["events"][3].update(colour="red"), [f"{F}: /events/3/colour: event has an unknown field 'colour'; allowed fields are id, t, type, agent, role, content_ref, from, to, tool, trusted, end, duration, parent, stage, tokens, status, error, cost, attributes"]),
    ("edge-type", lambda d: d["edges"][0].update(type="spawns"), [f"{F}: /edges/0/type: type must be one of 'spawn', 'delegate', 'causal', 'message', 'tool_dependency', 'return' or 'aggregate', not the string 'spawns' (did you mean 'spawn'?)"]),
    ("negative-cost", lambda d: d["costs"].update(tokens=-5), [f"{F}: /costs/tokens: tokens must be at least 0, not -5"]),
    ("cost-not-number", lambda d: d["costs"].update(usd="0.10"), [f"{F}: /costs/usd: usd must be a number, not the string '0.10'"]),
    ("reward-bool", lambda d: d["rewards"].update(team=True), [f"{F}: /rewards/team: team must be a number, not true"]),
    ("tokens-fraction", lambda d: d["events"][0].update(tokens={"input": 3.5}), [f"{F}: /events/0/tokens/input: input must be a whole number, not the number 3.5"]),
    ("tokens-whole-float", lambda d: d["events"][0].update(tokens={"input": 3.0}), []),
    ("schema-version", lambda d: d.update(schema_version="2.0"), [f"{F}: /schema_version: schema_version must be one of '1.0', not the string '2.0' (did you mean '1.0'?)"]),
    ("attribution-unit", lambda d: d.update(attributions=[{"unit": "squad", "channel": "team", "value": 1}]), [f"{F}: /attributions/0/unit: unit must be one of 'token', 'turn', 'message', 'tool', 'agent', 'role', 'orchestrator' or 'team', not the string 'squad'"]),
    ("two-faults", lambda d: (d["events"][0].update(t="0"), d["edges"][1].pop("dst")), [f"{F}: /edges/1/dst: dst is required: Id of the later event; it starts no earlier than `src`.", f"{F}: /events/0/t: t must be a number, not the string '0'"]),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "expected"), SCHEMA_CASES, ids=[c[0] for c in SCHEMA_CASES])
def test_schema_faults(tmp_path: Path, case: str, edit: Callable[[dict[str, Any]], Any], expected: list[str]) -> None:
    assert problems_of(tmp_path, edited(edit)) == expected


def _swap_return_target(d: dict[str, Any]) -> None:
    d["events"][6]["to"] = "planner_1"


def _move(d: dict[str, Any], i: int, t: float) -> None:
    d["events"][i]["t"] = t


# -- Graph faults on the reference example: (case, edit, exact problems) ----------------------
GRAPH_CASES: list[tuple[str, Callable[[dict[str, Any]], Any], list[str]]] = [
    ("reference-is-valid", lambda d: None, []),
    ("duplicate-id", lambda d: d["events"][3].update(id="e2"), [f"{F}: /edges/2/dst: edge dst 'e4' is not the id of any event; src and dst must name events in /events", f"{F}: /edges/3/dst: edge dst 'e4' is not the id of any event; src and dst must name events in /events", f"{F}: /edges/4/src: edge src 'e4' is not the id of any event; src and dst must name events in /events", f"{F}: /events/3/id: event id 'e2' is already used by /events/1; event ids must be unique"]),
    ("dangling-edge", lambda d: d["edges"][2].update(dst="e42"), [f"{F}: /edges/2/dst: edge dst 'e42' is not the id of any event; src and dst must name events in /events"]),
    # a delegate edge from nowhere into a trace that returns: the return-target rule must not trip over it
    ("dangling-delegate-with-return", lambda d: d["edges"].append({"src": "e99", "dst": "e7", "type": "delegate"}), [f"{F}: /edges/8/src: edge src 'e99' is not the id of any event; src and dst must name events in /events"]),
    ("back-in-time", lambda d: d["edges"].append({"src": "e8", "dst": "e3", "type": "causal"}), [f"{F}: /edges/8: edge 'e8' -> 'e3' goes back in time, from t=7 to t=2; an edge must not end before it starts (dst.t >= src.t)", f"{F}: /edges/8: edges form a cycle: 'e3' -> 'e4' -> 'e5' -> 'e6' -> 'e7' -> 'e8' -> 'e3'; the event graph must be acyclic"]),
    ("equal-time-cycle", lambda d: (_move(d, 3, 2), d["edges"].append({"src": "e4", "dst": "e3", "type": "causal"})), [f"{F}: /edges/8: edges form a cycle: 'e3' -> 'e4' -> 'e3'; the event graph must be acyclic"]),
    ("self-loop", lambda d: d["edges"].append({"src": "e5", "dst": "e5", "type": "causal"}), [f"{F}: /edges/8: edges form a cycle: 'e5' -> 'e5'; the event graph must be acyclic"]),
    ("act-before-spawn", lambda d: _move(d, 1, 3.5), [f"{F}: /edges/2: edge 'e2' -> 'e4' goes back in time, from t=3.5 to t=3; an edge must not end before it starts (dst.t >= src.t)", f"{F}: /events/3: agent 'planner_1' acts at t=3 (event 'e4') before it is spawned at t=3.5 (/events/1); an agent acts only after its first spawn"]),
    ("act-before-spawn-no-edge", lambda d: (d["edges"].pop(2), _move(d, 1, 3.5)), [f"{F}: /events/3: agent 'planner_1' acts at t=3 (event 'e4') before it is spawned at t=3.5 (/events/1); an agent acts only after its first spawn"]),
    ("never-spawned", lambda d: d["events"][3].update(agent="stranger", **{"from": "stranger"}), [f"{F}: /events/3: agent 'stranger' is never spawned, yet at t=3 (event 'e4') it records a message event; only root agents (acting from the trace's start, t=0) and tools answering an earlier tool_call may act without a spawn"]),
    ("tool-answers-nothing", lambda d: d["events"][5].update(agent="calc", tool="calc"), [f"{F}: /events/5: agent 'calc' is never spawned, yet at t=5 (event 'e6') it records a result for 'calc', which no earlier tool_call names; only root agents (acting from the trace's start, t=0) and tools answering an earlier tool_call may act without a spawn"]),
    ("human-needs-no-spawn", lambda d: d["events"].insert(7, {"id": "h1", "t": 6.5, "type": "human_intervention", "agent": "reviewer"}), []),
    ("bad-return-target", _swap_return_target, [f"{F}: /events/6/to: return from 'executor_1' goes to 'planner_1', which neither spawned it nor delegated to it; it may return to 'orchestrator'"]),
    ("delegation-allows-return", lambda d: (_swap_return_target(d), d["edges"].append({"src": "e4", "dst": "e5", "type": "delegate"})), []),
    ("from-differs", lambda d: d["events"][3].update(**{"from": "executor_1"}), [f"{F}: /events/3/from: from 'executor_1' differs from agent 'planner_1'; the sender of a message is the agent that acts"]),
    ("self-spawn", lambda d: d["events"][1].update(to="orchestrator"), [f"{F}: /events/1/to: agent 'orchestrator' cannot spawn itself", f"{F}: /events/3: agent 'planner_1' is never spawned, yet at t=3 (event 'e4') it records a message event; only root agents (acting from the trace's start, t=0) and tools answering an earlier tool_call may act without a spawn"]),
    ("end-before-t", lambda d: d["events"][4].update(end=3), [f"{F}: /events/4/end: end 3 is before t=4; an event cannot end before it starts"]),
    ("duration-disagrees", lambda d: d["events"][4].update(end=6, duration=1), [f"{F}: /events/4/duration: duration 1 disagrees with end - t = 2; give one of them, or make t + duration equal end"]),
    ("parent-missing", lambda d: d["events"][4].update(parent="e99"), [f"{F}: /events/4/parent: parent 'e99' is not the id of any event"]),
    ("parent-later", lambda d: d["events"][4].update(parent="e7"), [f"{F}: /events/4/parent: parent 'e7' starts at t=6, after this event (t=4); a parent must not start later than its children"]),
    ("parent-self", lambda d: d["events"][4].update(parent="e5"), [f"{F}: /events/4/parent: event 'e5' cannot be its own parent"]),
    ("parent-loop", lambda d: (d["events"][1].update(parent="e3"), d["events"][2].update(t=1, parent="e2")), [f"{F}: /events/1/parent: parent links form a loop: 'e2' -> 'e3' -> 'e2'; parents must form a tree"]),
    ("attribution-event", lambda d: d.update(attributions=[{"unit": "message", "ref": "e5", "channel": "team", "value": 1}]), [f"{F}: /attributions/0/ref: ref 'e5' is a tool_call event; unit message names a message event"]),
    ("attribution-agent", lambda d: d.update(attributions=[{"unit": "agent", "ref": "nobody", "channel": "team", "value": 1}]), [f"{F}: /attributions/0/ref: ref 'nobody' is not an agent of this trace; unit agent names an agent"]),
    ("attribution-role", lambda d: d.update(attributions=[{"unit": "role", "ref": "critic", "channel": "team", "value": 1}]), [f"{F}: /attributions/0/ref: ref 'critic' is not a role of any event; unit role names a role in use"]),
    ("attribution-no-ref", lambda d: d.update(attributions=[{"unit": "turn", "channel": "process", "value": 1}]), [f"{F}: /attributions/0/ref: ref is required for unit turn: it names the event that gets the reward"]),
    ("attribution-index", lambda d: d.update(attributions=[{"unit": "agent", "ref": "planner_1", "index": 2, "channel": "x", "value": 1}]), [f"{F}: /attributions/0/index: index is only for unit token, not agent"]),
    ("attribution-team", lambda d: d.update(attributions=[{"unit": "team", "channel": "team", "value": -2.5}]), []),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "expected"), GRAPH_CASES, ids=[c[0] for c in GRAPH_CASES])
def test_graph_faults(tmp_path: Path, case: str, edit: Callable[[dict[str, Any]], Any], expected: list[str]) -> None:
    assert problems_of(tmp_path, edited(edit)) == expected


def test_events_out_of_time_order_are_checked_alike(tmp_path: Path) -> None:
    doc = edited(lambda d: _move(d, 1, 3.5))
    doc["events"].reverse()
    assert problems_of(tmp_path, doc) == [
        f"{F}: /edges/2: edge 'e2' -> 'e4' goes back in time, from t=3.5 to t=3; an edge must not end before it "
        "starts (dst.t >= src.t)",
        f"{F}: /events/4: agent 'planner_1' acts at t=3 (event 'e4') before it is spawned at t=3.5 (/events/6); an "
        "agent acts only after its first spawn",
    ]


def test_many_events_before_a_spawn_are_counted_not_listed(tmp_path: Path) -> None:
    doc = current()
    doc["events"][2]["t"] = 5.5  # executor_1 spawned after both of its first two events
    doc["edges"] = [e for e in doc["edges"] if "e3" not in (e["src"], e["dst"])]
    assert problems_of(tmp_path, doc) == [
        f"{F}: /events/4: agent 'executor_1' acts at t=4 (event 'e5') before it is spawned at t=5.5 (/events/2); "
        "an agent acts only after its first spawn"
    ]
    doc["events"][2]["t"] = 6.5
    [problem] = problems_of(tmp_path, doc)
    assert problem.endswith("an agent acts only after its first spawn; 1 more of its events come before the spawn")


# -- Properties ---------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_traces())
def test_random_valid_traces_validate(tmp_path_factory: pytest.TempPathFactory, trace: dict[str, Any]) -> None:
    assert problems_of(tmp_path_factory.mktemp("v"), trace) == []


def _ids(d: dict[str, Any]) -> list[str]:
    return [e["id"] for e in d["events"]]


def _position(d: dict[str, Any], event_id: str) -> int:
    return _ids(d).index(event_id)


def m_duplicate(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    i, j = sorted(draw(st.lists(st.integers(0, len(d["events"]) - 1), min_size=2, max_size=2, unique=True)))
    d["events"][j]["id"] = d["events"][i]["id"]
    return f"/events/{j}/id", f"event id {d['events'][i]['id']!r} is already used by /events/{i}"


def m_dangling(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    j = draw(st.integers(0, len(d["edges"]) - 1))
    end = draw(st.sampled_from(["src", "dst"]))
    d["edges"][j][end] = "no-such-event"
    return f"/edges/{j}/{end}", f"edge {end} 'no-such-event' is not the id of any event"


def m_cycle(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    j = draw(st.integers(0, len(d["edges"]) - 1))
    e = d["edges"][j]
    d["edges"].append({"src": e["dst"], "dst": e["src"], "type": "causal"})
    return "/edges/", "edges form a cycle: "


def m_back_in_time(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    times = {e["id"]: e["t"] for e in d["events"]}
    forward = [j for j, e in enumerate(d["edges"]) if times[e["src"]] < times[e["dst"]]]
    if not forward:  # every edge joins equal times: add a later event with an edge back to the start
        late = {"id": "late", "t": max(times.values()) + 1, "type": "orchestrator_decision", "agent": "orchestrator"}
        d["events"].append(late)
        d["edges"].append({"src": "late", "dst": d["events"][0]["id"], "type": "causal"})
        return f"/edges/{len(d['edges']) - 1}", "edge 'late' -> "
    j = draw(st.sampled_from(forward))
    e = d["edges"][j]
    e["src"], e["dst"] = e["dst"], e["src"]
    return f"/edges/{j}", f"edge {e['src']!r} -> {e['dst']!r} goes back in time"


def m_act_before_spawn(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    t = max(e["t"] for e in d["events"]) + 1
    early = {"id": "early-act", "t": t, "type": "tool_call", "agent": "latecomer", "tool": "x"}
    spawn = {"id": "late-spawn", "t": t + draw(st.sampled_from([0.5, 3])), "type": "spawn", "agent": "orchestrator"}
    spawn["to"] = "latecomer"
    d["events"] += [early, spawn]
    return f"/events/{len(d['events']) - 2}", "agent 'latecomer' acts at t="


def m_never_spawned(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    t = max(e["t"] for e in d["events"]) + 1
    d["events"].append({"id": "stray", "t": t, "type": "message", "agent": "stray_agent", "to": "orchestrator"})
    return f"/events/{len(d['events']) - 1}", "agent 'stray_agent' is never spawned"


def m_bad_return(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    returns = [i for i, e in enumerate(d["events"]) if e["type"] == "return"]
    if not returns:
        t = max(e["t"] for e in d["events"]) + 1
        d["events"].append({"id": "r-new", "t": t, "type": "return", "agent": "orchestrator", "to": "nobody"})
        return f"/events/{len(d['events']) - 1}/to", "return from 'orchestrator' goes to 'nobody'"
    i = draw(st.sampled_from(returns))
    d["events"][i]["to"] = "nobody"
    return f"/events/{i}/to", f"return from {d['events'][i]['agent']!r} goes to 'nobody'"


def m_negative_cost(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    d.setdefault("costs", {})["usd"] = -draw(st.floats(0.001, 1e6))
    return "/costs/usd", "usd must be at least 0, not -"


def m_nan_cost(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    i = draw(st.integers(0, len(d["events"]) - 1))
    d["events"][i]["cost"] = {"usd": math.nan}
    return f"/events/{i}/cost/usd", "NaN is not valid JSON; numbers must be finite"


def m_infinite_reward(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    d.setdefault("rewards", {})["team"] = draw(st.sampled_from([math.inf, -math.inf]))
    return "/rewards/team", "Infinity is not valid JSON; numbers must be finite"


def m_wrong_type(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    i = draw(st.integers(0, len(d["events"]) - 1))
    d["events"][i]["t"] = str(d["events"][i]["t"])
    return f"/events/{i}/t", "t must be a number, not the string "


def m_unknown_event_type(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    i = draw(st.integers(0, len(d["events"]) - 1))
    d["events"][i]["type"] = "teleport"
    return f"/events/{i}/type", "type must be one of 'orchestrator_decision', "


def m_missing_field(d: dict[str, Any], draw: st.DrawFn) -> tuple[str, str]:
    i = draw(st.integers(0, len(d["events"]) - 1))
    name = draw(st.sampled_from(["id", "t", "agent"]))
    del d["events"][i][name]
    return f"/events/{i}/{name}", f"{name} is required"


MUTATIONS = [
    m_duplicate,
    m_dangling,
    m_cycle,
    m_back_in_time,
    m_act_before_spawn,
    m_never_spawned,
    m_bad_return,
    m_negative_cost,
    m_nan_cost,
    m_infinite_reward,
    m_wrong_type,
    m_unknown_event_type,
    m_missing_field,
]


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[f.__name__[2:] for f in MUTATIONS])
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_every_single_mutation_is_caught(
    tmp_path: Path, mutation: Callable[[dict[str, Any], st.DrawFn], tuple[str, str]], data: st.DataObject
) -> None:
    doc = copy.deepcopy(data.draw(valid_traces()))
    if mutation is m_duplicate and len(doc["events"]) < 2:
        doc["events"].append({"id": "extra", "t": 0, "type": "orchestrator_decision", "agent": "orchestrator"})
    where, message = mutation(doc, data.draw)
    text = json.dumps(doc, allow_nan=True)
    found = problems_of(tmp_path, text)
    assert any(p.startswith(f"{F}: {where}") and message in p for p in found), found
