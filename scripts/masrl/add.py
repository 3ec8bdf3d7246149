"""``masrl add``: scaffold new paper records from BibTeX or an arXiv id, refusing duplicates."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from masrl._cli_common import MasrlError, ReportedFailure, load_tolerating_unfinished, root_of
from masrl._records import PAPERS_DIR


@click.command(name="add")
@click.option(
    "--bib",
    "bib",
    type=click.Path(allow_dash=True, dir_okay=False, path_type=Path),
    help="A BibTeX file with one or more entries, or - to read standard input.",
)
@click.option(
    "--arxiv",
    "arxiv_ids",
    multiple=True,
    metavar="ID",
    help="An arXiv id such as 2508.04652 (repeatable); fetches metadata from the arXiv API.",
)
@click.option("--dry-run", is_flag=True, help="Print the scaffolds instead of writing them.")
@click.pass_context
def command(ctx: click.Context, bib: Path | None, arxiv_ids: tuple[str, ...], dry_run: bool) -> None:
    """Scaffold papers/<key>.yaml for new entries, with the facts filled in.

    Title, authors, year, venue, identifiers and entry type come from the citation; the tags,
    summary and sub-decisions are left for you, each under a comment listing the allowed values.
    The key follows the house style (short name + year). Nothing is written if any entry is
    already in the corpus or the exclusion log (same arXiv id, DOI, URL, or a near-identical
    title) or if the BibTeX does not parse.

    Example:

    \b
        masrl add --bib new-paper.bib
        pbpaste | masrl add --bib -
        masrl add --arxiv 2410.08115
    """
    from masrl._format import folder_of
    from masrl._scaffold import (
        Candidate,
        candidates_from_bibtex,
        check_identifier,
        house_key,
        refusals,
        scaffold,
        unfinished_records,
    )

    if (bib is None) == (not arxiv_ids):
        raise MasrlError("give either --bib FILE (or -) or --arxiv ID")
    root = root_of(ctx)
    loaded = load_tolerating_unfinished(root)
    corpus = loaded.corpus
    unfinished = unfinished_records(loaded)
    problems: list[str] = []
    candidates: list[Candidate] = []
    if bib is not None:
        text = sys.stdin.read() if str(bib) == "-" else _read(bib)
        candidates, problems = candidates_from_bibtex(text, corpus.venues)
        if not candidates and not problems:
            problems.append("no BibTeX entry found in the input")
    else:
        from masrl._arxiv import ArxivError, fetch, parse

        notes: list[str] = []
        for raw in arxiv_ids:
            arxiv_id = re.sub(r"^(arxiv:|https?://arxiv\.org/abs/)", "", raw.strip(), flags=re.I)
            if not check_identifier("arxiv", arxiv_id):
                problems.append(f"{raw!r} is not an arXiv id (expected e.g. 2508.04652)")
                continue
            try:
                candidates.append(parse(fetch(arxiv_id), arxiv_id, notes, corpus.venues))
            except ArxivError as exc:
                raise MasrlError(str(exc)) from None
        for note in notes:
            click.echo(f"note: {note}", err=True)
    taken = {p.key for p in corpus.papers} | {h.name for h in loaded.handles if h.kind == "paper" and h.name}
    planned: list[tuple[str, str]] = []
    for i, candidate in enumerate(candidates):
        for reason in refusals(candidate, corpus, candidates[:i], unfinished):
            problems.append(f"{candidate.source}: not added: {reason}")
        if candidate.arxiv and not check_identifier("arxiv", candidate.arxiv):
            problems.append(f"{candidate.source}: arXiv id {candidate.arxiv!r} is malformed")
        key = house_key(candidate, taken)
        taken.add(key)
        planned.append((key, scaffold(candidate, key, corpus.taxonomy, corpus.venues)))
    if problems:
        for problem in problems:
            click.echo(problem, err=True)
        click.echo("Nothing was written.", err=True)
        raise ReportedFailure()
    folder = root / folder_of("paper")
    for key, text in planned:
        path = folder / f"{key}.yaml"
        if dry_run:
            click.echo(f"# --- {PAPERS_DIR}/{key}.yaml\n{text}")
            continue
        folder.mkdir(exist_ok=True)
        with path.open("x", encoding="utf-8") as handle:  # never overwrite
            handle.write(text)
        click.echo(f"wrote {PAPERS_DIR}/{key}.yaml")
    if not dry_run:
        click.echo("Next: fill in the empty fields, then `masrl validate` and `masrl diff origin/main`.", err=True)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise MasrlError(f"{path} is not UTF-8 text") from None
    except OSError as exc:
        raise MasrlError(f"cannot read {path}: {exc.strerror}") from None
