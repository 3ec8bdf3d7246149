"""``masrl release VERSION``: a tagged, citable release of the corpus."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import click

from masrl.base._cli_common import MasrlError, root_of
from masrl.base._git import checkout_corpus, git, resolve


def _today() -> str:
    return dt.date.today().isoformat()


@click.command(name="release")
@click.argument("version")
@click.option(
    "--date",
    "date",
    default=None,
    metavar="YYYY-MM-DD",
    help="The release date written to CHANGELOG.md, CITATION.cff and .zenodo.json (default: today).",
)
@click.pass_context
def command(ctx: click.Context, version: str, date: str | None) -> None:
    """Make release VERSION (a calendar version such as 2026.12): changelog, citation, tag.

    The working tree must be clean (everything committed) and built (`masrl check` passes).
    Then it writes the CHANGELOG.md entry (papers added, exclusions, corrections from `changes`
    entries, claims whose verdict moved and taxonomy changes since the last release tag), sets
    `version` and `date-released` in CITATION.cff, writes .zenodo.json (the metadata Zenodo reads
    when it archives the GitHub release and gives it a DOI), rebuilds the generated files, commits
    all of it as "Release VERSION" and tags that commit VERSION. Push the tag to publish it:
    the release workflow attaches the data package and the BibTeX to the GitHub release.

    Example:

    \b
        masrl release 2026.12
        git push origin main 2026.12
    """
    from masrl.build import analysis_or_fail, generate
    from masrl.check import drift
    from masrl.corpus._vocab import SURVEY
    from masrl.corpus._yaml import YamlError, load_path
    from masrl.publish import _release as r
    from masrl.publish import _state
    from masrl.publish._build import analyse

    root = root_of(ctx)
    date = date or _today()
    try:
        dt.date.fromisoformat(date)
    except ValueError:
        raise MasrlError(f"--date: '{date}' is not a date (YYYY-MM-DD)") from None
    try:
        r.check_version(version, date)
        since = r.last_release(git(root, "tag", "--list").decode().split(), version)
    except r.ReleaseError as exc:
        raise MasrlError(str(exc)) from None
    dirty = git(root, "status", "--porcelain", "--untracked-files=normal", "--", ".").decode().splitlines()
    if dirty:
        shown = ", ".join(line[3:] for line in dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
        raise MasrlError(f"the working tree has uncommitted changes ({shown}); commit or stash them first")
    # As `masrl check` does: when nothing changed since a run found every generated file current,
    # they still are, and rendering the whole site again only to compare it is skipped.
    lines = [] if _state.current_outputs(root) is not None else drift(root, generate(root))
    if lines:
        raise MasrlError(f"generated files are out of date ({lines[0]}); run `masrl build` and commit the result")
    after = analysis_or_fail(root, arms=False)  # the changelog compares records, not the arms
    before = None
    snapshot = None
    if since is None and after.corpus.snapshot().papers:
        # The first release: its changes are counted from the survey snapshot, which gets an entry of its own.
        snapshot = analyse(root, strict=False, snapshot=SURVEY)
    if since is not None:
        with tempfile.TemporaryDirectory(prefix="masrl-release-") as tmp:
            checkout_corpus(root, resolve(root, since), Path(tmp))
            before = analyse(Path(tmp), strict=False)
    citation_path = root / r.CITATION
    try:
        citation_text = citation_path.read_text("utf-8")
        citation = load_path(citation_path).data
    except OSError:
        raise MasrlError(f"{r.CITATION} not found in {root}; a release needs it") from None
    except YamlError as exc:
        raise MasrlError(f"{r.CITATION} does not parse: {exc}") from None
    if not isinstance(citation, dict) or "title" not in citation:
        raise MasrlError(f"{r.CITATION}: title: missing; a release needs the corpus's title")
    try:
        files = {
            r.CHANGELOG: r.with_entry(
                _read(root / r.CHANGELOG),
                r.changelog_entry(version, date, before, since, after)
                if snapshot is None
                else r.changelog_entry(version, date, snapshot, "the survey snapshot", after)
                + "\n"
                + r.snapshot_entry(snapshot),
            ),
            r.CITATION: r.with_version(citation_text, version, date),
            r.ZENODO: r.zenodo(citation, version, date),
        }
    except r.ReleaseError as exc:
        raise MasrlError(str(exc)) from None
    from masrl.base._writer import write_all

    write_all(root, files)
    write_all(root, generate(root))  # the site's citation and Releases page read what was just written
    git(root, "add", "-A", "--", ".")
    git(root, "commit", "-q", "-m", f"Release {version}")
    git(root, "tag", "-a", version, "-m", f"masrl {version}")
    click.echo(f"released {version}: wrote {', '.join(files)}, committed and tagged {version}", err=True)
    click.echo(f"push it with: git push origin HEAD {version}", err=True)


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8")
    except OSError:
        return None
