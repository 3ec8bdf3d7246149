"""The command line as users meet it: real processes, help text, roots and exit codes."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest

from conftest import REPO, Corpus
from masrl.cli import cli

MASRL = [sys.executable, "-m", "masrl"]


def run(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "MASRL_ROOT"}
    full_env.update(env or {})
    return subprocess.run([*MASRL, *args], cwd=cwd, env=full_env, capture_output=True, text=True, check=False)


# The records, protocol.yaml, the two ledgers of the rounds run by the search arms, the venue
# checks, and the screening queue's files (validate reads each as build and screen do)
LEDGERS = sum((REPO / "screening" / name).is_file() for name in ("found_by.csv", "candidates.csv"))
LEDGERS += (REPO / "venue_checks.csv").is_file()
FILES = sum(len(list((REPO / d).glob("*.yaml"))) for d in ("papers", "exclusions", "audits", "screening")) + 1 + LEDGERS


def test_validate_the_real_corpus() -> None:
    result = run("validate")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""
    assert result.stderr == f"0 errors in {FILES} files\n"


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("masrl")
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=False)
    assert result.returncode == 0
    assert result.stdout.startswith("masrl, version ")


# The repository's record cache belongs to the folder paths are shown from (conftest validates it
# from the root, for the tests that load the real corpus); a validation from another folder would
# replace it with its own, so these read every file and write no cache.
ELSEWHERE = {"MASRL_NO_CACHE": "1"}


def test_root_is_found_from_a_subfolder() -> None:
    result = run("validate", cwd=REPO / "papers", env=ELSEWHERE)
    assert result.returncode == 0
    assert result.stderr == f"0 errors in {FILES} files\n"


def test_root_option_and_environment(tmp_path: Path) -> None:
    assert run("--root", str(REPO), "validate", cwd=tmp_path, env=ELSEWHERE).returncode == 0
    assert run("validate", cwd=tmp_path, env={**ELSEWHERE, "MASRL_ROOT": str(REPO)}).returncode == 0


def test_no_taxonomy_is_a_clear_error(tmp_path: Path) -> None:
    result = run("validate", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == f"taxonomy.yaml:1:1: (record): taxonomy.yaml not found in {tmp_path.resolve()}\n"
    assert "Traceback" not in result.stderr


def test_broken_taxonomy_names_file_line_and_field(corpus: Corpus, run_cli: Any) -> None:
    text = (corpus.root / "taxonomy.yaml").read_text(encoding="utf-8")
    corpus.write(
        "taxonomy.yaml",
        text.replace(
            "      - id: hybrid\n        label: Hybrid\n        family: R8",
            "      - id: hybrid\n        label: Hybrid\n        family: R9",
        ),
    )
    result = run_cli("validate")
    assert result.exit_code == 1
    assert result.stdout.startswith("taxonomy.yaml:")
    assert "fields.reward_type.values.8.family: family must be one of the reward_family ids" in result.stdout


def test_missing_path_argument_is_a_usage_error(run_cli: Any, corpus: Corpus) -> None:
    result = run_cli("validate", "papers/nope.yaml")
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_strict_turns_warnings_into_failure(corpus: Corpus, run_cli: Any) -> None:
    corpus.paper(category="category: industry")
    assert run_cli("validate").exit_code == 0
    assert run_cli("validate", "--strict").exit_code == 1


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        out.append((f"{prefix}{name}", command))
        if isinstance(command, click.Group):
            out.extend(_commands(command, f"{prefix}{name} "))
    return out


@pytest.mark.parametrize(("name", "command"), _commands(cli), ids=[n for n, _ in _commands(cli)])
def test_every_command_is_documented(name: str, command: click.Command) -> None:
    assert command.help, name
    assert len(command.help.strip()) > 20, name
    if not isinstance(command, click.Group):
        assert "Example:" in command.help, f"{name} needs an Example: block in its help"
    readme = (REPO / "README.md").read_text(encoding="utf-8") + (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert f"masrl {name.split()[0]}" in readme, f"`masrl {name}` is not mentioned in README or CONTRIBUTING"


def test_help_runs_without_a_corpus(tmp_path: Path) -> None:
    result = run("--help", cwd=tmp_path)
    assert result.returncode == 0
    assert "validate" in result.stdout


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("fails", [False, True])
def test_the_collector_pause_restores_the_collector_as_it_was(enabled: bool, fails: bool) -> None:
    import gc

    from masrl.base._cli_common import collector_paused

    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with pytest.raises(RuntimeError) if fails else contextlib.nullcontext(), collector_paused():
            assert not gc.isenabled()
            if fails:
                raise RuntimeError("boom")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
