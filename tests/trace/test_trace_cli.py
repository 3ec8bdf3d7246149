"""`masrl trace` through the command line: exit codes, streams, and what each command imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from trace_cases import TRACES

from conftest import REPO, Corpus
from masrl.trace._schema import SCHEMA_PATH

MASRL = [sys.executable, "-m", "masrl"]


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MASRL_ROOT"}
    return subprocess.run([*MASRL, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_validate_the_example_traces() -> None:
    result = run("trace", "validate", "traces/")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "0 errors in 7 files\n")


def test_validate_reports_every_file_and_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"trace_id": "x", "events": [], "edges": []}', encoding="utf-8")
    empty = tmp_path / "empty.json"
    empty.write_text("", encoding="utf-8")
    result = run("trace", "validate", str(bad), str(empty), str(TRACES / "swarm.json"))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{bad}: /events: events must hold at least 1 item",
        f"{empty}: (trace): file is empty; a trace is one JSON object with trace_id, events and edges",
    ]
    assert result.stderr == "2 errors in 3 files\n"
    assert "Traceback" not in result.stderr


def test_validate_folder_without_traces(tmp_path: Path) -> None:
    result = run("trace", "validate", str(tmp_path))
    assert result.returncode == 1
    assert result.stderr == f"Error: no .json files in {tmp_path}\n"


def test_validate_needs_existing_files() -> None:
    result = run("trace", "validate", "nope.json")
    assert result.returncode == 2
    assert "does not exist" in result.stderr


def test_metrics_text_and_json(run_cli: Any) -> None:
    text = run_cli("trace", "metrics", str(TRACES / "reference-example.json"), catch=False)
    assert text.exit_code == 0
    assert text.stdout.splitlines()[:2] == [
        "trace demo-trace-001",
        "events            8 (orchestrator_decision 1, spawn 2, message 1, tool_call 1, tool_result 1, return 1, "
        "aggregate 1)",
    ]
    as_json = run_cli("trace", "metrics", "--json", str(TRACES / "reference-example.json"), catch=False)
    data = json.loads(as_json.stdout)
    assert (data["critical_steps"], data["parallel_speedup"]) == (7, 1.142857)


def _looped(tmp_path: Path, **extra: Any) -> Path:
    """The reference example with an edge from its last event back to its first."""
    path = tmp_path / "t.json"
    doc = {**extra, **json.loads((TRACES / "reference-example.json").read_text(encoding="utf-8"))}
    doc["edges"].append({"src": "e8", "dst": "e1", "type": "causal"})
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_metrics_refuses_an_invalid_trace(tmp_path: Path, run_cli: Any) -> None:
    path = _looped(tmp_path, schema_version="1.0")
    result = run_cli("trace", "metrics", str(path))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith(f"{path}: /edges/8: edge 'e8' -> 'e1' goes back in time")
    assert result.stderr == "2 errors in 1 file\n"


def test_metrics_of_an_original_trace_warn_and_leave_out_the_loop(tmp_path: Path, run_cli: Any) -> None:
    path = _looped(tmp_path)
    result = run_cli("trace", "metrics", "--json", str(path))
    assert result.exit_code == 0
    warnings = result.stderr.splitlines()
    assert warnings[0].startswith(f"{path}: /edges/8: warning: edge 'e8' -> 'e1' goes back in time")
    assert warnings[1].startswith(f"{path}: /edges/8: warning: edges form a cycle: 'e1' -> 'e2'")
    assert json.loads(result.stdout)["critical_steps"] == 7  # the edge back in time is left out
    strict = run_cli("trace", "metrics", "--strict", str(path))
    assert (strict.exit_code, strict.stderr) == (1, "2 errors in 1 file\n")


def test_render(run_cli: Any) -> None:
    result = run_cli("trace", "render", str(TRACES / "reference-example.json"), catch=False)
    assert result.exit_code == 0
    assert result.stdout.startswith("flowchart LR\n")
    too_many = run_cli("trace", "render", "--max-events", "3", str(TRACES / "reference-example.json"))
    assert too_many.exit_code == 1
    assert too_many.stderr == (
        f"Error: {TRACES / 'reference-example.json'}: the trace has 8 events; a diagram holds at most 3; "
        "raise --max-events to draw it anyway\n"
    )


def test_schema_command(corpus: Corpus, run_cli: Any) -> None:
    printed = run_cli("trace", "schema", "--stdout", catch=False)
    assert printed.stdout == (REPO / SCHEMA_PATH).read_text(encoding="utf-8")
    first = run_cli("trace", "schema", catch=False)
    assert (first.exit_code, first.stdout) == (0, f"wrote {SCHEMA_PATH}\n")
    assert (corpus.root / SCHEMA_PATH).read_text(encoding="utf-8") == printed.stdout
    again = run_cli("trace", "schema", catch=False)
    assert (again.stdout, again.stderr) == ("", f"{SCHEMA_PATH} is up to date\n")


def test_generate_is_deterministic_and_valid(tmp_path: Path, run_cli: Any) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path in (a, b):
        result = run_cli(
            "trace", "generate", "--agents", "7", "--rounds", "20", "--stages", "2", "--seed", "5", str(path)
        )
        assert (result.exit_code, result.stderr) == (0, f"wrote {path}\n")
    assert a.read_bytes() == b.read_bytes()
    assert run_cli("trace", "validate", str(a)).exit_code == 0
    other = tmp_path / "c.json"
    run_cli("trace", "generate", "--agents", "7", "--rounds", "20", "--stages", "2", "--seed", "6", str(other))
    assert other.read_bytes() != a.read_bytes()
    assert len(json.loads(a.read_text(encoding="utf-8"))["events"]) == 7 * 42 + 4


_MODULES = "import sys; from masrl.cli import cli; sys.argv = ['masrl', *sys.argv[1:]]\ntry:\n    cli(prog_name='masrl')\nexcept SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)"


def loaded_modules(*args: str) -> set[str]:
    # No cache: a whole validation runs, never the replay of a remembered report (which loads no
    # record), so what a command needs does not hang on what an earlier run left in .masrl-cache/.
    env = {**os.environ, "MASRL_NO_CACHE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", _MODULES, *args], cwd=REPO, capture_output=True, text=True, check=False, env=env
    )
    return set(result.stderr.split()[-1000:])


HEAVY = {"pandas", "matplotlib", "jinja2", "msgspec", "jsonschema"}


@pytest.mark.parametrize(
    ("args", "allowed"),
    [
        (["--help"], set()),
        (["trace", "--help"], set()),
        (["validate"], {"msgspec"}),  # the record cache (.masrl-cache/) is msgspec-typed
        (["trace", "validate", "traces/"], {"msgspec"}),  # the fast path needs no jsonschema
    ],
    ids=["help", "trace-help", "validate", "trace-validate"],
)
def test_commands_load_only_what_they_need(args: list[str], allowed: set[str]) -> None:
    assert HEAVY & loaded_modules(*args) == allowed


@pytest.mark.parametrize(
    ("args", "code", "stdout", "stderr"),
    [
        (["trace", "validate", "traces/reference-example.json"], 0, "", "0 errors in 1 file\n"),
        (["trace", "validate", "pyproject.toml"], 1, "pyproject.toml: line 1 column 2: not valid JSON: Expecting value\n", "1 error in 1 file\n"),
        (["no-such-command"], 2, "", "Usage: masrl [OPTIONS] COMMAND [ARGS]...\nTry 'masrl --help' for help.\n\nError: No such command 'no-such-command'.\n"),
    ],
    ids=["valid", "invalid", "usage"],
)  # fmt: skip
def test_the_process_exits_with_the_command_s_code_and_all_its_output(
    args: list[str], code: int, stdout: str, stderr: str
) -> None:
    """masrl.cli.main ends the process without the interpreter's teardown; nothing printed may be lost."""
    result = subprocess.run(
        [sys.executable, "-m", "masrl", *args], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert (result.returncode, result.stdout, result.stderr) == (code, stdout, stderr)
