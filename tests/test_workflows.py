"""The GitHub workflows, Dependabot's configuration and the CI lock file, audited offline.

zizmor (with the repository's policy, .github/zizmor.yml) must find nothing in the workflows, and
must still find each kind of problem the policy exists for; check-jsonschema's vendored schema must
accept .github/dependabot.yml. Both tools run with every proxy pointed at a closed local port, so a
test that needed the network would fail rather than pass by reaching it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO

WORKFLOWS = REPO / ".github" / "workflows"
ZIZMOR_CONFIG = REPO / ".github" / "zizmor.yml"
DEPENDABOT = REPO / ".github" / "dependabot.yml"
CONSTRAINTS = REPO / ".ci" / "constraints.txt"
# Both files whose change must invalidate CI's pip cache.
CACHE_KEYS = {"pyproject.toml", ".ci/constraints.txt"}
SHA = "0123456789abcdef0123456789abcdef01234567"


def _offline_env() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env[name] = "http://127.0.0.1:9"
    env.pop("NO_PROXY", None)
    env.pop("no_proxy", None)
    env.pop("GH_TOKEN", None)
    env.pop("GITHUB_TOKEN", None)
    return env


def _tool(name: str) -> str:
    # The command installed beside the interpreter running the tests (the test extra provides it).
    path = Path(sysconfig.get_path("scripts")) / name
    assert path.is_file(), f"{name} is not installed beside {sys.executable}: pip install -e '.[test]'"
    return str(path)


def zizmor(*inputs: Path) -> tuple[int, list[dict[str, Any]], str]:
    """Run zizmor offline with the repository's policy; return its exit code, findings and log."""
    result = subprocess.run(
        [_tool("zizmor"), "--offline", "--format", "json", "--config", str(ZIZMOR_CONFIG), *map(str, inputs)],
        cwd=REPO,
        env=_offline_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    findings = json.loads(result.stdout) if result.stdout.strip() else []
    assert isinstance(findings, list), result.stdout
    return result.returncode, [f for f in findings if not f.get("ignored")], result.stderr


def check_dependabot(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.dependabot", str(path)],
        env=_offline_env(),
        capture_output=True,
        text=True,
        check=False,
    )


# --- zizmor: the repository is clean -------------------------------------------------------------


@pytest.mark.parametrize("target", [".github/workflows/", ".github/"])
def test_zizmor_finds_nothing(target: str) -> None:
    code, findings, log = zizmor(REPO / target)
    assert [(f["ident"], f["locations"][0]["symbolic"]["key"]) for f in findings] == []
    assert code == 0, log


# --- zizmor: the policy still catches what it is for ---------------------------------------------

CHECKOUT = """\
      - uses: actions/checkout@v4
        with:
          persist-credentials: false
"""


def workflow(steps: str, permissions: str = "permissions:\n  contents: read\n") -> str:
    """A two-job workflow (zizmor judges workflow-level scopes only where several jobs share them)."""
    jobs = (
        "jobs:\n"
        f"  first:\n    name: First\n    runs-on: ubuntu-latest\n    steps:\n{steps}"
        '  second:\n    name: Second\n    runs-on: ubuntu-latest\n    steps:\n      - run: "true"\n'
    )
    return f"name: case\non: pull_request\n{permissions}{jobs}"


POLICY_CASES = [
    # What the repository's workflows do is accepted.
    pytest.param(workflow(CHECKOUT), set(), id="actions-on-a-tag"),
    pytest.param(
        workflow(CHECKOUT + f"      - uses: someone/thing@{SHA}  # v1.2.3\n"), set(), id="other-action-by-sha"
    ),
    pytest.param(
        workflow(
            CHECKOUT + '      - env:\n          BASE: ${{ github.base_ref }}\n        run: echo "origin/${BASE}"\n'
        ),
        set(),
        id="context-through-env",
    ),
    # Each of the problems the hardening removed is still found.
    pytest.param(
        workflow(CHECKOUT + "      - uses: someone/thing@v1\n"), {"unpinned-uses"}, id="other-action-on-a-tag"
    ),
    pytest.param(
        workflow(CHECKOUT + "      - uses: someone/thing@main\n"), {"unpinned-uses"}, id="other-action-on-a-branch"
    ),
    pytest.param(
        workflow(CHECKOUT + "      - run: masrl diff origin/${{ github.head_ref }}\n"),
        {"template-injection"},
        id="context-in-shell",
    ),
    pytest.param(workflow("      - uses: actions/checkout@v4\n"), {"artipacked"}, id="credentials-persisted"),
    pytest.param(workflow(CHECKOUT, permissions=""), {"excessive-permissions"}, id="default-token"),
    pytest.param(
        workflow(CHECKOUT, permissions="permissions:\n  contents: read\n  pages: write\n"),
        {"excessive-permissions"},
        id="write-scope-for-the-whole-workflow",
    ),
]


@pytest.mark.parametrize(("text", "expected"), POLICY_CASES)
def test_zizmor_policy(tmp_path: Path, text: str, expected: set[str]) -> None:
    path = tmp_path / "case.yml"
    path.write_text(text, encoding="utf-8")
    code, findings, log = zizmor(path)
    assert {f["ident"] for f in findings} == expected, log
    assert (code == 0) == (not expected), log


@pytest.mark.parametrize(
    ("hook", "command"),
    [
        ("zizmor", "zizmor --offline --config .github/zizmor.yml .github/"),
        ("dependabot-config", "check-jsonschema --builtin-schema vendor.dependabot .github/dependabot.yml"),
    ],
)
def test_pre_commit_runs_the_audits_locally(hook: str, command: str) -> None:
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text("utf-8"))
    hooks = {h["id"]: h for repo in config["repos"] if repo["repo"] == "local" for h in repo["hooks"]}
    assert hooks[hook]["entry"] == command
    assert hooks[hook]["language"] == "system"


# --- Dependabot ----------------------------------------------------------------------------------

BROKEN_DEPENDABOT = """\
version: 2
updates:
  - package-ecosystem: pip
    directory: /
    schedule:
      interval: fortnightly
"""


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        pytest.param(None, 0, "ok -- validation done", id="repository"),
        pytest.param(BROKEN_DEPENDABOT, 1, "'fortnightly' is not one of", id="unknown-interval"),
        pytest.param(
            "version: 2\nupdates:\n  - directory: /\n", 1, "'package-ecosystem' is a required", id="no-ecosystem"
        ),
    ],
)
def test_dependabot_schema(tmp_path: Path, text: str | None, code: int, message: str) -> None:
    path = DEPENDABOT
    if text is not None:
        path = tmp_path / "dependabot.yml"
        path.write_text(text, encoding="utf-8")
    result = check_dependabot(path)
    assert result.returncode == code, result.stdout + result.stderr
    assert message in result.stdout


ALL_UPDATES = yaml.safe_load(DEPENDABOT.read_text("utf-8"))["updates"]


def _folders(update: dict[str, Any]) -> list[str]:
    return list(update.get("directories") or [update["directory"]])


# The project's own updates (the repository's root); the recording pins of each agent framework's
# OpenTelemetry fixtures have entries of their own.
UPDATES = {u["package-ecosystem"]: u for u in ALL_UPDATES if "/" in _folders(u)}
OTEL_FIXTURES = REPO / "tests" / "fixtures" / "otel"
RECORDED = sorted(p.parent.name for p in OTEL_FIXTURES.glob("*/requirements.txt"))


@pytest.mark.parametrize("ecosystem", ["github-actions", "pip"])
def test_dependabot_updates_weekly_in_one_group(ecosystem: str) -> None:
    update = UPDATES[ecosystem]
    assert update["schedule"]["interval"] == "weekly"
    assert [group["patterns"] for group in update["groups"].values()] == [["*"]]


def test_dependabot_watches_the_lock() -> None:
    assert {"/", "/.ci"} <= set(UPDATES["pip"]["directories"])


@pytest.mark.parametrize("framework", RECORDED)
def test_dependabot_proposes_each_frameworks_recording_pins_on_their_own(framework: str) -> None:
    folder = f"/tests/fixtures/otel/{framework}"
    (update,) = [u for u in ALL_UPDATES if folder in _folders(u)]
    assert (update["package-ecosystem"], _folders(update), update["schedule"]["interval"]) == (
        "pip",
        [folder],
        "weekly",
    )
    assert [group["patterns"] for group in update["groups"].values()] == [["*"]]


# --- The weekly re-recording of the OpenTelemetry fixtures ---------------------------------------

DRIFT = yaml.safe_load((WORKFLOWS / "otel-drift.yml").read_text("utf-8"))


def test_drift_records_every_framework_weekly_and_on_demand() -> None:
    triggers = DRIFT[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"schedule", "workflow_dispatch", "pull_request"}
    assert [s["cron"].split()[4] for s in triggers["schedule"]] == ["2"]  # one day a week
    assert sorted(DRIFT["jobs"]["record"]["strategy"]["matrix"]["framework"]) == RECORDED
    assert DRIFT["permissions"] == {"contents": "read"}
    assert "permissions" not in DRIFT["jobs"]["record"]


def test_drift_records_offline_and_holds_the_recordings_to_the_ground_truth() -> None:
    steps = {s.get("name"): s for s in DRIFT["jobs"]["record"]["steps"]}
    record = steps["Record offline"]
    assert {record["env"][k] for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")} == {"http://127.0.0.1:9"}
    assert record["env"]["NO_PROXY"] == "127.0.0.1,localhost"
    assert '--out "recorded/$FRAMEWORK" --all' in record["run"]
    check = steps["Import and hold to the request log"]
    assert check["env"]["MASRL_OTEL_RECORDINGS"] == "recorded"
    assert check["run"].startswith("pytest tests/trace/test_trace_otel_ground_truth.py")
    assert "unset PIP_CONSTRAINT" in steps["Install the framework in an environment of its own"]["run"]


# --- Jobs: timeouts, pip cache, locked versions --------------------------------------------------


def _jobs() -> list[Any]:
    cases = []
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for name, job in yaml.safe_load(path.read_text("utf-8"))["jobs"].items():
            cases.append(pytest.param(job, id=f"{path.stem}-{name}"))
    return cases


def _steps(job: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [s for s in job.get("steps", []) if str(s.get("uses", "")).split("@")[0] == action]


@pytest.mark.parametrize("job", _jobs())
def test_every_job_has_a_timeout(job: dict[str, Any]) -> None:
    assert isinstance(job.get("timeout-minutes"), int)
    assert 0 < job["timeout-minutes"] <= 60


def _publishes(job: dict[str, Any]) -> bool:
    """Whether *job* belongs to a workflow that publishes a release (it runs on tags)."""
    for path in sorted(WORKFLOWS.glob("*.yml")):
        data = yaml.safe_load(path.read_text("utf-8"))
        if job in data["jobs"].values():
            triggers = data.get("on", data.get(True, {}))  # PyYAML reads the key `on` as True
            return isinstance(triggers, dict) and "tags" in (triggers.get("push") or {})
    raise AssertionError("job not found")


@pytest.mark.parametrize("job", _jobs())
def test_jobs_that_install_use_the_lock_and_the_cache(job: dict[str, Any]) -> None:
    runs = " ".join(str(s.get("run", "")) for s in job.get("steps", []))
    if "pip install" not in runs:
        assert _steps(job, "actions/setup-python") == []
        return
    assert job["env"]["PIP_CONSTRAINT"] == ".ci/constraints.txt"
    [setup] = _steps(job, "actions/setup-python")
    if _publishes(job):
        # What a release publishes is built without any cache another run could have poisoned.
        assert "cache" not in setup.get("with", {})
        return
    assert setup["with"]["cache"] == "pip"
    assert set(setup["with"]["cache-dependency-path"].split()) == CACHE_KEYS


def test_the_release_workflow_writes_only_where_it_publishes() -> None:
    data = yaml.safe_load((WORKFLOWS / "release.yml").read_text("utf-8"))
    assert data["permissions"] == {}
    assert {name: job["permissions"] for name, job in data["jobs"].items()} == {
        "build": {"contents": "read"},
        "publish": {"contents": "write"},
    }
    assert data["jobs"]["publish"]["needs"] == "build"
    # The tag patterns accept calendar versions only
    assert data[True]["push"]["tags"] == ["20[0-9][0-9].[0-9][0-9]", "20[0-9][0-9].[0-9][0-9].*"]


def test_ci_run_installs_the_locked_versions() -> None:
    script = (REPO / ".ci" / "run").read_text("utf-8")
    assert 'export PIP_CONSTRAINT="$PWD/.ci/constraints.txt"' in script
    assert script.index("PIP_CONSTRAINT") < script.index('bash -euo pipefail -c "$test_command"')


# --- The lock covers the project ----------------------------------------------------------------


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _declared() -> list[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    return sorted({_normalise(match.group(0)) for r in requirements if (match := NAME.match(r))})


LOCK_LINES = [
    (number, line)
    for number, line in enumerate(CONSTRAINTS.read_text("utf-8").splitlines(), 1)
    if line and not line.startswith("#")
]
PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][^\s;@]*)")
LOCKED = {_normalise(m.group(1)) for _, line in LOCK_LINES if (m := PIN.fullmatch(line))}


def test_the_lock_holds_only_exact_pins() -> None:
    loose = [f".ci/constraints.txt:{number}: {line}" for number, line in LOCK_LINES if not PIN.fullmatch(line)]
    assert loose == []
    assert len(LOCKED) == len(LOCK_LINES) > 0


@pytest.mark.parametrize("name", _declared())
def test_every_declared_dependency_is_locked(name: str) -> None:
    assert name in LOCKED, (
        f"{name} is declared in pyproject.toml but not pinned in .ci/constraints.txt: run bash .ci/lock"
    )


def test_the_lock_leaves_out_the_project() -> None:
    assert "masrl" not in LOCKED


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_every_workflow_is_schema_valid(path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)],
        env=_offline_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout.strip()) == (0, "ok -- validation done"), result.stdout + result.stderr
