"""``masrl validate``: check records and report every problem at once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from masrl.base._cli_common import ReportedFailure, report, root_of
from masrl.base._problems import Problem, Severity, has_errors
from masrl.base._settings import caching_off
from masrl.publish._state import recall, remember, scan

# The records, the protocol and the queue are imported where they are read: a validation whose
# report is remembered (nothing changed since) reads none of them, and imports none either.


def _in_queue(root: Path, file: Path) -> bool:
    """Whether *file* is a screening queue file of the corpus at *root*."""
    from masrl.living._queue import QUEUE_DIR

    return file.resolve().parent == (root / QUEUE_DIR).resolve()


def validate_paths(root: Path, paths: tuple[Path, ...]) -> tuple[list[Problem], int]:
    """Problems for the corpus at *root*, restricted to *paths* when given.

    The whole corpus is always loaded, so cross-record rules (a duplicate arXiv id, a paper that
    is also excluded) see every record; files in *paths* outside the corpus are checked as
    records of the kind their folder names.
    """
    from masrl.corpus._load import kind_of, load_corpus
    from masrl.corpus._venues import VENUES_FILE
    from masrl.living._protocol import PROTOCOL_FILE, check_with_records
    from masrl.living._queue import QUEUE_DIR, read_entries

    extra = []
    wanted: set[Path] = set()
    queued: list[Path] = []
    for path in paths:
        for file in sorted(path.rglob("*.yaml")) if path.is_dir() else [path]:
            if file.resolve() == (root / PROTOCOL_FILE).resolve():
                continue
            if file.resolve() == (root / VENUES_FILE).resolve():
                wanted.add(file.resolve())  # loaded with the corpus; its problems are reported
                continue
            wanted.add(file.resolve())
            if _in_queue(root, file):
                queued.append(file)  # a screening file: checked as the queue reads it, never as a record
                continue
            extra.append((kind_of(file) or "paper", file))
    loaded = load_corpus(root, extra, write_cache=True)
    problems, files = loaded.problems, loaded.files
    protocol_, crossed = check_with_records(root, loaded)
    problems = [*problems, *crossed]
    if protocol_ is not None and protocol_.arms:
        from masrl.living._arms import CANDIDATES_FILE, FOUND_BY_FILE, check_found_by

        problems.extend(check_found_by(root, protocol_, loaded.corpus))
        files += sum((root / name).is_file() for name in (FOUND_BY_FILE, CANDIDATES_FILE))
    problems.extend(_venue_check_problems(root, loaded))
    files += (root / "venue_checks.csv").is_file()
    # The screening queue: `masrl build` and `masrl screen` refuse a queue file they cannot read
    # (no title, no url, an unknown status), so validate reports it first: every file of it, or
    # only those named.
    if not paths:
        queued = sorted((root / QUEUE_DIR).glob("*.yaml"))
        files += len(queued)
    problems = [*problems, *read_entries(queued)[1]]
    problems = sorted(problems)
    protocol = root / PROTOCOL_FILE
    if protocol.is_file() and (not paths or protocol.resolve() in {p.resolve() for p in paths}):
        # protocol.yaml's own problems count when the whole corpus is checked, or when it is named.
        files += 1
        wanted.add(protocol.resolve())
    if not paths:
        return problems, files
    return [p for p in problems if Path(p.path).resolve() in wanted], len(wanted)


def _venue_check_problems(root: Path, loaded: Any) -> list[Problem]:
    """The problems of venue_checks.csv: its rows, and each row against the records."""
    import datetime as dt

    from masrl.living._checks import CHECKS_FILE, check_problems, read_checks

    if not (root / CHECKS_FILE).is_file():
        return []
    checks, problems = read_checks(root)
    venues = loaded.corpus.venues if loaded.corpus.venues.loaded else None
    return [*problems, *check_problems(checks, loaded.corpus.papers, venues, dt.date.today().isoformat())]


@click.command(name="validate")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="Print errors only, not warnings.")
@click.option("--strict", is_flag=True, help="Treat warnings as errors (exit 1 on any).")
@click.pass_context
def command(ctx: click.Context, paths: tuple[Path, ...], quiet: bool, strict: bool) -> None:
    """Check records against the taxonomy and each other.

    Prints every problem as `path:line:column: field: message`, then a count; venues.yaml is
    checked with the records, and protocol.yaml too when it is there. Exits 1 if there is any error (or, with --strict, any warning). With PATHs, reports only those files or folders,
    still checked against the whole corpus.

    Example:

    \b
        masrl validate
        masrl validate papers/c3.yaml
    """
    root = root_of(ctx)
    # The files are looked at once, before validating: a change made while it runs then shows as a
    # change at the next run, never as part of the report remembered now.
    key, newest = (None, 0.0) if paths or caching_off() else _state_key(root)
    known = _known_result(root, key) if key else None
    if known is not None:
        problems, files = known
    else:
        from masrl.corpus._cli import taxonomy_failures

        with taxonomy_failures():
            problems, files = validate_paths(root, paths)
        if key and not has_errors(problems) and time.time() - newest >= RECENT_S:
            # (a file changed a moment ago could change again with the same time stamp)
            rows = [[p.path, p.line, p.column, p.field, p.message, str(p.severity)] for p in problems]
            remember(root, STATE_FILE, key, {"files": files, "problems": rows})
    report(problems, files, quiet=quiet)
    if has_errors(problems) or (strict and problems):
        raise ReportedFailure()


# A whole-corpus validation that found no error is remembered with the build's fingerprint of every
# file it reads (and of masrl itself, the day and the working directory the paths are shown from):
# while nothing changes, the next `masrl validate` prints the same report without loading a record.
STATE_FILE = "validate-state.json"
_FORMAT = 1
RECENT_S = 2.0  # files changed more recently than this are not trusted to show their next change


def _state_key(root: Path) -> tuple[str, float]:
    """The key a report is remembered under, and when the newest file it reads changed."""
    digest, newest = scan(root)
    return f"{_FORMAT}|{digest}|{Path.cwd().resolve()}", newest


def _known_result(root: Path, key: str) -> tuple[list[Problem], int] | None:
    """The remembered report of the last clean whole-corpus validation, if nothing changed since."""
    state = recall(root, STATE_FILE, key)
    if state is None:
        return None
    try:
        problems = [Problem(p, int(ln), int(col), f, m, Severity(sev)) for p, ln, col, f, m, sev in state["problems"]]
        return problems, int(state["files"])
    except (ValueError, KeyError, TypeError):
        return None
