"""`masrl trace credit` over collections, through the command line: written, printed, refused."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from trace_cases import REFERENCE


def team_run(
    folder: Path,
    name: str,
    agents: list[str],
    rewards: dict[str, float],
    *,
    task: str | None = "t1",
    removed: list[str] | None = None,
    **extra: Any,
) -> Path:
    """A run of *task*: a lead spawns each of *agents*, each asks a model once (3 output tokens)."""
    events: list[dict[str, Any]] = [{"id": "e0", "t": 0, "type": "orchestrator_decision", "agent": "lead"}]
    edges = []
    for k, agent in enumerate(agents):
        events.append({"id": f"s-{agent}", "t": 2 * k + 1, "type": "spawn", "agent": "lead", "to": agent})
        events.append(
            {
                "id": f"m-{agent}",
                "t": 2 * k + 2,
                "type": "message",
                "agent": agent,
                "to": "model",
                "tokens": {"output": 3},
            }
        )
        edges += [
            {"src": "e0", "dst": f"s-{agent}", "type": "spawn"},
            {"src": f"s-{agent}", "dst": f"m-{agent}", "type": "spawn"},
        ]
    doc: dict[str, Any] = {
        "schema_version": "1.0",
        "trace_id": name,
        "events": events,
        "edges": edges,
        "rewards": rewards,
    }
    if task is not None:
        doc["task_id"] = task
    if removed:
        doc["ablation"] = {"agents": removed}
    doc.update(extra)
    path = folder / f"{name}.json"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def worth(coalition: set[str]) -> float:
    """a adds 1, b 0.5, and a with c 0.5 more."""
    return float("a" in coalition) + 0.5 * ("b" in coalition) + 0.5 * ({"a", "c"} <= coalition)


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    """Task t1: three runs of the full team (lead; a, b, c), and one run of every smaller coalition."""
    folder = tmp_path / "runs"
    for k in range(3):
        team_run(folder, f"full{k}", ["a", "b", "c"], {"team": 2.0 + 0.1 * k, "style": 1.0})
    for size in (1, 2):
        for kept in itertools.combinations("abc", size):
            out = [p for p in "abc" if p not in kept]
            team_run(
                folder, f"without-{''.join(out)}", list(kept), {"team": worth(set(kept)), "style": 0.0}, removed=out
            )
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}


def attributions(path: Path) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text(encoding="utf-8")).get("attributions", []))


def test_group_writes_advantages_into_the_full_runs(collection: Path, run_cli: Any) -> None:
    # Arrange
    before = snapshot(collection)
    # Act
    result = run_cli(
        "trace", "credit", str(collection), "--unit", "agent", "--method", "group", "--channel", "team", catch=False
    )
    # Assert
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr == "credited 9 traces at unit agent by group: wrote 3; 6 ablation runs credited none\n"
    after = snapshot(collection)
    assert [n for n in after if after[n] != before[n]] == ["full0.json", "full1.json", "full2.json"]
    # rewards 2.0, 2.1, 2.2: advantages -1.2247..., 0, 1.2247... for every agent of each run
    values = [{a["ref"]: round(a["value"], 6) for a in attributions(collection / f"full{k}.json")} for k in range(3)]
    assert values == [dict.fromkeys(["lead", "a", "b", "c"], v) for v in (-1.224745, 0.0, 1.224745)]
    assert {a["method"] for a in attributions(collection / "full0.json")} == {"group"}
    assert run_cli("trace", "validate", str(collection)).exit_code == 0
    # Credit again: the same method's credit is replaced, not added.
    again = run_cli("trace", "credit", str(collection), "--unit", "agent", "--method", "group", "--channel", "team")
    assert again.exit_code == 0
    assert snapshot(collection) == after


def test_shapley_and_leave_one_out_printed_as_a_table(collection: Path, run_cli: Any) -> None:
    shapley = run_cli(
        "trace",
        "credit",
        str(collection),
        "--unit",
        "agent",
        "--method",
        "shapley",
        "--channel",
        "team",
        "--csv",
        catch=False,
    )
    assert shapley.exit_code == 0, shapley.output
    rows = [line.split(",") for line in shapley.stdout.splitlines()]
    assert rows[0] == ["file", "trace_id", "task_id", "channel", "method", "unit", "ref", "index", "value"]
    full0 = {r[6]: round(float(r[8]), 9) for r in rows[1:] if r[1] == "full0"}
    # a: 1 alone, with c 0.5 more (shared with c); b: 0.5; lead in every run: v of nobody, 0
    assert full0 == {"lead": 0.0, "a": 1.25, "b": 0.5, "c": 0.25}
    loo = run_cli(
        "trace", "credit", str(collection), "--unit", "agent", "--method", "leave-one-out", "--json", catch=False
    )
    table = json.loads(loo.stdout)
    assert {
        (r["trace_id"], r["channel"], r["ref"]): round(r["value"], 9) for r in table if r["trace_id"] == "full1"
    } == {
        ("full1", "team", "a"): 1.6,  # 2.1 less 0.5 without a
        ("full1", "team", "b"): 0.6,  # less 1.5 without b
        ("full1", "team", "c"): 0.6,  # less 1.5 without c
        ("full1", "style", "a"): 1.0,
        ("full1", "style", "b"): 1.0,
        ("full1", "style", "c"): 1.0,
    }
    assert snapshot(collection) == snapshot(collection)  # printing writes nothing


def test_event_units_take_their_agent_s_group_advantage(collection: Path, run_cli: Any) -> None:
    result = run_cli(
        "trace",
        "credit",
        str(collection),
        "--unit",
        "token",
        "--method",
        "group",
        "--channel",
        "team",
        "--json",
        catch=False,
    )
    table = json.loads(result.stdout)
    full2 = [r for r in table if r["trace_id"] == "full2"]
    assert len(full2) == 9  # three agents' messages of 3 tokens
    assert {(r["ref"], r["index"]) for r in full2} == {(f"m-{a}", i) for a in "abc" for i in range(3)}
    assert {round(r["value"], 6) for r in full2} == {1.224745}


def test_every_problem_is_listed_and_nothing_is_written(tmp_path: Path, run_cli: Any) -> None:
    folder = tmp_path / "runs"
    team_run(folder, "good", ["a"], {"team": 1.0})
    team_run(folder, "no-task", ["a"], {"team": 1.0}, task=None)
    team_run(folder, "other-channel", ["a"], {"quality": 1.0})
    (folder / "broken.json").write_text('{"trace_id": "x", "events": [], "edges": []}', encoding="utf-8")
    before = snapshot(folder)
    result = run_cli("trace", "credit", str(folder), "--unit", "agent", "--method", "group", "--channel", "team")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{folder / 'broken.json'}: /events: events must hold at least 1 item",
        f"{folder / 'no-task.json'}: the run has no task_id; group compares the runs of one task",
        f"{folder / 'other-channel.json'}: the run has no reward on channel 'team'; its channels are 'quality'",
    ]
    assert result.stderr == "3 problems; nothing was written\n"
    assert snapshot(folder) == before


REFUSED = [
    (
        ["--method", "group"],
        "every task has a single run of the full team: group compares several runs of one task_id (run the task "
        "more than once); split or broadcast credit single runs",
    ),
    (
        ["--method", "leave-one-out"],
        "task 't1': no run leaves out any of its 2 players; mark a run without each agent with \"ablation\": "
        '{"agents": [NAME]}; group needs no ablation runs',
    ),
]


@pytest.mark.parametrize(("args", "message"), REFUSED, ids=["group-single-runs", "loo-no-ablation"])
def test_a_method_without_its_data_says_what_is_missing(
    tmp_path: Path, run_cli: Any, args: list[str], message: str
) -> None:
    folder = tmp_path / "runs"
    team_run(folder, "only", ["a"], {"team": 1.0})
    result = run_cli("trace", "credit", str(folder), "--unit", "agent", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (1, message + "\n", "1 problem; nothing was written\n")


def test_shapley_names_the_coalitions_it_lacks(collection: Path, run_cli: Any) -> None:
    (collection / "without-ab.json").unlink()
    (collection / "without-b.json").unlink()
    result = run_cli("trace", "credit", str(collection), "--unit", "agent", "--method", "shapley", "--channel", "team")
    assert result.exit_code == 1
    assert result.stdout == (
        "task 't1': 2 coalitions of the 3 players have no run: without 'a', 'b'; without 'b'; mark each run of a "
        'coalition with the agents it leaves out ("ablation": {"agents": [...]}); leave-one-out needs only the '
        "runs without one agent each, group none\n"
    )


def test_a_method_that_does_not_fit_the_unit_is_an_error(collection: Path, run_cli: Any) -> None:
    result = run_cli("trace", "credit", str(collection), "--unit", "tool", "--method", "shapley")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: shapley credits agent or orchestrator or role (what an ablation run can leave out), not tool; for "
        "tool, use broadcast, split, discounted, critical-path, group\n",
    )


def test_without_duckdb_the_collection_methods_say_how_to_install_it(
    collection: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "duckdb", None)
    result = run_cli("trace", "credit", str(collection), "--unit", "agent", "--method", "group")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: comparing runs and exporting training data need DuckDB: pip install 'masrl[credit]'\n",
    )
    alone = run_cli("trace", "credit", str(collection / "full0.json"), "--unit", "agent", "--method", "split", "--csv")
    assert alone.exit_code == 0  # one run needs no DuckDB


def test_an_original_format_trace_keeps_every_key(tmp_path: Path, run_cli: Any) -> None:
    doc = json.loads(REFERENCE.read_text(encoding="utf-8"))
    doc["events"][0]["latency_ms"] = "fast"  # the original format leaves event keys open
    doc["attributions"] = [{"unit": "team", "channel": "team", "value": 1}]  # hand-made credit, kept
    path = tmp_path / "original.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = run_cli("trace", "credit", str(path), "--unit", "orchestrator", "--method", "discounted", catch=False)
    assert result.exit_code == 0, result.output
    after = json.loads(path.read_text(encoding="utf-8"))
    assert after["events"] == doc["events"]
    assert "schema_version" not in after
    assert after["attributions"][0] == doc["attributions"][0]
    assert after["attributions"][1:] == [
        {"unit": "orchestrator", "ref": "orchestrator", "channel": ch, "value": v, "method": "discounted"}
        for ch, v in doc["rewards"].items()
    ]


def test_a_large_collection_is_credited_on_every_core(tmp_path: Path, run_cli: Any) -> None:
    folder = tmp_path / "runs"
    for k in range(40):  # more than a process reads alone
        team_run(folder, f"run{k:02d}", ["a", "b"], {"team": float(k % 4)}, task=f"t{k % 5}")
    result = run_cli("trace", "credit", str(folder), "--unit", "agent", "--method", "group", catch=False)
    assert result.exit_code == 0, result.output
    for k in range(40):
        values = {a["value"] for a in attributions(folder / f"run{k:02d}.json")}
        assert len(values) == 1
    by_task: dict[int, float] = {}
    for k in range(40):
        by_task[k % 5] = by_task.get(k % 5, 0.0) + attributions(folder / f"run{k:02d}.json")[0]["value"]
    assert all(abs(total) < 1e-9 for total in by_task.values())  # zero mean per task
