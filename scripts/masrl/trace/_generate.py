"""Synthetic traces of agent swarms, for benchmarks and tests: seeded, so a size always gives the same file.

:func:`swarm` builds the shape of a wide-search run: in each stage an orchestrator decides, spawns
its share of the sub-agents, and every sub-agent runs a chain of tool rounds (a ``tool_call`` by the
sub-agent, then a ``tool_result`` by the tool) before returning; the orchestrator aggregates the
returns and the next stage begins. 100 sub-agents with 1,500 rounds each give 300,202 events, the
scale of published agent swarms. Each event carries a duration, a stage and token counts, so every
metric has something to measure. The result always passes ``masrl trace validate``.
"""

from __future__ import annotations

import random

import msgspec

from masrl.trace import _model as m

TOOLS = ("web.search", "web.fetch", "python.run", "files.read")
ORCHESTRATOR = "orchestrator"
CONTEXT_LIMIT = 128_000  # a sub-agent's context stops growing here (it is summarised or truncated)


def swarm(agents: int, rounds: int, *, stages: int = 1, seed: int = 0) -> m.Trace:
    """A valid swarm trace: *agents* sub-agents spread over *stages*, *rounds* tool rounds each."""
    if agents < 1 or rounds < 0 or stages < 1:
        raise ValueError("agents and stages must be at least 1, rounds at least 0")
    rng = random.Random(seed)
    events: list[m.Event] = []
    edges: list[m.Edge] = []

    def add(event: m.Event) -> str:
        events.append(event)
        return event.id

    def new_id() -> str:
        return f"e{len(events) + 1}"

    def link(src: str, dst: str, kind: str) -> None:
        edges.append(m.Edge(src=src, dst=dst, type=kind))  # type: ignore[arg-type]

    clock = 0.0
    previous: str | None = None
    per_stage = [agents // stages + (1 if s < agents % stages else 0) for s in range(stages)]
    worker = 0
    for s, width in enumerate(per_stage, start=1):
        stage = f"s{s}"
        think = round(rng.uniform(1.0, 4.0), 3)
        decision = add(
            m.OrchestratorDecision(
                id=new_id(),
                t=round(clock, 3),
                agent=ORCHESTRATOR,
                role="lead",
                duration=think,
                stage=stage,
                tokens=m.Tokens(input=rng.randint(2_000, 8_000), output=rng.randint(200, 800)),
            )
        )
        if previous is not None:
            link(previous, decision, "causal")
        clock += think
        returns: list[tuple[str, float]] = []
        for k in range(width):
            worker += 1
            name = f"worker_{worker:03d}"
            spawn_t = round(clock + 0.01 * k, 3)
            spawn = add(
                m.Spawn(id=new_id(), t=spawn_t, agent=ORCHESTRATOR, role="lead", to=name, duration=0.01, stage=stage)
            )
            link(decision, spawn, "spawn")
            last, last_kind, t = spawn, "spawn", spawn_t + 0.01
            context = rng.randint(500, 2_000)
            for _ in range(rounds):
                step = round(rng.uniform(0.5, 3.0), 3)
                latency = round(rng.uniform(0.2, 5.0), 3)
                tool = rng.choice(TOOLS)
                output = rng.randint(20, 300)
                call = add(
                    m.ToolCall(
                        id=new_id(),
                        t=round(t, 3),
                        agent=name,
                        tool=tool,
                        duration=step,
                        stage=stage,
                        tokens=m.Tokens(input=context, output=output),
                    )
                )
                link(last, call, last_kind)
                result = add(
                    m.ToolResult(
                        id=new_id(), t=round(t + step, 3), agent=tool, tool=tool, duration=latency, stage=stage
                    )
                )
                link(call, result, "return")
                context = min(context + output + rng.randint(100, 1_500), CONTEXT_LIMIT)
                last, last_kind, t = result, "causal", t + step + latency
            back = add(
                m.Return(
                    id=new_id(),
                    t=round(t, 3),
                    agent=name,
                    to=ORCHESTRATOR,
                    duration=0.5,
                    stage=stage,
                    tokens=m.Tokens(input=context, output=rng.randint(100, 600)),
                )
            )
            link(last, back, last_kind)
            returns.append((back, t + 0.5))
        clock = max(end for _, end in returns)
        merge = round(rng.uniform(1.0, 5.0), 3)
        aggregate = add(
            m.Aggregate(
                id=new_id(),
                t=round(clock, 3),
                agent=ORCHESTRATOR,
                role="lead",
                duration=merge,
                stage=stage,
                tokens=m.Tokens(input=rng.randint(4_000, 20_000), output=rng.randint(300, 1_500)),
            )
        )
        for back, _ in returns:
            link(back, aggregate, "aggregate")
        clock += merge
        previous = aggregate
    # A log is written as the run goes: events in time order, each edge when its later event is.
    events.sort(key=lambda e: e.t)
    position = {e.id: i for i, e in enumerate(events)}
    edges.sort(key=lambda edge: position[edge.dst])
    tool_calls = agents * rounds
    return m.Trace(
        schema_version="1.0",
        trace_id=f"swarm-{agents}x{rounds}-s{stages}-seed{seed}",
        task_id="synthetic-wide-search",
        system="masrl trace generate",
        topology="swarm",
        events=events,  # type: ignore[arg-type]
        edges=edges,
        rewards={"team": round(rng.uniform(0, 1), 3), "orchestration": round(rng.uniform(0, 0.5), 3)},
        costs={"tool_calls": tool_calls, "wall_clock_s": round(clock, 3)},
    )


def encode(trace: m.Trace) -> bytes:
    """*trace* as compact JSON."""
    return msgspec.json.encode(trace)


def original(trace: m.Trace) -> bytes:
    """*trace* in the survey's original format, as compact JSON: no schema_version, and every
    ``causal`` edge written as the original's ``temporal`` (which this version does not have)."""
    edges = [
        m.OriginalEdge(src=e.src, dst=e.dst, type="temporal" if e.type == "causal" else e.type) for e in trace.edges
    ]
    return msgspec.json.encode(msgspec.structs.replace(trace, schema_version=msgspec.UNSET, edges=edges))
