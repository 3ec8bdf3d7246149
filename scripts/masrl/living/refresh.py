"""``masrl refresh``: compare papers' facts with arXiv, OpenAlex and Crossref; show or apply the diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from masrl.base._cli_common import MasrlError, root_of
from masrl.corpus._cli import load_or_fail
from masrl.corpus._records import Paper


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, list):
        return "[" + "; ".join(map(str, value)) + "]"
    return str(value)


def diff_text(paper: Paper, changes: list[Any]) -> str:
    """One record's changes: a header line, then `field: old -> new  (source)` per change."""
    lines = [paper.path]
    for c in changes:
        if c.field == "authors":
            lines.append(f"  authors: {len(c.old)} -> {len(c.new)} names  ({c.source})")
            lines.extend(f"    + {name}" for name in c.new if name not in c.old)
        else:
            lines.append(f"  {c.field}: {_shown(c.old)} -> {_shown(c.new)}  ({c.source})")
    return "\n".join(lines) + "\n"


@click.command(name="refresh")
@click.argument("keys", nargs=-1, metavar="[KEY]...")
@click.option("--write", is_flag=True, help="Apply the changes to the records (default: only show them).")
@click.pass_context
def command(ctx: click.Context, keys: tuple[str, ...], write: bool) -> None:
    """Fetch current facts for papers and show what changed since they were recorded.

    Asks arXiv (by id, or by title for a paper without one), OpenAlex and Crossref (by DOI) for
    the published venue and year, the DOI, the arXiv id, the full author list and the official
    code repository where a source names one; prints a diff per record with the source of each
    change. With --write, applies them, keeping each record's comments and field order. Tags,
    summaries, notes and evidence are never touched. Answers are cached in .masrl-cache/.

    Example:

    \b
        masrl refresh rema2025 sirius2025
        masrl refresh --write
    """
    from masrl.corpus._format import FormatError, format_record
    from masrl.corpus._schema import check_record
    from masrl.corpus._yaml import YamlError, load_text
    from masrl.living._facts import gather, proposals
    from masrl.living._net import CACHE_DIR, NetworkError
    from masrl.living._sources import SourceError

    root = root_of(ctx)
    corpus = load_or_fail(root).corpus
    by_key = {p.key: p for p in corpus.papers}
    unknown = [k for k in keys if k not in by_key]
    if unknown:
        raise MasrlError(f"no paper with key {', '.join(map(repr, unknown))} in papers/")
    papers = [by_key[k] for k in keys] if keys else list(corpus.papers)
    try:
        sources = gather(papers, root / CACHE_DIR)
    except (NetworkError, SourceError) as exc:
        raise MasrlError(str(exc)) from None
    from masrl.living._queue import Known

    known = Known(corpus)
    changed = 0
    for paper in papers:
        changes = []
        for change in proposals(paper, sources[paper.key]):
            # An id that another record already holds would make two records one work.
            other = None
            if change.field == "arxiv":
                other = known.match(change.new, None, None, "")
            elif change.field == "doi":
                other = known.match(None, change.new, None, "")
            if other is not None and other != paper.key:
                click.echo(f"{paper.path}: {change.field} {change.new} left out: {other} already has it", err=True)
                continue
            changes.append(change)
        if not changes:
            continue
        changed += 1
        click.echo(diff_text(paper, changes), nl=False)
        if not write:
            continue
        path = root / "papers" / f"{paper.key}.yaml"
        text = path.read_text("utf-8")
        try:
            new = format_record("paper", text, corpus.taxonomy, {c.field: c.new for c in changes})
            problems = list(check_record("paper", load_text(new), paper.path, corpus.taxonomy))
        except (YamlError, FormatError) as exc:
            click.echo(f"  not written: {exc}", err=True)
            continue
        if problems:
            click.echo(f"  not written: {'; '.join(f'{p.field}: {p.message}' for p in problems)}", err=True)
            continue
        from masrl.base._writer import write_if_changed

        write_if_changed(Path(path), new)
        click.echo("  written")
    verb = "changed" if write else "would change"
    click.echo(f"{changed} of {len(papers)} records {verb}", err=True)
