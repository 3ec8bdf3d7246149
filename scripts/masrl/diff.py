"""``masrl diff REV``: what the working tree changes in records, counts and claims since REV."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

import click

from masrl._build import BuildError, analyse
from masrl._cli_common import MasrlError, ReportedFailure, report, root_of
from masrl._vocab import TaxonomyError
from masrl.build import analysis_or_fail

# What a corpus is made of; the rest of the tree does not affect counts or claims.
CORPUS_PATHS = ("taxonomy.yaml", "venues.yaml", "claims.yaml", "papers", "exclusions", "audits")
_RETIRED_LINE = re.compile(r"^entry_type:.*\n", re.M)  # a paper field venues.yaml replaced


def _git(root: Path, *args: str) -> bytes:
    try:
        result = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except FileNotFoundError:
        raise MasrlError("git is not installed; masrl diff reads the old corpus from git") from None
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise MasrlError(f"git {' '.join(args[:2])} failed: {message[-1] if message else 'unknown error'}")
    return result.stdout


def checkout_corpus(root: Path, rev: str, into: Path) -> None:
    """Extract the corpus files of *rev* into *into* (git archive, nothing touches the worktree)."""
    top = Path(_git(root, "rev-parse", "--show-toplevel").decode().strip())
    prefix = root.resolve().relative_to(top.resolve()).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    try:
        _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except MasrlError:
        raise MasrlError(f"'{rev}' is not a commit of this repository (try a branch, tag or hash)") from None
    listed = _git(root, "ls-tree", "--name-only", rev, "--", *[prefix + p for p in CORPUS_PATHS]).decode().split()
    if not listed:
        raise MasrlError(f"{rev} holds no corpus files ({', '.join(CORPUS_PATHS)})")
    archive = _git(root, "archive", "--format=tar", rev, "--", *listed)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    if prefix:
        for item in (into / prefix).iterdir():
            shutil.move(str(item), into / item.name)
    if not (into / "venues.yaml").exists() and (root / "venues.yaml").is_file():
        # A revision from before the venue registry: read with today's registry, its papers'
        # entry_type fields (which the registry now gives) dropped, so its counts compare.
        shutil.copy(root / "venues.yaml", into / "venues.yaml")
        for path in (into / "papers").glob("*.yaml") if (into / "papers").is_dir() else ():
            text = path.read_text("utf-8")
            path.write_text(_RETIRED_LINE.sub("", text), "utf-8")


@click.command(name="diff")
@click.argument("rev", default="HEAD")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also append the Markdown to this file (e.g. $GITHUB_STEP_SUMMARY).",
)
@click.pass_context
def command(ctx: click.Context, rev: str, output: Path | None) -> None:
    """Show what the working tree changes since git revision REV (default HEAD).

    Compares the corpus at REV with the working tree: records added, removed or changed (with
    the fields that changed), counts and cross-tab cells that moved (before → after), and
    claims whose value or status changed. Prints Markdown that can go straight into a pull
    request comment or a CI job summary.

    Example:

    \b
        masrl diff origin/main
        masrl diff HEAD~3 -o "$GITHUB_STEP_SUMMARY"
    """
    from masrl._diff import compare, markdown

    root = root_of(ctx)
    after = analysis_or_fail(root)
    with tempfile.TemporaryDirectory(prefix="masrl-diff-") as tmp:
        checkout_corpus(root, rev, Path(tmp))
        try:
            before = analyse(Path(tmp), strict=False)
        except TaxonomyError as exc:
            raise MasrlError(f"the taxonomy at {rev} does not load: {exc.problems[0].message}") from None
        except BuildError as exc:
            report(exc.problems, exc.files)
            click.echo(f"claims.yaml at {rev} does not load", err=True)
            raise ReportedFailure() from None
    text = markdown(compare(before, after), rev, "working tree")
    click.echo(text, nl=False)
    if output is not None:
        with output.open("a", encoding="utf-8") as handle:
            handle.write(text)
