"""Random valid traces for the property tests, and helpers to read them back.

:func:`valid_traces` draws a trace that passes every rule by construction: a root orchestrator
acting at t=0, sub-agents spawned by agents that exist (so hierarchies happen), tool rounds answered
by tool actors, messages, interventions by people and monitors outside the team, returns to the
spawner, a closing aggregate; edges always run from an earlier-made event to a later one, times
never decrease along them and are often equal (so equal-time edges are exercised); optional fields
are drawn at random and kept consistent; the event and edge lists may be shuffled. Tools come from a
short list or a long one (more than 16 names, which the validator handles differently), an agent
may ask for several tools at once (a fan of calls following the same event, read together), and an
agent may invoke work as a tool: a tool call whose span encloses nested events (``parent`` set to
the call, edges from it), each with its own tokens, before the tool answers.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from conftest import REPO

TRACES = REPO / "traces"
REFERENCE = TRACES / "reference-example.json"

ROOT = "orchestrator"
TOOLS = ["web.search", "python.run"]
MANY_TOOLS = [f"tool_{k:02d}" for k in range(20)]
EXTERNAL = {"human_intervention": "reviewer", "safety_event": "guard"}
STEPS = st.sampled_from([0, 0, 0.25, 1, 2.5, 7])  # zero steps make equal times common


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def reference() -> dict[str, Any]:
    return copy.deepcopy(load(REFERENCE))


@st.composite
def valid_traces(draw: st.DrawFn) -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    clock = [0.0]

    def tick() -> float:
        clock[0] += draw(STEPS)
        return clock[0]

    def add(kind: str, agent: str, t: float, **fields: Any) -> str:
        event = {"id": f"ev-{len(events)}", "t": t, "type": kind, "agent": agent, **fields}
        _optional(draw, event)
        events.append(event)
        return str(event["id"])

    def link(src: str, dst: str, kind: str) -> None:
        edges.append({"src": src, "dst": dst, "type": kind})

    tools = draw(st.sampled_from([TOOLS, MANY_TOOLS]))
    last: dict[str, str] = {ROOT: add("orchestrator_decision", ROOT, 0.0, role="lead")}
    spawner: dict[str, str] = {}
    spawn_of: dict[str, str] = {}
    inbox: dict[str, list[str]] = {}
    for k in range(draw(st.integers(0, 5))):
        parent = draw(st.sampled_from(sorted(last)))
        name = f"agent_{k}"
        spawn = add("spawn", parent, tick(), to=name)
        link(last[parent], spawn, "causal")
        last[parent] = spawn
        last[name], spawner[name], spawn_of[name] = spawn, parent, spawn
    for _ in range(draw(st.integers(0, 10))):
        agent = draw(st.sampled_from(sorted(last)))
        action = draw(st.sampled_from(["tool", "message", "decision", "external", "nested", "fan"]))
        first_kind = "spawn" if last[agent] == spawn_of.get(agent) else "causal"
        parent_field = {"parent": spawn_of[agent]} if agent in spawn_of and draw(st.booleans()) else {}
        if action == "nested":  # a call whose span encloses work done for it, then the tool's answer
            tool = draw(st.sampled_from(tools))
            start = tick()
            inner = draw(st.integers(1, 3))
            width = draw(st.sampled_from([1.0, 4.0, 10.0]))
            call = add("tool_call", agent, start, tool=tool, **parent_field)
            events[-1].pop("duration", None)
            events[-1]["end"] = start + width
            link(last[agent], call, first_kind)
            made, previous = [call], call
            worker = draw(st.sampled_from(sorted(last)))
            for k in range(inner):
                step = add("orchestrator_decision", worker, start + width * (k + 1) / (inner + 2), parent=call)
                link(previous, step, "causal")
                made.append(step)
                previous = step
            clock[0] = max(clock[0], start + width)
            result = add("tool_result", tool, clock[0], tool=tool, trusted=False)
            link(previous, result, "return")
            made.append(result)
        elif action == "fan":  # tools one answer asks for together, each answered; the agent reads them all
            start = tick()
            named = draw(st.lists(st.sampled_from(tools), min_size=2, max_size=3))
            calls = [add("tool_call", agent, start, tool=tool, **parent_field) for tool in named]
            for call in calls:
                link(last[agent], call, first_kind)
            results = []
            for call, tool in zip(calls, named, strict=True):
                results.append(add("tool_result", tool, tick(), tool=tool, trusted=False))
                link(call, results[-1], "return")
            joined = add("orchestrator_decision", agent, tick(), **parent_field)
            for result in results:
                link(result, joined, "causal")
            made = [*calls, *results, joined]
        elif action == "tool":
            tool = draw(st.sampled_from(tools))
            call = add("tool_call", agent, tick(), tool=tool, **parent_field)
            link(last[agent], call, first_kind)
            result = add("tool_result", tool, tick(), tool=tool, trusted=False)
            link(call, result, "return")
            made = [call, result]
        elif action == "message" and len(last) > 1:
            to = draw(st.sampled_from(sorted(set(last) - {agent})))
            sender = {"from": agent} if draw(st.booleans()) else {}
            made = [add("message", agent, tick(), to=to, **sender, **parent_field)]
            link(last[agent], made[0], first_kind)
            inbox.setdefault(to, []).append(made[0])
        elif action == "external":
            kind = draw(st.sampled_from(sorted(EXTERNAL)))
            made = [add(kind, EXTERNAL[kind], tick())]
            link(last[agent], made[0], "causal")
        else:
            made = [add("orchestrator_decision", agent, tick(), **parent_field)]
            link(last[agent], made[0], first_kind)
        for message in inbox.pop(agent, []):
            link(message, made[0], "message")
        last[agent] = made[-1]
    returns = []
    for name in sorted(spawner, reverse=True):
        back = add("return", name, tick(), to=spawner[name])
        link(last[name], back, "causal")
        returns.append(back)
    final = add("aggregate", ROOT, tick(), role="lead")
    link(last[ROOT], final, "causal")
    for back in returns:
        link(back, final, "aggregate")
    if draw(st.booleans()):
        events = draw(st.permutations(events))
    if draw(st.booleans()):
        edges = draw(st.permutations(edges))
    trace: dict[str, Any] = {"trace_id": draw(st.text(min_size=1, max_size=12)), "events": events, "edges": edges}
    if draw(st.booleans()):
        trace["schema_version"] = "1.0"
    if draw(st.booleans()):
        trace["topology"] = draw(st.sampled_from(["centralized", "hierarchical", "swarm", "debate"]))
    if draw(st.booleans()):
        trace["rewards"] = {"team": draw(st.floats(-1, 1)), "orchestration": draw(st.integers(-3, 3))}
    if draw(st.booleans()):
        trace["costs"] = {"tokens": draw(st.integers(0, 10**6)), "usd": draw(st.floats(0, 10))}
    if draw(st.booleans()):
        trace["attributions"] = _attributions(draw, events)
    return trace


def _optional(draw: st.DrawFn, event: dict[str, Any]) -> None:
    """Add some optional fields to *event*, consistent with each other."""
    if draw(st.booleans()):
        duration = draw(st.sampled_from([0, 0.5, 3]))
        form = draw(st.sampled_from(["duration", "end", "both"]))
        if form in ("duration", "both"):
            event["duration"] = duration
        if form in ("end", "both"):
            event["end"] = event["t"] + duration
    if draw(st.booleans()):
        event["tokens"] = {"input": draw(st.integers(0, 5000)), "output": draw(st.integers(0, 900))}
    if draw(st.booleans()):
        event["cost"] = {"usd": draw(st.floats(0, 1))}
    if draw(st.booleans()):
        event["stage"] = draw(st.sampled_from(["s1", "s2"]))
    if draw(st.booleans()):
        event["content_ref"] = draw(st.text(min_size=1, max_size=8))


def _attributions(draw: st.DrawFn, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    messages = [e["id"] for e in events if e["type"] == "message"]
    tools = [e["id"] for e in events if e["type"] in ("tool_call", "tool_result")]
    agents = sorted({e["agent"] for e in events})
    options: list[dict[str, Any]] = [
        {"unit": "team", "channel": "team", "value": 1.0},
        {"unit": "orchestrator", "ref": ROOT, "channel": "orchestration", "value": 0.5},
        {"unit": "turn", "ref": events[0]["id"], "channel": "process", "value": -0.25},
        {"unit": "token", "ref": events[-1]["id"], "index": 3, "channel": "process", "value": 0.01},
        {"unit": "agent", "ref": draw(st.sampled_from(agents)), "channel": "finish", "value": 0.2},
        {"unit": "role", "ref": "lead", "channel": "role", "value": 0.3},
    ]
    if messages:
        options.append({"unit": "message", "ref": draw(st.sampled_from(messages)), "channel": "debate", "value": 0.4})
    if tools:
        options.append({"unit": "tool", "ref": draw(st.sampled_from(tools)), "channel": "tool", "value": 0.1})
    return draw(st.lists(st.sampled_from(options), max_size=4))


def encode(trace: Any) -> bytes:
    return json.dumps(trace).encode("utf-8")
