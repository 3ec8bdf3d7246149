"""The package layout (ARCHITECTURE.md): the wings import one way and no imports go in circles.

import-linter checks both contracts in pyproject.toml. The real package must keep them; a copy of
the package with one bad import added must break the contract that forbids it, so a contract
that stopped checking anything would fail here too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO

LINT = ["lint-imports", "--no-cache", "--no-logo"]  # what CI and pre-commit run
LAYERS = "The wings import one way: commands, publish, analysis or living, corpus or trace, base"
ACYCLIC = "No import circles, between the wings or inside any package"


def lint(repo: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the package under *repo*/scripts, with *repo*'s pyproject.toml."""
    script = Path(sys.executable).with_name(LINT[0])
    env = {**os.environ, "PYTHONPATH": str(repo / "scripts")}
    return subprocess.run(
        [str(script), *LINT[1:]], cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=120
    )


def test_the_package_keeps_every_contract() -> None:
    run = lint(REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    flat = " ".join(run.stdout.split())
    assert f"{LAYERS} KEPT" in flat
    assert f"{ACYCLIC} KEPT" in flat
    assert "Contracts: 2 kept, 0 broken." in run.stdout


BOTH = (LAYERS, ACYCLIC)  # an upward import between wings also closes a circle when the lower wing imports the upper


@pytest.mark.parametrize(
    ("module", "added", "broken"),
    [
        # -- A wing importing one above it.
        ("corpus/_records.py", "from masrl.publish import _render", BOTH),
        ("base/_writer.py", "import masrl.corpus._yaml", BOTH),
        ("analysis/_stats.py", "from masrl.bench import _measure", BOTH),
        ("trace/_model.py", "from masrl.build import command", BOTH),
        # -- Wings that share a layer importing each other.
        ("analysis/_views.py", "import masrl.living._protocol", (LAYERS,)),
        ("living/_rank.py", "from masrl.analysis import _stats", (LAYERS,)),
        ("trace/_model.py", "from masrl.corpus import _vocab", (LAYERS,)),
        # -- A new module beside the wings, in no layer.
        ("helpers.py", "import masrl.base._writer", (LAYERS,)),
        # -- Circles: inside a wing, between commands, inside the bench.
        ("corpus/_yaml.py", "from masrl.corpus import _vocab", (ACYCLIC,)),
        ("build.py", "from masrl import stats", (ACYCLIC,)),
        ("bench/_measure.py", "from masrl.bench import _targets", (ACYCLIC,)),
    ],
    ids=lambda value: value.split()[-1] if isinstance(value, str) else "",
)
def test_a_bad_import_breaks_its_contract(tmp_path: Path, module: str, added: str, broken: tuple[str, ...]) -> None:
    # Arrange: the package and the configuration, with one import added at the end of a module.
    shutil.copytree(
        REPO / "scripts" / "masrl", tmp_path / "scripts" / "masrl", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    path = tmp_path / "scripts" / "masrl" / module
    text = path.read_text("utf-8") if path.exists() else '"""A module."""\n'
    path.write_text(f"{text}\n\ndef late() -> None:\n    {added}\n", "utf-8")
    # Act
    run = lint(tmp_path)
    # Assert: exactly the contracts that forbid it are broken, and the report names them.
    flat = " ".join(run.stdout.split())
    assert run.returncode == 1, run.stdout + run.stderr
    assert {name for name in (LAYERS, ACYCLIC) if f"{name} BROKEN" in flat} == set(broken)
    assert f"Contracts: {2 - len(broken)} kept, {len(broken)} broken." in run.stdout


def test_ci_and_pre_commit_run_the_linter() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text("utf-8"))["repos"]
    entries = {h["id"]: h["entry"] for repo in hooks for h in repo["hooks"]}
    assert entries["import-linter"] == " ".join(LINT)
    steps = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text("utf-8"))["jobs"]["test"]["steps"]
    assert " ".join(LINT) in [step.get("run") for step in steps]
