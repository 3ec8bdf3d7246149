"""Orchestration metrics: the reference example worked out by hand, small graphs, generated swarms."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from trace_cases import REFERENCE, TRACES, encode, valid_traces

from conftest import assert_golden
from masrl.trace._generate import encode as encode_trace
from masrl.trace._generate import swarm
from masrl.trace._metrics import METRIC_DEFINITIONS, compute, summary, to_text
from masrl.trace._validate import validate_file


def metrics_of(path: Path) -> dict[str, Any]:
    checked = validate_file(path)
    assert checked.problems == []
    assert checked.trace is not None
    assert checked.graph is not None
    return compute(checked.trace, checked.graph)


def metrics_of_doc(tmp_path: Path, doc: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / "t.json"
    path.write_bytes(encode(doc))
    return metrics_of(path)


def test_reference_example_by_hand() -> None:
    # Arrange: e1 decides; e2, e3 spawn planner_1 and executor_1; e4 is the planner's message;
    # e5 the executor's tool call, e6 the browser's result; e7 returns; e8 aggregates.
    # Longest path: e1 e2 e4 e5 e6 e7 e8 (e1 e3 e4 ... is as long) = 7 events.
    # Act
    r = metrics_of(REFERENCE)
    # Assert
    assert r == {
        "trace_id": "demo-trace-001",
        "events": 8,
        "steps": 8,  # no tools called together
        "agents": 3,  # orchestrator, planner_1, executor_1; browser.search is a tool
        "tools": 1,
        "spawns": 2,
        "max_fan_out": 2,
        "max_spawn_depth": 1,
        "messages": 1,
        "tool_calls": 1,
        "by_type": {
            "orchestrator_decision": 1,
            "spawn": 2,
            "message": 1,
            "tool_call": 1,
            "tool_result": 1,
            "return": 1,
            "aggregate": 1,
        },
        "critical_steps": 7,
        "parallel_speedup": 1.142857,  # 8 steps / 7
        "makespan_s": 7.0,  # no durations: from t=0 to t=7
        "busy_s": 0.0,
        "timed_events": 0,
        "critical_path_s": 0.0,
        "time_speedup": None,
        "stages": [],
        "parl_critical_steps": None,
        "errors": 0,
        "tokens": {"input": 0, "output": 0, "total": 0},
        "cost": {"recorded": {"tokens": 12000, "wall_clock_s": 420, "tool_calls": 1, "messages": 1}, "events": {}},
        "per_agent": {
            "browser.search": _agent("tool", 1, 5, 5),
            "executor_1": _agent("sub-agent", 2, 4, 6),
            "orchestrator": _agent("root", 4, 0, 7, spawned=2),
            "planner_1": _agent("sub-agent", 1, 3, 3),
        },
        "rewards": {
            "channels": {"team": 1, "orchestration": 0.3, "tool": 0.1},
            "attributed": {"by_channel": {}, "by_unit": {}, "by_unit_ref": {}},
        },
        "critical_path": ["e1", "e2", "e4", "e5", "e6", "e7", "e8"],
    }


def _agent(kind: str, events: int, first: float, last: float, spawned: int = 0) -> dict[str, Any]:
    return {
        "kind": kind,
        "events": events,
        "first_t": first,
        "last_t": last,
        "busy_s": 0.0,
        "tokens_in": 0,
        "tokens_out": 0,
        "spawned": spawned,
        "cost": {},
    }


def test_every_metric_is_defined() -> None:
    r = metrics_of(REFERENCE)
    assert set(r) - {"trace_id"} == set(METRIC_DEFINITIONS)
    for name, text in METRIC_DEFINITIONS.items():
        assert text.strip().endswith("."), name


def _doc(events: list[tuple[str, float, str, dict[str, Any]]], edges: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "trace_id": "t",
        "events": [
            {"id": i, "t": t, "type": "orchestrator_decision", "agent": a, **extra} for i, t, a, extra in events
        ],
        "edges": [{"src": s, "dst": d, "type": "causal"} for s, d in edges],
    }


A = "lead"
# (case, events, edges, critical_steps, critical_path, critical_path_s, makespan_s)
GRAPHS: list[tuple[str, list[tuple[str, float, str, dict[str, Any]]], list[tuple[str, str]], int, list[str], float, float]] = [
    ("one-event", [("a", 0, A, {})], [], 1, ["a"], 0.0, 0.0),
    ("no-edges", [("a", 0, A, {"duration": 2}), ("b", 1, A, {"duration": 5})], [], 1, ["a"], 5.0, 6.0),
    ("chain", [("a", 0, A, {"duration": 1}), ("b", 1, A, {"end": 3}), ("c", 3, A, {"duration": 0.5})], [("a", "b"), ("b", "c")], 3, ["a", "b", "c"], 3.5, 3.5),
    ("diamond", [("a", 0, A, {"duration": 1}), ("b", 1, A, {"duration": 4}), ("c", 1, A, {"duration": 2}), ("d", 5, A, {"duration": 1})], [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")], 3, ["a", "b", "d"], 6.0, 6.0),
    ("long-vs-slow", [("a", 0, A, {}), ("b", 1, A, {"duration": 9}), ("c", 1, A, {"duration": 1}), ("d", 2, A, {"duration": 1}), ("e", 10, A, {})], [("a", "b"), ("a", "c"), ("c", "d"), ("b", "e"), ("d", "e")], 4, ["a", "c", "d", "e"], 9.0, 10.0),
    ("equal-times-listed-backwards", [("c", 0, A, {}), ("b", 0, A, {}), ("a", 0, A, {})], [("a", "b"), ("b", "c")], 3, ["a", "b", "c"], 0.0, 0.0),
    ("enclosing-span", [("a", 0, A, {"end": 10}), ("b", 1, A, {"duration": 2}), ("c", 4, A, {"duration": 2}), ("d", 10, A, {"duration": 1})], [("a", "b"), ("b", "c"), ("c", "d")], 4, ["a", "b", "c", "d"], 11.0, 11.0),
    ("partly-enclosed", [("a", 0, A, {"end": 5}), ("b", 3, A, {"end": 8})], [("a", "b")], 2, ["a", "b"], 8.0, 8.0),
    ("gap-not-counted", [("a", 0, A, {"duration": 1}), ("b", 5, A, {"duration": 1})], [("a", "b")], 2, ["a", "b"], 2.0, 6.0),
    ("out-of-order-file", [("d", 3, A, {"duration": 1}), ("a", 0, A, {"duration": 1}), ("c", 2, A, {"duration": 1}), ("b", 1, A, {"duration": 1})], [("c", "d"), ("b", "c"), ("a", "b")], 4, ["a", "b", "c", "d"], 4.0, 4.0),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "events", "edges", "steps", "path", "critical_s", "makespan"), GRAPHS, ids=[g[0] for g in GRAPHS]
)
def test_critical_paths(
    tmp_path: Path,
    case: str,
    events: list[tuple[str, float, str, dict[str, Any]]],
    edges: list[tuple[str, str]],
    steps: int,
    path: list[str],
    critical_s: float,
    makespan: float,
) -> None:
    r = metrics_of_doc(tmp_path, _doc(events, edges))
    assert (r["critical_steps"], r["critical_path"], r["critical_path_s"], r["makespan_s"]) == (
        steps,
        path,
        critical_s,
        makespan,
    )
    assert r["parallel_speedup"] == round(len(events) / steps, 6)


def _tool(i: str, t: float, kind: str, agent: str = A) -> dict[str, Any]:
    return {"id": i, "t": t, "type": kind, "agent": agent if kind == "tool_call" else "web", "tool": "web"}


# (case, events, edges, steps, critical_steps): tools asked for together count as one step.
FANS: list[tuple[str, list[dict[str, Any]], list[tuple[str, str]], int, int]] = [
    ("two-together", [_tool("c1", 1, "tool_call"), _tool("c2", 1, "tool_call"), _tool("r1", 2, "tool_result"), _tool("r2", 2, "tool_result")], [("a", "c1"), ("a", "c2"), ("c1", "r1"), ("c2", "r2"), ("r1", "z"), ("r2", "z")], 4, 4),
    ("one-after-the-other", [_tool("c1", 1, "tool_call"), _tool("r1", 2, "tool_result"), _tool("c2", 3, "tool_call"), _tool("r2", 4, "tool_result")], [("a", "c1"), ("c1", "r1"), ("r1", "c2"), ("c2", "r2"), ("r2", "z")], 6, 6),
    ("two-agents-side-by-side", [_tool("c1", 1, "tool_call"), _tool("c2", 1, "tool_call", "helper"), _tool("r1", 2, "tool_result"), _tool("r2", 2, "tool_result")], [("a", "c1"), ("a", "c2"), ("c1", "r1"), ("c2", "r2"), ("r1", "z"), ("r2", "z")], 6, 4),
    ("a-result-with-work-inside", [_tool("c1", 1, "tool_call"), _tool("c2", 1, "tool_call"), {"id": "w", "t": 1.5, "type": "orchestrator_decision", "agent": A}, _tool("r1", 2, "tool_result"), _tool("r2", 2, "tool_result")], [("a", "c1"), ("a", "c2"), ("c1", "r1"), ("c2", "w"), ("w", "r2"), ("c2", "r2"), ("r1", "z"), ("r2", "z")], 6, 5),
]  # fmt: skip


@pytest.mark.parametrize(("case", "events", "edges", "steps", "critical"), FANS, ids=[f[0] for f in FANS])
def test_tools_called_together_are_one_step(
    tmp_path: Path, case: str, events: list[dict[str, Any]], edges: list[tuple[str, str]], steps: int, critical: int
) -> None:
    ends = [
        {"id": "a", "t": 0, "type": "orchestrator_decision", "agent": A},
        {"id": "z", "t": 5, "type": "aggregate", "agent": A},
    ]
    doc = {
        "trace_id": "t",
        "events": [ends[0], *events, ends[1]],
        "edges": [{"src": s, "dst": d, "type": "causal"} for s, d in edges],
    }
    r = metrics_of_doc(tmp_path, doc)
    assert (r["events"], r["steps"], r["critical_steps"]) == (len(events) + 2, steps, critical)
    assert r["parallel_speedup"] == round(steps / critical, 6)


# (agents, rounds, stages, events, critical_steps, parl_critical_steps), worked out by hand.
# Events: each sub-agent has a spawn, 2 per round and a return; each stage a decision and an
# aggregate. Longest path per stage: decision, spawn, the rounds, return, aggregate.
# PARL per stage: main steps (decision, its spawns, aggregate) + the longest chain (rounds + return).
SWARMS = [
    (1, 0, 1, 4, 4, 4),  # main 1 + 1 + 1, chain 0 + 1
    (3, 4, 1, 32, 12, 10),  # main 1 + 3 + 1, chain 4 + 1
    (4, 2, 2, 28, 16, 14),  # two stages of 2 agents: (1 + 2 + 1) + (2 + 1) each
    (5, 3, 2, 44, 20, 17),  # stages of 3 and 2 agents: (1 + 3 + 1) + 4, then (1 + 2 + 1) + 4
]


@pytest.mark.parametrize(("agents", "rounds", "stages", "events", "steps", "parl"), SWARMS)
def test_generated_swarms(
    tmp_path: Path, agents: int, rounds: int, stages: int, events: int, steps: int, parl: int
) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(encode_trace(swarm(agents, rounds, stages=stages, seed=3)))
    r = metrics_of(path)
    assert r["events"] == events == agents * (2 * rounds + 2) + 2 * stages
    assert r["critical_steps"] == steps == stages * (2 * rounds + 4)
    assert r["parl_critical_steps"] == parl == 2 * stages + agents + stages * (rounds + 1)
    assert r["agents"] == agents + 1
    assert r["spawns"] == agents
    assert r["tool_calls"] == agents * rounds
    assert r["max_fan_out"] == agents
    assert r["max_spawn_depth"] == 1
    assert [s["stage"] for s in r["stages"]] == [f"s{k}" for k in range(1, stages + 1)]


def test_unstaged_events_form_their_own_stage(tmp_path: Path) -> None:
    doc = _doc([("a", 0, A, {"stage": "plan"}), ("b", 1, A, {}), ("c", 2, A, {"stage": "plan"})], [])
    assert metrics_of_doc(tmp_path, doc)["stages"] == [
        {
            "stage": "plan",
            "events": 2,
            "main_steps": 2,
            "longest_sub_agent_steps": 0,
            "longest_sub_agent": None,
            "critical_steps": 2,
        },
        {
            "stage": None,
            "events": 1,
            "main_steps": 1,
            "longest_sub_agent_steps": 0,
            "longest_sub_agent": None,
            "critical_steps": 1,
        },
    ]


def test_debate_attributions_and_stages() -> None:
    r = metrics_of(TRACES / "debate.json")
    assert r["rewards"]["attributed"] == {
        "by_channel": {"debate": 0.75, "verifier": 0.85},
        "by_unit": {"token": 0.05, "message": 0.75, "role": 0.8},
        "by_unit_ref": {"token": {"e14": 0.05}, "message": {"e6": 0.25, "e7": -0.1, "e8": 0.6}, "role": {"judge": 0.8}},
    }
    assert [(s["stage"], s["main_steps"], s["longest_sub_agent"], s["critical_steps"]) for s in r["stages"]] == [
        ("open", 4, None, 4),
        ("round_1", 0, "debater_con", 1),
        ("round_2", 0, "debater_con", 2),
        ("verdict", 1, "debater_con", 2),
    ]


def test_hierarchy_depth_and_external_reviewer() -> None:
    r = metrics_of(TRACES / "hierarchical.json")
    assert (r["agents"], r["max_spawn_depth"], r["max_fan_out"]) == (7, 2, 2)
    assert r["per_agent"]["reviewer"]["kind"] == "external"


@pytest.mark.parametrize("name", ["swarm", "hierarchical", "debate"])
def test_text_report(name: str) -> None:
    assert_golden(f"trace-metrics-{name}.txt", to_text(metrics_of(TRACES / f"{name}.json")))


def test_json_report_is_plain_json() -> None:
    r = metrics_of(TRACES / "swarm.json")
    assert json.loads(json.dumps(r, allow_nan=False)) == r


# -- Invariants (stated in the docstring of masrl.trace._metrics), over random valid traces ------

_EPS = 1e-6  # times and sums are rounded to millionths


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_traces())
def test_metric_invariants(tmp_path_factory: pytest.TempPathFactory, doc: dict[str, Any]) -> None:
    r = metrics_of_doc(tmp_path_factory.mktemp("m"), doc)
    assert r["critical_path_s"] <= r["makespan_s"] + _EPS
    assert r["critical_path_s"] <= r["busy_s"] + _EPS
    assert 1 <= r["critical_steps"] <= r["steps"] <= r["events"]
    assert len(r["critical_path"]) == r["critical_steps"]
    assert r["parallel_speedup"] >= 1
    assert r["time_speedup"] is None or r["time_speedup"] >= 1 - _EPS
    rows = r["per_agent"].values()
    assert sum(a["events"] for a in rows) == r["events"]
    # Per-agent tokens and costs add up to the totals.
    assert sum(a["tokens_in"] for a in rows) == r["tokens"]["input"]
    assert sum(a["tokens_out"] for a in rows) == r["tokens"]["output"]
    for name, total in r["cost"]["events"].items():
        assert math.isclose(math.fsum(a["cost"].get(name, 0) for a in rows), total, abs_tol=len(rows) * _EPS)
    # Each event's tokens count once, however its span nests in another's.
    given_tokens = [e.get("tokens", {}) for e in doc["events"]]
    assert r["tokens"]["input"] == sum(t.get("input", 0) for t in given_tokens)
    assert r["tokens"]["output"] == sum(t.get("output", 0) for t in given_tokens)
    assert r["tokens"]["total"] == r["tokens"]["input"] + r["tokens"]["output"]
    # The collection table's quick summary agrees with the full metrics.
    path = tmp_path_factory.mktemp("s") / "t.json"
    path.write_bytes(encode(doc))
    checked = validate_file(path)
    assert checked.trace is not None
    assert checked.graph is not None
    quick = summary(checked.trace, checked.graph)
    assert quick == {
        "events": r["events"],
        "agents": r["agents"],
        "critical_steps": r["critical_steps"],
        "parallel_speedup": r["parallel_speedup"],
        "makespan_s": r["makespan_s"],
        "tokens": r["tokens"]["total"] if any("tokens" in e for e in doc["events"]) else None,
        "usd": r["cost"]["events"].get("usd"),
    }
