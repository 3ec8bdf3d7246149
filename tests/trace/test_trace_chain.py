"""The chain a new user runs, step by step, as the README shows it: a CrewAI OpenTelemetry export
imported, its runs of one task credited by group, DPO pairs exported, and the file loaded with
Hugging Face's `datasets` into the columns TRL documents for DPOTrainer (prompt, chosen, rejected,
each a list of chat messages: https://huggingface.co/docs/trl/dataset_formats)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES

CREWAI = FIXTURES / "otel" / "crewai"
# Three runs of one sequential crew (a researcher, then a writer who delegates a check back): the
# same task, traced by three tracers, each given the reward a grader might have.
RUNS = {"openinference": 0.9, "events": 0.4, "tracing": 0.6}


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from click.testing import CliRunner

    from masrl.cli import cli

    def run(*args: str) -> Any:
        result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result

    work = tmp_path_factory.mktemp("chain")
    runs = work / "runs"
    steps: dict[str, Any] = {"runs": runs, "work": work}
    # 1. import a CrewAI OpenTelemetry export, with its messages, a task and a reward
    steps["import"] = [
        run(
            "trace",
            "import",
            "otel",
            str(CREWAI / f"crewai-{mode}-sequential.json"),
            "--content",
            "--task-id",
            "crew-summary",
            "--reward",
            f"team={reward}",
            "-o",
            str(runs / f"{mode}.json"),
        )
        for mode, reward in RUNS.items()
    ]
    # 2. credit each agent of the runs of the task by group-relative advantage
    steps["credit"] = run("trace", "credit", str(runs), "--unit", "agent", "--method", "group")
    # 3. export DPO pairs, as JSON Lines and as Parquet
    for suffix in ("jsonl", "parquet"):
        steps[suffix] = run("trace", "export", str(runs), "--to", "dpo", "-o", str(work / f"pairs.{suffix}"))
    return steps


def test_1_import_keeps_content_beside_each_run(chain: dict[str, Any]) -> None:
    runs: Path = chain["runs"]
    assert sorted(p.name for p in runs.iterdir()) == sorted(
        [*(f"{mode}.json" for mode in RUNS), *(f"{mode}.content.jsonl" for mode in RUNS)]
    )
    for mode, reward in RUNS.items():
        trace = json.loads((runs / f"{mode}.json").read_text(encoding="utf-8"))
        assert (trace["task_id"], trace["rewards"]) == ("crew-summary", {"team": reward})
        refs = {e["content_ref"] for e in trace["events"] if "content_ref" in e}
        stored = {json.loads(line)["ref"] for line in (runs / f"{mode}.content.jsonl").read_text("utf-8").splitlines()}
        assert refs
        assert refs == stored
        assert "content" not in json.dumps(trace["events"]).replace("content_ref", "")  # no message text inside


def test_2_group_credit_is_zero_mean_over_the_task(chain: dict[str, Any]) -> None:
    assert chain["credit"].stderr == "credited 3 traces at unit agent by group: wrote 3\n"
    values: dict[str, list[float]] = {}
    for mode in RUNS:
        trace = json.loads((chain["runs"] / f"{mode}.json").read_text(encoding="utf-8"))
        for a in trace["attributions"]:
            assert (a["unit"], a["channel"], a["method"]) == ("agent", "team", "group")
            values.setdefault(a["ref"], []).append(a["value"])
    assert sorted(values) == ["Researcher", "Writer"]
    for advantages in values.values():
        assert abs(sum(advantages)) < 1e-9
        # rewards 0.4, 0.6, 0.9: mean 0.6333..., population standard deviation 0.2055...
        assert sorted(round(a, 6) for a in advantages) == [-1.13555, -0.162221, 1.297771]


def test_3_dpo_pairs_the_best_run_with_the_worst(chain: dict[str, Any]) -> None:
    assert chain["jsonl"].stderr.startswith(f"wrote {chain['work'] / 'pairs.jsonl'}: ")
    rows = [json.loads(line) for line in (chain["work"] / "pairs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows
    for row in rows:
        assert list(row) == ["prompt", "chosen", "rejected"]
        assert row["prompt"][0]["role"] == "system"
        assert row["chosen"] != row["rejected"]
    # the chosen answers come from the best run (openinference, 0.9), the rejected from the worst (events, 0.4)
    first = rows[0]
    assert first["chosen"][-1]["role"] == first["rejected"][-1]["role"] == "assistant"


@pytest.mark.parametrize("suffix", ["jsonl", "parquet"])
def test_4_the_file_loads_with_datasets_into_trl_s_columns(chain: dict[str, Any], suffix: str) -> None:
    datasets = pytest.importorskip("datasets")
    kind = "json" if suffix == "jsonl" else "parquet"
    data = datasets.load_dataset(
        kind, data_files=str(chain["work"] / f"pairs.{suffix}"), cache_dir=str(chain["work"] / "hf-cache")
    )["train"]
    assert data.column_names == ["prompt", "chosen", "rejected"]
    assert len(data) == len((chain["work"] / "pairs.jsonl").read_text(encoding="utf-8").splitlines())
    for row in data:
        for column in ("prompt", "chosen", "rejected"):
            assert row[column], column
            assert all(isinstance(m["role"], str) and isinstance(m["content"], str) for m in row[column])
