"""``masrl validate``: check records and report every problem at once."""

from __future__ import annotations

from pathlib import Path

import click

from masrl.base._cli_common import ReportedFailure, report, root_of
from masrl.base._problems import Problem, has_errors
from masrl.corpus._cli import taxonomy_failures
from masrl.corpus._load import kind_of, load_corpus
from masrl.corpus._venues import VENUES_FILE
from masrl.living._protocol import PROTOCOL_FILE, check_with_records


def validate_paths(root: Path, paths: tuple[Path, ...]) -> tuple[list[Problem], int]:
    """Problems for the corpus at *root*, restricted to *paths* when given.

    The whole corpus is always loaded, so cross-record rules (a duplicate arXiv id, a paper that
    is also excluded) see every record; files in *paths* outside the corpus are checked as
    records of the kind their folder names.
    """
    extra = []
    wanted: set[Path] = set()
    for path in paths:
        for file in sorted(path.rglob("*.yaml")) if path.is_dir() else [path]:
            if file.resolve() == (root / PROTOCOL_FILE).resolve():
                continue
            if file.resolve() == (root / VENUES_FILE).resolve():
                wanted.add(file.resolve())  # loaded with the corpus; its problems are reported
                continue
            kind = kind_of(file) or "paper"
            extra.append((kind, file))
            wanted.add(file.resolve())
    loaded = load_corpus(root, extra, write_cache=True)
    problems, files = loaded.problems, loaded.files
    protocol_, crossed = check_with_records(root, loaded)
    problems = [*problems, *crossed]
    if protocol_ is not None and protocol_.arms:
        from masrl.living._arms import CANDIDATES_FILE, FOUND_BY_FILE, check_found_by

        problems.extend(check_found_by(root, protocol_, loaded.corpus))
        files += sum((root / name).is_file() for name in (FOUND_BY_FILE, CANDIDATES_FILE))
    problems = sorted(problems)
    protocol = root / PROTOCOL_FILE
    if protocol.is_file() and (not paths or protocol.resolve() in {p.resolve() for p in paths}):
        # protocol.yaml's own problems count when the whole corpus is checked, or when it is named.
        files += 1
        wanted.add(protocol.resolve())
    if not paths:
        return problems, files
    return [p for p in problems if Path(p.path).resolve() in wanted], len(wanted)


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
    with taxonomy_failures():
        problems, files = validate_paths(root, paths)
    report(problems, files, quiet=quiet)
    if has_errors(problems) or (strict and problems):
        raise ReportedFailure()
