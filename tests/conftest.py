"""Shared fixtures: a small throw-away corpus built from the real taxonomy."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# CI runs the property tests with fixed seeds, so a run can be reproduced exactly; locally they
# explore new examples every time. No example has a deadline: speed is measured by `masrl bench`,
# never by a test's clock, and a loaded machine once failed a correct property on its 200 ms default.
settings.register_profile("local", deadline=None)
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") or os.environ.get("MASRL_REQUIRE_BROWSER") == "1" else "local")

REPO = Path(__file__).resolve().parents[1]


# The files whose tests take longest (each copies, commits and rebuilds the whole corpus) run first,
# so that with `-n auto` no worker is left alone with one of them at the end of the run.
LONGEST_FIRST = ("test_release.py", "test_at.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name not in LONGEST_FIRST)  # a stable sort: the rest keep their order


def pytest_sessionstart(session: pytest.Session) -> None:
    """Validate the repository once, before any test is collected (and, under xdist, before the
    workers start), so that its record cache in .masrl-cache/ is current.

    Dozens of tests and test modules load the real corpus, in-process or through the command line,
    from the repository's root; with the cache current each load takes a second, where parsing its
    13,000 files took ten (a clean clone, as CI has, has no cache). Only ``masrl validate`` writes
    that cache, so it is run here, as a user would before running the tests. A broken corpus writes
    no cache and fails here silently: the tests that validate it say what is wrong. The tests that
    must parse every file set MASRL_NO_CACHE, as before."""
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: the process that started it has done this
    env = {name: value for name, value in os.environ.items() if name != "MASRL_ROOT"}
    subprocess.run([sys.executable, "-m", "masrl", "validate"], cwd=REPO, env=env, capture_output=True, check=False)


@functools.cache
def real_corpus() -> Any:
    """The repository's corpus, loaded once per test process for every module that reads it (the
    tests only read it: the records are frozen)."""
    from masrl.corpus._load import load_corpus

    return load_corpus(REPO).corpus


@functools.cache
def real_analysis(snapshot: str | None = None) -> Any:
    """``analyse`` of the repository (its *snapshot*, or the living corpus), once per test process
    for every module that reads it."""
    from masrl.publish._build import analyse

    return analyse(REPO, snapshot=snapshot)


FIXTURES = Path(__file__).resolve().parent / "fixtures"

# A minimal valid paper, as YAML text, one field per line so cases can swap single lines.
PAPER_TEXT = """\
# yaml-language-server: $schema=../schemas/paper.schema.json
key: x
title: A study of teams
authors:
  - Doe, Jane
affiliation: Somewhere University
year: 2025
arxiv: "2501.00001"
venue: arXiv
url: https://arxiv.org/abs/2501.00001
category: rl_method
rl: "yes"
reward_type: shared
credit_unit: agent
topology: centralized
scenario: general
role: core
verified: "yes"
evidence_kind: paper
subdecisions: {}
summary: Trains a team of agents on a shared reward.
origin: survey
added: "2026-05-04"
"""

EXCLUSION_TEXT = """\
# yaml-language-server: $schema=../schemas/exclusion.schema.json
id: E001
source: arXiv
query_family: multi-agent LLM
label: A prompted debate paper
identifier: arXiv:2305.00001
url: https://arxiv.org/abs/2305.00001
date_screened: "2026-04-26"
stage: abstract_screen
reasons:
  - no_rl
note: Prompted agents only; nothing is trained.
origin: survey
added: "2026-05-04"
"""

AUDIT_TEXT = """\
# yaml-language-server: $schema=../schemas/audit.schema.json
key: x
first_reading:
  category: rl_method
  rl: "yes"
  reward_type: shared
  credit_unit: agent
  topology: centralized
second_reading:
  category: rl_method
  rl: "yes"
  reward_type: shared
  credit_unit: agent
  topology: centralized
  strict_credit: false
verdict: agree
"""


def value_paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside nested dicts and lists (keys and indexes), for mutation tests."""
    out = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            out.extend(value_paths(value, (*prefix, key)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out.extend(value_paths(value, (*prefix, i)))
    return out


def protocol_naming_no_records(text: str) -> str:
    """protocol.yaml's *text* without what names records (the boundary rules' precedents and the
    rounds' audit draws), for a corpus that holds only some of the repository's records."""
    import re

    text = re.sub(r"\n +precedents: \[[^\]]*\]", "", text)
    out: list[str] = []
    inside: int | None = None  # the indentation of an audit_draws: being left out
    for line in text.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip(" "))
        if inside is not None and (indent > inside or not line.strip()):
            continue
        inside = indent if line.strip() == "audit_draws:" else None
        if inside is None:
            out.append(line)
    return "".join(out)


def protocol_of_the_survey_families(text: str) -> str:
    """protocol.yaml's *text* with only the survey's seven query families and without the field
    search round that runs the others, for the tests of `masrl discover`'s mechanics (requests,
    pages, ranks), which were written against those seven."""
    begin = "  # -- the search arm's vocabulary families (field search round) --\n"
    end = "  # -- end of the vocabulary families --\n"
    if begin in text:
        text = text[: text.index(begin)] + text[text.index(end) + len(end) :]
    return text.split("  - id: field-search\n", 1)[0]


def replace_line(text: str, field: str, new: str | None) -> str:
    """Swap the line that sets top-level *field* for *new* (None deletes it)."""
    out = []
    found = False
    for line in text.splitlines(keepends=True):
        if line.startswith(f"{field}:"):
            found = True
            if new is not None:
                out.append(new if new.endswith("\n") else new + "\n")
        else:
            out.append(line)
    assert found, field
    return "".join(out)


class Corpus:
    """A temporary corpus folder with helpers to write records."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, rel: str, content: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    def paper(self, key: str = "x", text: str = PAPER_TEXT, **fields: Any) -> Path:
        text = text.replace("key: x\n", f"key: {key}\n") if key != "x" else text
        for field, line in fields.items():
            text = replace_line(text, field, line)
        return self.write(f"papers/{key}.yaml", text)


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Corpus:
    """An empty corpus (taxonomy only) as the working directory."""
    root = tmp_path / "corpus"
    root.mkdir()
    shutil.copy(REPO / "taxonomy.yaml", root / "taxonomy.yaml")
    shutil.copy(REPO / "venues.yaml", root / "venues.yaml")
    monkeypatch.chdir(root)
    monkeypatch.delenv("MASRL_ROOT", raising=False)
    return Corpus(root)


@pytest.fixture
def run_cli() -> Callable[..., Any]:
    """Run `masrl ARGS` in-process with click's runner; returns the result."""
    from click.testing import CliRunner

    from masrl.cli import cli

    def run(*args: str, input: str | None = None, catch: bool = True) -> Any:
        return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=catch)

    return run


GOLDEN = Path(__file__).resolve().parent / "golden"


def assert_golden(name: str, actual: str) -> None:
    """Compare *actual* with tests/golden/NAME; MASRL_UPDATE_GOLDEN=1 rewrites the file instead."""
    import os

    path = GOLDEN / name
    if os.environ.get("MASRL_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"golden file {path} is missing; run with MASRL_UPDATE_GOLDEN=1 to create it"
    assert actual == path.read_text(encoding="utf-8")


def fixture_corpus(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of tests/fixtures/NAME with the real taxonomy and, unless it has its own, the real
    venue registry, as the working directory."""
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    shutil.copy(REPO / "taxonomy.yaml", root / "taxonomy.yaml")
    if not (root / "venues.yaml").exists():
        shutil.copy(REPO / "venues.yaml", root / "venues.yaml")
    monkeypatch.chdir(root)
    monkeypatch.delenv("MASRL_ROOT", raising=False)
    return root


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The small fixture corpus (four papers, two exclusions, one audit)."""
    return fixture_corpus("small", tmp_path, monkeypatch)


def copy_repository(root: Path) -> Path:
    """Copy this repository's corpus and generated files (what a build reads and writes) to *root*."""
    from masrl.publish._state import INPUT_DIRS, INPUT_FILES

    root.mkdir()
    # .gitignore too: a copy committed to git ignores the caches as the repository does
    for name in (*INPUT_FILES, ".gitignore"):
        if (REPO / name).is_file():
            shutil.copy(REPO / name, root / name)
    for folder in INPUT_DIRS:
        if (REPO / folder).is_dir():
            shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns("build", "__pycache__"))
    return root


def small_repository(root: Path, keep: tuple[str, ...] = ()) -> Path:
    """A copy of this repository cut to what commands over the whole corpus need to run: the survey's
    records, every record protocol.yaml and claims.yaml name (precedents, audit draws, claims), the
    papers in *keep*, their audits, and the screening rows that name a record kept. The cut corpus
    validates and builds like the whole one, at a fraction of its files (a release or a read at a
    tag over all of them took minutes)."""
    import csv
    import io
    import re

    copy_repository(root)
    named = (root / "protocol.yaml").read_text("utf-8") + (root / "claims.yaml").read_text("utf-8")
    words = {word.rstrip(".-") for word in re.findall(r"\w[\w.-]*", named)}
    kept: set[str] = set()
    for folder in ("papers", "exclusions"):
        for path in sorted((root / folder).glob("*.yaml")):
            text = path.read_text("utf-8")
            if "\norigin: survey\n" in text or path.stem in keep or path.stem in words:
                kept.add(path.stem)
            else:
                path.unlink()
    for path in (root / "audits").glob("*.yaml"):
        if path.stem not in kept:
            path.unlink()
    for path in (root / "screening").glob("*.yaml"):
        decided = re.search(r"^  (?:key|exclusion): \"?([^\"\s]+)", path.read_text("utf-8"), re.M)
        if decided and decided.group(1) in kept:
            kept.add(path.stem)
        else:
            path.unlink()
    for name in ("candidates.csv", "found_by.csv"):
        path = root / "screening" / name
        rows = list(csv.reader(io.StringIO(path.read_text("utf-8"))))
        column = rows[0].index("candidate")
        rows = [rows[0], *(r for r in rows[1:] if r[column] in kept)]
        if "rank" in rows[0]:  # the ranks left run 1 to n again, in their order
            rank = rows[0].index("rank")
            ranked = sorted((r for r in rows[1:] if r[rank]), key=lambda r: int(r[rank]))
            for n, r in enumerate(ranked, 1):
                r[rank] = str(n)
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        path.write_text(out.getvalue(), "utf-8")
    checks = root / "venue_checks.csv"  # the venue checks of the records kept
    if checks.is_file():
        rows = list(csv.reader(io.StringIO(checks.read_text("utf-8"))))
        rows = [rows[0], *(r for r in rows[1:] if r[0] in kept)]
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        checks.write_text(out.getvalue(), "utf-8")
    return root


# -- git in scratch repositories: one identity, one way to commit a corpus and to clone it

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
}


def git(root: Path, *args: str) -> str:
    """Run git in *root* with the test identity; fail the test with what git said if it fails."""
    done = subprocess.run(
        ["git", *args], cwd=root, check=False, capture_output=True, text=True, env={**os.environ, **GIT_ENV}
    )
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def commit_all(root: Path, message: str = "corpus") -> None:
    """Make *root* a repository on branch main whose one commit holds every file in it."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def clone_of(source: Path, root: Path) -> Path:
    """A clone of the repository *source* at *root* (a local clone shares its objects: fast)."""
    import warnings

    # One full-suite run saw this clone exit 128 once (not seen again in isolation); a second try
    # is made, and what git said the first time is kept as a warning to find the cause by.
    first = subprocess.run(["git", "clone", "-q", str(source), str(root)], capture_output=True, text=True)
    if first.returncode != 0:
        warnings.warn(f"git clone failed once ({first.returncode}): {first.stderr}", stacklevel=1)
        shutil.rmtree(root, ignore_errors=True)
        git(root.parent, "clone", "-q", str(source), str(root))
    return root


@pytest.fixture
def repo_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of this repository's corpus and generated files, as cwd."""
    root = copy_repository(tmp_path / "repo")
    monkeypatch.chdir(root)
    monkeypatch.delenv("MASRL_ROOT", raising=False)
    return root


@pytest.fixture(scope="session")
def small_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository cut by :func:`small_repository` and built, once per test process."""
    root = small_repository(tmp_path_factory.mktemp("small") / "repo", keep=("mae",))
    built = subprocess.run(
        [sys.executable, "-m", "masrl", "build"], cwd=root, capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return root


@pytest.fixture
def small_copy(small_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the cut repository (its generated files up to date), as cwd: for tests that edit
    records or the protocol and read what validate, build or the site say of it, where the whole
    corpus would only make them slow."""
    root = tmp_path / "repo"
    shutil.copytree(small_template, root, ignore=shutil.ignore_patterns(".masrl-cache"))
    monkeypatch.chdir(root)
    monkeypatch.delenv("MASRL_ROOT", raising=False)
    return root


# -- the site in a browser: one Chromium and one build of the repository's site for the whole run


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless through Playwright, shared by every site test (skips when absent)."""
    from _site_support import chromium

    with chromium() as instance:
        yield instance


@pytest.fixture(scope="session")
def repo_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The repository's site built once with mkdocs --strict, and what mkdocs printed.

    Under xdist the build is shared by the run's workers: the first to need it builds it into the
    run's own temporary folder under a lock, the others wait and read it (the build takes a minute
    or more, and the tests only read the site)."""
    from _site_support import mkdocs_build

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        out = tmp_path_factory.mktemp("site")
        return out, mkdocs_build(REPO, out)
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent  # this run's folder, above every worker's own
    out, printed = shared / "repo-site", shared / "repo-site.json"
    with FileLock(str(shared / "repo-site.lock")):
        if not printed.is_file():
            result = mkdocs_build(REPO, out)
            printed.write_text(json.dumps([result.returncode, result.stdout, result.stderr]), "utf-8")
    code, stdout, stderr = json.loads(printed.read_text("utf-8"))
    return out, subprocess.CompletedProcess(["mkdocs", "build"], code, stdout, stderr)


@pytest.fixture(scope="session")
def repo_site(repo_build: tuple[Path, subprocess.CompletedProcess[str]]) -> Path:
    out, result = repo_build
    if result.returncode != 0:
        pytest.fail("mkdocs build failed:\n" + result.stdout + result.stderr)
    return out


@pytest.fixture(autouse=True)
def _no_request_pacing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests to the loopback services go out at once, and retries do not sleep (the pacing and
    retry tests set their own pauses and record the waits)."""
    from masrl.living import _net

    monkeypatch.setattr(_net, "PACE_S", dict.fromkeys(_net.PACE_S, 0.0))
    monkeypatch.setattr(_net, "wait", lambda seconds, why: None)
