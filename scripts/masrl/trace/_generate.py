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


def otel_export(traces: int, agents: int, rounds: int, *, seed: int = 0) -> bytes:
    """A synthetic OTLP/JSON export of *traces* agent runs, in the OpenTelemetry GenAI conventions.

    Each run is an orchestrator's ``invoke_agent`` span holding a model call and, for each of
    *agents* sub-agents, an ``execute_tool`` span running that sub-agent's ``invoke_agent`` span,
    which holds *rounds* rounds of a ``chat`` span and an ``execute_tool`` span (one in fifty fails
    with status ERROR and an exception event). Ids, times and integers are written as the protobuf
    JSON mapping writes them. For benchmarks of ``masrl trace import otel``.
    """
    rng = random.Random(seed)
    spans: list[dict[str, object]] = []
    clock = 1_760_000_000 * 1_000_000_000
    counter = 0

    def attrs(**values: object) -> list[dict[str, object]]:
        out: list[dict[str, object]] = []
        for key, value in values.items():
            kind = "intValue" if isinstance(value, int) else "stringValue"
            out.append({"key": key.replace("__", "."), "value": {kind: str(value)}})
        return out

    def span(trace: str, parent: str, name: str, start: int, end: int, attributes: list[dict[str, object]]) -> str:
        nonlocal counter
        counter += 1
        span_id = f"{counter:016x}"
        spans.append(
            {
                "traceId": trace,
                "spanId": span_id,
                "parentSpanId": parent,
                "name": name,
                "kind": 1,
                "startTimeUnixNano": str(start),
                "endTimeUnixNano": str(end),
                "attributes": attributes,
                "status": {"code": 1},
            }
        )
        return span_id

    common = {"gen_ai__provider__name": "openai", "server__address": "api.openai.com", "server__port": 443}
    for k in range(traces):
        trace = f"{rng.getrandbits(128):032x}"
        t = clock + k * 60_000_000_000
        root = span(
            trace,
            "",
            "invoke_agent orchestrator",
            t,
            t,
            attrs(gen_ai__operation__name="invoke_agent", gen_ai__agent__name="orchestrator", **common),
        )
        root_span = spans[-1]
        t += 1_000_000
        chat = 400_000_000 + rng.randrange(100_000_000)
        span(
            trace,
            root,
            "chat gpt-4o",
            t,
            t + chat,
            attrs(
                gen_ai__operation__name="chat",
                gen_ai__request__model="gpt-4o",
                gen_ai__usage__input_tokens=900,
                gen_ai__usage__output_tokens=120,
                **common,
            ),
        )
        t += chat + 1_000_000
        ends = []
        for a in range(agents):
            s = t + a * 1_000_000
            tool = span(
                trace,
                root,
                f"execute_tool research_{a}",
                s,
                s,
                attrs(
                    gen_ai__operation__name="execute_tool",
                    gen_ai__tool__name=f"research_{a}",
                    gen_ai__tool__call__id=f"call_{counter:08d}",
                    **common,
                ),
            )
            tool_span = spans[-1]
            sub = span(
                trace,
                tool,
                f"invoke_agent researcher_{a}",
                s + 100_000,
                s,
                attrs(gen_ai__operation__name="invoke_agent", gen_ai__agent__name=f"researcher_{a}", **common),
            )
            sub_span = spans[-1]
            u = s + 200_000
            for _ in range(rounds):
                chat = 200_000_000 + rng.randrange(200_000_000)
                span(
                    trace,
                    sub,
                    "chat gpt-4o-mini",
                    u,
                    u + chat,
                    attrs(
                        gen_ai__operation__name="chat",
                        gen_ai__request__model="gpt-4o-mini",
                        gen_ai__response__id=f"chatcmpl-{counter:012d}",
                        gen_ai__usage__input_tokens=rng.randrange(500, 5000),
                        gen_ai__usage__output_tokens=rng.randrange(20, 400),
                        **common,
                    ),
                )
                u += chat + 100_000
                run = 50_000_000 + rng.randrange(300_000_000)
                span(
                    trace,
                    sub,
                    "execute_tool web_search",
                    u,
                    u + run,
                    attrs(
                        gen_ai__operation__name="execute_tool",
                        gen_ai__tool__name="web_search",
                        gen_ai__tool__call__id=f"call_{counter:08d}",
                        **common,
                    ),
                )
                if rng.random() < 0.02:
                    spans[-1]["status"] = {"code": 2, "message": "timeout"}
                    spans[-1]["events"] = [
                        {
                            "timeUnixNano": str(u + run),
                            "name": "exception",
                            "attributes": attrs(exception__type="TimeoutError", exception__message="timeout"),
                        }
                    ]
                u += run + 100_000
            sub_span["endTimeUnixNano"] = str(u)
            tool_span["endTimeUnixNano"] = str(u + 100_000)
            ends.append(u + 100_000)
        t = max(ends) + 1_000_000
        span(
            trace,
            root,
            "chat gpt-4o",
            t,
            t + 300_000_000,
            attrs(
                gen_ai__operation__name="chat",
                gen_ai__request__model="gpt-4o",
                gen_ai__usage__input_tokens=4000,
                gen_ai__usage__output_tokens=300,
                **common,
            ),
        )
        root_span["endTimeUnixNano"] = str(t + 301_000_000)
    scope = {"scope": {"name": "masrl.synthetic", "version": "1"}, "spans": spans}
    resource = {"attributes": attrs(service__name="synthetic-research")}
    return msgspec.json.encode({"resourceSpans": [{"resource": resource, "scopeSpans": [scope]}]})


def original(trace: m.Trace) -> bytes:
    """*trace* in the survey's original format, as compact JSON: no schema_version, and every
    ``causal`` edge written as the original's ``temporal`` (which this version does not have)."""
    edges = [
        m.OriginalEdge(src=e.src, dst=e.dst, type="temporal" if e.type == "causal" else e.type) for e in trace.edges
    ]
    return msgspec.json.encode(msgspec.structs.replace(trace, schema_version=msgspec.UNSET, edges=edges))


# ---------------------------------------------------------------------------------------------
# Collections of team runs, for the credit and export benchmarks


def team_run(
    name: str,
    task: str,
    agents: list[str],
    reward: float,
    *,
    removed: list[str] | None = None,
    advantage: float | None = None,
) -> tuple[bytes, str]:
    """One run of *task*: a lead spawns each of *agents*, and each asks a model once, its messages
    kept beside the trace. Returns the trace's bytes and its side store's text. *removed* marks an
    ablation run; *advantage* credits every agent with it (method group) on channel team."""
    from masrl.trace import _content

    events: list[dict[str, object]] = [{"id": "e0", "t": 0, "type": "orchestrator_decision", "agent": "lead"}]
    edges = []
    store = {}
    for k, agent in enumerate(agents):
        record = {
            "input": [
                {"role": "system", "content": f"You are {agent}, one of the team for {task}."},
                {"role": "user", "content": f"Do your part of {task}."},
            ],
            "output": [{"role": "assistant", "content": f"{agent} did its part of {task} in run {name}."}],
        }
        ref = _content.ref_of(record)
        store[ref] = record
        events.append({"id": f"s{k}", "t": 1 + 2 * k, "type": "spawn", "agent": "lead", "to": agent})
        events.append(
            {
                "id": f"m{k}",
                "t": 2 + 2 * k,
                "type": "message",
                "agent": agent,
                "to": "model",
                "content_ref": ref,
                "tokens": {"input": 40, "output": 12},
            }
        )
        edges += [{"src": "e0", "dst": f"s{k}", "type": "spawn"}, {"src": f"s{k}", "dst": f"m{k}", "type": "spawn"}]
    doc: dict[str, object] = {
        "schema_version": m.SCHEMA_VERSION,
        "trace_id": name,
        "task_id": task,
        "events": events,
        "edges": edges,
        "rewards": {"team": reward},
    }
    if removed:
        doc["ablation"] = {"agents": removed}
    if advantage is not None:
        doc["attributions"] = [
            {"unit": "agent", "ref": a, "channel": "team", "value": advantage, "method": "group"} for a in agents
        ]
    return msgspec.json.encode(doc), _content.store_text(store)


def write_collection(folder: str, kind: str, runs: int, agents: int = 8, *, seed: int = 0) -> int:
    """Write a collection of about *runs* team runs of *agents* agents to *folder*; returns how many.

    *kind* ``group``: tasks of 8 runs each, rewards drawn at random; ``shapley``: per task, a run
    of every coalition of the agents (the full team and 2^agents - 2 ablation runs; the lead is in
    all), the team's reward the sum of its members' worths, so whole tasks of 2^agents - 1 runs up
    to *runs*; ``export``: like group, every agent already credited, messages kept beside each run.
    """
    from itertools import combinations
    from pathlib import Path

    rng = random.Random(seed)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    names = [f"agent{k}" for k in range(agents)]
    written = 0

    def put(name: str, data: tuple[bytes, str], store: bool) -> None:
        (out / f"{name}.json").write_bytes(data[0])
        if store:
            (out / f"{name}.content.jsonl").write_text(data[1], encoding="utf-8")

    if kind == "shapley":
        per_task = 2**agents - 1
        for t in range(max(1, runs // per_task)):
            worth = {a: rng.random() for a in names}
            for size in range(1, agents + 1):
                for members in combinations(names, size):
                    left = [a for a in names if a not in members]
                    reward = sum(worth[a] for a in members)
                    name = f"t{t:04d}-{written:06d}"
                    put(name, team_run(name, f"task{t}", list(members), reward, removed=left or None), False)
                    written += 1
        return written
    for k in range(runs):
        task = f"task{k // 8}"
        reward = rng.random()
        name = f"run{k:06d}"
        put(
            name,
            team_run(name, task, names, reward, advantage=reward - 0.5 if kind == "export" else None),
            kind == "export",
        )
        written += 1
    return written
