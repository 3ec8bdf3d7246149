"""Content beside the trace and the training data made from it: every span shape, every format,
every recorded framework, and the refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from masrl.trace import _content, _export
from masrl.trace import command as trace_command

OTEL = FIXTURES / "otel"


def _attr(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


GEN_AI_IN = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Sum 2 and 2."}]}])
GEN_AI_OUT = json.dumps(
    [{"role": "assistant", "parts": [{"type": "tool_call", "name": "add", "arguments": {"a": 2, "b": 2}}]}]
)
STRANDS_EVENTS = [
    {"name": "gen_ai.system.message", "attributes": [_attr("content", '[{"text": "You add."}]')]},
    {"name": "gen_ai.user.message", "attributes": [_attr("content", '[{"text": "Sum 2 and 2."}]')]},
    {"name": "gen_ai.choice", "attributes": [_attr("message", '[{"toolUse": {"toolUseId": "c1", "name": "add", "input": {"a": 2}}}]')]},
]  # fmt: skip
# (case, span attributes, span events, the content read)
CONTENT = [
    (
        "gen-ai-attributes",
        {"gen_ai.input.messages": GEN_AI_IN, "gen_ai.output.messages": GEN_AI_OUT, "gen_ai.system_instructions": '[{"type": "text", "content": "You add."}]'},
        None,
        {
            "input": [{"role": "system", "content": "You add."}, {"role": "user", "content": "Sum 2 and 2."}],
            "output": [{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 2}'}}]}],
        },
    ),
    (
        "gen-ai-events-with-blocks",
        {},
        STRANDS_EVENTS,
        {
            "input": [{"role": "system", "content": "You add."}, {"role": "user", "content": "Sum 2 and 2."}],
            "output": [{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": '{"a": 2}'}}]}],
        },
    ),
    (
        "openinference",
        {
            "llm.input_messages.0.message.role": "system",
            "llm.input_messages.0.message.content": "You add.",
            "llm.input_messages.1.message.role": "user",
            "llm.input_messages.1.message.contents.0.message_content.text": "Sum 2 and 2.",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "add",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"a": 2}',
        },
        None,
        {
            "input": [{"role": "system", "content": "You add."}, {"role": "user", "content": "Sum 2 and 2."}],
            "output": [{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": '{"a": 2}'}}]}],
        },
    ),
    ("tool-response-part", {"gen_ai.input.messages": json.dumps([{"role": "tool", "parts": [{"type": "tool_call_response", "response": 4}]}]), "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "4"}]}])}, None, {"input": [{"role": "tool", "content": "4"}], "output": [{"role": "assistant", "content": "4"}]}),
    ("capture-off", {"gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text"}]}])}, None, None),
    ("none", {"gen_ai.operation.name": "chat"}, [{"name": "exception"}], None),
]  # fmt: skip


@pytest.mark.parametrize(("case", "attributes", "events", "expected"), CONTENT, ids=[c[0] for c in CONTENT])
def test_content_of_a_model_call(case: str, attributes: dict[str, Any], events: Any, expected: Any) -> None:
    assert _content.call_content(attributes, events) == expected


def test_the_side_store_round_trips_and_refs_are_content_hashes() -> None:
    record = {"input": [{"role": "user", "content": "hi"}], "output": [{"role": "assistant", "content": "yo"}]}
    ref = _content.ref_of(record)
    assert ref.startswith("sha256:")
    assert len(ref) == 7 + 64
    assert _content.read_store(_content.store_text({ref: record}) + "not json\n") == {ref: record}
    assert _content.store_path(Path("runs/run-1.json")) == Path("runs/run-1.content.jsonl")


def test_the_command_offers_the_export_formats() -> None:
    assert trace_command.EXPORT_FORMATS == _export.FORMATS == tuple(_export.COLUMNS)


# -- Every recorded framework yields credited samples -------------------------------------------

WITH_CONTENT = sorted(
    p.relative_to(OTEL).as_posix()
    for p in [*OTEL.glob("*.json"), *OTEL.glob("*/*.json")]
    if not p.name.endswith(".requests.json") and p.name not in ("autogen-round-robin.json", "chat-span.json")
)
# The calls of each recording, with what they hold: (agents whose calls carry content, calls)
CALLS = {
    "agentlightning/agentlightning-rollout.json": ({"solver", "checker"}, 2),
    "agno/agno-team.json": ({"leader", "researcher", "writer"}, 6),
    # OpenInference's CrewAI event listener records no output for an answer that calls tools
    "crewai/crewai-events-async.json": ({"Researcher", "Analyst", "Writer"}, 3),
    "crewai/crewai-events-sequential.json": ({"Researcher", "Writer"}, 3),
    "crewai/crewai-openinference-async.json": ({"Researcher", "Analyst", "Writer"}, 5),
    "crewai/crewai-openinference-sequential.json": ({"Researcher", "Writer"}, 6),
    "crewai/crewai-tracing-async.json": ({"Researcher", "Analyst", "Writer"}, 5),
    "crewai/crewai-tracing-sequential.json": ({"Researcher", "Writer"}, 6),
    "google-adk/google-adk-agent-tool.json": ({"coordinator", "researcher", "writer"}, 5),
    "google-adk/google-adk-parallel.json": ({"papers", "words", "merger"}, 5),
    "langgraph-openinference.json": ({"researcher", "writer"}, 3),
    "llamaindex/llamaindex-handoff.json": ({"researcher", "writer"}, 3),
    "openai-agents-as-tools.json": ({"orchestrator", "spanish_agent", "french_agent"}, 4),
    "openai-agents-handoff.json": ({"triage", "billing"}, 3),
    "openai-agents-openinference.json": ({"triage", "billing"}, 3),
    "pydantic-ai-delegation.json": ({"planner", "researcher"}, 4),
    "smolagents/smolagents-code.json": ({"manager", "researcher"}, 4),
    "smolagents/smolagents-tool-calling.json": ({"manager", "researcher"}, 4),
    "strands-agents-as-tools.json": ({"orchestrator", "researcher"}, 4),
    "strands-swarm.json": ({"researcher", "coder", "reviewer"}, 5),
}


def test_every_recording_with_content_is_listed() -> None:
    assert sorted(CALLS) == WITH_CONTENT


@pytest.mark.parametrize("name", WITH_CONTENT)
def test_every_recording_yields_credited_samples(name: str, tmp_path: Path, run_cli: Any) -> None:
    # Arrange: the recording imported with its content, a task and a reward
    runs = tmp_path / "runs"
    imported = run_cli(
        "trace",
        "import",
        "otel",
        str(OTEL / name),
        "--content",
        "--task-id",
        "t",
        "--reward",
        "team=1",
        "-o",
        f"{runs}/",
    )
    assert imported.exit_code == 0, imported.output
    # Act: credit each agent, then export the calls
    credited = run_cli("trace", "credit", str(runs), "--unit", "agent", "--method", "broadcast", catch=False)
    assert credited.exit_code == 0, credited.output
    out = tmp_path / "calls.jsonl"
    exported = run_cli(
        "trace", "export", str(runs), "--to", "transitions", "--channel", "team", "-o", str(out), catch=False
    )
    assert exported.exit_code == 0, exported.output
    # Assert: one sample per model call, each with its messages and its agent's credit
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    agents, calls = CALLS[name]
    assert len(rows) == calls
    assert {r["agent"] for r in rows} == agents
    for r in rows:
        assert r["input"], r["event_id"]
        assert r["output"], r["event_id"]
        assert (r["reward"], r["advantage"], r["unit"], r["method"], r["channel"]) == (
            1.0,
            1.0,
            "agent",
            "broadcast",
            "team",
        )
        assert all(set(m) <= {"role", "content", "tool_calls"} for m in [*r["input"], *r["output"]])


def test_agent_lightning_reward_spans_are_reward_channels(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "run.json"
    result = run_cli(
        "trace", "import", "otel", str(OTEL / "agentlightning" / "agentlightning-rollout.json"), "-o", str(out)
    )
    assert result.exit_code == 0, result.output
    trace = json.loads(out.read_text(encoding="utf-8"))
    assert trace["rewards"] == {
        "task": 1.0,
        "format": 0.5,
    }  # emit_reward({"task": 1.0, "format": 0.5}, primary_key="task")
    assert [r["rewards"] for r in trace["metadata"]["reward_spans"]] == [{"task": 1.0, "format": 0.5}]
    assert "agentlightning.annotation" in result.stderr  # the span itself maps to no event, and says why
    by_hand = tmp_path / "by-hand.json"
    over = run_cli(
        "trace",
        "import",
        "otel",
        str(OTEL / "agentlightning" / "agentlightning-rollout.json"),
        "--reward",
        "task=0",
        "-o",
        str(by_hand),
    )
    assert over.exit_code == 0
    assert json.loads(by_hand.read_text(encoding="utf-8"))["rewards"] == {"task": 0.0, "format": 0.5}


# -- Formats, worked out by hand ------------------------------------------------------------------


def _call(k: int, agent: str, prompt: str, answer: str) -> tuple[dict[str, Any], dict[str, Any]]:
    record = {"input": [{"role": "system", "content": f"You are {agent}."}, {"role": "user", "content": prompt}],
              "output": [{"role": "assistant", "content": answer}]}  # fmt: skip
    ref = _content.ref_of(record)
    event = {"id": f"m{k}", "t": k, "type": "message", "agent": agent, "to": "model", "content_ref": ref}
    return event, {ref: record}


def _run(folder: Path, name: str, reward: float, answers: list[str], advantage: float | None = None) -> None:
    """A run of task t: the lead asks the model, spawns a writer who asks it twice."""
    store: dict[str, Any] = {}
    lead, s1 = _call(1, "lead", "Plan.", answers[0])
    first, s2 = _call(3, "writer", "Write.", answers[1])
    second, s3 = _call(4, "writer", "Write more.", answers[2])
    store.update(s1 | s2 | s3)
    doc: dict[str, Any] = {
        "schema_version": "1.0",
        "trace_id": name,
        "task_id": "t",
        "events": [
            {"id": "e0", "t": 0, "type": "orchestrator_decision", "agent": "lead"},
            lead,
            {"id": "s", "t": 2, "type": "spawn", "agent": "lead", "to": "writer"},
            first,
            second,
        ],
        "edges": [
            {"src": "e0", "dst": "m1", "type": "causal"},
            {"src": "m1", "dst": "s", "type": "causal"},
            {"src": "s", "dst": "m3", "type": "spawn"},
            {"src": "m3", "dst": "m4", "type": "causal"},
        ],
        "rewards": {"team": reward},
    }
    if advantage is not None:
        doc["attributions"] = [
            {"unit": "agent", "ref": a, "channel": "team", "value": advantage, "method": "group"}
            for a in ("lead", "writer")
        ]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")
    (folder / f"{name}.content.jsonl").write_text(_content.store_text(store), encoding="utf-8")


@pytest.fixture
def credited(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    _run(folder, "good", 1.0, ["Plan A.", "Draft A.", "More A."], advantage=1.0)
    _run(folder, "bad", 0.0, ["Plan B.", "Draft B.", "More B."], advantage=-1.0)
    return folder


def _exported(run_cli: Any, folder: Path, out: Path, *args: str) -> list[dict[str, Any]]:
    result = run_cli("trace", "export", str(folder), "-o", str(out), *args, catch=False)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def m(role: str, content: str) -> dict[str, str]:
    return {"role": role, "content": content}


def test_dpo_pairs_the_same_agent_s_same_turn_across_runs(credited: Path, tmp_path: Path, run_cli: Any) -> None:
    rows = _exported(run_cli, credited, tmp_path / "dpo.jsonl", "--to", "dpo")
    assert rows == [
        {"prompt": [m("system", "You are lead."), m("user", "Plan.")], "chosen": [m("assistant", "Plan A.")], "rejected": [m("assistant", "Plan B.")]},
        {"prompt": [m("system", "You are writer."), m("user", "Write.")], "chosen": [m("assistant", "Draft A.")], "rejected": [m("assistant", "Draft B.")]},
        {"prompt": [m("system", "You are writer."), m("user", "Write more.")], "chosen": [m("assistant", "More A.")], "rejected": [m("assistant", "More B.")]},
    ]  # fmt: skip


def test_sft_kto_and_transitions(credited: Path, tmp_path: Path, run_cli: Any) -> None:
    sft = _exported(run_cli, credited, tmp_path / "sft.jsonl", "--to", "sft", "--agents", "writer")
    assert sft == [
        {"messages": [m("system", "You are writer."), m("user", "Write."), m("assistant", "Draft A.")]},
        {"messages": [m("system", "You are writer."), m("user", "Write more."), m("assistant", "More A.")]},
    ]
    kto = _exported(run_cli, credited, tmp_path / "kto.jsonl", "--to", "kto", "--agents", "lead")
    assert sorted((r["completion"][0]["content"], r["label"]) for r in kto) == [("Plan A.", True), ("Plan B.", False)]
    assert all(set(r) == {"prompt", "completion", "label"} for r in kto)
    calls = _exported(run_cli, credited, tmp_path / "t.jsonl", "--to", "transitions")
    assert [(r["trace_id"], r["event_id"], r["agent"], r["reward"], r["advantage"]) for r in calls] == [
        ("bad", "m1", "lead", 0.0, -1.0),
        ("bad", "m3", "writer", 0.0, -1.0),
        ("bad", "m4", "writer", 0.0, -1.0),
        ("good", "m1", "lead", 1.0, 1.0),
        ("good", "m3", "writer", 1.0, 1.0),
        ("good", "m4", "writer", 1.0, 1.0),
    ]
    assert list(calls[0]) == list(_export.COLUMNS["transitions"])


REFUSALS = [
    ("no-content", lambda f: (f / "good.content.jsonl").unlink(), "{f}/good.json: the trace holds no content: import it with 'masrl trace import otel --content' to keep each model call's messages beside it (good.content.jsonl)"),
    ("no-credit", lambda f: _run(f, "good", 1.0, ["a", "b", "c"]), "{f}/good.json: no credit on channel 'team' covers the model call 'm1' of 'lead': credit the runs first (masrl trace credit --unit agent --method group)"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_export_refuses_what_it_cannot_join(
    credited: Path, tmp_path: Path, run_cli: Any, case: str, edit: Any, message: str
) -> None:
    edit(credited)
    out = tmp_path / "out.jsonl"
    result = run_cli("trace", "export", str(credited), "--to", "transitions", "-o", str(out))
    assert result.exit_code == 1
    assert result.stdout == message.format(f=credited) + "\n"
    assert result.stderr == "1 problem; nothing was written\n"
    assert not out.exists()
