"""Importing OpenTelemetry output recorded from real agent frameworks (tests/fixtures/otel/).

The recordings were made by tests/fixtures/otel/record.py with the versions pinned beside it; these
tests read only the recorded JSON. Every recording goes through the command line: import, validate,
metrics, and the invariants the metrics promise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, REPO, assert_golden

OTEL = FIXTURES / "otel"
AUTOGEN = OTEL / "autogen-round-robin.json"
COLLECTOR = OTEL / "collector.jsonl"

# (recording, traces written, each actor's kind, spawns (by, whom), delegate edges (from, to),
#  failed events, total tokens)
RECORDINGS = [
    ("openai-agents-handoff.json", 1, {"billing": "sub-agent", "triage": "root"}, [("triage", "billing")], [("triage", "billing")], 0, 281),
    ("openai-agents-openinference.json", 1, {"billing": "sub-agent", "triage": "root"}, [("triage", "billing")], [("triage", "billing")], 1, 297),
    ("openai-agents-as-tools.json", 1, {"french_agent": "sub-agent", "orchestrator": "root", "spanish_agent": "sub-agent"}, [("orchestrator", "french_agent"), ("orchestrator", "spanish_agent")], [], 0, 234),
    ("pydantic-ai-delegation.json", 1, {"planner": "root", "researcher": "sub-agent"}, [("planner", "researcher")], [], 0, 399),
    ("strands-agents-as-tools.json", 1, {"orchestrator": "root", "researcher": "sub-agent"}, [("orchestrator", "researcher")], [], 1, 534),
    ("strands-swarm.json", 1, {"coder": "sub-agent", "researcher": "root", "reviewer": "sub-agent"}, [("coder", "reviewer"), ("researcher", "coder")], [("coder", "reviewer"), ("researcher", "coder")], 0, 942),
    ("autogen-round-robin.json", 4, {"critic": "root", "writer": "root"}, [], [], 0, 0),
    ("langgraph-openinference.json", 1, {"researcher": "root", "writer": "sub-agent"}, [("researcher", "writer")], [("researcher", "writer")], 0, 326),
    ("chat-span.json", 1, {"chat-span": "root"}, [], [], 0, 21),
    ("collector.jsonl", 3, {"assistant": "root"}, [], [], 0, 468),
]  # fmt: skip


def _import_all(run_cli: Any, source: Path, out: Path, *extra: str) -> Any:
    result = run_cli("trace", "import", "otel", str(source), "-o", f"{out}/", *extra)
    assert "Traceback" not in result.stderr
    return result


def _metrics(run_cli: Any, path: Path) -> dict[str, Any]:
    result = run_cli("trace", "metrics", "--json", str(path))
    assert result.exit_code == 0, result.stdout
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.parametrize(
    ("name", "traces", "kinds", "spawns", "delegations", "errors", "tokens"),
    RECORDINGS,
    ids=[r[0] for r in RECORDINGS],
)
def test_recording_imports_validates_and_keeps_the_invariants(
    tmp_path: Path,
    run_cli: Any,
    name: str,
    traces: int,
    kinds: dict[str, str],
    spawns: list[tuple[str, str]],
    delegations: list[tuple[str, str]],
    errors: int,
    tokens: int,
) -> None:
    result = _import_all(run_cli, OTEL / name, tmp_path)
    assert result.exit_code == 0, result.stderr
    written = sorted(tmp_path.glob("*.json"))
    assert len(written) == traces
    assert run_cli("trace", "validate", str(tmp_path)).exit_code == 0
    seen_kinds: dict[str, str] = {}
    seen_spawns, seen_delegations = set(), set()
    seen_errors = seen_tokens = 0
    for path in written:
        trace = json.loads(path.read_text(encoding="utf-8"))
        assert path.name == f"{trace['trace_id']}.json"
        r = _metrics(run_cli, path)
        assert r["critical_path_s"] <= r["makespan_s"]
        assert r["critical_steps"] <= r["events"]
        assert r["parallel_speedup"] >= 1
        seen_kinds |= {a: v["kind"] for a, v in r["per_agent"].items() if v["kind"] != "tool"}
        events = {e["id"]: e for e in trace["events"]}
        seen_spawns |= {(e["agent"], e["to"]) for e in trace["events"] if e["type"] == "spawn"}
        seen_delegations |= {
            (events[e["src"]]["agent"], events[e["dst"]]["agent"]) for e in trace["edges"] if e["type"] == "delegate"
        }
        seen_errors += r["errors"]
        seen_tokens += r["tokens"]["total"]
    assert dict(sorted(seen_kinds.items())) == kinds
    assert sorted(seen_spawns) == spawns
    assert sorted(seen_delegations) == delegations
    assert (seen_errors, seen_tokens) == (errors, tokens)


@pytest.mark.parametrize("name", ["openai-agents-handoff", "strands-agents-as-tools"])
def test_golden_imports(tmp_path: Path, run_cli: Any, name: str) -> None:
    result = run_cli("trace", "import", "otel", str(OTEL / f"{name}.json"))
    assert result.exit_code == 0
    assert_golden(f"otel-{name}.trace.json", result.stdout)


def test_a_handoff_is_the_delegation(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "t.json"
    assert run_cli("trace", "import", "otel", str(OTEL / "openai-agents-handoff.json"), "-o", str(out)).exit_code == 0
    events = json.loads(out.read_text(encoding="utf-8"))["events"]
    handoff = next(e for e in events if e["type"] == "spawn")
    assert (handoff["agent"], handoff["to"], handoff["attributes"]["gen_ai.operation.name"]) == (
        "triage",
        "billing",
        "agent_handoff",
    )
    assert [e["type"] for e in events if e["agent"] == "billing"] == ["message", "tool_call", "message", "aggregate"]


def test_calls_requested_together_follow_that_model_turn(tmp_path: Path, run_cli: Any) -> None:
    # The orchestrator's first model turn asks for both translators at once: each call depends on
    # that turn, not on the orchestrator's opening (which would leave the turn off the critical path).
    out = tmp_path / "t.json"
    assert run_cli("trace", "import", "otel", str(OTEL / "openai-agents-as-tools.json"), "-o", str(out)).exit_code == 0
    trace = json.loads(out.read_text(encoding="utf-8"))
    events = {e["id"]: e for e in trace["events"]}
    turn = next(e for e in trace["events"] if e["type"] == "message" and e["agent"] == "orchestrator")
    calls = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert [c["tool"] for c in calls] == ["to_spanish", "to_french"]
    for call in calls:
        into = [(events[e["src"]]["id"], e["type"]) for e in trace["edges"] if e["dst"] == call["id"]]
        assert into == [(turn["id"], "causal")]
        assert turn["end"] <= call["t"]


def test_a_swarm_without_handoff_spans_is_inferred_with_a_warning(tmp_path: Path, run_cli: Any) -> None:
    result = _import_all(run_cli, OTEL / "strands-swarm.json", tmp_path)
    warnings = [line for line in result.stderr.splitlines() if ": warning: " in line]
    assert [w.split(": warning: ")[1].split(";")[0] for w in warnings] == [
        "/resourceSpans/0/scopeSpans/0/spans/11: no handoff span names 'coder'",
        "/resourceSpans/0/scopeSpans/0/spans/14: no handoff span names 'reviewer'",
    ]
    (written,) = tmp_path.glob("*.json")
    trace = json.loads(written.read_text(encoding="utf-8"))
    assert len(trace["metadata"]["warnings"]) == 2
    assert {"name": "invoke_swarm", "operation": "invoke_swarm"}.items() <= trace["metadata"]["unmapped_spans"][
        0
    ].items()


def test_a_failed_tool_keeps_its_error(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "t.json"
    assert run_cli("trace", "import", "otel", str(OTEL / "strands-agents-as-tools.json"), "-o", str(out)).exit_code == 0
    failed = [e for e in json.loads(out.read_text(encoding="utf-8"))["events"] if "status" in e]
    assert [(e["type"], e["tool"], e["status"], e["error"]) for e in failed] == [
        ("tool_result", "fetch_page", "error", "connection refused: http://127.0.0.1:9/none")
    ]
    text = run_cli("trace", "metrics", str(out)).stdout
    assert "errors            1 events failed (status error)" in text


def test_spans_of_unknown_kinds_are_kept_and_reported(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "t.json"
    result = run_cli("trace", "import", "otel", str(OTEL / "openai-agents-handoff.json"), "-o", str(out))
    assert "4 spans not mapped: operation 'unknown' has no counterpart in an orchestration trace" in result.stderr
    unmapped = json.loads(out.read_text(encoding="utf-8"))["metadata"]["unmapped_spans"]
    assert sorted(u["operation"] for u in unmapped) == ["invoke_agent", "unknown", "unknown", "unknown", "unknown"]


def test_a_lone_chat_span_is_a_one_agent_trace(run_cli: Any) -> None:
    result = run_cli("trace", "import", "otel", str(OTEL / "chat-span.json"))
    assert result.exit_code == 0
    assert "names no agent; credited to 'chat-span'" in result.stderr
    trace = json.loads(result.stdout)
    assert [(e["type"], e["agent"], e["to"], e["tokens"]) for e in trace["events"]] == [
        ("message", "chat-span", "gpt-4o-mini", {"input": 9, "output": 12})
    ]


def test_many_traces_need_a_choice_or_a_folder(tmp_path: Path, run_cli: Any) -> None:
    result = run_cli("trace", "import", "otel", str(AUTOGEN))
    assert result.exit_code == 1
    assert "the export holds 22 traces (" in result.stderr
    assert "choose one with --trace-id, or write all with -o DIR/" in result.stderr
    assert "Traceback" not in result.stderr


def test_trace_id_picks_one(tmp_path: Path, run_cli: Any) -> None:
    _import_all(run_cli, AUTOGEN, tmp_path)
    chosen = sorted(tmp_path.glob("*.json"))[1].stem
    result = run_cli("trace", "import", "otel", str(AUTOGEN), "--trace-id", chosen)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["trace_id"] == chosen
    assert json.loads(result.stdout) == json.loads((tmp_path / f"{chosen}.json").read_text(encoding="utf-8"))
    into = tmp_path / "one"
    assert run_cli("trace", "import", "otel", str(AUTOGEN), "--trace-id", chosen, "-o", f"{into}/").exit_code == 0
    assert [p.name for p in into.iterdir()] == [f"{chosen}.json"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_folder_gets_every_trace(tmp_path: Path, run_cli: Any, jobs: str) -> None:
    result = _import_all(run_cli, AUTOGEN, tmp_path / "new", "--jobs", jobs)
    assert result.exit_code == 0
    written = sorted((tmp_path / "new").glob("*.json"))
    assert len(written) == 4
    skipped = [line for line in result.stderr.splitlines() if line.endswith("maps to an event; not written")]
    assert len(skipped) == 18
    assert result.stderr.splitlines()[-1] == f"imported 22 traces of 65 spans: wrote 4 to {tmp_path}/new/"
    one = run_cli("trace", "import", "otel", str(AUTOGEN), "--trace-id", written[0].stem)
    assert json.loads(one.stdout) == json.loads(written[0].read_text(encoding="utf-8"))


def test_json_lines_one_export_per_line(tmp_path: Path, run_cli: Any) -> None:
    result = _import_all(run_cli, COLLECTOR, tmp_path)
    assert result.exit_code == 0
    assert len(list(tmp_path.glob("*.json"))) == 3
    assert "/resourceSpans/" not in result.stderr  # every span maps


def _broken_lines(tmp_path: Path) -> Path:
    lines = COLLECTOR.read_text(encoding="utf-8").splitlines()
    lines.insert(1, "{not json")
    lines.append('{"resourceSpans": [{"scopeSpans": {}}]}')
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_broken_line_stops_the_import(tmp_path: Path, run_cli: Any) -> None:
    source = _broken_lines(tmp_path)
    result = _import_all(run_cli, source, tmp_path / "out")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {source}: line 2: not an OTLP/JSON export: Expecting property name")
    assert not (tmp_path / "out").exists()


def test_keep_going_writes_what_it_can_and_lists_the_problems(tmp_path: Path, run_cli: Any) -> None:
    source = _broken_lines(tmp_path)
    result = _import_all(run_cli, source, tmp_path / "out", "--keep-going")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{source}: line 2: not an OTLP/JSON export: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1); skipped",
        f"{source}: line 5: /resourceSpans/0/scopeSpans: scopeSpans must be an array; skipped",
    ]
    assert len(list((tmp_path / "out").glob("*.json"))) == 3
    assert result.stderr.splitlines()[-1] == f"imported 3 traces of 12 spans: wrote 3 to {tmp_path}/out/; 2 problems"


# (case, edit of the OpenAI Agents handoff export, what the importer says)
SHAPES = [
    ("status-error-as-text", lambda s: s[0].update(status={"code": "STATUS_CODE_ERROR", "message": "boom"}), "boom"),
    ("exception-event-only", lambda s: s[0].update(events=[{"name": "exception", "attributes": [{"key": "exception.type", "value": {"stringValue": "KeyError"}}, {"key": "exception.message", "value": {"stringValue": "'x'"}}]}]), "KeyError: 'x'"),
    ("error-without-message", lambda s: s[0].update(status={"code": 2}), "the span's status is ERROR"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "error"), SHAPES, ids=[c[0] for c in SHAPES])
def test_failed_model_calls_keep_their_error(tmp_path: Path, run_cli: Any, case: str, edit: Any, error: str) -> None:
    data = json.loads((OTEL / "openai-agents-handoff.json").read_text(encoding="utf-8"))
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert spans[0]["name"] == "chat gpt-4o-mini"
    edit(spans)
    source = tmp_path / "in.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    result = run_cli("trace", "import", "otel", str(source))
    assert result.exit_code == 0
    failed = [e for e in json.loads(result.stdout)["events"] if e.get("status") == "error"]
    assert [(e["type"], e["agent"], e["error"]) for e in failed] == [("message", "triage", error)]


# Property: whatever shape the spans take, the importer writes only traces its validator accepts,
# and their metrics keep the invariants.
_KINDS = [
    [("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", "a")],
    [("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", "b")],
    [("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", "c")],
    [("gen_ai.operation.name", "invoke_agent")],  # a workflow span that names no agent
    [("gen_ai.operation.name", "create_agent"), ("gen_ai.agent.name", "b")],
    [("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", "search")],
    [("gen_ai.operation.name", "chat"), ("gen_ai.usage.input_tokens", 10), ("gen_ai.usage.output_tokens", 3)],
    [("gen_ai.operation.name", "agent_handoff"), ("gen_ai.handoff.to_agent", "c")],
    [("gen_ai.operation.name", "unknown")],
    [("openinference.span.kind", "AGENT"), ("agent.name", "d")],
    [("openinference.span.kind", "AGENT")],  # a workflow span, or an agent named by its span name
    [("openinference.span.kind", "CHAIN"), ("graph.node.id", "e")],
    [("openinference.span.kind", "CHAIN")],
    [("openinference.span.kind", "LLM"), ("llm.token_count.prompt", 5)],
    [("openinference.span.kind", "TOOL"), ("tool.name", "fetch")],
    # the shapes the framework adaptations read
    [("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", "k1"), ("crewai.agent.role", "a")],
    [("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", "fetch"), ("crewai.event_name", "tool_failure_detected")],
    [("openinference.span.kind", "TOOL"), ("tool.name", "Delegate work to coworker"), ("input.value", '{"coworker": "d"}')],
    [("openinference.span.kind", "TOOL"), ("tool.name", "Delegate work to coworker"), ("input.value", '{"coworker": "a"}')],
    [("openinference.span.kind", "AGENT"), ("smolagents.max_steps", 4)],
    [("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", "transfer_to_agent"), ("gen_ai.tool.type", "TransferToAgentTool")],
    [("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", "(merged tools)")],
    [("openinference.span.kind", "TOOL"), ("tool.name", "handoff"), ("input.value", '{"kwargs": {"to_agent": "b"}}')],
    [("openinference.span.kind", "CHAIN"), ("input.value", "AgentInput(current_agent_name='f')")],
    [("openinference.span.kind", "AGENT"), ("agent.name", "g"), ("graph.node.id", "ng"), ("graph.node.parent_id", "nd")],
    [("openinference.span.kind", "AGENT"), ("agent.name", "d"), ("graph.node.id", "nd"), ("graph.node.parent_id", "ng")],
]  # fmt: skip
# Span names some adaptations read: smolagents' agents, LlamaIndex's workflow steps and request builder.
_NAMES = ["researcher.run", "AgentWorkflow.run_agent_step", "OpenAI._prepare_chat_with_tools"]


def _attribute(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": {"intValue": str(value)} if isinstance(value, int) else {"stringValue": value}}


@st.composite
def _exports(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(min_value=1, max_value=14))
    spans = []
    for k in range(n):
        parent = draw(st.one_of(st.none(), st.integers(min_value=0, max_value=n - 1)))
        start = draw(st.integers(min_value=0, max_value=50))
        length = draw(st.integers(min_value=0, max_value=50))
        failed = draw(st.booleans())
        later = draw(st.one_of(st.none(), st.integers(min_value=0, max_value=30)))  # an event after the end
        spans.append(
            {
                "traceId": draw(st.sampled_from(["01", "02"])),
                "spanId": f"s{k}",
                "parentSpanId": f"s{parent}" if parent is not None else "",
                "name": draw(st.sampled_from([f"span {k}", *_NAMES])),
                "startTimeUnixNano": str(start * 10**6),
                "endTimeUnixNano": str((start + length) * 10**6),
                "attributes": [_attribute(key, v) for key, v in draw(st.sampled_from(_KINDS))],
                "status": {"code": 2, "message": "failed"} if failed else {"code": 0},
                "events": []
                if later is None
                else [{"name": "token", "timeUnixNano": str((start + length + later) * 10**6)}],
            }
        )
    return {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}


@settings(max_examples=300, deadline=None)
@given(_exports())
def test_any_span_shape_imports_to_valid_traces(export: dict[str, Any]) -> None:
    from masrl.trace._metrics import compute
    from masrl.trace._otel import Skipped, convert_all, read_spans
    from masrl.trace._validate import validate_trace

    spans, _, _ = read_spans(export)
    for result in convert_all(spans, system="svc"):
        if isinstance(result, Skipped):
            continue
        checked = validate_trace(result.trace, "imported")
        assert checked.problems == []
        assert checked.graph is not None
        r = compute(result.trace, checked.graph)
        assert r["critical_path_s"] <= r["makespan_s"] + 1e-9
        assert r["critical_steps"] <= r["events"]
        assert r["parallel_speedup"] >= 1


def _refuse_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the validator refuse one AutoGen trace, as if the importer had made a wrong one."""
    from masrl.trace import _otel_write
    from masrl.trace._problems import TraceProblem
    from masrl.trace._validate import Checked, validate_trace

    def refusing(trace: Any, shown: str) -> Checked:
        checked = validate_trace(trace, shown)
        if trace.trace_id.startswith("60de"):
            checked.problems = [TraceProblem(shown, "/events/0", "made-up problem")]
        return checked

    monkeypatch.setattr(_otel_write, "validate_trace", refusing)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_refused_trace_leaves_nothing_written(
    tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    _refuse_one(monkeypatch)
    result = _import_all(run_cli, AUTOGEN, tmp_path / "out", "--jobs", jobs)
    assert result.exit_code == 1
    assert result.stdout.endswith("/events/0: made-up problem\n")
    assert "the imported trace does not validate; not written" in result.stderr
    assert result.stderr.endswith("Nothing was written (--keep-going writes the traces that passed).\n")
    assert not (tmp_path / "out").exists()
    kept = _import_all(run_cli, AUTOGEN, tmp_path / "kept", "--jobs", jobs, "--keep-going")
    assert kept.exit_code == 1
    assert len(list((tmp_path / "kept").glob("*.json"))) == 3
    assert kept.stderr.splitlines()[-1] == f"imported 22 traces of 65 spans: wrote 3 to {tmp_path}/kept/; 1 problem"


# --- The named adaptations, one function each (trace/_otel_frameworks.py) -----------------------

STEP_INPUT = '{"ev": "AgentSetup(input=[...], current_agent_name=\'writer\')"}'

# (case, span name, attributes, the agent it names)
AGENT_NAMES = [
    # CrewAI's own tracing: the role, not the internal key
    ("crewai-role", "execute agent", {"crewai.agent.role": "Researcher", "gen_ai.agent.name": "ca30e208"}, "Researcher"),
    ("crewai-empty-role", "execute agent", {"crewai.agent.role": ""}, None),
    # smolagents: NAME.run, only on spans carrying smolagents' attributes
    ("smolagents", "researcher.run", {"smolagents.max_steps": 4}, "researcher"),
    ("smolagents-marks-missing", "researcher.run", {"openinference.span.kind": "AGENT"}, None),
    ("smolagents-no-name", ".run", {"smolagents.max_steps": 4}, None),
    # LlamaIndex: the step's input names the acting agent
    ("llamaindex-step", "AgentWorkflow.run_agent_step", {"input.value": STEP_INPUT}, "writer"),
    ("llamaindex-step-unnamed", "AgentWorkflow.run_agent_step", {"input.value": "{}"}, None),
    ("llamaindex-other-step", "AgentWorkflow.setup_agent", {"input.value": STEP_INPUT}, None),
    ("plain", "invoke_agent triage", {"gen_ai.agent.name": "triage"}, None),
]  # fmt: skip


@pytest.mark.parametrize(("case", "name", "attributes", "agent"), AGENT_NAMES, ids=[c[0] for c in AGENT_NAMES])
def test_adaptation_agent_name(case: str, name: str, attributes: dict[str, Any], agent: str | None) -> None:
    from masrl.trace import _otel_frameworks as fw

    assert fw.agent_name(name, attributes) == agent


# (case, span name, attributes, the start of the reason it is no call, or None)
NOT_CALLS = [
    ("crewai-failure-report", "tool failure", {"crewai.event_name": "tool_failure_detected", "gen_ai.tool.name": "fetch"}, "CrewAI's second report"),
    ("crewai-tool-call", "call tool", {"crewai.event_name": "tool_usage_error", "gen_ai.tool.name": "fetch"}, None),
    ("adk-merged", "execute_tool (merged)", {"gen_ai.tool.name": "(merged tools)"}, "ADK's record of the answers"),
    ("adk-tool", "execute_tool search", {"gen_ai.tool.name": "search"}, None),
    ("llamaindex-prepare", "OpenAI._prepare_chat_with_tools", {"openinference.span.kind": "LLM"}, "LlamaIndex's _prepare_chat_with_tools"),
    ("llamaindex-chat", "OpenAI.astream_chat", {"openinference.span.kind": "LLM"}, None),
]  # fmt: skip


@pytest.mark.parametrize(("case", "name", "attributes", "reason"), NOT_CALLS, ids=[c[0] for c in NOT_CALLS])
def test_adaptation_not_a_call(case: str, name: str, attributes: dict[str, Any], reason: str | None) -> None:
    from masrl.trace import _otel_frameworks as fw

    found = fw.not_a_call(name, attributes)
    assert (found is None) == (reason is None)
    assert (found or "").startswith(reason or "")


ADK = {"gen_ai.tool.name": "transfer_to_agent", "gen_ai.tool.type": "TransferToAgentTool"}

# (case, attributes of a tool span, (whether it hands over, to whom))
HANDOFFS = [
    ("adk-arguments-recorded", {**ADK, "gen_ai.tool.call.arguments": '{"agent_name": "writer"}'}, (True, "writer")),
    ("adk-arguments-not-recorded", ADK, (True, None)),
    ("adk-arguments-broken", {**ADK, "gen_ai.tool.call.arguments": '{"agent_name": '}, (True, None)),
    ("a-tool-of-that-name-elsewhere", {**ADK, "gen_ai.tool.type": "FunctionTool"}, (False, None)),
    ("llamaindex", {"tool.name": "handoff", "input.value": '{"kwargs": {"to_agent": "writer", "reason": "done"}}'}, (True, "writer")),
    ("llamaindex-no-target", {"tool.name": "handoff", "input.value": '{"kwargs": {"reason": "done"}}'}, (False, None)),
    ("llamaindex-target-not-text", {"tool.name": "handoff", "input.value": '{"to_agent": 3}'}, (False, None)),
    ("llamaindex-input-not-json", {"tool.name": "handoff", "input.value": "to_agent=writer"}, (False, None)),
    ("another-tool", {"tool.name": "search", "input.value": '{"to_agent": "writer"}'}, (False, None)),
]  # fmt: skip


@pytest.mark.parametrize(("case", "attributes", "expected"), HANDOFFS, ids=[c[0] for c in HANDOFFS])
def test_adaptation_handoff(case: str, attributes: dict[str, Any], expected: tuple[bool, str | None]) -> None:
    from masrl.trace import _otel_frameworks as fw

    assert fw.handoff(attributes) == expected


DELEGATION = '{"task": "Check the sources", "context": "MARL", "coworker": "Researcher"}'

# (case, attributes of a tool span, the coworker it hands work to)
COWORKERS = [
    ("openinference", {"tool.name": "Delegate work to coworker", "input.value": DELEGATION}, "Researcher"),
    ("question", {"tool.name": "Ask question to coworker", "input.value": DELEGATION}, "Researcher"),
    ("native-call-name", {"gen_ai.tool.name": "delegate_work_to_coworker", "input.value": DELEGATION}, "Researcher"),
    ("no-coworker", {"tool.name": "Delegate work to coworker", "input.value": '{"task": "t"}'}, None),
    ("empty-coworker", {"tool.name": "Delegate work to coworker", "input.value": '{"coworker": ""}'}, None),
    ("no-input", {"tool.name": "Delegate work to coworker"}, None),
    ("another-tool", {"tool.name": "search", "input.value": DELEGATION}, None),
]  # fmt: skip


@pytest.mark.parametrize(("case", "attributes", "coworker"), COWORKERS, ids=[c[0] for c in COWORKERS])
def test_adaptation_coworker(case: str, attributes: dict[str, Any], coworker: str | None) -> None:
    from masrl.trace import _otel_frameworks as fw

    assert fw.coworker(attributes) == coworker


# --- The traces page's table of frameworks, held to what recorded the fixtures -------------------

TRACES_PAGE = REPO / "site" / "docs" / "traces.md"
PIN_FILES = sorted([*OTEL.glob("requirements-*.txt"), *OTEL.glob("*/requirements.txt")])


def _framework_rows() -> list[list[str]]:
    lines = TRACES_PAGE.read_text(encoding="utf-8").splitlines()
    start = lines.index("| framework | versions recorded | mode | what is read from where |")
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def _pins(path: Path) -> set[str]:
    return {line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines() if "==" in line}


@pytest.mark.parametrize("row", _framework_rows(), ids=lambda row: f"{row[0]}-{row[2]}")
def test_each_framework_row_names_the_versions_that_recorded_it(row: list[str]) -> None:
    framework, versions, mode, reads = row
    wanted = {"==".join(pair.split(" ")).lower() for pair in versions.split(", ")}
    holding = [path.relative_to(OTEL).as_posix() for path in PIN_FILES if wanted <= _pins(path)]
    assert holding, f"{framework} ({mode}): no requirements file beside the recordings pins {sorted(wanted)}"
    assert reads


@pytest.mark.parametrize("folder", sorted(p.parent.name for p in OTEL.glob("*/requirements.txt")))
def test_each_recorded_framework_has_a_row(folder: str) -> None:
    pins = _pins(OTEL / folder / "requirements.txt")
    rows = [row for row in _framework_rows() if {"==".join(p.split(" ")).lower() for p in row[1].split(", ")} <= pins]
    assert rows, f"tests/fixtures/otel/{folder}/ is recorded but the traces page has no row for it"
