"""`masrl trace metrics --table`: a row per trace for whole collections, read back by DuckDB and pandas."""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
from trace_cases import TRACES, encode, reference

from masrl.trace import _table
from masrl.trace._generate import encode as encode_trace
from masrl.trace._generate import swarm

HEADER = [
    "file", "id", "system", "topology", "events", "agents", "critical_steps", "parallel_speedup", "makespan",
    "tokens", "cost",
]  # fmt: skip


def collection(tmp_path: Path) -> Path:
    """The example traces, an original-format trace with a warning, and two broken files."""
    folder = tmp_path / "runs"
    shutil.copytree(TRACES, folder, ignore=shutil.ignore_patterns("crewai-crew"))  # the example traces only
    looped = reference()
    looped["edges"].append({"src": "e8", "dst": "e1", "type": "temporal"})
    looped["trace_id"] = "looped"
    (folder / "looped.json").write_bytes(encode(looped))
    (folder / "broken.json").write_text("{", encoding="utf-8")
    (folder / "no-events.json").write_bytes(encode({**reference(), "events": []}))
    return folder


def test_csv_table_lists_every_file_and_its_problem(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "t.csv"
    result = run_cli("trace", "metrics", str(collection(tmp_path)), "--table", str(out))
    assert result.exit_code == 0
    runs = tmp_path / "runs"
    assert result.stderr.splitlines() == [
        f"{runs / 'broken.json'}: line 1 column 2: not valid JSON: Expecting property name enclosed in double quotes",
        f"{runs / 'no-events.json'}: /events: events must hold at least 1 item",
        f"wrote {out}: 7 traces, 2 not valid",
    ]
    rows = list(csv.DictReader(out.read_text(encoding="utf-8").splitlines()))
    assert list(rows[0]) == [
        *HEADER,
        *(f"reward_{c}" for c in ["debate", "finish", "orchestration", "process", "role", "team", "tool", "verifier"]),
        "warnings",
        "errors",
        "problem",
    ]
    by_file = {Path(r["file"]).name: r for r in rows}
    assert [Path(r["file"]).name for r in rows] == sorted(by_file)
    ref = by_file["reference-example.json"]
    assert (ref["id"], ref["topology"], ref["events"], ref["agents"], ref["critical_steps"]) == (
        "demo-trace-001", "centralized", "8", "3", "7",
    )  # fmt: skip
    assert (ref["parallel_speedup"], ref["makespan"], ref["tokens"], ref["cost"]) == ("1.142857", "7.0", "12000", "")
    assert (ref["reward_team"], ref["reward_orchestration"], ref["reward_debate"]) == ("1.0", "0.3", "")
    assert (by_file["looped.json"]["warnings"], by_file["looped.json"]["errors"]) == ("2", "0")
    broken = by_file["broken.json"]
    assert (broken["errors"], broken["id"], broken["events"]) == ("1", "", "")
    assert broken["problem"] == "line 1 column 2: not valid JSON: Expecting property name enclosed in double quotes"


def test_parquet_round_trips_through_duckdb_and_pandas(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "t.parquet"
    assert run_cli("trace", "metrics", str(collection(tmp_path)), "--table", str(out)).exit_code == 0
    found = duckdb.sql(
        f"select id, topology, critical_steps, reward_team, errors from '{out}' "
        "where errors = 0 order by critical_steps desc, id"
    ).fetchall()
    assert found == [
        ("swarm-vendor-pricing-001", "swarm", 15, 1.0, 0),
        ("hierarchical-feature-001", "hierarchical", 13, 1.0, 0),
        ("debate-claim-check-001", "debate", 9, None, 0),
        ("demo-trace-001", "centralized", 7, 1.0, 0),
        ("looped", "centralized", 7, 1.0, 0),
    ]
    frame = pd.read_parquet(out)
    assert len(frame) == 7
    assert frame["events"].isna().sum() == 2  # the broken files have no metrics
    assert frame.loc[frame["id"] == "demo-trace-001", "parallel_speedup"].item() == pytest.approx(8 / 7, abs=1e-6)
    assert int(frame["errors"].sum()) == 2


def test_jsonl_table(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "t.jsonl"
    assert run_cli("trace", "metrics", str(TRACES / "reference-example.json"), "--table", str(out)).exit_code == 0
    [line] = out.read_text(encoding="utf-8").splitlines()
    data = json.loads(line)
    assert (data["id"], data["tokens"], data["cost"], data["reward_team"], data["problem"]) == (
        "demo-trace-001", 12000, None, 1.0, None,
    )  # fmt: skip


def test_a_large_collection_is_measured_by_the_pool_in_order(tmp_path: Path) -> None:
    files = []
    for k in range(_table._SMALL + 9):
        path = tmp_path / f"s{k:03d}.json"
        path.write_bytes(encode_trace(swarm(1 + k % 3, k % 4, seed=k)))
        files.append((path, path.name))
    seen: list[int] = []
    pooled = list(_table.rows(files, progress=seen.append))
    assert pooled == [_table.row(p, s) for p, s in files]
    assert sum(seen) == len(files)
    assert [r["events"] for r in pooled[:3]] == [4, 10, 20]  # agents x (2 x rounds + 2) + 2


TABLE_ERRORS = [
    (["--table", "t.xlsx"], "Error: t.xlsx: the table's file name must end in .csv, .jsonl or .parquet, not '.xlsx'\n"),
    ([], "Error: give one trace file, or --table OUT.csv|.jsonl|.parquet to measure several traces or folders\n"),
]


@pytest.mark.parametrize(("extra", "message"), TABLE_ERRORS, ids=["suffix", "several-without-table"])
def test_table_errors(tmp_path: Path, run_cli: Any, extra: list[str], message: str, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("trace", "metrics", str(TRACES), str(TRACES / "swarm.json"), *extra)
    assert (result.exit_code, result.stderr) == (1, message)
    assert list(tmp_path.iterdir()) == []


def test_parquet_without_pyarrow_says_how_to_get_it(tmp_path: Path, run_cli: Any, monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    result = run_cli("trace", "metrics", str(TRACES), "--table", str(tmp_path / "t.parquet"))
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: writing Parquet needs pyarrow: pip install 'masrl[parquet]' (or write .csv or .jsonl)\n",
    )
    assert not (tmp_path / "t.parquet").exists()
