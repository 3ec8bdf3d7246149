"""The Python API (``from masrl.trace import load, validate, metrics``), and its example on the site."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from trace_cases import REFERENCE, encode, reference

from conftest import REPO
from masrl.trace import AgentMetrics, Loaded, Metrics, TokenCounts, TraceError, load, metrics, validate
from masrl.trace._generate import encode as encode_trace
from masrl.trace._generate import swarm
from masrl.trace.api import EXAMPLE


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.S)


@pytest.mark.parametrize("page", ["site/docs/traces.md", "traces/README.md"])
def test_the_documented_example_runs(page: str) -> None:
    [code] = _python_blocks((REPO / page).read_text(encoding="utf-8"))
    assert code == EXAMPLE
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, page, "exec"), {})
    assert printed.getvalue() == "3 1.0 5.0 0.8\n"


SOURCES = [
    ("path", lambda tmp: REFERENCE),
    ("path-text", lambda tmp: str(REFERENCE)),
    ("bytes", lambda tmp: REFERENCE.read_bytes()),
    ("dict", lambda tmp: reference()),
]


@pytest.mark.parametrize(("case", "source"), SOURCES, ids=[c[0] for c in SOURCES])
def test_every_kind_of_source(tmp_path: Path, case: str, source: Any) -> None:
    loaded = load(source(tmp_path))
    assert isinstance(loaded, Loaded)
    assert (loaded.ok, loaded.problems, loaded.warnings, loaded.original_format) == (True, [], [], True)
    assert loaded.trace is not None
    assert loaded.trace.trace_id == "demo-trace-001"
    assert validate(source(tmp_path)) == []
    m = metrics(source(tmp_path))
    assert isinstance(m, Metrics)
    assert (m.events, m.agents, m.critical_steps, m.parallel_speedup) == (8, 3, 7, 1.142857)
    assert m.tokens == TokenCounts(0, 0, 0)
    assert m.rewards == {"team": 1.0, "orchestration": 0.3, "tool": 0.1}
    assert m.costs == {"tokens": 12000, "wall_clock_s": 420, "tool_calls": 1, "messages": 1}
    assert m.per_agent["executor_1"] == AgentMetrics("sub-agent", 2, 0.0, 0, 0, 0, {})
    assert m.critical_path == ["e1", "e2", "e4", "e5", "e6", "e7", "e8"]
    assert m.details["by_type"]["spawn"] == 2


def test_problems_are_returned_not_printed(capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"schema_version": "1.0", **reference()}
    doc["events"][3]["from"] = "executor_1"
    [problem] = validate(doc)
    assert (problem.where, problem.warning) == ("/events/3/from", False)
    assert problem.message.startswith("from 'executor_1' differs from agent 'planner_1'")
    assert load(doc).trace is None
    with pytest.raises(TraceError) as raised:
        metrics(doc)
    assert raised.value.problems == [problem]
    assert capsys.readouterr() == ("", "")


def test_warnings_of_the_original_format_and_strict() -> None:
    doc = reference()
    doc["events"][3]["from"] = "executor_1"
    [warning] = validate(doc)
    assert (warning.where, warning.warning) == ("/events/3/from", True)
    assert metrics(doc).critical_steps == 7
    assert [p.warning for p in validate(doc, strict=True)] == [False]
    with pytest.raises(TraceError):
        metrics(doc, strict=True)


@pytest.mark.parametrize(
    ("source", "where", "message"),
    [
        (b"", "", "file is empty; a trace is one JSON object with trace_id, events and edges"),
        ({"trace_id": "x", "events": [], "edges": []}, "/events", "events must hold at least 1 item"),
        ({"trace_id": object()}, "", "not JSON data: Object of type object is not JSON serializable"),
        ({**reference(), "rewards": {"team": float("nan")}}, "/rewards/team", "NaN is not valid JSON; numbers must be finite"),
    ],
    ids=["empty-bytes", "no-events", "not-json-data", "nan"],
)  # fmt: skip
def test_bad_sources_give_problems(source: Any, where: str, message: str) -> None:
    [problem] = validate(source)
    assert (problem.where, problem.message) == (where, message)


def test_a_generated_swarm_from_bytes() -> None:
    m = metrics(encode_trace(swarm(3, 4, seed=1)))
    assert (m.events, m.critical_steps, m.parl_critical_steps) == (32, 12, 10)
    assert m.critical_path_s <= m.makespan_s
    assert m.tokens.total == m.tokens.input + m.tokens.output > 0
    assert json.loads(encode(m.details))["trace_id"] == m.trace_id
