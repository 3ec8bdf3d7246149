"""The README's two commands, as a new user copies them."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from conftest import REPO

README = (REPO / "README.md").read_text("utf-8")


def block(marker: str) -> str:
    match = re.search(rf"<!-- {marker} -->\n```bash\n(.*?)\n```\n<!-- /{marker} -->", README, re.S)
    assert match, f"README.md lacks the {marker} block"
    return match.group(1)


def test_the_two_commands_install_then_run() -> None:
    main, tests = block("main-command"), block("test-command")
    assert main == "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && masrl build"
    assert tests == "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && pytest -n auto"


def test_ci_runs_the_readme_test_command() -> None:
    script = (REPO / ".ci" / "run").read_text("utf-8")
    assert "<!-- test-command -->" in script
    extracted = subprocess.run(
        [
            "bash",
            "-c",
            "sed -n '/<!-- test-command -->/,/<!-- \\/test-command -->/p' README.md "
            "| sed -n '/^```bash$/,/^```$/p' | sed '1d;$d'",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert extracted == block("test-command")


def test_the_main_job_leaves_a_fresh_checkout_unchanged(repo_copy: Path) -> None:
    # The last step of the main command, on a copy of the repository: nothing is stale.
    step = shlex.split(block("main-command").split("&&")[-1])
    assert step == ["masrl", "build"]
    result = subprocess.run(
        [sys.executable, "-m", "masrl", *step[1:]], cwd=repo_copy, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("0 written, 0 removed, ")
