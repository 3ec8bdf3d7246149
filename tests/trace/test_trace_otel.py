"""Importing OpenTelemetry GenAI spans: the hand-made research-run fixture, and broken exports."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from conftest import FIXTURES, assert_golden
from masrl.trace import _model as m
from masrl.trace._otel import Imported, OtelError, convert, read_spans
from masrl.trace._validate import validate_trace

OTEL = FIXTURES / "traces" / "otel-research.json"


def fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(OTEL.read_text(encoding="utf-8"))
    return data


def spans_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for scope in data["resourceSpans"][0]["scopeSpans"] for s in scope["spans"]]


def imported(data: dict[str, Any], **options: Any) -> Imported:
    spans, broken, _ = read_spans(data)
    result = convert(spans, **options)
    result.unmapped[:0] = broken
    return result


def test_fixture_imports_and_validates() -> None:
    result = imported(fixture(), system="research-assistant")
    checked = validate_trace(result.trace, "imported")
    assert checked.problems == []
    assert (result.spans, len(result.trace.events), len(result.trace.edges), result.adjusted) == (20, 27, 27, 0)
    kinds = [e.kind for e in result.trace.events]
    assert {k: kinds.count(k) for k in dict.fromkeys(kinds)} == {
        "orchestrator_decision": 1,  # the lead's top-level invoke_agent opens ...
        "message": 10,  # 7 chat spans + 1 delegation to researcher_a ... + 2 more chats
        "spawn": 2,  # create_agent researcher_a; researcher_b spawned by its first invocation
        "tool_call": 5,
        "tool_result": 5,
        "return": 3,  # each sub-agent invocation ends in a return to the lead
        "aggregate": 1,  # ... and closes the run
    }


def test_fixture_golden_output() -> None:
    result = imported(fixture(), system="research-assistant")
    text = msgspec.json.format(msgspec.json.encode(result.trace), indent=2).decode("utf-8") + "\n"
    assert_golden("otel-research.trace.json", text)


def test_unmapped_spans_are_reported_with_reasons() -> None:
    result = imported(fixture())
    assert [(u.where, u.name, u.operation, u.reason) for u in result.unmapped] == [
        (
            "/resourceSpans/0/scopeSpans/1/spans/0",
            "POST /v1/chat/completions",
            None,
            "no gen_ai.operation.name or openinference.span.kind attribute",
        ),
        (
            "/resourceSpans/0/scopeSpans/0/spans/11",
            "embeddings text-embedding-3-small",
            "embeddings",
            "operation 'embeddings' has no counterpart in an orchestration trace",
        ),
    ]
    metadata = result.trace.metadata
    assert isinstance(metadata, dict)
    assert [u["span_id"] for u in metadata["unmapped_spans"]] == ["a00000000000000b", "a00000000000000d"]


def test_mapping_of_agents_tools_and_tokens() -> None:
    events = {e.id: e for e in imported(fixture()).trace.events}
    lead_chat = events["e2"]
    assert (lead_chat.kind, lead_chat.agent, lead_chat.to, lead_chat.t, lead_chat.end) == (
        "message",
        "lead",
        "gpt-4.1",
        0.1,
        2.0,
    )
    assert (lead_chat.tokens.input, lead_chat.tokens.output) == (1200, 310)
    assert (events["e3"].kind, events["e3"].to) == ("spawn", "researcher_a")  # create_agent
    assert (events["e4"].kind, events["e4"].to) == ("message", "researcher_a")  # invoking a created agent delegates
    assert (events["e6"].kind, events["e6"].to) == ("spawn", "researcher_b")
    call, result = events["e8"], events["e10"]
    assert (call.kind, call.agent, call.tool, result.kind, result.agent, result.parent) == (
        "tool_call",
        "researcher_a",
        "web_search",
        "tool_result",
        "web_search",
        "e8",
    )
    assert call.attributes["gen_ai.tool.call.id"] == "call_a1"


def test_several_traces_need_a_choice() -> None:
    data = fixture()
    _span(data, "a000000000000014")["traceId"] = "ffffffffffffffffffffffffffffffff"  # the lead's last chat
    with pytest.raises(OtelError, match=r"the export holds 2 traces \(4bf9.*, ffff.*\); choose one with --trace-id"):
        imported(data)
    assert len(imported(data, trace_id="4bf92f3577b34da6a3ce929d0e0e4736").trace.events) == 26
    with pytest.raises(OtelError, match="no span has traceId 'nope'"):
        imported(data, trace_id="nope")


# (case, edit of the export, expected OtelError message)
NOT_AN_EXPORT = [
    ("array", lambda d: [d], "an OTLP/JSON trace export is an object with a resourceSpans array"),
    ("no-resource-spans", lambda d: {"spans": []}, "an OTLP/JSON trace export is an object with a resourceSpans array"),
    ("resource-not-object", lambda d: {"resourceSpans": [1]}, "each resourceSpans item must be an object"),
    ("scope-spans-not-array", lambda d: {"resourceSpans": [{"scopeSpans": {}}]}, "scopeSpans must be an array"),
    ("spans-not-array", lambda d: {"resourceSpans": [{"scopeSpans": [{"spans": 3}]}]}, "a scopeSpans item holds a spans array"),
    ("no-spans", lambda d: {"resourceSpans": []}, "the export holds no span that can be read"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "message"), NOT_AN_EXPORT, ids=[c[0] for c in NOT_AN_EXPORT])
def test_not_an_export(case: str, edit: Any, message: str) -> None:
    with pytest.raises(OtelError, match=message):
        imported(edit(fixture()))


def _span(data: dict[str, Any], span_id: str) -> dict[str, Any]:
    return next(s for s in spans_of(data) if s["spanId"] == span_id)


def _set_attribute(span: dict[str, Any], key: str, value: dict[str, Any] | None) -> None:
    span["attributes"] = [a for a in span["attributes"] if a["key"] != key]
    if value is not None:
        span["attributes"].append({"key": key, "value": value})


# (case, edit of one span of the fixture, reason it is not mapped)
UNMAPPABLE = [
    ("no-span-id", lambda d: _span(d, "a000000000000013").pop("spanId"), "spanId must be a non-empty string"),
    ("bad-start", lambda d: _span(d, "a000000000000013").update(startTimeUnixNano="soon"), "startTimeUnixNano and endTimeUnixNano must be a whole number of nanoseconds since the Unix epoch"),
    ("negative-end", lambda d: _span(d, "a000000000000013").update(endTimeUnixNano=-5), "startTimeUnixNano and endTimeUnixNano must not be negative"),
    ("attribute-shape", lambda d: _span(d, "a000000000000013").update(attributes={"a": 1}), "attributes must be an array of {key, value}"),
    ("attribute-value", lambda d: _set_attribute(_span(d, "a000000000000013"), "x", {"intValue": "many"}), "attribute 'x': intValue does not hold a value of the right kind"),
    ("operation-not-string", lambda d: _set_attribute(_span(d, "a000000000000013"), "gen_ai.operation.name", {"intValue": 3}), "gen_ai.operation.name must be a string"),
    ("tool-without-name", lambda d: _set_attribute(_span(d, "a000000000000012"), "gen_ai.tool.name", None), "execute_tool span names no tool (gen_ai.tool.name)"),
    ("agent-without-name", lambda d: _set_attribute(_span(d, "a000000000000003"), "gen_ai.agent.name", None), "create_agent span names no agent (gen_ai.agent.name or gen_ai.agent.id)"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "reason"), UNMAPPABLE, ids=[c[0] for c in UNMAPPABLE])
def test_unmappable_spans_are_reported_and_the_rest_still_imports(case: str, edit: Any, reason: str) -> None:
    data = fixture()
    edit(data)
    result = imported(data)
    assert reason in [u.reason for u in result.unmapped]
    assert validate_trace(result.trace, "imported").problems == []


def test_top_level_tool_span_is_the_acting_agents() -> None:
    # A workflow's step between agent spans: the agent acting at the top level when it starts.
    data = fixture()
    _span(data, "a000000000000010")["parentSpanId"] = ""
    result = imported(data)
    (call,) = [e for e in result.trace.events if isinstance(e, m.ToolCall) and e.tool == "write_report"]
    assert (call.agent, call.parent) == ("lead", UNSET)
    assert validate_trace(result.trace, "imported").problems == []


def test_top_level_tool_span_before_any_agent_acts() -> None:
    data = fixture()
    tool = _span(data, "a000000000000010")
    tool["parentSpanId"] = ""
    tool["startTimeUnixNano"], tool["endTimeUnixNano"] = "1767261599000000000", "1767261599500000000"
    result = imported(data)
    assert "tool span is outside any agent's span, names no agent, and no agent is acting yet" in [
        u.reason for u in result.unmapped
    ]


def test_top_level_create_agent() -> None:
    data = fixture()
    _span(data, "a000000000000003")["parentSpanId"] = ""
    result = imported(data)
    assert "create_agent outside any agent's span: no agent to credit with the spawn" in [
        u.reason for u in result.unmapped
    ]
    assert validate_trace(result.trace, "imported").problems == []


def test_clock_skew_is_moved_inside_the_parent() -> None:
    data = fixture()
    tool = _span(data, "a000000000000006")
    tool["endTimeUnixNano"] = str(int(tool["endTimeUnixNano"]) + 60 * 10**9)  # ends after its parent
    result = imported(data)
    assert result.adjusted == 1
    assert validate_trace(result.trace, "imported").problems == []


def test_parent_loop_does_not_hang() -> None:
    data = fixture()
    _span(data, "a000000000000001")["parentSpanId"] = "a000000000000005"
    result = imported(data)
    assert validate_trace(result.trace, "imported").problems == []


def test_import_is_deterministic() -> None:
    first = msgspec.json.encode(imported(fixture()).trace)
    shuffled = fixture()
    spans = shuffled["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans.reverse()
    assert msgspec.json.encode(imported(copy.deepcopy(shuffled)).trace) == first


def test_numbers_written_as_strings_or_numbers() -> None:
    data = fixture()
    for span in spans_of(data):
        span["startTimeUnixNano"] = int(span["startTimeUnixNano"])
        for a in span["attributes"]:
            if "intValue" in a["value"]:
                a["value"]["intValue"] = int(a["value"]["intValue"])
    assert msgspec.json.encode(imported(data).trace) == msgspec.json.encode(imported(fixture()).trace)


def test_cli_import(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "run.json"
    result = run_cli("trace", "import", "otel", str(OTEL), "-o", str(out))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{OTEL}: /resourceSpans/0/scopeSpans/1/spans/0: span 'POST /v1/chat/completions' not mapped: "
        "no gen_ai.operation.name or openinference.span.kind attribute",
        f"{OTEL}: /resourceSpans/0/scopeSpans/0/spans/11: span 'embeddings text-embedding-3-small' not mapped: "
        "operation 'embeddings' has no counterpart in an orchestration trace",
        "trace 4bf92f3577b34da6a3ce929d0e0e4736: 20 spans as 27 events and 27 edges; 2 not mapped",
        f"imported 1 trace of 20 spans: wrote 1 to {out}",
    ]
    assert run_cli("trace", "validate", str(out)).exit_code == 0
    trace = json.loads(out.read_text(encoding="utf-8"))
    assert trace["system"] == "research-assistant"
    assert trace["metadata"]["spans"] == 20


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "not an OTLP/JSON export: Expecting property name enclosed in double quotes"),
        (b"\xff\xfe", "not an OTLP/JSON export: 'utf-8' codec can't decode byte 0xff"),
        (b"[]", "(file): an OTLP/JSON trace export is an object with a resourceSpans array"),
    ],
)
def test_cli_import_refuses_non_exports(tmp_path: Path, run_cli: Any, content: bytes, message: str) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    result = run_cli("trace", "import", "otel", str(path))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {path}: ")
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_import_refuses_absurdly_deep_span_chains(tmp_path: Path, run_cli: Any) -> None:
    data = fixture()
    chain = spans_of(data)[0]
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"] = []
    for k in range(3000):
        span = copy.deepcopy(chain)
        span["spanId"], span["parentSpanId"] = f"s{k}", f"s{k - 1}" if k else ""
        spans.append(span)
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run_cli("trace", "import", "otel", str(path))
    assert result.exit_code == 1
    assert result.stderr == f"Error: {path}: spans nest too deeply to import (hundreds of levels of parent spans)\n"
